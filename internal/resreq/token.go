package resreq

// Token is a lexical token of the resource requirement language.
type Token int

// The tokens. Section keywords (select, order...) and function names
// (defined) are identifiers; the parser gives them meaning by context.
const (
	ILLEGAL Token = iota
	EOF

	IDENT   // mem, type, x86_64, select
	NUMBER  // 100, 1.5, .5, 4GB, 10m (a number and its unit suffix)
	STRING  // 'value' (single quotes)
	DSTRING // "value" (double quotes: only around the whole string)

	LPAREN // (
	RPAREN // )
	LBRACK // [
	RBRACK // ]
	LBRACE // {
	RBRACE // }
	COMMA  // ,
	COLON  // :

	NOT    // !
	MUL    // *
	QUO    // /
	ADD    // +
	SUB    // -
	GTR    // >
	LSS    // <
	GEQ    // >=
	LEQ    // <=
	EQL    // ==
	ASSIGN // =
	NEQ    // !=
	LAND   // &&
	LOR    // ||
)

var tokenStrings = [...]string{
	ILLEGAL: "ILLEGAL",
	EOF:     "EOF",
	IDENT:   "IDENT",
	NUMBER:  "NUMBER",
	STRING:  "STRING",
	DSTRING: "DSTRING",
	LPAREN:  "(",
	RPAREN:  ")",
	LBRACK:  "[",
	RBRACK:  "]",
	LBRACE:  "{",
	RBRACE:  "}",
	COMMA:   ",",
	COLON:   ":",
	NOT:     "!",
	MUL:     "*",
	QUO:     "/",
	ADD:     "+",
	SUB:     "-",
	GTR:     ">",
	LSS:     "<",
	GEQ:     ">=",
	LEQ:     "<=",
	EQL:     "==",
	ASSIGN:  "=",
	NEQ:     "!=",
	LAND:    "&&",
	LOR:     "||",
}

func (t Token) String() string {
	if t >= 0 && int(t) < len(tokenStrings) {
		return tokenStrings[t]
	}
	return "Token(?)"
}

// Precedence levels of the select string's binary operators, lowest first.
// ColonPrec is the old colon-separated condition list (non-strict only),
// which binds loosest of all.
const (
	LowestPrec = 0 // not a binary operator
	ColonPrec  = 1
	UnaryPrec  = 8
)

// Precedence returns the binary operator precedence of t, or LowestPrec.
// The seed's table, in decreasing precedence: unary - and !; * /; + -;
// > < >= <=; == !=; &&; ||. All binary operators are left-associative.
func (t Token) Precedence() int {
	switch t {
	case COLON:
		return ColonPrec
	case LOR:
		return 2
	case LAND:
		return 3
	case EQL, NEQ, ASSIGN:
		return 4
	case GTR, LSS, GEQ, LEQ:
		return 5
	case ADD, SUB:
		return 6
	case MUL, QUO:
		return 7
	}
	return LowestPrec
}

// IsComparison reports whether t compares its operands (> < >= <= == != =).
func (t Token) IsComparison() bool {
	switch t {
	case GTR, LSS, GEQ, LEQ, EQL, NEQ, ASSIGN:
		return true
	}
	return false
}

// IsArithmetic reports whether t is * / + -.
func (t Token) IsArithmetic() bool {
	switch t {
	case MUL, QUO, ADD, SUB:
		return true
	}
	return false
}

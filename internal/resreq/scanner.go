package resreq

// ErrorHandler receives scanning errors: the byte offset and a message.
type ErrorHandler func(pos int, near, msg string)

// Scanner tokenizes a resource requirement string. Positions are byte
// offsets into the string given to Init plus the base offset.
type Scanner struct {
	// immutable state
	src  string
	base int
	err  ErrorHandler

	// scanning state
	offset     int
	ErrorCount int
}

// Init prepares s to scan src. base is added to every reported position (the
// offset of src within a larger string, e.g. after removing outer quotes).
func (s *Scanner) Init(src string, base int, err ErrorHandler) {
	s.src = src
	s.base = base
	s.err = err
	s.offset = 0
	s.ErrorCount = 0
}

func (s *Scanner) error(pos int, near, msg string) {
	if s.err != nil {
		s.err(s.base+pos, near, msg)
	}
	s.ErrorCount++
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isSpace(c byte) bool  { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Scan returns the next token: its position, kind and literal text. For
// NUMBER the literal includes any unit suffix ("4GB", "10m"); for STRING and
// DSTRING it is the text between the quotes. For operators it is the
// operator's text.
func (s *Scanner) Scan() (pos int, tok Token, lit string) {
	for s.offset < len(s.src) && isSpace(s.src[s.offset]) {
		s.offset++
	}
	start := s.offset
	pos = s.base + start
	if s.offset >= len(s.src) {
		return pos, EOF, ""
	}
	c := s.src[s.offset]
	switch {
	case isLetter(c):
		for s.offset < len(s.src) && (isLetter(s.src[s.offset]) || isDigit(s.src[s.offset])) {
			s.offset++
		}
		return pos, IDENT, s.src[start:s.offset]
	case isDigit(c) || c == '.' && s.offset+1 < len(s.src) && isDigit(s.src[s.offset+1]):
		s.scanNumber()
		return pos, NUMBER, s.src[start:s.offset]
	case c == '\'' || c == '"':
		s.offset++
		for s.offset < len(s.src) && s.src[s.offset] != c {
			s.offset++
		}
		if s.offset >= len(s.src) {
			s.error(start, s.src[start:], "string not terminated")
			return pos, ILLEGAL, s.src[start:]
		}
		lit = s.src[start+1 : s.offset]
		s.offset++
		if c == '"' {
			return pos, DSTRING, lit
		}
		return pos, STRING, lit
	}
	s.offset++
	two := func(next byte, t2, t1 Token) (int, Token, string) {
		if s.offset < len(s.src) && s.src[s.offset] == next {
			s.offset++
			return pos, t2, s.src[start:s.offset]
		}
		return pos, t1, s.src[start:s.offset]
	}
	switch c {
	case '(':
		tok = LPAREN
	case ')':
		tok = RPAREN
	case '[':
		tok = LBRACK
	case ']':
		tok = RBRACK
	case '{':
		tok = LBRACE
	case '}':
		tok = RBRACE
	case ',':
		tok = COMMA
	case ':':
		tok = COLON
	case '*':
		tok = MUL
	case '/':
		tok = QUO
	case '+':
		tok = ADD
	case '-':
		tok = SUB
	case '>':
		return two('=', GEQ, GTR)
	case '<':
		return two('=', LEQ, LSS)
	case '=':
		return two('=', EQL, ASSIGN)
	case '!':
		return two('=', NEQ, NOT)
	case '&':
		if s.offset < len(s.src) && s.src[s.offset] == '&' {
			s.offset++
			return pos, LAND, "&&"
		}
		s.error(start, "&", "use && for logical and")
		return pos, ILLEGAL, "&"
	case '|':
		if s.offset < len(s.src) && s.src[s.offset] == '|' {
			s.offset++
			return pos, LOR, "||"
		}
		s.error(start, "|", "use || for logical or")
		return pos, ILLEGAL, "|"
	default:
		// Consume a whole UTF-8 sequence so the message shows the character.
		for s.offset < len(s.src) && s.src[s.offset]&0xC0 == 0x80 {
			s.offset++
		}
		lit = s.src[start:s.offset]
		s.error(start, lit, "illegal character")
		return pos, ILLEGAL, lit
	}
	return pos, tok, s.src[start:s.offset]
}

// scanNumber consumes digits [. digits] and an attached suffix of letters,
// digits and underscores (a unit: 4GB, 10m; anything else is reported by the
// parser, which knows where units are allowed).
func (s *Scanner) scanNumber() {
	for s.offset < len(s.src) && isDigit(s.src[s.offset]) {
		s.offset++
	}
	if s.offset < len(s.src) && s.src[s.offset] == '.' {
		s.offset++
		for s.offset < len(s.src) && isDigit(s.src[s.offset]) {
			s.offset++
		}
	}
	if s.offset < len(s.src) && isLetter(s.src[s.offset]) {
		for s.offset < len(s.src) && (isLetter(s.src[s.offset]) || isDigit(s.src[s.offset])) {
			s.offset++
		}
	}
}

// splitNumber splits a NUMBER literal into its numeric text and unit suffix.
func splitNumber(lit string) (num, unit string) {
	i := 0
	for i < len(lit) && (isDigit(lit[i]) || lit[i] == '.') {
		i++
	}
	return lit[:i], lit[i:]
}

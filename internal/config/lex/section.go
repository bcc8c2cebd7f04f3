package lex

import (
	"strings"
)

// Token is a field of a line: a word, a parenthesised or bracketed group or
// a double-quoted string, with the position of its first byte.
type Token struct {
	Pos  Pos
	Text string
}

// IsDefault reports whether the token stands for a column's default: "()"
// or "-" (blank parentheses included).
func (t Token) IsDefault() bool {
	if t.Text == "-" {
		return true
	}
	if len(t.Text) >= 2 && t.Text[0] == '(' && t.Text[len(t.Text)-1] == ')' {
		return strings.TrimSpace(t.Text[1:len(t.Text)-1]) == ""
	}
	return false
}

// IsGroup reports whether the token is a parenthesised group.
func (t Token) IsGroup() bool {
	return len(t.Text) >= 2 && t.Text[0] == '(' && t.Text[len(t.Text)-1] == ')'
}

// Inner strips one pair of enclosing parentheses (or double quotes), with
// the blanks inside them; other tokens are returned as they are.
func (t Token) Inner() Token {
	s := t.Text
	if len(s) >= 2 && (s[0] == '(' && s[len(s)-1] == ')' || s[0] == '"' && s[len(s)-1] == '"') {
		inner := s[1 : len(s)-1]
		trimmed := strings.TrimLeft(inner, " \t")
		off := 1 + len(inner) - len(trimmed)
		return Token{Pos: t.Pos.Add(off), Text: strings.TrimRight(trimmed, " \t")}
	}
	return t
}

// Words splits the token's Inner text into fields.
func (t Token) Words(d *Diagnostics) []Token {
	in := t.Inner()
	return Fields(in.Text, func(off int) Pos { return in.Pos.Add(off) }, d)
}

// Fields splits text into tokens separated by blanks. Parentheses, square
// brackets and double quotes group: a token ends at a blank only outside
// them, so "(a b)", "[x y]", "2@[all ~h]" and "\"a b\"" are single tokens.
// pos maps a byte offset of text to its position. Unbalanced groups are
// reported to d and end at the end of the text.
func Fields(text string, pos func(off int) Pos, d *Diagnostics) []Token {
	var out []Token
	i := 0
	for i < len(text) {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if i == len(text) {
			break
		}
		start := i
		var stack []byte
		inQuote := false
		for i < len(text) {
			c := text[i]
			if inQuote {
				if c == '"' {
					inQuote = false
				}
				i++
				continue
			}
			if len(stack) == 0 && (c == ' ' || c == '\t') {
				break
			}
			switch c {
			case '"':
				inQuote = true
			case '(':
				stack = append(stack, ')')
			case '[':
				stack = append(stack, ']')
			case ')', ']':
				if len(stack) > 0 && stack[len(stack)-1] == c {
					stack = stack[:len(stack)-1]
				} else if d != nil {
					d.Warnf(pos(i), "unbalanced '%c'", c)
				}
			}
			i++
		}
		if d != nil {
			switch {
			case inQuote:
				d.Warnf(pos(start), "unterminated quoted string")
			case len(stack) > 0:
				d.Warnf(pos(start), "missing '%c'", stack[len(stack)-1])
			}
		}
		out = append(out, Token{Pos: pos(start), Text: text[start:i]})
	}
	return out
}

// Fields splits the line into tokens (see the package function Fields).
func (l Line) Fields(d *Diagnostics) []Token {
	return Fields(l.Text, l.PosAt, d)
}

// KeyValue is one "KEY = value" line of a horizontal section.
type KeyValue struct {
	Key      string
	KeyPos   Pos
	Value    string // trimmed; may be empty
	ValuePos Pos
	Line     Line
}

// KeyValues reads the section as KEY = value lines. Lines that are not of
// that form are reported and skipped.
func (s *Section) KeyValues(d *Diagnostics) []KeyValue {
	var out []KeyValue
	for _, l := range s.Lines {
		eq := strings.IndexByte(l.Text, '=')
		if eq < 0 {
			d.Warnf(l.Pos, "section %s: expected KEY = value, found %q; line ignored", s.Name, l.Text)
			continue
		}
		key := strings.TrimSpace(l.Text[:eq])
		if key == "" || strings.ContainsAny(key, " \t") {
			d.Warnf(l.Pos, "section %s: bad keyword %q; line ignored", s.Name, key)
			continue
		}
		vstart := eq + 1
		for vstart < len(l.Text) && (l.Text[vstart] == ' ' || l.Text[vstart] == '\t') {
			vstart++
		}
		out = append(out, KeyValue{
			Key: key, KeyPos: l.Pos,
			Value: strings.TrimSpace(l.Text[vstart:]), ValuePos: l.PosAt(vstart),
			Line: l,
		})
	}
	return out
}

// Horizontal reports whether the section uses KEY = value lines (its first
// line has a '=' outside brackets) rather than a table.
func (s *Section) Horizontal() bool {
	if len(s.Lines) == 0 {
		return false
	}
	depth := 0
	for _, c := range s.Lines[0].Text {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '=':
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

// Table is a vertical section: a header of column names and rows.
type Table struct {
	Section *Section
	Columns []Token
	Rows    []Row
}

// Row is one row of a table, with exactly one field per column.
type Row struct {
	Pos    Pos
	Fields []Token
}

// Table reads the section as a table. Rows whose number of fields differs
// from the number of columns are reported and skipped (LSF: "values do not
// match keys"). A section without lines gives a table without columns.
func (s *Section) Table(d *Diagnostics) *Table {
	t := &Table{Section: s}
	if len(s.Lines) == 0 {
		return t
	}
	t.Columns = s.Lines[0].Fields(d)
	seen := map[string]bool{}
	for _, c := range t.Columns {
		u := strings.ToUpper(c.Text)
		if seen[u] {
			d.Warnf(c.Pos, "section %s: column %s appears twice; the first one is used", s.Name, c.Text)
		}
		seen[u] = true
	}
	for _, l := range s.Lines[1:] {
		f := l.Fields(d)
		if len(f) != len(t.Columns) {
			d.Warnf(l.Pos, "section %s: values do not match keys (%d values for %d columns); line ignored", s.Name, len(f), len(t.Columns))
			continue
		}
		t.Rows = append(t.Rows, Row{Pos: l.Pos, Fields: f})
	}
	return t
}

// Col returns the index of the column named name (case-insensitively), or
// -1.
func (t *Table) Col(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Text, name) {
			return i
		}
	}
	return -1
}

// Get returns the row's field in column col, and false when col is -1 (the
// column does not exist) or the field is a default ("()" or "-").
func (r Row) Get(col int) (Token, bool) {
	if col < 0 || col >= len(r.Fields) {
		return Token{}, false
	}
	t := r.Fields[col]
	if t.IsDefault() {
		return t, false
	}
	return t, true
}

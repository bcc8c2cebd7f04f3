package esub

import (
	"fmt"
	"strings"
)

// Assignment is one NAME=value line of a modify file.
type Assignment struct {
	Name  string
	Value string
	Line  int
}

// Error is a malformed line of a file esub wrote, positioned.
type Error struct {
	File string
	Line int
	Col  int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// ErrorList is every error of a file.
type ErrorList []*Error

func (l ErrorList) Error() string {
	if len(l) == 1 {
		return l[0].Error()
	}
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// ParseAssignments reads the NAME=value lines esub writes to
// LSB_SUB_MODIFY_FILE and LSB_SUB_MODIFY_ENVFILE, as the Bourne shell
// would: a value is made of unquoted characters (backslash escapes the
// next one), "double-quoted" strings (backslash escapes " \ $ and `) and
// 'single-quoted' ones; blank lines and # comments are ignored; an
// optional "export " prefix is accepted. A later assignment of a name wins
// (the list keeps both, in order).
func ParseAssignments(file string, src []byte) ([]Assignment, error) {
	var out []Assignment
	var errs ErrorList
	for n, raw := range strings.Split(string(src), "\n") {
		line := strings.TrimSuffix(raw, "\r")
		a, err := parseLine(line)
		if err != nil {
			err.File, err.Line = file, n+1
			errs = append(errs, err)
			continue
		}
		if a != nil {
			a.Line = n + 1
			out = append(out, *a)
		}
	}
	if len(errs) > 0 {
		return out, errs
	}
	return out, nil
}

func isNameStart(c byte) bool { return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }
func isNameChar(c byte) bool  { return isNameStart(c) || c >= '0' && c <= '9' }

func parseLine(s string) (*Assignment, *Error) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i == len(s) || s[i] == '#' {
		return nil, nil
	}
	if strings.HasPrefix(s[i:], "export ") {
		i += len("export ")
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	start := i
	if i == len(s) || !isNameStart(s[i]) {
		return nil, &Error{Col: i + 1, Msg: "expected a variable name"}
	}
	for i < len(s) && isNameChar(s[i]) {
		i++
	}
	name := s[start:i]
	if i == len(s) || s[i] != '=' {
		return nil, &Error{Col: i + 1, Msg: fmt.Sprintf("expected '=' after %s", name)}
	}
	i++
	var b strings.Builder
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			rest := strings.TrimLeft(s[i:], " \t")
			if rest != "" && rest[0] != '#' {
				return nil, &Error{Col: len(s) - len(rest) + 1, Msg: "unexpected text after the value (quote values with blanks)"}
			}
			return &Assignment{Name: name, Value: b.String()}, nil
		case c == '\\':
			if i+1 == len(s) {
				return nil, &Error{Col: i + 1, Msg: "backslash at the end of the line"}
			}
			b.WriteByte(s[i+1])
			i += 2
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, &Error{Col: i + 1, Msg: "unterminated single-quoted string"}
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case c == '"':
			j := i + 1
			closed := false
			for j < len(s) {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\"\\$`", s[j+1]) >= 0 {
					b.WriteByte(s[j+1])
					j += 2
					continue
				}
				if s[j] == '"' {
					closed = true
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if !closed {
				return nil, &Error{Col: i + 1, Msg: "unterminated double-quoted string"}
			}
			i = j + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return &Assignment{Name: name, Value: b.String()}, nil
}

package cli

import (
	"fmt"
	"strings"
)

// ScriptError is a #BSUB line that cannot be read.
type ScriptError struct {
	Line int
	Col  int
	Msg  string
}

func (e *ScriptError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// parseBSUBLines extracts the options of a job script's "#BSUB" lines, in
// order. As in LSF, directives are read until the first line that is
// neither blank, a comment nor the #! line; values may be quoted, and a
// trailing "# comment" is ignored.
func parseBSUBLines(script string) ([]string, error) {
	var args []string
	for i, line := range strings.Split(script, "\n") {
		t := strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if t == "" {
			continue
		}
		if !strings.HasPrefix(t, "#") {
			break // the first command ends the directives
		}
		// "#BSUB" and "# BSUB" are both directives (LSF skips blanks
		// after the #).
		d := strings.TrimLeft(t[1:], " \t")
		if !strings.HasPrefix(d, "BSUB") {
			continue
		}
		rest := d[len("BSUB"):]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue // e.g. #BSUBX: not a directive
		}
		words, err := shellWords(rest)
		if err != nil {
			col := strings.Index(line, "BSUB") + len("BSUB") + 1 + err.(*ScriptError).Col
			return nil, &ScriptError{Line: i + 1, Col: col, Msg: err.(*ScriptError).Msg}
		}
		args = append(args, words...)
	}
	return args, nil
}

// shellWords splits s like the shell does for simple words: blanks separate
// words, single and double quotes group, backslash escapes in double quotes
// and outside quotes, an unquoted # starts a comment.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, &ScriptError{Col: i, Msg: "unterminated ' quote"}
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\"\\$`", s[j+1]) >= 0 {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, &ScriptError{Col: i, Msg: `unterminated " quote`}
			}
			i = j
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

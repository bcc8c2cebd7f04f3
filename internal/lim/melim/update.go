package melim

import (
	"fmt"
	"math"
	"strconv"
)

// InfiniteLoad is LSF's INFINIT_LOAD: reported values must lie strictly
// between -InfiniteLoad and InfiniteLoad.
const InfiniteLoad = float64(1e30)

// Value is one reported index.
type Value struct {
	Name  string
	Value float64
}

// SyntaxError is a malformed load update string; Col is the 1-based column
// of the offending word.
type SyntaxError struct {
	Col int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

type word struct {
	text string
	col  int
}

func words(s string) []word {
	var out []word
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' {
			j++
		}
		if j > i {
			out = append(out, word{s[i:j], i + 1})
		}
		i = j
	}
	return out
}

// ParseUpdate parses a load update string. The count must match the pairs
// that follow, names must be well formed, values finite numbers within
// ±InfiniteLoad. An empty line reports nothing.
func ParseUpdate(line string) ([]Value, error) {
	w := words(line)
	if len(w) == 0 {
		return nil, nil
	}
	n, err := strconv.Atoi(w[0].text)
	if err != nil || n < 0 {
		return nil, &SyntaxError{w[0].col, fmt.Sprintf("number of indices %q is not a non-negative integer", w[0].text)}
	}
	if got := len(w) - 1; got != 2*n {
		end := len(line) + 1
		if got > 2*n {
			end = w[1+2*n].col
			return nil, &SyntaxError{end, fmt.Sprintf("%d indices announced, but more words follow", n)}
		}
		return nil, &SyntaxError{end, fmt.Sprintf("%d indices announced, %d name/value words found", n, got)}
	}
	out := make([]Value, 0, n)
	for i := 0; i < n; i++ {
		name, val := w[1+2*i], w[2+2*i]
		if p := nameProblem(name.text); p != "" {
			return nil, &SyntaxError{name.col, fmt.Sprintf("index name %q %s", name.text, p)}
		}
		v, err := strconv.ParseFloat(val.text, 64)
		if err != nil || math.IsNaN(v) || v <= -InfiniteLoad || v >= InfiniteLoad {
			return nil, &SyntaxError{val.col, fmt.Sprintf("value %q of %s is not a number within ±INFINIT_LOAD", val.text, name.text)}
		}
		out = append(out, Value{name.text, v})
	}
	return out, nil
}

func nameProblem(s string) string {
	if s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s[0] == '.' {
		return "starts with a digit or sign"
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Sprintf("contains %q", c)
		}
	}
	return ""
}

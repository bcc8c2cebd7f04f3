package lsfconf

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/lex"
)

// Param is one NAME=VALUE entry.
type Param struct {
	Name  string
	Value string
	Pos   lex.Pos // of the last definition's name
}

// Conf is a parsed lsf.conf. It is immutable once returned.
type Conf struct {
	Path   string
	params []Param
	index  map[string]int
}

// New returns a Conf holding params (later entries win), for tests and for
// configurations built in memory.
func New(path string, params ...Param) *Conf {
	c := &Conf{Path: path, index: map[string]int{}}
	for _, p := range params {
		c.set(p)
	}
	return c
}

func (c *Conf) set(p Param) {
	if i, ok := c.index[p.Name]; ok {
		c.params[i] = p
		return
	}
	c.index[p.Name] = len(c.params)
	c.params = append(c.params, p)
}

// Parse reads lsf.conf. The format is the Bourne shell's assignment: NAME=VALUE,
// NAME= or NAME="several words" (single quotes work too), no blank around '=';
// '#' starts a comment. A line LSF (or the shell) would not read as an
// assignment is reported as a warning and ignored; a name defined twice keeps
// its last value, as when the shell sources the file.
func Parse(path string, src []byte) (*Conf, lex.Diagnostics) {
	var d lex.Diagnostics
	c := New(path)
	lines := strings.Split(string(src), "\n")
	for i, raw := range lines {
		raw = strings.TrimSuffix(raw, "\r")
		line := strings.TrimLeft(raw, " \t")
		col := len(raw) - len(line) + 1
		pos := lex.Pos{File: path, Line: i + 1, Col: col}
		if line == "" || line[0] == '#' {
			continue
		}
		p, err := parseLine(line)
		if err != nil {
			d.Warnf(pos.Add(err.off), "%s; line ignored", err.msg)
			continue
		}
		p.Pos = pos
		if prev, dup := c.Lookup(p.Name); dup && prev != p.Value {
			d.Warnf(pos, "%s is defined more than once; the last value <%s> is used", p.Name, p.Value)
		}
		c.set(p)
	}
	return c, d
}

type lineError struct {
	off int
	msg string
}

func parseLine(line string) (Param, *lineError) {
	n := 0
	for n < len(line) && (line[n] == '_' || line[n] >= 'A' && line[n] <= 'Z' || line[n] >= 'a' && line[n] <= 'z' || n > 0 && line[n] >= '0' && line[n] <= '9') {
		n++
	}
	if n == 0 {
		return Param{}, &lineError{0, fmt.Sprintf("expected NAME=VALUE, found %q", line)}
	}
	name := line[:n]
	if n == len(line) || line[n] != '=' {
		if rest := strings.TrimLeft(line[n:], " \t"); strings.HasPrefix(rest, "=") {
			return Param{}, &lineError{n, fmt.Sprintf("blank before '=' in the definition of %s", name)}
		}
		return Param{}, &lineError{n, fmt.Sprintf("expected '=' after %s", name)}
	}
	rest := line[n+1:]
	off := n + 1
	var value string
	switch {
	case rest == "":
	case rest[0] == ' ' || rest[0] == '\t':
		if t := strings.TrimSpace(rest); t != "" && t[0] != '#' {
			return Param{}, &lineError{off, fmt.Sprintf("blank after '=' in the definition of %s", name)}
		}
		rest = ""
	case rest[0] == '"' || rest[0] == '\'':
		q := rest[0]
		var b strings.Builder
		i := 1
		closed := false
		for ; i < len(rest); i++ {
			c := rest[i]
			if c == '\\' && q == '"' && i+1 < len(rest) && strings.IndexByte("\"\\$`", rest[i+1]) >= 0 {
				i++
				b.WriteByte(rest[i])
				continue
			}
			if c == q {
				closed = true
				i++
				break
			}
			b.WriteByte(c)
		}
		if !closed {
			return Param{}, &lineError{off, fmt.Sprintf("unterminated %c quote in the value of %s", q, name)}
		}
		value = b.String()
		rest = rest[i:]
		off += i
	default:
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			i = len(rest)
		}
		value = rest[:i]
		rest = rest[i:]
		off += i
	}
	if t := strings.TrimLeft(rest, " \t"); t != "" && t[0] != '#' {
		return Param{}, &lineError{off + len(rest) - len(t), fmt.Sprintf("unexpected text %q after the value of %s (quote values with blanks)", t, name)}
	}
	return Param{Name: name, Value: value}, nil
}

// Params returns every parameter in the order of its first definition.
func (c *Conf) Params() []Param {
	out := make([]Param, len(c.params))
	copy(out, c.params)
	return out
}

// Names returns the parameter names, sorted.
func (c *Conf) Names() []string {
	out := make([]string, 0, len(c.params))
	for _, p := range c.params {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// Lookup returns a parameter's value and whether it is defined.
func (c *Conf) Lookup(name string) (string, bool) {
	if c == nil {
		return "", false
	}
	i, ok := c.index[name]
	if !ok {
		return "", false
	}
	return c.params[i].Value, true
}

// Get returns a parameter's value, "" when undefined.
func (c *Conf) Get(name string) string {
	v, _ := c.Lookup(name)
	return v
}

// Pos returns where a parameter is defined (the zero Pos when it is not).
func (c *Conf) Pos(name string) lex.Pos {
	if c == nil {
		return lex.Pos{}
	}
	if i, ok := c.index[name]; ok {
		return c.params[i].Pos
	}
	return lex.Pos{File: c.Path}
}

// getDefault returns the value of name, or def when it is undefined or empty.
func (c *Conf) getDefault(name, def string) string {
	if v := c.Get(name); v != "" {
		return v
	}
	return def
}

// Int returns an integer parameter, def when undefined or not an integer.
func (c *Conf) Int(name string, def int) int {
	v := c.Get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return n
}

// Bool returns a y/n parameter: Y, y, yes... are true; N, n, no... false;
// def when undefined or neither.
func (c *Conf) Bool(name string, def bool) bool {
	switch b, ok := parseBool(c.Get(name)); {
	case ok:
		return b
	default:
		return def
	}
}

func parseBool(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "y", "yes", "true", "1":
		return true, true
	case "n", "no", "false", "0":
		return false, true
	}
	return false, false
}

// List returns a blank-separated list parameter.
func (c *Conf) List(name string) []string { return strings.Fields(c.Get(name)) }

package output

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// Column is one field of a custom (-o) output format.
type Column struct {
	Name   string // canonical field name, lower case ("jobid")
	Header string // column header and -json key ("JOBID")
	Width  int    // 0: unlimited width, no padding
	Sized  bool   // the width was given as a number ("jobid:9")
	Right  bool   // "-" before the width: right-justified
	Unit   string // unit prefix of memory fields ("MB", "G", "S"), upper case
	Col    int    // 1-based column of the field in the specification
}

// Format is a parsed -o specification.
type Format struct {
	Columns   []Column
	Delimiter string // between columns; " " unless delimiter= is given
}

// Has tells whether the format shows field name (given by its name or an
// alias); a nil format has no fields.
func (f *Format) Has(name string) bool {
	if f == nil {
		return false
	}
	for _, c := range f.Columns {
		if c.Name == name {
			return true
		}
	}
	return false
}

// FormatError is an error in a -o specification. Col is the 1-based column
// where the offending item starts.
type FormatError struct {
	Col   int
	Field string // the offending item
	// LSF marks LSF's own message, printed as is; other messages name the
	// column.
	LSF bool
	Msg string
}

func (e *FormatError) Error() string {
	if e.LSF {
		return e.Msg
	}
	return fmt.Sprintf("-o: column %d: %s", e.Col, e.Msg)
}

// FieldInfo describes one field a command's -o accepts.
type FieldInfo struct {
	Name    string
	Aliases []string
	Header  string
	Width   int  // recommended width ("field:" with no number)
	Memory  bool // accepts a unit prefix
	// ScaleS marks a size in MB of lshosts and lsload that accepts the
	// unit S only (IBM 10.1 LSF_LSHOSTS_FORMAT, LSF_LSLOAD_FORMAT: scaled
	// to M, G or T with one decimal, "4.0G").
	ScaleS bool
	// External marks an lsload external index: "-o" may name several
	// with one '*' ("gpu_mode*", IBM 10.1 LSF_LSLOAD_FORMAT).
	External bool
}

// FieldSet is the set of fields one command's -o accepts, by name and alias.
// Its index is built at its first use, not at every command's start.
type FieldSet struct {
	load func() []FieldInfo
	idx  atomic.Pointer[fieldIndex]
}

type fieldIndex struct {
	fields []FieldInfo
	byName map[string]int
}

// NewFieldSet indexes fields by name and alias (case-insensitive).
func NewFieldSet(fields []FieldInfo) *FieldSet {
	return &FieldSet{load: func() []FieldInfo { return fields }}
}

// index builds the set's index at the first call (concurrent first calls
// build equal ones; one is kept).
func (s *FieldSet) index() *fieldIndex {
	if x := s.idx.Load(); x != nil {
		return x
	}
	fields := s.load()
	x := &fieldIndex{fields: fields, byName: make(map[string]int, 2*len(fields))}
	for i, f := range fields {
		x.byName[strings.ToLower(f.Name)] = i
		for _, a := range f.Aliases {
			x.byName[strings.ToLower(a)] = i
		}
	}
	s.idx.Store(x)
	return x
}

// Lookup finds a field by name or alias, case-insensitively.
func (s *FieldSet) Lookup(name string) (FieldInfo, bool) {
	x := s.index()
	i, ok := x.byName[strings.ToLower(name)]
	if !ok {
		return FieldInfo{}, false
	}
	return x.fields[i], true
}

// Fields returns every field in display order (what "all" expands to).
func (s *FieldSet) Fields() []FieldInfo { return s.index().fields }

// matchExternal returns the external fields whose name matches pattern,
// which holds one '*' standing for any characters (case-insensitive).
func (s *FieldSet) matchExternal(pattern string) []FieldInfo {
	pre, suf, _ := strings.Cut(strings.ToLower(pattern), "*")
	var out []FieldInfo
	for _, f := range s.index().fields {
		n := strings.ToLower(f.Name)
		if f.External && len(n) >= len(pre)+len(suf) && strings.HasPrefix(n, pre) && strings.HasSuffix(n, suf) {
			out = append(out, f)
		}
	}
	return out
}

// maxWidth bounds an explicit width: LSF stores output lines in fixed
// buffers; Basalt refuses absurd widths instead of allocating them.
const maxWidth = 4096

var units = map[string]bool{
	"K": true, "KB": true, "M": true, "MB": true, "G": true, "GB": true,
	"T": true, "TB": true, "P": true, "PB": true, "E": true, "EB": true,
	"Z": true, "ZB": true, "S": true,
}

// ParseFormat parses a -o specification (also LSB_BJOBS_FORMAT):
//
//	"field_name|all[:[-][output_width]][:unit_prefix] ... [delimiter='character']"
//
// Items are separated by white space; names and aliases are
// case-insensitive; "name" alone means unlimited width, "name:" the field's
// recommended width, "name:-10" right-justified in 10 columns;
// delimiter='x' or delimiter="x" (one character, anywhere in the string)
// sets the separator. An unknown field gets LSF's message
// "<name> in the format string is not a valid field name." (volclava
// bjobs.c); every other error names its column.
func ParseFormat(spec string, set *FieldSet) (*Format, error) {
	f := &Format{Delimiter: " "}
	i := 0
	for {
		for i < len(spec) && isSpace(spec[i]) {
			i++
		}
		if i >= len(spec) {
			break
		}
		start := i
		if hasPrefixFold(spec[i:], "delimiter=") {
			d, n, err := parseDelimiter(spec, i)
			if err != nil {
				return nil, err
			}
			f.Delimiter = d
			i = n
			if i < len(spec) && !isSpace(spec[i]) {
				return nil, &FormatError{Col: i + 1, Field: spec[start:], Msg: "delimiter must be followed by a space or the end of the format"}
			}
			continue
		}
		for i < len(spec) && !isSpace(spec[i]) {
			i++
		}
		cols, err := parseItem(spec[start:i], start+1, set)
		if err != nil {
			return nil, err
		}
		f.Columns = append(f.Columns, cols...)
	}
	if len(f.Columns) == 0 {
		return nil, &FormatError{Col: len(spec) + 1, Msg: "no field names in the format string"}
	}
	return f, nil
}

func parseDelimiter(spec string, at int) (string, int, error) {
	i := at + len("delimiter=")
	if i >= len(spec) || (spec[i] != '\'' && spec[i] != '"') {
		return "", 0, &FormatError{Col: i + 1, Field: spec[at:], Msg: "delimiter must be one character in quotes: delimiter='character'"}
	}
	q := spec[i]
	end := strings.IndexByte(spec[i+1:], q)
	if end < 0 {
		return "", 0, &FormatError{Col: i + 1, Field: spec[at:], Msg: "delimiter has no closing quote"}
	}
	d := spec[i+1 : i+1+end]
	if len([]rune(d)) != 1 {
		return "", 0, &FormatError{Col: i + 2, Field: spec[at:], Msg: fmt.Sprintf("delimiter must be a single character, not %q", d)}
	}
	return d, i + 1 + end + 1, nil
}

func parseItem(item string, col int, set *FieldSet) ([]Column, error) {
	parts := strings.Split(item, ":")
	if len(parts) > 3 {
		return nil, &FormatError{Col: col, Field: item, Msg: fmt.Sprintf("too many ':' in %q: use name[:[-][width]][:unit]", item)}
	}
	name := parts[0]
	var infos []FieldInfo
	if strings.EqualFold(name, "all") {
		infos = set.Fields()
	} else {
		fi, ok := set.Lookup(name)
		switch {
		case ok:
			infos = []FieldInfo{fi}
		case strings.Count(name, "*") == 1:
			infos = set.matchExternal(name)
		}
		if len(infos) == 0 {
			return nil, &FormatError{Col: col, Field: name, LSF: true,
				Msg: fmt.Sprintf("<%s> in the format string is not a valid field name.", name)}
		}
	}
	width, right, hasWidth, useRecommended := 0, false, false, false
	if len(parts) >= 2 {
		w := parts[1]
		wcol := col + len(name) + 1
		if strings.HasPrefix(w, "-") {
			right = true
			w = w[1:]
			wcol++
		}
		if w == "" {
			useRecommended = true
		} else {
			n, err := strconv.Atoi(w)
			if err != nil || n <= 0 || n > maxWidth || w[0] == '+' {
				return nil, &FormatError{Col: wcol, Field: item, Msg: fmt.Sprintf("invalid output width %q for field %s: a number from 1 to %d", w, name, maxWidth)}
			}
			width, hasWidth = n, true
		}
	}
	unit := ""
	if len(parts) == 3 {
		unit = strings.ToUpper(parts[2])
		ucol := col + len(parts[0]) + len(parts[1]) + 2
		if !units[unit] {
			return nil, &FormatError{Col: ucol, Field: item, Msg: fmt.Sprintf("invalid unit prefix %q: KB, MB, GB, TB, PB, EB, ZB or S", parts[2])}
		}
	}
	cols := make([]Column, 0, len(infos))
	for _, fi := range infos {
		if unit != "" && !fi.Memory && len(infos) == 1 {
			if fi.ScaleS && unit != "S" {
				return nil, &FormatError{Col: col, Field: item, Msg: fmt.Sprintf("field %s takes only the unit S", fi.Name)}
			}
			if !fi.ScaleS {
				return nil, &FormatError{Col: col, Field: item, Msg: fmt.Sprintf("field %s does not take a unit prefix", fi.Name)}
			}
		}
		c := Column{Name: fi.Name, Header: fi.Header, Right: right, Col: col}
		if fi.Memory || fi.ScaleS && unit == "S" {
			c.Unit = unit
		}
		switch {
		case hasWidth:
			c.Width, c.Sized = width, true
		case useRecommended:
			c.Width = fi.Width
		}
		cols = append(cols, c)
	}
	return cols, nil
}

// String renders the format back as a specification ParseFormat accepts.
func (f *Format) String() string {
	var b strings.Builder
	for i, c := range f.Columns {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.Name)
		if c.Width > 0 || c.Right || c.Unit != "" {
			b.WriteByte(':')
			if c.Right {
				b.WriteByte('-')
			}
			if c.Sized {
				b.WriteString(strconv.Itoa(c.Width))
			}
		}
		if c.Unit != "" {
			b.WriteByte(':')
			b.WriteString(c.Unit)
		}
	}
	if f.Delimiter != " " {
		q := "'"
		if f.Delimiter == "'" {
			q = `"`
		}
		b.WriteString(" delimiter=" + q + f.Delimiter + q)
	}
	return b.String()
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

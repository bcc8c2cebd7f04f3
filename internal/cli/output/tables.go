package output

import (
	"io"
	"strconv"
	"strings"
	"sync"
)

// The custom listings every -o command shares (bjobs, bhosts, bqueues,
// lsload, lshosts): a command parses its -o specification with ParseFormat
// and its FieldSet, then writes its records with writeCustom (text) or
// writeJSON (-json), giving the value of a column for a record.

// valueFunc returns the value of column c for record i; ok=false is an
// unset value, "-" in text output and "" in -json output.
type valueFunc func(i int, c *Column) (v string, ok bool)

// writeCustom writes a -o listing: a header line of the columns' headers
// (unless noHeader), then one line per record, columns separated by the
// format's delimiter and laid out by cell.
func writeCustom(w io.Writer, f *Format, noHeader bool, n int, value valueFunc) error {
	var b strings.Builder
	b.Grow(16 * len(f.Columns) * (n + 1))
	if !noHeader {
		for i := range f.Columns {
			if i > 0 {
				b.WriteString(f.Delimiter)
			}
			c := &f.Columns[i]
			h := c.Header
			if c.Width > 0 && len(h) > c.Width {
				h = h[:c.Width]
			}
			b.WriteString(cell(c, h))
		}
		b.WriteByte('\n')
	}
	for r := 0; r < n; r++ {
		for i := range f.Columns {
			if i > 0 {
				b.WriteString(f.Delimiter)
			}
			c := &f.Columns[i]
			v, ok := value(r, c)
			if !ok {
				v = "-"
			}
			b.WriteString(cell(c, v))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeJSON writes a -json document as IBM LSF 10.1 does:
//
//	{
//	  "COMMAND":"bhosts",
//	  "HOSTS":1,
//	  "RECORDS":[
//	    {
//	      "HOST_NAME":"hostA",
//	      "STATUS":"ok"
//	    }
//	  ]
//	}
//
// command names the command, countKey the count of records ("JOBS",
// "HOSTS", "QUEUES"). Keys are the column headers, a header asked twice
// appears once, every value is a string ("" when unset), widths do not
// apply, '/' is escaped as "\/". extra records (bjobs' jobs not found,
// key/value pairs) follow the n records and are counted with them.
func writeJSON(w io.Writer, command, countKey string, f *Format, n int, value valueFunc, extra [][][2]string) error {
	cols := make([]*Column, 0, len(f.Columns))
	seen := make(map[string]bool, len(f.Columns))
	for i := range f.Columns {
		c := &f.Columns[i]
		if !seen[c.Header] {
			seen[c.Header] = true
			cols = append(cols, c)
		}
	}
	total := n + len(extra)
	var b strings.Builder
	b.Grow(64 + 32*len(cols)*n)
	b.WriteString("{\n  \"COMMAND\":")
	jsonString(&b, command)
	b.WriteString(",\n  ")
	jsonString(&b, countKey)
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(total))
	b.WriteString(",\n  \"RECORDS\":[\n")
	rec := 0
	end := func() {
		b.WriteString("    }")
		if rec++; rec < total {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	for r := 0; r < n; r++ {
		b.WriteString("    {\n")
		for k, c := range cols {
			v, ok := value(r, c)
			if !ok {
				v = ""
			}
			jsonPair(&b, c.Header, v, k == len(cols)-1)
		}
		end()
	}
	for _, kvs := range extra {
		b.WriteString("    {\n")
		for k, kv := range kvs {
			jsonPair(&b, kv[0], kv[1], k == len(kvs)-1)
		}
		end()
	}
	b.WriteString("  ]\n}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonPair writes one "key":"value" line of a record.
func jsonPair(b *strings.Builder, k, v string, last bool) {
	b.WriteString("      ")
	jsonString(b, k)
	b.WriteByte(':')
	jsonString(b, v)
	if !last {
		b.WriteByte(',')
	}
	b.WriteByte('\n')
}

// nonNil returns xs without its nil elements (xs itself when it has none).
func nonNil[T any](xs []*T) []*T {
	for i, x := range xs {
		if x != nil {
			continue
		}
		out := append(make([]*T, 0, len(xs)-1), xs[:i]...)
		for _, y := range xs[i+1:] {
			if y != nil {
				out = append(out, y)
			}
		}
		return out
	}
	return xs
}

// recordField is one -o field of records of type T: its description and
// its value (ok=false: unset).
type recordField[T any] struct {
	FieldInfo
	value func(*T) (string, bool)
}

// recordFields are a command's -o fields over records of type T: the
// FieldSet ParseFormat takes and the writers of its listings. The table is
// built at its first use, not at every command's start.
type recordFields[T any] struct {
	set    *FieldSet
	values func() map[string]func(*T) (string, bool)
}

func newRecordFields[T any](table func() []recordField[T]) *recordFields[T] {
	fields := sync.OnceValue(table)
	return &recordFields[T]{
		set: &FieldSet{load: func() []FieldInfo {
			fs := fields()
			infos := make([]FieldInfo, len(fs))
			for i := range fs {
				infos[i] = fs[i].FieldInfo
			}
			return infos
		}},
		values: sync.OnceValue(func() map[string]func(*T) (string, bool) {
			fs := fields()
			m := make(map[string]func(*T) (string, bool), len(fs))
			for _, f := range fs {
				m[f.Name] = f.value
			}
			return m
		}),
	}
}

// value is column c's value for rec; unset for a column of another set.
func (r *recordFields[T]) value(rec *T, c *Column) (string, bool) {
	if f := r.values()[c.Name]; f != nil {
		v, ok := f(rec)
		if ok && c.Unit == "S" {
			v = scaleMB(v)
		}
		return v, ok
	}
	return "", false
}

// scaleMB is the unit S of lshosts and lsload -o: a size in MB ("4096M",
// or a bare number) scaled to M, G or T with one decimal ("4.0G"); a value
// that is no size is left as it is.
func scaleMB(v string) string {
	n, err := strconv.ParseFloat(strings.TrimSuffix(v, "M"), 64)
	if err != nil || n < 0 {
		return v
	}
	unit := "M"
	for _, u := range []string{"G", "T"} {
		if n < 1024 {
			break
		}
		n /= 1024
		unit = u
	}
	return strconv.FormatFloat(n, 'f', 1, 64) + unit
}

func (r *recordFields[T]) writeCustom(w io.Writer, recs []*T, f *Format, noHeader bool) error {
	recs = nonNil(recs)
	return writeCustom(w, f, noHeader, len(recs), func(i int, c *Column) (string, bool) { return r.value(recs[i], c) })
}

func (r *recordFields[T]) writeJSON(w io.Writer, command, countKey string, recs []*T, f *Format) error {
	recs = nonNil(recs)
	return writeJSON(w, command, countKey, f, len(recs), func(i int, c *Column) (string, bool) { return r.value(recs[i], c) }, nil)
}

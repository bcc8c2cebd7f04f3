package output

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/basalt-lsf/basalt/api"
)

// cell lays out one -o value: a column without width is printed as is
// (unpadded: "bjobs -o 'jobid stat' -noheader" gives "12 RUN"); with a width
// it is padded to it, left- or right-justified, and a longer value is cut at
// the end, except JOB_NAME which keeps its end after an asterisk (IBM 10.1
// bjobs -o).
func cell(c *Column, v string) string {
	if c.Width <= 0 {
		return v
	}
	if len(v) > c.Width {
		if c.Name == "job_name" {
			v = star(v, c.Width)
		} else {
			v = v[:c.Width]
		}
	}
	fill := strings.Repeat(" ", c.Width-len(v))
	if c.Right {
		return fill + v
	}
	return v + fill
}

func jobValue(j *api.JobRecord, c *Column, o *Options) (string, bool) {
	f := jobFieldByName()[c.Name]
	if f == nil {
		return "", false
	}
	return f.value(j, &valueCtx{o: o, unit: c.Unit})
}

// WriteJobsCustom writes bjobs -o output: a header line of the columns'
// headers (unless -noheader), then one line per job, columns separated by
// the format's delimiter, unset values shown as "-".
func WriteJobsCustom(w io.Writer, jobs []*api.JobRecord, f *Format, o *Options) error {
	var b strings.Builder
	b.Grow(128 * len(jobs))
	if !(o != nil && o.NoHeader) {
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
	for _, j := range jobs {
		if j == nil {
			continue
		}
		for i := range f.Columns {
			if i > 0 {
				b.WriteString(f.Delimiter)
			}
			c := &f.Columns[i]
			v, ok := jobValue(j, c, o)
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

// NotFound is a job bjobs could not find, reported in -json output as a
// record with an ERROR key (PSI/J skips those).
type NotFound struct {
	JobID string // "123" or "123[4]"
	Error string // "Job <123> is not found"
}

// WriteJobsJSON writes bjobs -o ... -json output as IBM LSF 10.1 does:
//
//	{
//	  "COMMAND":"bjobs",
//	  "JOBS":1,
//	  "RECORDS":[
//	    {
//	      "JOBID":"12",
//	      "STAT":"RUN"
//	    }
//	  ]
//	}
//
// Keys are the column headers, every value is a string ("" when unset, so
// EXIT_CODE is "" for exit 0), "/" is escaped as "\/", a field asked twice
// appears once, and jobs not found are records {"JOBID":..,"ERROR":..}.
// JOBS counts every record. Widths do not apply to JSON.
func WriteJobsJSON(w io.Writer, jobs []*api.JobRecord, f *Format, notFound []NotFound, o *Options) error {
	var cols []*Column
	seen := map[string]bool{}
	for i := range f.Columns {
		c := &f.Columns[i]
		if !seen[c.Header] {
			seen[c.Header] = true
			cols = append(cols, c)
		}
	}
	var records [][][2]string
	for _, j := range jobs {
		if j == nil {
			continue
		}
		rec := make([][2]string, 0, len(cols))
		for _, c := range cols {
			v, ok := jobValue(j, c, o)
			if !ok {
				v = ""
			}
			rec = append(rec, [2]string{c.Header, v})
		}
		records = append(records, rec)
	}
	for _, nf := range notFound {
		records = append(records, [][2]string{{"JOBID", nf.JobID}, {"ERROR", nf.Error}})
	}
	var b strings.Builder
	b.Grow(128 * len(jobs))
	b.WriteString("{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":")
	b.WriteString(strconv.Itoa(len(records)))
	b.WriteString(",\n  \"RECORDS\":[\n")
	for i, rec := range records {
		b.WriteString("    {\n")
		for k, kv := range rec {
			b.WriteString("      ")
			jsonString(&b, kv[0])
			b.WriteByte(':')
			jsonString(&b, kv[1])
			if k < len(rec)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("    }")
		if i < len(records)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

const hexDigits = "0123456789abcdef"

// jsonString writes s as a JSON string the way LSF's writer does: '/'
// escaped as "\/", control characters escaped, invalid UTF-8 replaced by
// U+FFFD so the output is always valid JSON.
func jsonString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '/':
				b.WriteString(`\/`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				if c < 0x20 || c == 0x7f {
					b.WriteString(`\u00`)
					b.WriteByte(hexDigits[c>>4])
					b.WriteByte(hexDigits[c&0xf])
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString(`\ufffd`)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
}

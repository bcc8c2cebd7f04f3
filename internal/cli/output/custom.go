package output

import (
	"io"
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
	unit := c.Unit
	if unit == "" && f.Memory && o != nil {
		unit = o.Unit
	}
	return f.value(j, &valueCtx{o: o, unit: unit})
}

// jobColumns applies the settings of bjobs' environment to a format: a
// jobid column given no width number is LSB_JOBID_DISP_LENGTH wide when
// that is set (IBM 10.1 bjobs -o).
func jobColumns(f *Format, o *Options) *Format {
	if o == nil || o.JobIDWidth == 0 || !f.Has("jobid") {
		return f
	}
	g := *f
	g.Columns = append([]Column(nil), f.Columns...)
	for i := range g.Columns {
		if c := &g.Columns[i]; c.Name == "jobid" && !c.Sized {
			c.Width = o.jobIDWidth()
		}
	}
	return &g
}

// WriteJobsCustom writes bjobs -o output: a header line of the columns'
// headers (unless -noheader), then one line per job, columns separated by
// the format's delimiter, unset values shown as "-".
func WriteJobsCustom(w io.Writer, jobs []*api.JobRecord, f *Format, o *Options) error {
	jobs = nonNil(jobs)
	f = jobColumns(f, o)
	return writeCustom(w, f, o != nil && o.NoHeader, len(jobs), func(i int, c *Column) (string, bool) {
		return jobValue(jobs[i], c, o)
	})
}

// NotFound is a job bjobs could not find, reported in -json output as a
// record with an ERROR key (PSI/J skips those).
type NotFound struct {
	JobID string // "123" or "123[4]"
	Error string // "Job <123> is not found"
}

// WriteJobsJSON writes bjobs -o ... -json output as IBM LSF 10.1 does (see
// writeJSON):
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
	jobs = nonNil(jobs)
	var extra [][][2]string
	for _, nf := range notFound {
		extra = append(extra, [][2]string{{"JOBID", nf.JobID}, {"ERROR", nf.Error}})
	}
	return writeJSON(w, "bjobs", "JOBS", f, len(jobs), func(i int, c *Column) (string, bool) {
		return jobValue(jobs[i], c, o)
	}, extra)
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

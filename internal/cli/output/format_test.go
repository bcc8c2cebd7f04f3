package output

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		spec  string
		want  []Column
		delim string
	}{
		{"jobid stat", []Column{{Name: "jobid", Header: "JOBID", Col: 1}, {Name: "stat", Header: "STAT", Col: 7}}, " "},
		{"  ID   Stat\t", []Column{{Name: "jobid", Header: "JOBID", Col: 3}, {Name: "stat", Header: "STAT", Col: 8}}, " "},
		{"stat:5", []Column{{Name: "stat", Header: "STAT", Width: 5, Sized: true, Col: 1}}, " "},
		{"stat:", []Column{{Name: "stat", Header: "STAT", Width: 5, Col: 1}}, " "},
		{"jobid:-12", []Column{{Name: "jobid", Header: "JOBID", Width: 12, Sized: true, Right: true, Col: 1}}, " "},
		{"name:-", []Column{{Name: "job_name", Header: "JOB_NAME", Width: 10, Right: true, Col: 1}}, " "},
		{"project", []Column{{Name: "proj_name", Header: "PROJ_NAME", Col: 1}}, " "},
		{"srcluster fwd_cluster", []Column{{Name: "source_cluster", Header: "SOURCE_CLUSTER", Col: 1}, {Name: "forward_cluster", Header: "FORWARD_CLUSTER", Col: 11}}, " "},
		{"mem:10:G", []Column{{Name: "mem", Header: "MEM", Width: 10, Sized: true, Unit: "G", Col: 1}}, " "},
		{"max_mem::mb", []Column{{Name: "max_mem", Header: "MAX_MEM", Width: 10, Unit: "MB", Col: 1}}, " "},
		{"jobid stat start_time delimiter='|'", []Column{{Name: "jobid", Header: "JOBID", Col: 1}, {Name: "stat", Header: "STAT", Col: 7}, {Name: "start_time", Header: "START_TIME", Col: 12}}, "|"},
		{`delimiter=" " id`, []Column{{Name: "jobid", Header: "JOBID", Col: 15}}, " "},
		{`DELIMITER="," id`, []Column{{Name: "jobid", Header: "JOBID", Col: 15}}, ","},
		{"%complete", []Column{{Name: "%complete", Header: "%COMPLETE", Col: 1}}, " "},
		{"stat stat", []Column{{Name: "stat", Header: "STAT", Col: 1}, {Name: "stat", Header: "STAT", Col: 6}}, " "},
	}
	for _, tt := range tests {
		f, err := ParseFormat(tt.spec, JobFields)
		if err != nil {
			t.Errorf("ParseFormat(%q): %v", tt.spec, err)
			continue
		}
		if !reflect.DeepEqual(f.Columns, tt.want) || f.Delimiter != tt.delim {
			t.Errorf("ParseFormat(%q) = %+v delim %q, want %+v delim %q", tt.spec, f.Columns, f.Delimiter, tt.want, tt.delim)
		}
	}
}

func TestParseFormatAll(t *testing.T) {
	f, err := ParseFormat("all:12", JobFields)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Columns) != len(JobFields.Fields()) {
		t.Fatalf("all: %d columns, want %d", len(f.Columns), len(JobFields.Fields()))
	}
	for _, c := range f.Columns {
		if c.Width != 12 {
			t.Errorf("all:12: %s has width %d", c.Name, c.Width)
		}
	}
}

// TestParseFormatErrors checks every error's message and column.
func TestParseFormatErrors(t *testing.T) {
	tests := []struct {
		spec string
		col  int
		msg  string
	}{
		{"jobid bogus", 7, "<bogus> in the format string is not a valid field name."},
		{"STAT Nope:5", 6, "<Nope> in the format string is not a valid field name."},
		{"", 1, "-o: column 1: no field names in the format string"},
		{"   ", 4, "-o: column 4: no field names in the format string"},
		{"delimiter='|'", 14, "-o: column 14: no field names in the format string"},
		{"stat:0", 6, `-o: column 6: invalid output width "0" for field stat: a number from 1 to 4096`},
		{"stat:x", 6, `-o: column 6: invalid output width "x" for field stat: a number from 1 to 4096`},
		{"id stat:-x", 10, `-o: column 10: invalid output width "x" for field stat: a number from 1 to 4096`},
		{"stat:99999", 6, `-o: column 6: invalid output width "99999" for field stat: a number from 1 to 4096`},
		{"stat:+5", 6, `-o: column 6: invalid output width "+5" for field stat: a number from 1 to 4096`},
		{"mem:5:XB", 7, `-o: column 7: invalid unit prefix "XB": KB, MB, GB, TB, PB, EB, ZB or S`},
		{"stat:5:MB", 1, "-o: column 1: field stat does not take a unit prefix"},
		{"stat:5:MB:x", 1, `-o: column 1: too many ':' in "stat:5:MB:x": use name[:[-][width]][:unit]`},
		{"id delimiter=|", 14, "-o: column 14: delimiter must be one character in quotes: delimiter='character'"},
		{"id delimiter='|", 14, "-o: column 14: delimiter has no closing quote"},
		{"id delimiter='||'", 15, `-o: column 15: delimiter must be a single character, not "||"`},
		{"id delimiter=''", 15, `-o: column 15: delimiter must be a single character, not ""`},
		{"id delimiter='|'x", 17, "-o: column 17: delimiter must be followed by a space or the end of the format"},
	}
	for _, tt := range tests {
		_, err := ParseFormat(tt.spec, JobFields)
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("ParseFormat(%q) = %v, want a *FormatError", tt.spec, err)
			continue
		}
		if fe.Col != tt.col || err.Error() != tt.msg {
			t.Errorf("ParseFormat(%q): col %d %q, want col %d %q", tt.spec, fe.Col, err.Error(), tt.col, tt.msg)
		}
	}
}

// TestFormatString: String renders a format that parses back to itself.
func TestFormatString(t *testing.T) {
	for _, spec := range []string{"jobid stat", "id:-8 name:10 mem::G", "all:5", "stat delimiter='|'", `id delimiter="'"`} {
		f, err := ParseFormat(spec, JobFields)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ParseFormat(f.String(), JobFields)
		if err != nil {
			t.Fatalf("reparse %q (from %q): %v", f.String(), spec, err)
		}
		if !sameFormat(f, g) {
			t.Errorf("%q -> %q does not round-trip", spec, f.String())
		}
	}
}

func sameFormat(a, b *Format) bool {
	if a.Delimiter != b.Delimiter || len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Columns {
		x, y := a.Columns[i], b.Columns[i]
		x.Col, y.Col = 0, 0
		if x != y {
			return false
		}
	}
	return true
}

// FuzzParseFormat: the parser never panics, errors carry a column inside
// (or just past) the input, and accepted formats round-trip through String.
func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"jobid stat", "id:-8 name:10 mem::G", "all:5", "stat delimiter='|'",
		`delimiter=" " id`, "stat:", "x:y:z:w", "mem:5:S", "delimiter='", ":::", "id:-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		fm, err := ParseFormat(spec, JobFields)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
			if fe.Col < 1 || fe.Col > len(spec)+1 {
				t.Fatalf("column %d outside 1..%d for %q", fe.Col, len(spec)+1, spec)
			}
			return
		}
		if strings.ContainsAny(fm.Delimiter, "\x00") && len(fm.Delimiter) == 0 {
			t.Fatal("empty delimiter")
		}
		g, err := ParseFormat(fm.String(), JobFields)
		if err != nil {
			t.Fatalf("String() %q of %q does not parse: %v", fm.String(), spec, err)
		}
		if !sameFormat(fm, g) {
			t.Fatalf("%q -> %q does not round-trip", spec, fm.String())
		}
	})
}

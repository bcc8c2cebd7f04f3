package cli

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseDebugLevel(t *testing.T) {
	tests := []struct {
		tool   debugTool
		timing bool
		in     string
		want   int32
		pos    int
		msg    string
	}{
		{"lsadmin", false, "0", 0, 0, ""},
		{"lsadmin", false, "3", 3, 0, ""},
		{"lsadmin", false, "03", 3, 0, ""},
		{"lsadmin", false, "4", 0, 0, "Command denied. Valid debug level value is [0-3]"},
		{"badmin", false, "4", 0, 0, "Command denied. Valid debug level is [0-3] "},
		{"lsadmin", false, "2x", 0, 1, "Command denied. Invalid level value"},
		{"badmin", false, "-1", 0, 0, "Command denied. Invalid level value"},
		{"lsadmin", false, "", 0, 0, "Command denied. Invalid level value"},
		{"lsadmin", false, "99999999999999999999", 0, 0, "Command denied. Valid debug level value is [0-3]"},
		{"lsadmin", true, "1", 1, 0, ""},
		{"badmin", true, "5", 5, 0, ""},
		{"lsadmin", true, "0", 0, 0, "Command denied. Valid timing level value is [1-5]"},
		{"badmin", true, "6", 0, 0, "Command denied. Valid timing level is [1-5]"},
		{"badmin", true, "1 ", 0, 1, "Command denied. Invalid level value"},
	}
	for _, tt := range tests {
		got, err := parseDebugLevel(tt.tool, tt.timing, tt.in)
		if tt.msg == "" {
			if err != nil || got != tt.want {
				t.Errorf("%s timing=%v %q: %d, %v; want %d", tt.tool, tt.timing, tt.in, got, err, tt.want)
			}
			continue
		}
		var de *debugValueError
		if !errors.As(err, &de) || de.Msg != tt.msg || de.Pos != tt.pos || de.Opt != "l" {
			t.Errorf("%s timing=%v %q: %#v, want %q at %d", tt.tool, tt.timing, tt.in, err, tt.msg, tt.pos)
		}
	}
}

func TestParseLogClasses(t *testing.T) {
	tests := []struct {
		tool debugTool
		in   string
		want []string
		pos  int
		msg  string
	}{
		{"lsadmin", "LC_TRACE", []string{"LC_TRACE"}, 0, ""},
		{"lsadmin", " LC_TRACE\tLC2_EXEC  LC_M_LOG ", []string{"LC_TRACE", "LC2_EXEC", "LC_M_LOG"}, 0, ""},
		{"lsadmin", "LC_TRACE LC_NOPE", nil, 9, "Command denied. Invalid class name"},
		{"badmin", "LC_TRACE LC_NOPE", nil, 9, "Command denied.Invalid class name"},
		{"lsadmin", "lc_trace", nil, 0, "Command denied. Invalid class name"},
		{"lsadmin", "TRACE", nil, 0, "Command denied. Invalid class name"},
		{"lsadmin", "LC_", nil, 0, "Command denied. Invalid class name"},
		{"lsadmin", "  ", nil, 0, "Command denied. Invalid class name"},
		{"lsadmin", "", nil, 0, "Command denied. Invalid class name"},
	}
	for _, tt := range tests {
		got, err := parseLogClasses(tt.tool, tt.in)
		if tt.msg == "" {
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("%q: %q, %v; want %q", tt.in, got, err, tt.want)
			}
			continue
		}
		var de *debugValueError
		if !errors.As(err, &de) || de.Msg != tt.msg || de.Pos != tt.pos || de.Opt != "c" {
			t.Errorf("%s %q: %#v, want %q at %d", tt.tool, tt.in, err, tt.msg, tt.pos)
		}
	}
}

func TestCheckLogFileName(t *testing.T) {
	tests := []struct {
		in  string
		pos int
		msg string
	}{
		{"dbg", 0, ""},
		{"/tmp/x/dbg", 0, ""},
		{`C:\lsf\dbg`, 0, ""},
		{"", 0, "Command denied. Invalid file name"},
		{`/tmp\dbg`, 4, "Command denied. Invalid file name"},
		{"a\x00b", 1, "Command denied. Invalid file name"},
		{"/tmp/", 4, "Command denied. File name is needed after the path"},
		{`C:\lsf\`, 6, "Command denied. File name is needed after the path"},
	}
	for _, tt := range tests {
		err := checkLogFileName(tt.in)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.in, err)
			}
			continue
		}
		var de *debugValueError
		if !errors.As(err, &de) || de.Msg != tt.msg || de.Pos != tt.pos || de.Opt != "f" {
			t.Errorf("%q: %#v, want %q at %d", tt.in, err, tt.msg, tt.pos)
		}
	}
}

func TestDebugOptionValues(t *testing.T) {
	l, c, f := "2", "LC_COMM", "dbg"
	d, err := debugOptionValues("lsadmin", false, &l, &c, &f, false)
	if err != nil || d.level != 2 || !slices.Equal(d.classes, []string{"LC_COMM"}) || d.file != "dbg" || d.reset {
		t.Fatalf("%+v, %v", d, err)
	}
	d, err = debugOptionValues("badmin", true, nil, nil, nil, true)
	if err != nil || d.level != 0 || d.classes != nil || d.file != "" || !d.reset {
		t.Fatalf("defaults: %+v, %v", d, err)
	}
	if _, err := debugOptionValues("badmin", true, nil, &c, nil, false); err == nil {
		t.Error("-c accepted for a timing subcommand")
	}
}

// FuzzDebugOptionValues: no value panics, an error is positioned inside
// its value, and what is accepted is in range.
func FuzzDebugOptionValues(f *testing.F) {
	for _, s := range []string{"0", "3", "2x", "LC_TRACE LC2_EXEC", "LC_NOPE", "/tmp/", `a\b/c`, "", " \t"} {
		f.Add(s, s, s, false)
		f.Add(s, s, s, true)
	}
	f.Fuzz(func(t *testing.T, level, classes, file string, timing bool) {
		for _, tool := range []debugTool{"lsadmin", "badmin"} {
			var cp *string
			if !timing {
				cp = &classes
			}
			d, err := debugOptionValues(tool, timing, &level, cp, &file, false)
			var de *debugValueError
			if errors.As(err, &de) {
				val := map[string]string{"l": level, "c": classes, "f": file}[de.Opt]
				if de.Pos < 0 || (de.Pos >= len(val) && !(de.Pos == 0 && val == "")) {
					t.Fatalf("%s: error %q at %d outside %q", tool, de.Msg, de.Pos, val)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: unpositioned error %v", tool, err)
			}
			if max := int32(3); timing && (d.level < 1 || d.level > 5) || !timing && (d.level < 0 || d.level > max) {
				t.Fatalf("%s timing=%v: level %d accepted from %q", tool, timing, d.level, level)
			}
			if !timing && len(d.classes) == 0 {
				t.Fatalf("no class accepted from %q", classes)
			}
		}
	})
}

func TestParseCPUTime(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		pos  int
		bad  bool
	}{
		{"0", 0, 0, false},
		{"1500", 1500, 0, false},
		{"2147483647", 2147483647, 0, false},
		{"2147483648", 0, 0, true},
		{"", 0, 0, true},
		{"12a", 0, 2, true},
		{"-1", 0, 0, true},
		{" 1", 0, 0, true},
	}
	for _, tt := range tests {
		got, err := parseCPUTime(tt.in)
		if !tt.bad {
			if err != nil || got != tt.want {
				t.Errorf("%q: %d, %v", tt.in, got, err)
			}
			continue
		}
		var de *debugValueError
		if !errors.As(err, &de) || de.Pos != tt.pos || de.Msg != "CPU time <"+tt.in+"> should be a non-negative integer" {
			t.Errorf("%q: %#v, want an error at %d", tt.in, err, tt.pos)
		}
	}
}

// FuzzParseCPUTime: no value panics; an accepted one is what it says, an
// error is positioned inside the value.
func FuzzParseCPUTime(f *testing.F) {
	for _, s := range []string{"0", "100", "2147483648", "1x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseCPUTime(s)
		var de *debugValueError
		if errors.As(err, &de) {
			if de.Pos < 0 || (de.Pos >= len(s) && de.Pos != 0) {
				t.Fatalf("%q: error at %d", s, de.Pos)
			}
			return
		}
		if err != nil || n < 0 || n > 1<<31-1 || strconv.FormatInt(n, 10) != strings.TrimLeft(s, "0") && !(n == 0 && strings.Trim(s, "0") == "") {
			t.Fatalf("%q: %d, %v", s, n, err)
		}
	})
}

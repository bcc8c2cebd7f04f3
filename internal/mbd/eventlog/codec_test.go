package eventlog

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestQuotedStrings(t *testing.T) {
	tests := []struct {
		in, line, back string
	}{
		{"", `""`, ""},
		{"plain", `"plain"`, "plain"},
		{`say "hi"`, `"say ""hi"""`, `say "hi"`},
		{`"`, `""""`, `"`},
		{`""`, `""""""`, `""`},
		{"a b\tc", "\"a b\tc\"", "a b\tc"},
		// A record is one line: newlines are dropped (OpenLava subNewLine_).
		{"line1\nline2", `"line1line2"`, "line1line2"},
		{"cr\rkept", "\"cr\rkept\"", "cr\rkept"},
		{"ünïcødé", `"ünïcødé"`, "ünïcødé"},
	}
	for _, tt := range tests {
		r := &Record{Type: TypeMbdStart, Version: Version, Time: 1, Log: &MbdStart{Master: tt.in, Cluster: "c"}}
		got := r.Format()
		want := `"MBD_START" "10.1" 1 ` + tt.line + ` "c" 0 0`
		if got != want {
			t.Errorf("Format(%q) = %s, want %s", tt.in, got, want)
			continue
		}
		back, err := ParseRecord(got)
		if err != nil {
			t.Errorf("ParseRecord(%s): %v", got, err)
			continue
		}
		if m := back.Log.(*MbdStart).Master; m != tt.back {
			t.Errorf("round trip of %q gave %q, want %q", tt.in, m, tt.back)
		}
	}
}

// The C formats LSF writes floats with, and what Basalt writes for them.
func TestFloatFormats(t *testing.T) {
	tests := []struct {
		width, prec int
		v           float64
		want        string
	}{
		{6, 2, 1, "  1.00"},     // JOB_NEW hostFactor "%6.2f"
		{6, 2, 116.1, "116.10"}, // a real 9.13 record
		{6, 2, 1234.567, "1234.57"},
		{3, 1, 60, "60.0"}, // JOB_START/JOB_FINISH "%3.1f"
		{3, 1, 1, "1.0"},
		{4, 4, 0.5, "0.5000"},   // cpuTime "%4.4f"
		{1, 6, -1, "-1.000000"}, // ru_utime "%1.6f"
		{1, 0, -1, "-1"},        // "%1.0f"
		{1, 0, 2048, "2048"},
		{1, 0, 2.5, "2"}, // round half to even, as glibc
		{6, 2, 0, "  0.00"},
		{1, 0, -0.1, "0"}, // C writes "-0"
		{4, 4, -0.00001, "0.0000"},
	}
	for _, tt := range tests {
		e := encoder{}
		v := tt.v
		e.float("", &v, tt.width, tt.prec)
		if got := string(e.b[1:]); got != tt.want {
			t.Errorf("float(%v, %d, %d) = %q, want %q", tt.v, tt.width, tt.prec, got, tt.want)
		}
		if c := fmt.Sprintf("%*.*f", tt.width, tt.prec, tt.v); c != tt.want && tt.v >= 0 {
			t.Errorf("C-style %%%d.%df of %v = %q, test wants %q", tt.width, tt.prec, tt.v, c, tt.want)
		}
	}
}

func TestIsIBMVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"10.1": true, "9.13": true, "7.06": true, "6.2": true, "5": true,
		"4.0": false, "2.2": false, "1.0": false, "": false, "x": false, "-7": false,
	} {
		if got := IsIBMVersion(v); got != want {
			t.Errorf("IsIBMVersion(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		field int
		col   int
		fname string
		msg   string
	}{
		{"empty", ``, 1, 1, "type", "missing field"},
		{"blank", `   `, 1, 4, "type", "missing field"},
		{"empty type", `"" "10.1" 5`, 1, 1, "type", "empty event type"},
		{"bad type", `"JOB NEW" "10.1" 5`, 1, 1, "type", `bad event type "JOB NEW"`},
		{"no version", `"JOB_CLEAN"`, 2, 12, "version", "missing field"},
		{"bad version", `"JOB_CLEAN" "abc" 5 1 0`, 2, 13, "version", `bad version "abc"`},
		{"zero version", `"JOB_CLEAN" "0" 5 1 0`, 2, 13, "version", "bad version"},
		{"no time", `"JOB_CLEAN" "10.1"`, 3, 19, "eventTime", "missing field"},
		{"bad time", `"JOB_CLEAN" "10.1" now 1 0`, 3, 20, "eventTime", `expected an integer, found "now"`},
		{"quoted int", `"JOB_CLEAN" "10.1" 5 "1" 0`, 4, 22, "jobId", `expected an integer, found "1"`},
		{"missing idx", `"JOB_CLEAN" "10.1" 5 1`, 5, 23, "idx", "missing field"},
		{"unterminated", `"JOB_SWITCH" "10.1" 5 100 1 "short 0 u`, 6, 29, "queue", "unterminated"},
		{"overflow", `"JOB_CLEAN" "10.1" 5 99999999999999999999 0`, 4, 22, "jobId", "expected an integer"},
		{"bad float", `"JOB_STATUS" "10.1" 5 1 64 0 0 x 0 0 0 0`, 8, 32, "cpuTime", `expected a number, found "x"`},
		{"nan", `"JOB_STATUS" "10.1" 5 1 64 0 0 NaN 0 0 0 0`, 8, 32, "cpuTime", "expected a number"},
		{"hex float", `"JOB_STATUS" "10.1" 5 1 64 0 0 0x1p3 0 0 0 0`, 8, 32, "cpuTime", "expected a number"},
		{"huge count", `"JOB_FORCE" "10.1" 5 1 0 0 0 99999 "h"`, 8, 30, "", "does not fit"},
		{"negative count", `"JOB_FORCE" "10.1" 5 1 0 0 0 -1 "u"`, 8, 30, "", "does not fit"},
		{"short rusage", `"JOB_STATUS" "10.1" 5 1 64 0 0 1.0 5 1 1.0 2.0`, 13, 47, "ru_maxrss", "missing field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRecord(tt.line)
			if err == nil {
				t.Fatalf("ParseRecord(%s) = %+v, want an error", tt.line, r)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error %v is not ErrFormat", err)
			}
			if pe.Field != tt.field || pe.Col != tt.col || pe.Name != tt.fname || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("error = field %d col %d name %q msg %q (%v), want field %d col %d name %q msg containing %q",
					pe.Field, pe.Col, pe.Name, pe.Msg, err, tt.field, tt.col, tt.fname, tt.msg)
			}
		})
	}
}

func TestParseErrorText(t *testing.T) {
	e := &ParseError{File: "lsb.events", Line: 12, Field: 4, Col: 22, Name: "jobId", Msg: "expected an integer"}
	if got, want := e.Error(), "lsb.events:12:22: field 4 (jobId): expected an integer"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e = &ParseError{Field: 1, Col: 1, Msg: "x"}
	if got, want := e.Error(), "1: field 1: x"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestUnknownRecordKeepsFields(t *testing.T) {
	line := `"JOB_CHUNK" "10.1" 1700000000 3 101 102 "a b" -1`
	r, err := ParseRecord(line)
	if err != nil {
		t.Fatal(err)
	}
	u, ok := r.Log.(*Unknown)
	if !ok {
		t.Fatalf("Log = %T, want *Unknown", r.Log)
	}
	want := []string{"3", "101", "102", "a b", "-1"}
	if strings.Join(u.Fields, "|") != strings.Join(want, "|") {
		t.Errorf("fields = %q, want %q", u.Fields, want)
	}
	if _, _, ok := r.JobID(); ok {
		t.Error("JobID of an unknown record reports ok")
	}
}

func TestBlanksBetweenFields(t *testing.T) {
	// LSF's "%6.2f" and JOB_FORCE's trailing blank put several blanks
	// between fields; tabs and a CR before the newline occur in copied files.
	r, err := ParseRecord("\"JOB_CLEAN\"  \"10.1\"\t1700000000   7 \t 3 \r")
	if err != nil {
		t.Fatal(err)
	}
	c := r.Log.(*JobClean)
	if c.JobID != 7 || c.Idx != 3 || r.Time != 1700000000 {
		t.Errorf("got %+v at %d", c, r.Time)
	}
}

func TestExtraTrailingFieldsIgnored(t *testing.T) {
	// A later LSF version appends fields: they are ignored.
	r, err := ParseRecord(`"JOB_REQUEUE" "10.1" 5 12 3 "later" 99 1.5`)
	if err != nil {
		t.Fatal(err)
	}
	if q := r.Log.(*JobRequeue); q.JobID != 12 || q.Idx != 3 {
		t.Errorf("got %+v", q)
	}
}

func TestParseJobIDStr(t *testing.T) {
	tests := []struct {
		in      string
		id      int64
		idx     int32
		wantErr bool
	}{
		{"123", 123, 0, false},
		{"123[4]", 123, 4, false},
		{"", 0, 0, true},
		{"x[1]", 0, 0, true},
		{"12[y]", 0, 0, true},
	}
	for _, tt := range tests {
		id, idx, err := ParseJobIDStr(tt.in)
		if (err != nil) != tt.wantErr || id != tt.id || idx != tt.idx {
			t.Errorf("ParseJobIDStr(%q) = %d, %d, %v; want %d, %d, err %v", tt.in, id, idx, err, tt.id, tt.idx, tt.wantErr)
		}
	}
}

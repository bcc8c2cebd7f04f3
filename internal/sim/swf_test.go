package sim

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

const goodLine = "1 0 5 100 4 -1 -1 4 200 -1 1 7 3 -1 2 -1 -1 -1"

func TestReadSWF(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		jobs     int
		problem  string // the first problem's text, "" none
	}{
		{"good", "; MaxNodes: 4\n" + goodLine + "\n", 1, ""},
		{"blank and comments", "\n;\n;x\n  \n" + goodLine + "\n", 1, ""},
		{"missing field", "1 0 5 100 4 -1 -1 4 200 -1 1 7 3 -1 2 -1 -1\n", 0, "line 1: 17 fields, want 18"},
		{"extra field", goodLine + " 9\n", 0, "line 1: 19 fields, want 18"},
		{"not a number", "1 0 5 1o0 4 -1 -1 4 200 -1 1 7 3 -1 2 -1 -1 -1\n", 0, `line 1: field 4 (run time): "1o0" is not a number`},
		{"negative", "; c\n1 0 5 100 -4 -1 -1 4 200 -1 1 7 3 -1 2 -1 -1 -1\n", 0, "line 2: field 5 (allocated processors): negative value -4 (only -1, unknown, may be negative)"},
		{"submit unknown", "1 -1 5 100 4 -1 -1 4 200 -1 1 7 3 -1 2 -1 -1 -1\n", 0, "line 1: field 2 (submit time): unknown (-1): the job cannot be replayed"},
		{"run unknown", "1 0 5 -1 4 -1 -1 4 200 -1 1 7 3 -1 2 -1 -1 -1\n", 0, "line 1: field 4 (run time): unknown (-1): the job cannot be replayed"},
		{"no processors", "1 0 5 100 -1 -1 -1 -1 200 -1 1 7 3 -1 2 -1 -1 -1\n", 0, "line 1: field 8 (requested processors): no processor count (requested and allocated processors unknown)"},
		{"infinite", "1 0 5 100 4 -1 -1 4 Inf -1 1 7 3 -1 2 -1 -1 -1\n", 0, `line 1: field 9 (requested time): "Inf" is not a number`},
		{"out of range", "1 1e300 5 100 4 -1 -1 4 200 -1 1 7 3 -1 2 -1 -1 -1\n", 0, "line 1: field 2 (submit time): 1e300 is out of range"},
		{"rest replayed", goodLine + "\nbad\n" + goodLine + "\n", 2, "line 2: 1 fields, want 18"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := ReadSWF(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Jobs) != tc.jobs {
				t.Errorf("%d jobs, want %d", len(w.Jobs), tc.jobs)
			}
			got := ""
			if len(w.Problems) > 0 {
				got = w.Problems[0].Error()
			}
			if got != tc.problem {
				t.Errorf("problem %q, want %q", got, tc.problem)
			}
		})
	}
}

func TestReadSWFFields(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("; UnixStartTime: 1000\n; MaxNodes: 2\n; MaxProcs: 16\n" +
		"2 30 -1 7.6 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n" + // allocated and requested unknown: refused
		"3 20 -1 7.6 8 -1 -1 -1 -1 -1 -1 12 -1 -1 -1 -1 -1 -1\n" + // allocated only, fractional run time
		goodLine + "\n"))
	zw.Close()
	w, err := ReadSWF(&gz)
	if err != nil {
		t.Fatal(err)
	}
	if w.UnixStart != 1000 || w.MaxNodes != 2 || w.MaxProcs != 16 {
		t.Errorf("header: start %d nodes %d procs %d", w.UnixStart, w.MaxNodes, w.MaxProcs)
	}
	if len(w.Jobs) != 2 || len(w.Problems) != 1 {
		t.Fatalf("%d jobs %d problems", len(w.Jobs), len(w.Problems))
	}
	a, b := w.Jobs[0], w.Jobs[1] // sorted by submit time
	if a.ID != 1 || a.Procs != 4 || a.ReqTime != 200 || a.Run != 100 || a.User != "u7" || a.Queue != 2 || a.Line != 6 {
		t.Errorf("job 1: %+v", a)
	}
	if b.ID != 3 || b.Procs != 8 || b.ReqTime != -1 || b.Run != 8 || b.User != "u12" || b.Group != "g0" {
		t.Errorf("job 3: %+v", b)
	}
}

func TestReadSWFLongLine(t *testing.T) {
	_, err := ReadSWF(strings.NewReader(goodLine + "\n" + strings.Repeat("1 ", maxLine)))
	if err == nil || !strings.Contains(err.Error(), "line 2: longer than") {
		t.Errorf("err = %v", err)
	}
}

func FuzzReadSWF(f *testing.F) {
	f.Add(goodLine + "\n")
	f.Add("; MaxNodes: 4\n1 0 5 100 4 -1 -1 4 200 -1 1 7 3 -1 2 -1 -1 -1\n2 1e300 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n")
	f.Add("\x1f\x8b garbage")
	f.Fuzz(func(t *testing.T, in string) {
		w, err := ReadSWF(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, j := range w.Jobs {
			if j.Submit < 0 || j.Run < 0 || j.Procs <= 0 || j.Line <= 0 {
				t.Fatalf("job accepted with bad fields: %+v", j)
			}
		}
		for _, p := range w.Problems {
			if !strings.HasPrefix(p.Error(), "line ") {
				t.Fatalf("problem without its line: %v", p)
			}
		}
	})
}

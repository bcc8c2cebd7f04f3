package gpureq

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, out string
	}{
		{"-", ""},
		{"", ""},
		{"num=2", "num=2"},
		{"num=3/host", "num=3"},
		{"num=2:mode=exclusive_process:mps=yes", "num=2:mode=exclusive_process:mps=yes"},
		{"num=1:mode=shared:mps=no:j_exclusive=no", "num=1:mode=shared:mps=no:j_exclusive=no"},
		{" num = 4 : j_exclusive=yes ", "num=4:j_exclusive=yes"},
		{"mps=per_socket,share,nocvd", "mps=per_socket,shared,nocvd"},
		{"gmodel=TeslaK80", "gmodel=TeslaK80"},
		{"j_exclusive=yes:num=2", "num=2:j_exclusive=yes"},
	} {
		r, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := r.String(); got != c.out {
			t.Errorf("Parse(%q) = %q, want %q", c.in, got, c.out)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		in  string
		pos int
		msg string
	}{
		{"num=0", 4, `num must be a number of GPUs from 1 to 1024, not "0"`},
		{"num=x", 4, `num must be a number of GPUs from 1 to 1024, not "x"`},
		{"num=2/node", 6, "num takes /task or /host, not /node"},
		{"num=2/task", 6, "num=N/task is not supported"},
		{"num=2:mode=fast", 11, `mode must be shared or exclusive_process, not "fast"`},
		{"num=2:", 6, "empty option"},
		{"num", 0, `option "num" has no value`},
		{"num=", 4, "option num has no value"},
		{"num=1:num=2", 6, "option num given twice"},
		{"mps=maybe", 4, `mps must be yes, no, per_socket or per_gpu, not "maybe"`},
		{"mps=no,nocvd", 7, "mps=no takes no flags"},
		{"mps=yes,loud", 8, `unknown mps flag "loud" (shared, nocvd)`},
		{"j_exclusive=perhaps", 12, `j_exclusive must be yes or no, not "perhaps"`},
		{"num=1:gmem=4G", 6, "option gmem is not supported"},
		{"num=1:colour=red", 6, `unknown option "colour"`},
		{"::", 0, "empty option"},
	} {
		_, err := Parse(c.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q): err %v, want *Error", c.in, err)
			continue
		}
		if e.Pos != c.pos || e.Msg != c.msg {
			t.Errorf("Parse(%q) = %d %q, want %d %q", c.in, e.Pos, e.Msg, c.pos, c.msg)
		}
	}
}

func TestResolve(t *testing.T) {
	for _, c := range []struct {
		job, def, want string
		ok             bool
	}{
		{"", "num=2", "", false},
		{"-", "", "num=1:mode=shared:mps=no:j_exclusive=no", true},
		{"-", "num=2:mode=exclusive_process", "num=2:mode=exclusive_process:mps=no:j_exclusive=yes", true},
		{"num=3", "num=2:j_exclusive=yes", "num=3:mode=shared:mps=no:j_exclusive=yes", true},
		{"mode=exclusive_process:j_exclusive=no", "", "num=1:mode=exclusive_process:mps=no:j_exclusive=no", true},
		{"num=2", "bad=1", "num=2:mode=shared:mps=no:j_exclusive=no", true},
	} {
		r, ok, err := Resolve(c.job, c.def)
		if err != nil || ok != c.ok {
			t.Errorf("Resolve(%q, %q): ok %v err %v", c.job, c.def, ok, err)
			continue
		}
		if ok && r.String() != c.want {
			t.Errorf("Resolve(%q, %q) = %q, want %q", c.job, c.def, r.String(), c.want)
		}
	}
	if _, _, err := Resolve("num=0", ""); err == nil {
		t.Error("Resolve of a bad job requirement: no error")
	}
	r, _, _ := Resolve("mode=exclusive_process", "")
	if !r.Exclusive() {
		t.Error("exclusive_process is not exclusive")
	}
	r, _, _ = Resolve("-", "")
	if r.Exclusive() {
		t.Error("the default requirement is exclusive")
	}
}

// TestLevels: each option comes from the most specific level that sets it
// (job, application profile, queue, cluster); a profile's or queue's
// GPU_REQ makes a job without -gpu ask for GPUs, LSB_GPU_REQ alone does
// not; invalid configured levels are ignored.
func TestLevels(t *testing.T) {
	for _, c := range []struct {
		l    Levels
		want string // "" when no GPUs
	}{
		{Levels{}, ""},
		{Levels{Cluster: "num=2"}, ""},
		{Levels{Queue: "num=2"}, "num=2:mode=shared:mps=no:j_exclusive=no"},
		{Levels{App: "mode=exclusive_process"}, "num=1:mode=exclusive_process:mps=no:j_exclusive=yes"},
		{Levels{Job: "-", Queue: "num=2:mps=yes", Cluster: "num=3:j_exclusive=yes"}, "num=2:mode=shared:mps=yes:j_exclusive=yes"},
		{Levels{Job: "num=4", App: "num=3:mode=exclusive_process", Queue: "num=2:gmodel=Tesla", Cluster: "num=1"},
			"num=4:mode=exclusive_process:mps=no:j_exclusive=yes:gmodel=Tesla"},
		{Levels{App: "j_exclusive=no", Queue: "mode=exclusive_process"}, "num=1:mode=exclusive_process:mps=no:j_exclusive=no"},
		{Levels{Job: "num=2", Queue: "bad=1", App: "num=0"}, "num=2:mode=shared:mps=no:j_exclusive=no"},
		{Levels{Queue: "bad=1"}, ""},
		{Levels{Queue: "  "}, ""},
	} {
		r, ok, err := c.l.Resolve()
		got := ""
		if ok {
			got = r.String()
		}
		if err != nil || got != c.want {
			t.Errorf("%+v: %q (err %v), want %q", c.l, got, err, c.want)
		}
	}
	if _, _, err := (Levels{Job: "num=0", Queue: "num=1"}).Resolve(); err == nil {
		t.Error("a bad job requirement: no error")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"-", "num=2:mode=shared:mps=yes,shared:j_exclusive=no", "num=2/task", "gmem=1", "::", "num="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Pos < 0 || e.Pos > len(s) {
				t.Fatalf("Parse(%q): bad error %v", s, err)
			}
			return
		}
		// What prints parses back to the same requirement.
		r2, err := Parse(r.String())
		if err != nil || r2 != r {
			t.Fatalf("Parse(%q) = %+v; String %q reparsed %+v, %v", s, r, r.String(), r2, err)
		}
	})
}

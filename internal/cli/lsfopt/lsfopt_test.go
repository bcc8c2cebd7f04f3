package lsfopt

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	bsub := New("J:|q:|n:|R:|o:|oo:|e:|eo:|I|Ip|Is|K|x|r|rn|H|E:|Ep:|env:|cwd:|app:|sp:|pack:|w:|W:")
	bsub.StopAtOperand = true
	bjobs := New("a|d|p|r|s|l|w|W|X|u:|q:|m:|J:|P:|o:|noheader|json|A")
	tests := []struct {
		name     string
		spec     *Spec
		args     []string
		opts     []Opt
		operands []string
		err      string
	}{
		{"bsub command untouched", bsub, []string{"-n", "4", "-R", "span[hosts=1]", "sleep", "-n", "10"},
			[]Opt{{"n", "4", true}, {"R", "span[hosts=1]", true}}, []string{"sleep", "-n", "10"}, ""},
		{"repeated -R kept in order", bsub, []string{"-R", "select[swp > 15]", "-R", "select[hpux]", "job"},
			[]Opt{{"R", "select[swp > 15]", true}, {"R", "select[hpux]", true}}, []string{"job"}, ""},
		{"multi-letter beats prefix", bsub, []string{"-oo", "out", "-Is", "-rn", "-Ep", "post", "x"},
			[]Opt{{"oo", "out", true}, {"Is", "", false}, {"rn", "", false}, {"Ep", "post", true}}, []string{"x"}, ""},
		{"attached value", bsub, []string{"-n4", "-qnormal", "a"},
			[]Opt{{"n", "4", true}, {"q", "normal", true}}, []string{"a"}, ""},
		{"attached longest prefix", bsub, []string{"-oofile", "a"},
			[]Opt{{"oo", "file", true}}, []string{"a"}, ""},
		{"empty value", bsub, []string{"-J", "", "a"}, []Opt{{"J", "", true}}, []string{"a"}, ""},
		{"double dash", bsub, []string{"-x", "--", "-n"}, []Opt{{"x", "", false}}, []string{"-n"}, ""},
		{"missing value", bsub, []string{"-q"}, nil, nil, "option requires an argument -- q"},
		{"unknown", bsub, []string{"-Z", "a"}, nil, nil, "illegal option -- Z"},
		{"bjobs combined flags", bjobs, []string{"-pl"}, []Opt{{"p", "", false}, {"l", "", false}}, nil, ""},
		{"bjobs interleaved", bjobs, []string{"12", "-l", "13"}, []Opt{{"l", "", false}}, []string{"12", "13"}, ""},
		{"bjobs noheader", bjobs, []string{"-noheader", "-o", "jobid stat", "-json"},
			[]Opt{{"noheader", "", false}, {"o", "jobid stat", true}, {"json", "", false}}, nil, ""},
		{"bjobs combined with value", bjobs, []string{"-au", "all"},
			[]Opt{{"a", "", false}, {"u", "all", true}}, nil, ""},
		{"negative number is operand", bjobs, []string{"-1"}, nil, []string{"-1"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.spec.Parse(tc.args)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Opts, tc.opts) {
				t.Errorf("opts = %#v\nwant %#v", r.Opts, tc.opts)
			}
			if !reflect.DeepEqual(r.Operands, tc.operands) {
				t.Errorf("operands = %q, want %q", r.Operands, tc.operands)
			}
		})
	}
}

func TestResultAccessors(t *testing.T) {
	s := New("R:|q:|x")
	r, err := s.Parse([]string{"-R", "a", "-q", "q1", "-R", "b", "-q", "q2"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.All("R"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("All(R) = %q", got)
	}
	if v, ok := r.Last("q"); !ok || v != "q2" {
		t.Errorf("Last(q) = %q %v", v, ok)
	}
	if r.Has("x") {
		t.Error("Has(x) true")
	}
}

func FuzzParse(f *testing.F) {
	s := New("J:|q:|n:|R:|o:|oo:|I|Is|x|a|l|u::")
	f.Add("-n4", "-R", "x")
	f.Add("-al", "-u", "-x")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		r, err := s.Parse([]string{a, b, c})
		if err == nil && r == nil {
			t.Fatal("nil result without error")
		}
	})
}

// TestFirstOf: the first option of a description that was given, value
// marks ignored, "" for none.
func TestFirstOf(t *testing.T) {
	res, err := New("a|b:|c::|d").Parse([]string{"-d", "-b", "x", "op"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ desc, want string }{
		{"b:|d", "b"}, {"d|b:", "d"}, {"a|c::", ""}, {"", ""}, {"c::|d", "d"},
	} {
		if got := res.FirstOf(tt.desc); got != tt.want {
			t.Errorf("FirstOf(%q) = %q, want %q", tt.desc, got, tt.want)
		}
	}
}

package depend

import (
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func TestParse(t *testing.T) {
	tests := []struct{ in, want string }{
		{"123", `done(123)`},
		{"done(123)", `done(123)`},
		{`done("123")`, `done("123")`},
		{"done(myjob)", `done("myjob")`},
		{"ended(my*)", `ended("my*")`},
		{"exit(5)", `exit(5)`},
		{"exit(5, 2)", `exit(5, == 2)`},
		{"exit(5,>=3)", `exit(5, >= 3)`},
		{"started(7[3])", `started(7[3])`},
		{"post_done(a) || post_err(b)", `(post_done("a") || post_err("b"))`},
		{"done(1) && ended(2) || !exit(3)", `((done(1) && ended(2)) || !exit(3))`},
		{"done(1) && (ended(2) || exit(3))", `(done(1) && (ended(2) || exit(3)))`},
		{"numdone(9, >= 5)", `numdone(9, >= 5)`},
		{"numended(9,*)", `numended(9, *)`},
		{`external(4, "ready")`, `external(4, "ready")`},
		{"DONE(1)", `done(1)`},
		{"done(7[*])", `done(7[*])`},
		{"done(sim[*]) && exit(sim[2])", `(done("sim[*]") && exit("sim[2]"))`},
		{`done("42[*]")`, `done("42[*]")`},
	}
	for _, tc := range tests {
		e, err := Parse(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := e.String(); got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.in, got, tc.want)
		}
		again, err := Parse(e.String())
		if err != nil || again.String() != e.String() {
			t.Errorf("%q: reparse of %s: %v %v", tc.in, e, again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "column 1: empty dependency expression"},
		{"done(", "column 6: done: missing job ID or name"},
		{"done(1", "column 7: missing )"},
		{"done(1) &&", "column 11: unexpected end of expression"},
		{"done(1) done(2)", `column 9: unexpected "done"`},
		{"(done(1)", "column 9: missing )"},
		{"done(0)", `column 6: bad job ID "0"`},
		{"done(12x)", `column 6: bad job ID "12x"`},
		{"done(5[0])", `column 6: bad array index in "5[0]"`},
		{"done(a*b)", "column 7: a wildcard * may only end a job name"},
		{"done([*])", "column 6: empty job name"},
		{"done(sim[x])", `column 6: bad array index in "sim[x]"`},
		{"numdone(abc, >1)", "column 1: numdone needs a job array ID"},
		{"numdone(5)", "column 10: numdone: expected , and a count"},
		{"numdone(5, x)", "column 12: numdone: expected an operator or *"},
		{"exit(5, >x)", `column 10: bad number "x"`},
		{"done(1, 2)", "column 9: done takes one argument"},
		{`done("abc`, `column 6: done: missing job ID or name`},
		{"done(1) & done(2)", `column 9: unexpected "&"`},
		{strings.Repeat("!", 200) + "done(1)", "column 101: expression nested too deeply"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: err = %v, want %q", tc.in, err, tc.want)
		}
	}
}

type fakeJobs map[string][]JobInfo

func (f fakeJobs) Resolve(r Ref) []JobInfo { return f[r.String()] }

func TestEval(t *testing.T) {
	jobs := fakeJobs{
		"1":       {{State: api.StateDone, Started: true}},
		"2":       {{State: api.StateExit, ExitCode: 3, Started: true}},
		"3":       {{State: api.StateRun, Started: true}},
		"4":       {{State: api.StatePend}},
		"5":       {{State: api.StateDone, Started: true}, {State: api.StateExit, ExitCode: 1, Started: true}, {State: api.StateRun, Started: true}},
		`"align"`: {{State: api.StateDone, Started: true}, {State: api.StateRun, Started: true}},
		"6":       {{State: api.StateDone, PostDone: true, Started: true}},
		"7":       {{State: api.StateExit, PostFailed: true, Started: true}},
	}
	tests := []struct {
		expr string
		want Result
	}{
		{"done(1)", Satisfied},
		{"1", Satisfied},
		{"done(2)", Never},
		{"done(3)", Waiting},
		{"ended(2)", Satisfied},
		{"ended(3)", Waiting},
		{"exit(2)", Satisfied},
		{"exit(2, 3)", Satisfied},
		{"exit(2, >3)", Never},
		{"exit(1)", Never},
		{"exit(1, 0)", Satisfied},
		{"started(3)", Satisfied},
		{"started(4)", Waiting},
		{"done(99)", Never}, // gone
		{"done(1) && done(3)", Waiting},
		{"done(1) && done(2)", Never},
		{"done(2) || done(3)", Waiting},
		{"done(2) || done(1)", Satisfied},
		{"!done(3)", Satisfied},
		{"!done(1)", Never},
		{"done(align)", Waiting}, // all jobs with the name must be done
		{"started(align)", Satisfied},
		{"numdone(5, >= 1)", Satisfied},
		{"numdone(5, > 1)", Waiting},
		{"numended(5, *)", Waiting},
		{"numexit(5, == 1)", Satisfied},
		{"numrun(5, == 0)", Waiting},
		{"post_done(6)", Satisfied},
		{"post_err(6)", Never},
		{"post_err(7)", Satisfied},
	}
	for _, tc := range tests {
		e, err := Parse(tc.expr)
		if err != nil {
			t.Fatalf("%q: %v", tc.expr, err)
		}
		if got := Eval(e, jobs); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.expr, got, tc.want)
		}
	}
}

func TestRefs(t *testing.T) {
	e, _ := Parse(`done(1) && (ended("x*") || exit(2[3]))`)
	var got []string
	for _, r := range e.Refs() {
		got = append(got, r.String())
	}
	if strings.Join(got, " ") != `1 "x*" 2[3]` {
		t.Fatalf("refs = %v", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"done(1) && ended(\"a*\")", "numdone(3, >= 2) || !exit(4, 1)", "(((1)))", "external(1, \"x\")"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(e.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", e.String(), s, err)
		}
		if again.String() != e.String() {
			t.Fatalf("canonical form not stable: %q vs %q", again.String(), e.String())
		}
		Eval(e, fakeJobs{})
	})
}

package resreq

import (
	"errors"
	"strings"
	"testing"
)

func TestParseMulti(t *testing.T) {
	tests := []struct {
		in   []string
		want string
		rule TypeRule
	}{
		{nil, "", TypeLocal},
		{[]string{"mem > 1"}, "select[mem > 1]", TypeLocal},
		// The seed: bsub -R "select[swp > 15]" -R "select[hpux]".
		{[]string{"select[swp > 15]", "select[hpux]"}, "select[(swp > 15) && hpux]", TypeAny},
		{[]string{"select[swp > 15]", "select[hpux] order[r15m]", "rusage[mem=100]", "order[ut]",
			"same[type]", "rusage[hmem=50]", "span[ptile=2]"},
			"select[(swp > 15) && hpux] order[r15m] rusage[mem=100, hmem=50] span[ptile=2] same[type]", TypeAny},
		{[]string{"mem > 1", "swp > 2", "tmp > 3"}, "select[((mem > 1) && (swp > 2)) && (tmp > 3)]", TypeLocal},
		{[]string{"span[hosts=1]", "mem > 1"}, "select[mem > 1] span[hosts=1]", TypeLocal},
		{[]string{"same[type]", "same[model:type]"}, "same[type:model]", TypeLocal},
		{[]string{"cu[type=rack]", "cu[type=cell]"}, "cu[type=rack]", TypeLocal},
		{[]string{"rusage[mem=1:duration=5]", "rusage[swp=2]"}, "rusage[mem=1:duration=5, swp=2]", TypeLocal},
		{[]string{"type == any", "mem > 1"}, "select[(type == any) && (mem > 1)]", TypeExplicit},
		{[]string{"", "mem > 1", ""}, "select[mem > 1]", TypeLocal},
	}
	for _, tt := range tests {
		r, err := ParseMulti(tt.in, strictOpts)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got := r.String(); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.in, got, tt.want)
		}
		if r.Simple.TypeRule != tt.rule {
			t.Errorf("%q: type rule %v, want %v", tt.in, r.Simple.TypeRule, tt.rule)
		}
	}
	errTests := []struct {
		in       []string
		arg, pos int
		msg      string
	}{
		{[]string{"mem > 1", "2*{select[mem>1]}"}, 1, 0, MsgCompoundMulti},
		{[]string{"  {select[mem>1]} || {fs}", "mem > 1"}, 0, 2, MsgCompoundMulti},
		{[]string{"mem > 1", "swp > foo"}, 1, 6, MsgUnknownResource},
		{[]string{"rusage[mem=1]", "rusage[swp=1:mem=2]"}, 1, 13, "resource appears twice in rusage"},
		{[]string{"rusage[mem=1]", "rusage[swp=1 || lic=1]"}, 1, 0, "rusage alternatives (||) cannot be merged"},
	}
	for _, tt := range errTests {
		_, err := ParseMulti(tt.in, strictOpts)
		e := FirstError(err)
		if e == nil || e.Arg != tt.arg || e.Pos != tt.pos || !contains(e.Msg, tt.msg) {
			t.Errorf("%q: %+v, want arg %d pos %d %q", tt.in, e, tt.arg, tt.pos, tt.msg)
		}
	}
	// Notes of every option are kept.
	r, err := ParseMulti([]string{"rusage[mem=1] foo", "rusage[ngpus=1]"}, looseOpts)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Notes) != 2 || r.Notes[0].Arg != 0 || r.Notes[1].Arg != 1 {
		t.Errorf("notes %v", r.Notes)
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

func TestMerge(t *testing.T) {
	job := Options{Table: testTable, Context: CtxBsub}
	queue := Options{Table: testTable, Context: CtxQueue}
	tests := []struct {
		job, queue string // "-" means not given (nil)
		want       string
		rule       TypeRule
	}{
		// The reference's rusage examples.
		{"rusage[mem=100]", "rusage[mem=200:lic=1]", "rusage[mem=100:lic=1]", TypeLocal},
		{"rusage[mem=100]", "rusage[mem=200:duration=20:decay=1]", "rusage[mem=100:duration=20:decay=1]", TypeLocal},
		{"rusage[mem=100:duration=10]", "rusage[mem=200:duration=20:decay=1]", "rusage[mem=100:duration=10]", TypeLocal},
		{"rusage[mem=100:decay=0]", "rusage[mem=200:duration=20:decay=1]", "rusage[mem=100:duration=20:decay=0]", TypeLocal},
		{"rusage[license=5]", "rusage[license=1]", "rusage[license=5]", TypeLocal}, // external: may exceed
		{"rusage[lic=1]", "rusage[mem=200:duration=20]", "rusage[lic=1, mem=200:duration=20]", TypeLocal},
		{"rusage[lic=1 || license=1]", "rusage[mem=200]", "rusage[lic=1 || license=1]", TypeLocal},
		{"rusage[mem=10]", "rusage[mem=20 || mem=30:lic=1]", "rusage[mem=10 || mem=10:lic=1]", TypeLocal},
		{"mem > 1", "rusage[mem=20]", "select[mem > 1] rusage[mem=20]", TypeLocal},
		// select: both.
		{"mem > 1", "swp > 2", "select[(mem > 1) && (swp > 2)]", TypeLocal},
		{"-", "swp > 2", "select[swp > 2]", TypeLocal},
		{"mem > 1", "-", "select[mem > 1]", TypeLocal},
		// order: the queue's is ignored once the job gives a requirement.
		{"mem > 1", "order[ut]", "select[mem > 1]", TypeLocal},
		{"order[mem]", "order[ut]", "order[mem]", TypeLocal},
		{"-", "order[ut]", "order[ut]", TypeLocal},
		{"", "order[ut]", "order[ut]", TypeLocal},
		// span: the job's, hosts=-1 cancels the queue's.
		{"span[ptile=2]", "span[hosts=1]", "span[ptile=2]", TypeLocal},
		{"mem > 1", "span[hosts=1]", "select[mem > 1] span[hosts=1]", TypeLocal},
		{"span[hosts=-1]", "span[hosts=1]", "", TypeLocal},
		// same: combined; cu: the job's.
		{"same[type]", "same[model]", "same[type:model]", TypeLocal},
		{"cu[type=rack]", "cu[type=cell]", "cu[type=rack]", TypeLocal},
		{"mem > 1", "cu[type=cell]", "select[mem > 1] cu[type=cell]", TypeLocal},
		// type rule.
		{"fs", "mem > 1", "select[fs && (mem > 1)]", TypeAny},
		{"mem > 1", "fs", "select[(mem > 1) && fs]", TypeAny},
		{"mem > 1", "type == LINUX", "select[(mem > 1) && (type == LINUX)]", TypeExplicit},
		{"-", "-", "", TypeLocal},
		{"", "-", "", TypeLocal},
		{"-", "fs", "select[fs]", TypeAny},
		// compound and alternative.
		{"2*{mem > 1} + {rusage[mem=5]}", "swp > 2 rusage[mem=10]",
			"2*{select[(mem > 1) && (swp > 2)] rusage[mem=10]} + {select[swp > 2] rusage[mem=5]}", TypeLocal},
		{"{fs} || {hpux}", "swp > 2", "{select[fs && (swp > 2)]} || {select[hpux && (swp > 2)]}", TypeLocal},
		{"-", "2*{mem > 1} + {swp > 1}", "2*{select[mem > 1]} + {select[swp > 1]}", TypeLocal},
		{"fs", "2*{mem > 1} + {swp > 1}", "select[fs]", TypeAny},
	}
	parse := func(s string, o Options) *ResReq {
		if s == "-" {
			return nil
		}
		r, err := Parse(s, o)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		return r
	}
	for _, tt := range tests {
		m, err := Merge(parse(tt.job, job), parse(tt.queue, queue))
		if err != nil {
			t.Errorf("job %q queue %q: %v", tt.job, tt.queue, err)
			continue
		}
		if got := m.String(); got != tt.want {
			t.Errorf("job %q queue %q:\n got %s\nwant %s", tt.job, tt.queue, got, tt.want)
		}
		if m.Kind == KindSimple && m.Simple.TypeRule != tt.rule {
			t.Errorf("job %q queue %q: type rule %v, want %v", tt.job, tt.queue, m.Simple.TypeRule, tt.rule)
		}
		// The merged requirement compiles.
		if _, err := m.Compile(testTable, Local{}); err != nil {
			t.Errorf("job %q queue %q: compile: %v", tt.job, tt.queue, err)
		}
	}
	errTests := []struct{ job, queue, near string }{
		{"rusage[mem=300]", "rusage[mem=200]", "mem"},
		{"rusage[swp=1GB]", "rusage[swp=100]", "swp"},
		{"rusage[mem=100:duration=30]", "rusage[mem=200:duration=20]", "mem"},
		{"rusage[mem=100:duration=2h]", "rusage[mem=200:duration=60m]", "mem"},
		{"2*{rusage[ut=0.5]}", "rusage[ut=0.2]", "ut"},
	}
	for _, tt := range errTests {
		_, err := Merge(parse(tt.job, job), parse(tt.queue, queue))
		e := FirstError(err)
		if !errors.Is(err, ErrMerge) || e == nil || e.Near != tt.near {
			t.Errorf("job %q queue %q: %v", tt.job, tt.queue, err)
		}
	}
}

func TestCheckSelect(t *testing.T) {
	o := Options{Table: testTable}
	valid := [][]string{
		nil,
		{},
		{""},
		{"select[type==local]"},
		{"select[swp > 15]", "select[hpux]"},
		// Only the select section is checked.
		{"select[mem>1] rusage[foo=bar]"},
		{"order[nosuch] span[hosts=7]"},
		{"rusage[mem=1] rusage[swp=1]"},
		{"mem > 1 affinity[core(1)]"},
		{"2*{select[mem>1] rusage[x=y]} + {select[fs]}"},
		{"'swp>100'"},
		{"rusage[mem=2000] select[linux]"},
	}
	for _, reqs := range valid {
		if err := CheckSelect(reqs, o); err != nil {
			t.Errorf("%q: %v", reqs, err)
		}
	}
	invalid := []struct {
		reqs []string
		want string
		arg  int
	}{
		// The seed's example.
		{[]string{"select[type==local] select[hname=abc]"}, `Error near "select": duplicate section`, 0},
		// Strict syntax whatever LSF_STRICT_RESREQ says.
		{[]string{"linux:qscw"}, `Error near ":": colon (:) not allowed in the select string`, 0},
		{[]string{"!!mg"}, `Error near "!!": multiple logical NOT operators (!!) not allowed`, 0},
		{[]string{"defined( mg )"}, `Error near "defined": blanks not allowed between defined( ) and the resource name`, 0},
		{[]string{"type==anyrusage[mem=1024]"}, `Error near "anyrusage": at least one blank must separate sections`, 0},
		{[]string{"linux rusage[mem=16000] microcs73"}, `Error near "microcs73": not part of any section`, 0},
		{[]string{"mem < 16384 && select[AMD64]"}, `Error near "select": duplicate section`, 0},
		{[]string{"rusage[mem=2000] linux"}, `Error near "linux": not part of any section`, 0},
		{[]string{"select['swp>100']"}, `Error near "'swp>100'": quotes are only allowed around the whole resource requirement string`, 0},
		{[]string{"fs == 1"}, `Error near "fs": Boolean resource can only be used with &&, || and !`, 0},
		{[]string{"mem > 1", "swp > foo"}, `Error near "foo": unknown resource name`, 1},
		{[]string{"mem > 1", "2*{mem > 1}"}, `Error near "2": ` + MsgCompoundMulti, 1},
		{[]string{"2*{select[foo]}"}, `Error near "foo": unknown resource name`, 0},
		{[]string{"select[mem > 1"}, `Error near "select": missing ]`, 0},
	}
	for _, tt := range invalid {
		err := CheckSelect(tt.reqs, o)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: %v is not an *Error", tt.reqs, err)
			continue
		}
		if err.Error() != tt.want || e.Arg != tt.arg {
			t.Errorf("%q:\n got %s (arg %d)\nwant %s (arg %d)", tt.reqs, err, e.Arg, tt.want, tt.arg)
		}
	}
	if err := CheckSelect([]string{"mem > 1"}, Options{Unit: "bogus"}); err == nil {
		t.Error("bad unit accepted")
	}
}

func TestMergeDepth(t *testing.T) {
	chain := "mem" + strings.Repeat(" + mem", maxDepth-1) + " > 1"
	if _, err := ParseMulti([]string{chain, "swp > 1", "rusage[mem=1]"}, strictOpts); FirstError(err) == nil || FirstError(err).Msg != MsgNestedTooDeep {
		t.Errorf("ParseMulti: %v", err)
	}
	j, err := Parse(chain, strictOpts)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Parse("swp > 1", Options{Table: testTable, Context: CtxQueue})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(j, q); FirstError(err) == nil || FirstError(err).Msg != MsgNestedTooDeep {
		t.Errorf("Merge: %v", err)
	}
	// Within the limit the merged requirement prints and parses back.
	short := "mem" + strings.Repeat(" + mem", maxDepth-3) + " > 1"
	m, err := ParseMulti([]string{short, "swp > 1"}, strictOpts)
	if err != nil {
		t.Fatal(err)
	}
	mustRoundTrip(t, m.String(), strictOpts)
}

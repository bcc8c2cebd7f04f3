package resreq

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	looseOpts  = Options{Table: testTable}
	strictOpts = Options{Table: testTable, Strict: true}
)

// mustRoundTrip parses s, checks parse(print(r)) == r, and returns the
// canonical form.
func mustRoundTrip(t *testing.T, s string, o Options) string {
	t.Helper()
	r, err := Parse(s, o)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	canon := r.String()
	r2, err := Parse(canon, o)
	if err != nil {
		t.Fatalf("Parse(canonical %q of %q): %v", canon, s, err)
	}
	if d := astDiff(r, r2); d != "" {
		t.Fatalf("Parse(print(Parse(%q))) differs: %s\ncanonical: %s", s, d, canon)
	}
	if again := r2.String(); again != canon {
		t.Fatalf("canonical form not stable: %q -> %q", canon, again)
	}
	return canon
}

// TestPrecedence checks the seed's operator table (precedence and left
// associativity) through the fully parenthesised canonical form.
func TestPrecedence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"r15s || r1m && r15m", "r15s || (r1m && r15m)"},
		{"r15s && r1m || r15m", "(r15s && r1m) || r15m"},
		{"r15s || r1m || r15m", "(r15s || r1m) || r15m"},
		{"r15s && r1m && r15m", "(r15s && r1m) && r15m"},
		{"r15s == r1m && r15m != pg", "(r15s == r1m) && (r15m != pg)"},
		{"r15s < r1m == r15m > pg", "(r15s < r1m) == (r15m > pg)"},
		{"r15s >= r1m != r15m <= pg", "(r15s >= r1m) != (r15m <= pg)"},
		{"r15s == r1m == r15m", "(r15s == r1m) == r15m"},
		{"r15s < r1m < r15m", "(r15s < r1m) < r15m"},
		{"r15s + r1m < r15m * pg", "(r15s + r1m) < (r15m * pg)"},
		{"r15s + r1m * r15m", "r15s + (r1m * r15m)"},
		{"r15s * r1m + r15m", "(r15s * r1m) + r15m"},
		{"r15s - r1m - r15m", "(r15s - r1m) - r15m"},
		{"r15s - r1m + r15m", "(r15s - r1m) + r15m"},
		{"r15s / r1m / r15m", "(r15s / r1m) / r15m"},
		{"r15s / r1m * r15m", "(r15s / r1m) * r15m"},
		{"r15s - (r1m - r15m)", "r15s - (r1m - r15m)"},
		{"-r15s * r1m", "-r15s * r1m"},
		{"-(r15s * r1m)", "-(r15s * r1m)"},
		{"2 * - r15s", "2 * -r15s"},
		{"- - r15s", "-(-r15s)"},
		{"!r15s && r1m", "!r15s && r1m"},
		{"!(r15s && r1m)", "!(r15s && r1m)"},
		{"!r15s == 0", "!r15s == 0"},
		{"!(r15s == 0)", "!(r15s == 0)"},
		{"-r15s < 0 || !r1m", "(-r15s < 0) || !r1m"},
		{"((r15s))", "r15s"},
		{"(r15s || r1m) && r15m", "(r15s || r1m) && r15m"},
		{"r15s = 1", "r15s == 1"},
		{"r15s >= 1 && r1m <= 2 && r15m > 3 && pg < 4",
			"(((r15s >= 1) && (r1m <= 2)) && (r15m > 3)) && (pg < 4)"},
		{"1 + 2 * 3 - 4 / 5 > 6 == 7 < 8 && 9 || 10",
			"(((((1 + (2 * 3)) - (4 / 5)) > 6) == (7 < 8)) && 9) || 10"},
		// The seed's examples of && over ||.
		{"r15s < 1.0 || model ==local && swp <= 10",
			"(r15s < 1.0) || ((model == local) && (swp <= 10))"},
		{"(r15s < 1.0 || model == local) && swp <= 10",
			"((r15s < 1.0) || (model == local)) && (swp <= 10)"},
	}
	for _, tt := range tests {
		for _, o := range []Options{looseOpts, strictOpts} {
			got := mustRoundTrip(t, tt.in, o)
			if want := "select[" + tt.want + "]"; got != want {
				t.Errorf("strict=%v %q:\n got %s\nwant %s", o.Strict, tt.in, got, want)
			}
		}
	}
}

// TestColonPrecedence: the old colon-separated list binds loosest.
func TestColonPrecedence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"linux:qscw", "select[linux && qscw]"},
		{"fs:hpux || cs", "select[fs && (hpux || cs)]"},
		{"fs || hpux:cs && mg", "select[(fs || hpux) && (cs && mg)]"},
		{"select[mg:bigmem]", "select[mg && bigmem]"},
	}
	for _, tt := range tests {
		if got := mustRoundTrip(t, tt.in, looseOpts); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestSeedExamples: every example of the select string seed, and the
// reference's section examples, parse to the expected canonical form.
func TestSeedExamples(t *testing.T) {
	lsload := Options{Table: testTable, Context: CtxLsload}
	tests := []struct {
		in   string
		o    Options
		want string
	}{
		{"select[slots>4 && maxslots < 10 || mem > 10] order[-slots:maxslots:maxmem:ut]", strictOpts,
			"select[((slots > 4) && (maxslots < 10)) || (mem > 10)] order[-slots:maxslots:maxmem:ut]"},
		{"select [swp > 15 &&  maxmem > 100]  rusage[mem = 100] ", strictOpts,
			"select[(swp > 15) && (maxmem > 100)] rusage[mem=100]"},
		{"select[os_version=='4.2' || cpu_type=='unknown']", lsload,
			"select[(os_version == '4.2') || (cpu_type == 'unknown')]"},
		{"status==ok", strictOpts, "select[status == ok]"},
		{"select[(swp > 50 && type == x86_64) || (swp > 35 && type == LINUX)]", strictOpts,
			"select[((swp > 50) && (type == x86_64)) || ((swp > 35) && (type == LINUX))]"},
		{"select[((2*r15s + 3*r1m + r15m) / 6 < 1.0) && !fs && (cpuf > 4.0)]", strictOpts,
			"select[((((((2 * r15s) + (3 * r1m)) + r15m) / 6) < 1.0) && !fs) && (cpuf > 4.0)]"},
		{"avail_scratch > 200 && swap > 50", strictOpts, "select[(avail_scratch > 200) && (swp > 50)]"},
		{"defined(avail_scratch) && avail_scratch > 100 && swap > 100", strictOpts,
			"select[(defined(avail_scratch) && (avail_scratch > 100)) && (swp > 100)]"},
		{"bigmem", strictOpts, "select[bigmem]"},
		{"type==any rusage[mem=1024]", strictOpts, "select[type == any] rusage[mem=1024]"},
		{"select[type==any] rusage[mem=1024]", strictOpts, "select[type == any] rusage[mem=1024]"},
		{"select[type==any]rusage[mem=1024]", strictOpts, "select[type == any] rusage[mem=1024]"},
		{"!(!mg)", strictOpts, "select[!(!mg)]"},
		{"'swp>100'", strictOpts, "select[swp > 100]"},
		{`"swp>100"`, strictOpts, "select[swp > 100]"},
		{"select[swp>15] rusage[mem=100]", strictOpts, "select[swp > 15] rusage[mem=100]"},
		{"swp > 15 rusage[mem=100]", strictOpts, "select[swp > 15] rusage[mem=100]"},
		{"rusage[mem=100] select[swp >15]", strictOpts, "select[swp > 15] rusage[mem=100]"},
		{"(r15s * 2 + r15m) < 3.0 && !(type == IBMAIX4) || fs", strictOpts,
			"select[((((r15s * 2) + r15m) < 3.0) && !(type == IBMAIX4)) || fs]"},
		{"!swp", strictOpts, "select[!swp]"},
		{"type == local", strictOpts, "select[type == local]"},
		{"type != local", strictOpts, "select[type != local]"},
		{"inf > 1 && nan < 2 && nanny", strictOpts, "select[((inf > 1) && (nan < 2)) && nanny]"},
		{"rusage[swp=100,license=1]", strictOpts, "rusage[swp=100, license=1]"},
		{"select[hname!='host06-x12']", strictOpts, "select[hname != 'host06-x12']"},
		{"rhel6 || rhel7", strictOpts, "select[rhel6 || rhel7]"},
		{"swp > 15 && hpux order[ut]", strictOpts, "select[(swp > 15) && hpux] order[ut]"},
		{"type==any order[ut] same[model] rusage[mem=1]", strictOpts,
			"select[type == any] order[ut] rusage[mem=1] same[model]"},
		{"select[type==any] order[ut] same[model] rusage[mem=1]", strictOpts,
			"select[type == any] order[ut] rusage[mem=1] same[model]"},
		{"select[ngpus>0]", strictOpts, "select[ngpus > 0]"},
		{"select[mem>=4096MB]", strictOpts, "select[mem >= 4096MB]"},
		{"select[tmp>=100] rusage[tmp=100]", strictOpts, "select[tmp >= 100] rusage[tmp=100]"},
		{"select[mem>4000] rusage[mem=4000] span[hosts=1]", strictOpts,
			"select[mem > 4000] rusage[mem=4000] span[hosts=1]"},
		{"span[ptile=4]", strictOpts, "span[ptile=4]"},
		{"order[r15s:pg]", strictOpts, "order[r15s:pg]"},
		{"order[swp:r1m:tmp:r15s]", strictOpts, "order[swp:r1m:tmp:r15s]"},
		{"order[!-slots]", strictOpts, "order[!-slots]"},
		{"rusage[mem=50:duration=100:decay=1]", strictOpts, "rusage[mem=50:duration=100:decay=1]"},
		{"rusage[mem=20, license=1:duration=2]", strictOpts, "rusage[mem=20, license=1:duration=2]"},
		{"rusage[app_lic_v201=1||app_lic_v15=1]", strictOpts, "rusage[app_lic_v201=1 || app_lic_v15=1]"},
		{"rusage[mem=20:app_lic_v201=1||mem=20:swp=50:app_lic_v15=1]", strictOpts,
			"rusage[mem=20:app_lic_v201=1 || mem=20:swp=50:app_lic_v15=1]"},
		{"rusage[mem=10:duration=1h] rusage2", looseOpts, "rusage[mem=10:duration=1h]"},
		{"rusage[mem=2GB:duration=30s:decay=0]", strictOpts, "rusage[mem=2GB:duration=30s:decay=0]"},
		{"span[ptile='!',HP:8,SGI:8] same[type]", strictOpts, "span[ptile='!',HP:8,SGI:8] same[type]"},
		{"span[ptile=SGI:8,4]", strictOpts, "span[ptile=4,SGI:8]"},
		{"span[hosts=-1]", strictOpts, "span[hosts=-1]"},
		{"span[block=4]", strictOpts, "span[block=4]"},
		{"same[type:model]", strictOpts, "same[type:model]"},
		{"cu[type=rack:pref=maxavail:maxcus=2:balance:excl]", strictOpts,
			"cu[type=rack:pref=maxavail:maxcus=2:balance:excl]"},
		{"cu[usablecuslots=4:type=enclosure]", strictOpts, "cu[type=enclosure:usablecuslots=4]"},
		{"1*{select[type==any] rusage[mem=1024]} + 16*{select[type==any] rusage[mem=256]}", strictOpts,
			"1*{select[type == any] rusage[mem=1024]} + 16*{select[type == any] rusage[mem=256]}"},
		{"2*{select[mem>1]} + {rusage[mem=2]}", strictOpts, "2*{select[mem > 1]} + {rusage[mem=2]}"},
		{"{rusage[license=1]} || {rusage[lic=2]}", strictOpts, "{rusage[license=1]} || {rusage[lic=2]}"},
		{"{select[fs]} || {2*{select[hpux]} + {select[cs]}}", strictOpts,
			"{select[fs]} || {2*{select[hpux]} + {select[cs]}}"},
		{"{select[fs] order[ut]}", strictOpts, "select[fs] order[ut]"},
		{"", strictOpts, ""},
		{"   ", strictOpts, ""},
		{"select[]", strictOpts, ""},
	}
	for _, tt := range tests {
		got := mustRoundTrip(t, tt.in, tt.o)
		if got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestParseStructure(t *testing.T) {
	r, err := Parse("select[mem>4000 && type==any] order[-slots:ut] rusage[mem=2000:duration=10m, lic=1 || license=2] "+
		"span[ptile='!',HP:8] same[type:model] cu[type=rack:maxcus=2]", strictOpts)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Simple
	if r.Kind != KindSimple || s.Select == nil || s.Order == nil || s.Rusage == nil || s.Span == nil || s.Same == nil || s.Cu == nil {
		t.Fatalf("sections missing: %+v", s)
	}
	if k := s.Order.Keys; len(k) != 2 || k[0].Name != "slots" || !k[0].Reverse || k[1].Name != "ut" || k[1].Reverse {
		t.Errorf("order keys %+v", k)
	}
	ru := s.Rusage
	if len(ru.Alts) != 2 || len(ru.Alts[0].Groups) != 2 || len(ru.Alts[1].Groups) != 1 {
		t.Fatalf("rusage shape %+v", ru)
	}
	g := ru.Alts[0].Groups[0]
	if g.Items[0].Name != "mem" || g.Items[0].Value.Value != 2000 || DurationSeconds(g.Duration) != 600 || g.Decay != -1 {
		t.Errorf("rusage group %+v", g)
	}
	if sp := s.Span; !sp.Ptile.Max || len(sp.Ptile.ByName) != 1 || sp.Ptile.ByName[0] != (PtileEntry{"HP", 8}) {
		t.Errorf("span %+v", sp.Ptile)
	}
	if strings.Join(s.Same.Names, ",") != "type,model" {
		t.Errorf("same %v", s.Same.Names)
	}
	if s.Cu.Type != "rack" || s.Cu.MaxCUs != 2 {
		t.Errorf("cu %+v", s.Cu)
	}
	// Positions point into the string.
	src := "  mem > 1 rusage[lic=1]"
	r, err = Parse(src, strictOpts)
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Simple.Select.Pos; src[p:p+3] != "mem" {
		t.Errorf("select pos %d", p)
	}
	if p := r.Simple.Rusage.Pos; src[p:p+6] != "rusage" {
		t.Errorf("rusage pos %d", p)
	}
	if p := r.Simple.Rusage.Alts[0].Groups[0].Items[0].Pos; src[p:p+3] != "lic" {
		t.Errorf("item pos %d", p)
	}
	// Compound terms.
	r, err = Parse("2*{select[mem>1]} + 3*{rusage[mem=2]} + {span[hosts=1]}", strictOpts)
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != KindCompound || len(r.Terms) != 3 || r.Terms[0].Slots != 2 || r.Terms[1].Slots != 3 || r.Terms[2].Slots != 0 {
		t.Fatalf("compound %+v", r)
	}
}

func TestDurations(t *testing.T) {
	tests := []struct {
		in   string
		secs int64
	}{
		{"duration=60", 3600}, {"duration=1h", 3600}, {"duration=3600s", 3600},
		{"duration=10m", 600}, {"duration=10M", 600}, {"duration=2H", 7200}, {"duration=0", 0},
	}
	for _, tt := range tests {
		r, err := Parse("rusage[mem=1:"+tt.in+"]", strictOpts)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := DurationSeconds(r.Simple.Rusage.Alts[0].Groups[0].Duration); got != tt.secs {
			t.Errorf("%s: %d s, want %d", tt.in, got, tt.secs)
		}
	}
}

// errorMarker is /*ERROR "regexp"*/, placed just before the offending token.
var errorMarker = regexp.MustCompile(`/\*ERROR "((?:[^"\\]|\\.)*)"\*/`)

type errorCase struct {
	src string
	o   Options
}

// checkErrors runs go/parser's short_test style cases: each source has one
// /*ERROR "re"*/ marker where the error must be reported, and re must match
// the message.
func checkErrors(t *testing.T, cases []errorCase, parse func(string, Options) error) {
	t.Helper()
	for _, c := range cases {
		m := errorMarker.FindStringSubmatchIndex(c.src)
		if m == nil {
			t.Fatalf("no ERROR marker in %q", c.src)
		}
		wantPos := m[0]
		wantMsg := c.src[m[2]:m[3]]
		src := c.src[:m[0]] + c.src[m[1]:]
		err := parse(src, c.o)
		if err == nil {
			t.Errorf("%q (strict=%v): no error, want %q", src, c.o.Strict, wantMsg)
			continue
		}
		e := FirstError(err)
		if e == nil {
			t.Errorf("%q: error %v is not positioned", src, err)
			continue
		}
		if e.Pos != wantPos || !regexp.MustCompile(wantMsg).MatchString(e.Msg) {
			t.Errorf("%q (strict=%v):\n got pos %d %q\nwant pos %d %q", src, c.o.Strict, e.Pos, e, wantPos, wantMsg)
		}
		if e.Near == "" && e.Pos < len(src) {
			t.Errorf("%q: error has no Near token", src)
		}
	}
}

func parseErr(s string, o Options) error { _, err := Parse(s, o); return err }

// TestErrors: invalid strings in both modes, with the error's position and
// message.
func TestErrors(t *testing.T) {
	var cases []errorCase
	both := []string{
		`/*ERROR "unknown resource name"*/foo > 1`,
		`mem > 1 && /*ERROR "unknown resource name"*/nosuch`,
		`mem > /*ERROR "syntax error"*/)`,
		`/*ERROR "missing \)"*/(mem > 1`,
		`mem > 1 /*ERROR "syntax error"*/2`,
		`mem > 1 /*ERROR "unbalanced parentheses"*/)`,
		`mem >/*ERROR "incomplete expression"*/`,
		`mem > 1 && /*ERROR "incomplete expression"*/`,
		`/*ERROR "missing \]"*/select[mem > 1`,
		`/*ERROR "not a valid section"*/selct[mem>1]`,
		`/*ERROR "unknown function foo"*/foo(mem)`,
		`defined(/*ERROR "not accepted by defined"*/mem)`,
		`defined(/*ERROR "not accepted by defined"*/type)`,
		`defined(/*ERROR "not accepted by defined"*/nio)`,
		`defined(/*ERROR "not accepted by defined"*/mode)`,
		`defined(/*ERROR "unknown resource name"*/nosuch)`,
		`defined(/*ERROR "takes a resource name"*/3)`,
		`mem > /*ERROR "unit XB not allowed"*/4XB`,
		`r15s > /*ERROR "unit GB not allowed"*/4GB`,
		`mem + /*ERROR "unit GB not allowed"*/4GB > 1`,
		`/*ERROR "unit GB not allowed"*/4GB`,
		`type == /*ERROR "string resource must be compared with a string value"*/3`,
		`type == (/*ERROR "string resource must be compared with a string value"*/LINUX || fs)`,
		`/*ERROR "string resource can only be used with"*/type`,
		`/*ERROR "string resource can only be used with"*/type + 1 > 0`,
		`!/*ERROR "string resource can only be used with"*/hname`,
		`/*ERROR "string resource can only be used with"*/model && fs`,
		`mem == /*ERROR "quotes are only allowed"*/'abc'`,
		`/*ERROR "quotes are only allowed"*/'abc' && fs`,
		`select[/*ERROR "quotes are only allowed"*/'swp>100']`,
		`select[/*ERROR "quotes are only allowed"*/"swp>100"]`,
		`mem > 1 /*ERROR "unexpected }"*/}`,
		`mem > 1 /*ERROR "unexpected \["*/[1]`,
		`select[mem > /*ERROR "unexpected \["*/[1]]`,
		`2*{mem>1} /*ERROR "expected n\*\{requirement\} after \+"*/+`,
		`{mem>1} /*ERROR "only the last term"*/+ 2*{swp>1}`,
		`2*{mem>1} + /*ERROR "only the last term"*/{swp>1} + 3*{fs}`,
		`2*{mem>1} /*ERROR "expected \+ between compound terms"*/3*{swp>1}`,
		`/*ERROR "slot count must be a positive integer"*/0*{mem>1}`,
		`/*ERROR "slot count must be a positive integer"*/1.5*{mem>1}`,
		`{mem>1} /*ERROR "expected \|\| between alternatives"*/{swp>1}`,
		`{/*ERROR "alternatives cannot be nested"*/{mem>1}}`,
		`/*ERROR "missing }"*/{mem>1`,
		`{mem>1} ||/*ERROR "expected \{requirement\} after \|\|"*/`,
		`{mem>1} || /*ERROR "expected \{requirement\}"*/swp>1`,
		`mem > 1 /*ERROR "use && for logical and"*/& swp > 1`,
		`mem > 1 /*ERROR "use \|\| for logical or"*/| swp > 1`,
		`mem > 1 && /*ERROR "illegal character"*/@x`,
		`mem > 1 && /*ERROR "illegal character"*/é`,
		`type == /*ERROR "string not terminated"*/'abc`,
		`/*ERROR "affinity section not supported"*/affinity[core(1)]`,
		`order[r15s] /*ERROR "duplicate section"*/order[pg]`,
		`rusage[mem=1] /*ERROR "duplicate section"*/rusage[swp=1]`,
		`span[hosts=1] /*ERROR "duplicate section"*/span[ptile=2]`,
		// rusage
		`rusage[mem=/*ERROR "value must be a number"*/abc]`,
		`rusage[mem=1:/*ERROR "resource appears twice"*/mem=2]`,
		`rusage[mem=1, /*ERROR "resource appears twice"*/mem=2]`,
		`rusage[mem=1:duration=/*ERROR "duration unit"*/5x]`,
		`rusage[mem=1:duration=/*ERROR "whole number"*/1.5]`,
		`rusage[mem=1:duration=10:/*ERROR "duration given twice"*/duration=5]`,
		`rusage[mem=1:duration=10:decay=/*ERROR "decay must be 0 or 1"*/2]`,
		`rusage[mem=1:decay=1:/*ERROR "decay given twice"*/decay=0]`,
		`rusage[/*ERROR "rusage needs a numeric resource"*/type=1]`,
		`rusage[/*ERROR "rusage needs a numeric resource"*/fs=1]`,
		`rusage[/*ERROR "unknown resource name"*/foo=1]`,
		`rusage[mem=1,/*ERROR "missing value after ,"*/]`,
		`rusage[mem=1:/*ERROR "missing value before :"*/:swp=1]`,
		`rusage[/*ERROR "missing value before \|\|"*/|| mem=1]`,
		`rusage[/*ERROR "expected name=value"*/mem]`,
		`rusage[mem/*ERROR "expected name=value"*/>1]`,
		`rusage[mem/*ERROR "missing value"*/=]`,
		`rusage[mem=1 /*ERROR "syntax error"*/2]`,
		`rusage[/*ERROR "usage string names no resource"*/duration=10]`,
		`rusage[license=/*ERROR "unit GB not allowed"*/1GB]`,
		`rusage[/*ERROR "resource name expected"*/1=2]`,
		// order
		`order[/*ERROR "order needs a numeric resource"*/type]`,
		`order[/*ERROR "order needs a numeric resource"*/fs]`,
		`order[r15s:/*ERROR "resource appears twice"*/r15s]`,
		`order[r15s:/*ERROR "missing value before :"*/:pg]`,
		`order[/*ERROR "unknown resource name"*/foo]`,
		`order[/*ERROR "missing resource name after -"*/-]`,
		`order[r15s /*ERROR "syntax error"*/pg]`,
		`order[/*ERROR "resource name expected"*/3]`,
		// span
		`span[hosts=/*ERROR "hosts must be 1 or -1"*/2]`,
		`span[hosts=/*ERROR "hosts must be a positive integer"*/abc]`,
		`span[/*ERROR "unknown span keyword"*/foo=1]`,
		`/*ERROR "hosts and ptile cannot be combined"*/span[hosts=1:ptile=2]`,
		`/*ERROR "block cannot be combined"*/span[block=2:ptile=2]`,
		`span[ptile=/*ERROR "ptile must be a positive integer"*/0]`,
		`span[ptile=4,/*ERROR "ptile has two default values"*/'!']`,
		`span[ptile=HP:4,/*ERROR "HP appears twice"*/HP:2]`,
		`span[ptile=/*ERROR "expected HP:n"*/HP]`,
		`span[ptile=/*ERROR "ptile value must be"*/'x']`,
		`span[hosts=1:/*ERROR "keyword given twice"*/hosts=1]`,
		`span[/*ERROR "expected hosts=value"*/hosts]`,
		`span[ptile=2 /*ERROR "syntax error"*/3]`,
		// same
		`same[/*ERROR "same needs a static resource"*/mem]`,
		`same[/*ERROR "same needs a static resource"*/nio]`,
		`same[type:/*ERROR "resource appears twice"*/type]`,
		`same[/*ERROR "unknown resource name"*/foo]`,
		// cu
		`cu[pref=/*ERROR "pref must be one of"*/foo]`,
		`cu[/*ERROR "unknown cu keyword"*/foo=1]`,
		`/*ERROR "excl and usablecuslots cannot be combined"*/cu[excl:usablecuslots=2]`,
		`cu[balance/*ERROR "balance takes no value"*/=1]`,
		`cu[maxcus=/*ERROR "maxcus must be a positive integer"*/0]`,
		`cu[type=rack:/*ERROR "keyword given twice"*/type=cell]`,
		`cu[type=/*ERROR "compute unit type expected"*/3]`,
	}
	for _, s := range both {
		cases = append(cases, errorCase{s, looseOpts}, errorCase{s, strictOpts})
	}
	checkErrors(t, cases, parseErr)
}

// TestStrictErrors: every rule of the seed's strict syntax, rejected with
// LSF_STRICT_RESREQ=Y.
func TestStrictErrors(t *testing.T) {
	var cases []errorCase
	for _, s := range []string{
		// case-sensitive
		`/*ERROR "unknown resource name"*/MEM > 1`,
		`/*ERROR "not a valid section"*/SELECT[mem>1]`,
		`/*ERROR "unknown function"*/DEFINED(fs)`,
		// Boolean variables: only && || !
		`/*ERROR "Boolean resource can only be used with"*/fs == 1`,
		`/*ERROR "Boolean resource can only be used with"*/fs + 1 > 0`,
		`mem > 1 && /*ERROR "Boolean resource can only be used with"*/hpux * 2`,
		`-/*ERROR "Boolean resource can only be used with"*/fs < 0`,
		// function calls: no blanks inside the parentheses
		`/*ERROR "blanks not allowed"*/defined(   mg   )`,
		`/*ERROR "blanks not allowed"*/defined( mg)`,
		`/*ERROR "blanks not allowed"*/defined(mg )`,
		// multiple NOT
		`/*ERROR "multiple logical NOT"*/!!mg`,
		`fs && /*ERROR "multiple logical NOT"*/! !mg`,
		// a blank between sections
		`type==/*ERROR "at least one blank must separate sections"*/anyrusage[mem=1024]`,
		// one select section
		`select[mem>0] /*ERROR "duplicate section"*/select[maxmem>0]`,
		`select[type==local] /*ERROR "duplicate section"*/select[hname=abc]`,
		// no colon inside select
		`select[mg/*ERROR "colon"*/:bigmem]`,
		`linux/*ERROR "colon"*/:qscw`,
		`(fs/*ERROR "colon"*/:hpux)`,
		// escapes
		`type == /*ERROR "escape characters"*/'a\nb'`,
		// the rejected examples
		`linux rusage[mem=16000] /*ERROR "not part of any section"*/microcs73`,
		`mem < 16384 && /*ERROR "duplicate section"*/select[AMD64]`,
		`rusage[mem=2000] /*ERROR "not part of any section"*/linux`,
		// non-consumable resources in rusage
		`rusage[/*ERROR "non-consumable resource in rusage"*/ngpus=1]`,
		`rusage[mem=1:/*ERROR "non-consumable resource in rusage"*/maxmem=1]`,
		// values of shared string resources in single quotes
		`os_version == /*ERROR "values of shared string resources must be in single quotes"*/rhel8`,
		`/*ERROR "values of shared string resources must be in single quotes"*/ia == cpu_type`,
		// ut is a fraction
		`ut > /*ERROR "ut must be a number between 0.0 and 1.0"*/50`,
		`/*ERROR "ut must be"*/70 > ut`,
	} {
		cases = append(cases, errorCase{s, strictOpts})
	}
	checkErrors(t, cases, parseErr)
}

// TestLooseAccepts: what the non-strict syntax accepts that the strict one
// rejects, and how it reads it.
func TestLooseAccepts(t *testing.T) {
	tests := []struct {
		in       string
		want     string
		notes    []string // Near of each note
		strictOK bool     // also valid (with another meaning) in strict mode
	}{
		{"MEM > 1", "select[mem > 1]", nil, false},
		{"SELECT[Mem>1] ORDER[R15S]", "select[mem > 1] order[r15s]", nil, false},
		{"DEFINED(fs)", "select[defined(fs)]", nil, false},
		{"TYPE == ANY", "select[type == any]", nil, false},
		{"type == LOCAL", "select[type == local]", nil, true},
		{"fs == 1", "select[fs == 1]", nil, false},
		{"fs + hpux > 1", "select[(fs + hpux) > 1]", nil, false},
		{"defined(   mg   )", "select[defined(mg)]", nil, false},
		{"!!mg", "select[!(!mg)]", nil, false},
		{"type==anyrusage[mem=1024]", "select[type == any] rusage[mem=1024]", nil, false},
		{"mem>0select[maxmem>0]", "select[mem > 0]", []string{"select"}, false},
		{"mem>100rusage[mem=100]", "select[mem > 100] rusage[mem=100]", nil, false},
		{"select[mem>0] select[maxmem>0]", "select[mem > 0]", []string{"select"}, false},
		{"mg:bigmem", "select[mg && bigmem]", nil, false},
		{"linux:qscw", "select[linux && qscw]", nil, false},
		{`type == 'a\nb'`, `select[type == 'a\nb']`, nil, false},
		{"linux rusage[mem=16000] microcs73", "select[linux] rusage[mem=16000]", []string{"microcs73"}, false},
		{"mem < 16384 && select[AMD64]", "select[mem < 16384]", []string{"&&", "select"}, false},
		{"rusage[mem=2000] linux", "rusage[mem=2000]", []string{"linux"}, false},
		{"rusage[mem=2000] linux && fs order[ut]", "order[ut] rusage[mem=2000]", []string{"linux"}, false},
		{"rusage[ngpus=1:mem=1]", "rusage[mem=1]", []string{"ngpus"}, false},
		{"rusage[ngpus=1, mem=1]", "rusage[mem=1]", []string{"ngpus"}, false},
		{"rusage[ngpus=1]", "", []string{"ngpus"}, false},
		{"2*{rusage[mem=1] foo} + {fs}", "2*{rusage[mem=1]} + {select[fs]}", []string{"foo"}, false},
		{"ut < 70", "select[ut < 70]", nil, false},
		{"os_version == rhel8", "select[os_version == rhel8]", nil, false},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in, looseOpts)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got := r.String(); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.in, got, tt.want)
		}
		var near []string
		for _, n := range r.Notes {
			near = append(near, n.Near)
		}
		if strings.Join(near, ",") != strings.Join(tt.notes, ",") {
			t.Errorf("%q: notes %v, want near %v", tt.in, r.Notes, tt.notes)
		}
		mustRoundTrip(t, tt.in, looseOpts)
		if _, err := Parse(tt.in, strictOpts); (err == nil) != tt.strictOK {
			t.Errorf("%q: strict mode accepted it", tt.in)
		}
	}
}

// TestUnits: units on mem/swp/tmp values, and LSF_UNIT_FOR_LIMITS.
func TestUnits(t *testing.T) {
	tests := []struct {
		in   string
		unit string
		want float64 // MB
	}{
		{"mem > 100", "", 100},
		{"mem > 100", "MB", 100},
		{"mem > 4", "GB", 4096},
		{"mem > 4", "g", 4096},
		{"mem > 2048", "KB", 2},
		{"mem > 1", "TB", 1024 * 1024},
		{"swp > 4GB", "", 4096},
		{"tmp > 4G", "KB", 4096},
		{"mem > 512KB", "GB", 0.5},
		{"mem > 512k", "", 0.5},
		{"mem > 1PB", "", 1024 * 1024 * 1024},
		{"mem > 1EB", "", 1024 * 1024 * 1024 * 1024},
		{"mem > 1ZB", "", 1024 * 1024 * 1024 * 1024 * 1024},
		{"maxmem > 2GB", "", 2048},
		{"maxmem > 2", "GB", 2}, // LSF_UNIT_FOR_LIMITS covers mem, swp, tmp only
		{"4GB < mem", "", 4096},
		{"ut < 0.5", "", 0.5},
		{"ngpus > 2", "GB", 2},
	}
	for _, tt := range tests {
		o := Options{Table: testTable, Unit: tt.unit}
		r, err := Parse(tt.in, o)
		if err != nil {
			t.Fatalf("%q unit %q: %v", tt.in, tt.unit, err)
		}
		var lit *NumberLit
		walk(r.Simple.Select.X, func(x Expr) {
			if n, ok := x.(*NumberLit); ok {
				lit = n
			}
		})
		if got := lit.Scaled(); got != tt.want {
			t.Errorf("%q unit %q: %v MB, want %v", tt.in, tt.unit, got, tt.want)
		}
	}
	r, err := Parse("rusage[mem=2:swp=1GB:license=3]", Options{Table: testTable, Unit: "GB"})
	if err != nil {
		t.Fatal(err)
	}
	items := r.Simple.Rusage.Alts[0].Groups[0].Items
	if items[0].Value.Scaled() != 2048 || items[1].Value.Scaled() != 1024 || items[2].Value.Scaled() != 3 {
		t.Errorf("rusage units: %v %v %v", items[0].Value.Scaled(), items[1].Value.Scaled(), items[2].Value.Scaled())
	}
	if _, err := Parse("mem > 1", Options{Unit: "furlongs"}); err == nil {
		t.Error("bad LSF_UNIT_FOR_LIMITS accepted")
	}
	// Non-strict ut as a percentage (LSF 6).
	r, err = Parse("ut < 70", looseOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Simple.Select.X.(*BinaryExpr).Y.(*NumberLit).Scaled(); got != 0.7 {
		t.Errorf("ut < 70 non-strict: %v, want 0.7", got)
	}
}

func TestNestingLimit(t *testing.T) {
	deep := func(n int, open, close string) string {
		return strings.Repeat(open, n) + "mem" + strings.Repeat(close, n)
	}
	chain := func(n int) string { return "mem" + strings.Repeat(" + mem", n-1) + " > 1" }
	// Parentheses alone add no depth; operators do.
	for _, s := range []string{deep(maxNest-10, "(", ")"), deep(maxDepth, "-", ""), chain(maxDepth - 1),
		deep(maxDepth/2-1, "-(mem + ", ")")} {
		mustRoundTrip(t, s, strictOpts)
	}
	for _, s := range []string{deep(maxNest+1, "(", ")"), deep(maxDepth+1, "-", ""), chain(maxDepth + 1),
		deep(maxDepth/2+1, "-(mem + ", ")"), deep(100000, "!(", ")"), chain(100000)} {
		_, err := Parse(s, looseOpts)
		if e := FirstError(err); e == nil || e.Msg != MsgNestedTooDeep {
			t.Errorf("nesting: %v", err)
		}
	}
}

func TestErrorClasses(t *testing.T) {
	_, err := Parse("foo > 1", strictOpts)
	if !errors.Is(err, ErrUnknownResource) || errors.Is(err, ErrSyntax) {
		t.Errorf("unknown resource: %v", err)
	}
	_, err = Parse("mem >", strictOpts)
	if !errors.Is(err, ErrSyntax) || errors.Is(err, ErrUnknownResource) {
		t.Errorf("syntax: %v", err)
	}
	var l ErrorList
	if !errors.As(err, &l) || len(l) != 1 {
		t.Errorf("not an ErrorList: %T", err)
	}
	if got := err.Error(); got != `Error near ">": incomplete expression` {
		t.Errorf("Error() = %q", got)
	}
	e := FirstError(err)
	if e.Column() != 6 {
		t.Errorf("Column = %d", e.Column())
	}
	l = ErrorList{{Pos: 3, Msg: "b"}, {Pos: 1, Msg: "a"}, {Pos: 1, Msg: "a"}}
	l.Sort()
	if len(l) != 2 || l[0].Msg != "a" || l.Error() != `Error near "": a (and 1 more errors)` {
		t.Errorf("sorted list %v", l)
	}
	if (ErrorList{}).Err() != nil {
		t.Error("empty list is an error")
	}
}

// TestQuotedWhole: quotes around the whole string are removed only when
// they enclose it.
func TestQuotedWhole(t *testing.T) {
	tests := []struct{ in, want string }{
		{`'swp>100'`, "select[swp > 100]"},
		{`  "swp>100"  `, "select[swp > 100]"},
		{`'os_version==' + 'x'`, ""},
		{`hname=='a' || hname=='b'`, "select[(hname == 'a') || (hname == 'b')]"},
		{`'hname=="a"'`, ""},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in, strictOpts)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: accepted as %s", tt.in, r)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if r.String() != tt.want {
			t.Errorf("%s: %s", tt.in, r)
		}
	}
	// Positions still refer to the original string.
	_, err := Parse(`'mem > foo'`, strictOpts)
	if e := FirstError(err); e == nil || e.Pos != 7 || e.Near != "foo" {
		t.Errorf("quoted position: %+v", e)
	}
}

func TestScanner(t *testing.T) {
	src := `select[mem>=4GB && !fs || type=='x-1'] {2*} "d" ,:.5 1. != <= < > == = - + / ( ) _a9`
	want := []struct {
		tok Token
		lit string
	}{
		{IDENT, "select"}, {LBRACK, "["}, {IDENT, "mem"}, {GEQ, ">="}, {NUMBER, "4GB"}, {LAND, "&&"},
		{NOT, "!"}, {IDENT, "fs"}, {LOR, "||"}, {IDENT, "type"}, {EQL, "=="}, {STRING, "x-1"},
		{RBRACK, "]"}, {LBRACE, "{"}, {NUMBER, "2"}, {MUL, "*"}, {RBRACE, "}"}, {DSTRING, "d"},
		{COMMA, ","}, {COLON, ":"}, {NUMBER, ".5"}, {NUMBER, "1."}, {NEQ, "!="}, {LEQ, "<="}, {LSS, "<"},
		{GTR, ">"}, {EQL, "=="}, {ASSIGN, "="}, {SUB, "-"}, {ADD, "+"}, {QUO, "/"}, {LPAREN, "("},
		{RPAREN, ")"}, {IDENT, "_a9"}, {EOF, ""},
	}
	var s Scanner
	var errs []string
	s.Init(src, 100, func(pos int, near, msg string) { errs = append(errs, strconv.Itoa(pos)+msg) })
	for i, w := range want {
		pos, tok, lit := s.Scan()
		if tok != w.tok || lit != w.lit {
			t.Fatalf("token %d: got %s %q at %d, want %s %q", i, tok, lit, pos, w.tok, w.lit)
		}
		if tok != EOF && tok != STRING && tok != DSTRING && src[pos-100:pos-100+len(lit)] != lit {
			t.Errorf("token %d %q: position %d wrong", i, lit, pos)
		}
	}
	if len(errs) != 0 || s.ErrorCount != 0 {
		t.Errorf("errors: %v", errs)
	}
	for _, tt := range []struct{ src, num, unit string }{{"4GB", "4", "GB"}, {"1.5", "1.5", ""}, {"10m", "10", "m"}, {"2r15s", "2", "r15s"}} {
		n, u := splitNumber(tt.src)
		if n != tt.num || u != tt.unit {
			t.Errorf("splitNumber(%q) = %q %q", tt.src, n, u)
		}
	}
	if Token(99).String() != "Token(?)" || LAND.String() != "&&" {
		t.Error("Token.String")
	}
}

func TestContextNames(t *testing.T) {
	for _, name := range []string{"bsub", "queue", "lsload", "lshosts", "lsplace", "lsrun", "bhosts", "cond"} {
		c, ok := ParseContext(name)
		if !ok || c.String() != name {
			t.Errorf("ParseContext(%q) = %v %v", name, c, ok)
		}
	}
	if c, ok := ParseContext("lsgrun"); !ok || c != CtxLsrun {
		t.Error("lsgrun")
	}
	if _, ok := ParseContext("nope"); ok {
		t.Error("nope")
	}
}

// TestDefinedNames: the seed's list of names defined() does not accept, and
// what it does.
func TestDefinedNames(t *testing.T) {
	for _, name := range strings.Fields("r15s r1m r15m ut pg io ls it tmp swp mem ncpus ndisks maxmem " +
		"maxswp maxtmp cpuf type model status rexpri server hname " + // built-in
		"mode cntrl it_t nio") { // dynamic NUMERIC with INTERVAL
		_, err := Parse("defined("+name+")", strictOpts)
		if e := FirstError(err); e == nil || e.Msg != MsgDefinedArg || e.Near != name {
			t.Errorf("defined(%s): %v", name, err)
		}
	}
	_, err := Parse("defined(not_configured)", strictOpts)
	if !errors.Is(err, ErrUnknownResource) {
		t.Errorf("defined(not_configured): %v", err)
	}
	for _, name := range []string{"fs", "bigmem", "avail_scratch", "verilog", "os_version", "console"} {
		if _, err := Parse("defined("+name+")", strictOpts); err != nil {
			t.Errorf("defined(%s): %v", name, err)
		}
	}
}

// TestCondContext: STOP_COND and RESUME_COND use the select section only.
func TestCondContext(t *testing.T) {
	o := Options{Table: testTable, Context: CtxCond}
	r, err := Parse("select[it < 5 && r1m > 2.5] order[ut] rusage[mem=1] span[hosts=1] same[type] cu[balance]", o)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.String(); got != "select[(it < 5) && (r1m > 2.5)]" {
		t.Errorf("got %s", got)
	}
	var near []string
	for _, n := range r.Notes {
		near = append(near, n.Near)
	}
	if strings.Join(near, " ") != "order rusage span same cu" {
		t.Errorf("notes %v", r.Notes)
	}
	if r.Simple.TypeRule != TypeExplicit {
		t.Errorf("type rule %v", r.Simple.TypeRule)
	}
	mustRoundTrip(t, "it < 5 && r1m > 2.5", o)
}

// TestManyOptions: "The number of -R option sections is unlimited."
func TestManyOptions(t *testing.T) {
	var reqs []string
	for i := 0; i < 200; i++ {
		reqs = append(reqs, "select[mem > "+strconv.Itoa(i)+"]")
	}
	r, err := ParseMulti(reqs, strictOpts)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	walk(r.Simple.Select.X, func(x Expr) {
		if _, ok := x.(*NumberLit); ok {
			n++
		}
	})
	if n != 200 {
		t.Errorf("%d conditions merged, want 200", n)
	}
	mustRoundTrip(t, r.String(), strictOpts)
}

// TestNotes: what the old syntax ignores is reported with its text and
// position.
func TestNotes(t *testing.T) {
	tests := []struct {
		in  string
		pos int
		msg string
	}{
		{"2*{rusage[mem=1] foo bar} + {fs}", 17, "ignored: foo bar"},
		{"linux rusage[mem=16000] microcs73", 24, "ignored: microcs73"},
		{"select[mem>0] select[maxmem>0]", 14, "second select section ignored"},
		{"rusage[ngpus=1:mem=1]", 7, "non-consumable resource ignored in rusage"},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in, looseOpts)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if len(r.Notes) != 1 || r.Notes[0].Pos != tt.pos || r.Notes[0].Msg != tt.msg {
			t.Errorf("%q: notes %+v, want pos %d %q", tt.in, r.Notes, tt.pos, tt.msg)
		}
	}
}

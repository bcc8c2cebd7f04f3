package resreq

import (
	"errors"
	"math"
	"testing"
)

var fuzzSeeds = []string{
	"select[(swp > 50 && type == x86_64) || (swp > 35 && type == LINUX)]",
	"select[((2*r15s + 3*r1m + r15m) / 6 < 1.0) && !fs && (cpuf > 4.0)]",
	"select[mem>4000 && type==any] order[-slots:ut] rusage[mem=2000:duration=10m] span[hosts=1]",
	"select[slots>4 && maxslots < 10 || mem > 10] order[-slots:maxslots:maxmem:ut]",
	"select [swp > 15 &&  maxmem > 100]  rusage[mem = 100] ",
	"select[os_version=='4.2' || cpu_type=='unknown']",
	"defined(avail_scratch) && avail_scratch > 100 && swap > 100",
	"type==anyrusage[mem=1024]",
	"linux rusage[mem=16000] microcs73",
	"mem < 16384 && select[AMD64]",
	"rusage[mem=2000] linux",
	"linux:qscw",
	"!(!mg) && !!mg",
	"defined(   mg   )",
	"'swp>100'",
	`"swp>100"`,
	"select['swp>100']",
	"rusage[mem=20:app_lic_v201=1||mem=20:swp=50:app_lic_v15=1]",
	"rusage[mem=50:duration=100:decay=1, license=1:duration=2h]",
	"span[ptile='!',HP:8,SGI:8] same[type:model] cu[type=rack:pref=minavail:maxcus=2:balance:excl]",
	"1*{select[type==any] rusage[mem=1024]} + 16*{select[type==any] rusage[mem=256]}",
	"{select[fs]} || {2*{select[hpux]} + {select[cs]}}",
	"mem > 4GB && ut < 70 && hname != 'host06-x12' && -mem < -(-1)",
	"order[!r15s:pg] span[hosts=-1] span[block=2]",
}

// FuzzParse: parsing never panics; an accepted string prints to a canonical
// form that parses to the same AST (and prints identically); the compiled
// form evaluates without panicking; errors are positioned inside the string.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, false, uint8(0))
		f.Add(s, true, uint8(1))
	}
	hosts := fuzzHosts()
	f.Fuzz(func(t *testing.T, s string, strict bool, ctx uint8) {
		o := Options{Table: testTable, Strict: strict, Context: Context(ctx % 8)}
		_ = CheckSelect([]string{s, s}, o)
		_, _ = ParseMulti([]string{s, "mem > 1", s}, o)
		r, err := Parse(s, o)
		if err != nil {
			var l ErrorList
			if !errors.As(err, &l) || len(l) == 0 {
				t.Fatalf("%q: error %T %v is not an ErrorList", s, err, err)
			}
			for _, e := range l {
				if e.Pos < 0 || e.Pos > len(s) {
					t.Fatalf("%q: error position %d outside the string: %v", s, e.Pos, e)
				}
				if !errors.Is(e, ErrSyntax) && !errors.Is(e, ErrUnknownResource) {
					t.Fatalf("%q: error %v has no class", s, e)
				}
			}
			return
		}
		canon := r.String()
		r2, err := Parse(canon, o)
		if err != nil {
			t.Fatalf("%q: canonical form %q does not parse: %v", s, canon, err)
		}
		if d := astDiff(r, r2); d != "" {
			t.Fatalf("%q: canonical form %q parses differently: %s", s, canon, d)
		}
		if c2 := r2.String(); c2 != canon {
			t.Fatalf("%q: canonical form unstable: %q then %q", s, canon, c2)
		}
		checkAgainstRef(t, r, s)
		c, err := r.Compile(testTable, Local{Type: "LINUX", Model: "IntelI5"})
		if err != nil {
			t.Fatalf("%q: compile: %v", s, err)
		}
		for _, a := range hosts {
			_ = c.Select(a)
			for _, b := range hosts {
				_ = c.Less(a, b)
			}
		}
		if m, err := Merge(r, r); err == nil {
			if _, err := m.Compile(testTable, Local{}); err != nil {
				t.Fatalf("%q: merged requirement does not compile: %v", s, err)
			}
		}
	})
}

func fuzzHosts() []*Host {
	n := testTable.Len()
	mk := func(v float64, s string) *Host {
		h := &Host{Num: make([]float64, n), Str: make([]string, n)}
		for i := range h.Num {
			h.Num[i], h.Str[i] = v, s
		}
		return h
	}
	weird := mk(math.Inf(1), "x")
	weird.Exclusive = []int{-1, 3, n + 10}
	return []*Host{mk(math.NaN(), ""), mk(0, "LINUX"), mk(1, "any"), mk(-1e300, "local"), weird, {}}
}

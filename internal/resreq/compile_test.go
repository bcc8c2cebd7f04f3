package resreq

import (
	"errors"
	"math"
	"sort"
	"strings"
	"testing"
	"time"
)

func compile(t *testing.T, s string, o Options, local Local) *Compiled {
	t.Helper()
	r, err := Parse(s, o)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	c, err := r.Compile(testTable, local)
	if err != nil {
		t.Fatalf("Compile(%q): %v", s, err)
	}
	return c
}

type num = map[string]float64
type str = map[string]string

func TestSelect(t *testing.T) {
	local := Local{Type: "LINUX", Model: "IntelI5"}
	anyType := Options{Table: testTable, Context: CtxLsload}
	tests := []struct {
		req  string
		o    Options
		host hostSpec
		want bool
	}{
		// The seed's operator examples.
		{"select[(swp > 50 && type == x86_64) || (swp > 35 && type == LINUX)]", strictOpts, hostSpec{num: num{"swp": 60}, str: str{"type": "x86_64"}}, true},
		{"select[(swp > 50 && type == x86_64) || (swp > 35 && type == LINUX)]", strictOpts, hostSpec{num: num{"swp": 40}, str: str{"type": "x86_64"}}, false},
		{"select[(swp > 50 && type == x86_64) || (swp > 35 && type == LINUX)]", strictOpts, hostSpec{num: num{"swp": 40}, str: str{"type": "LINUX"}}, true},
		{"select[(swp > 50 && type == x86_64) || (swp > 35 && type == LINUX)]", strictOpts, hostSpec{num: num{"swp": 30}, str: str{"type": "LINUX"}}, false},
		{"select[((2*r15s + 3*r1m + r15m) / 6 < 1.0) && !fs && (cpuf > 4.0)]", anyType, hostSpec{num: num{"r15s": 1, "r1m": 1, "r15m": 0.5, "cpuf": 5}}, true},
		{"select[((2*r15s + 3*r1m + r15m) / 6 < 1.0) && !fs && (cpuf > 4.0)]", anyType, hostSpec{num: num{"r15s": 1, "r1m": 1, "r15m": 1, "cpuf": 5}}, false},
		{"select[((2*r15s + 3*r1m + r15m) / 6 < 1.0) && !fs && (cpuf > 4.0)]", anyType, hostSpec{num: num{"r15s": 0, "r1m": 0, "r15m": 0, "cpuf": 5, "fs": 1}}, false},
		{"select[((2*r15s + 3*r1m + r15m) / 6 < 1.0) && !fs && (cpuf > 4.0)]", anyType, hostSpec{num: num{"r15s": 0, "r1m": 0, "r15m": 0, "cpuf": 4}}, false},
		// "If swap space is equal to 0, !swp means TRUE."
		{"!swp", anyType, hostSpec{num: num{"swp": 0}}, true},
		{"!swp", anyType, hostSpec{num: num{"swp": 12}}, false},
		{"type == local", strictOpts, hostSpec{str: str{"type": "LINUX"}}, true},
		{"type == local", strictOpts, hostSpec{str: str{"type": "AIX"}}, false},
		{"type != local", strictOpts, hostSpec{str: str{"type": "AIX"}}, true},
		{"type != local", strictOpts, hostSpec{str: str{"type": "LINUX"}}, false},
		{"model == local", strictOpts, hostSpec{str: str{"model": "IntelI5"}}, true},
		{"type == any", strictOpts, hostSpec{str: str{"type": "SOMETHING"}}, true},
		{"type == 'local'", strictOpts, hostSpec{str: str{"type": "local"}}, true},
		{"type == 'local'", strictOpts, hostSpec{str: str{"type": "LINUX"}}, false},
		// && binds tighter than ||.
		{"r15s < 1.0 || model ==local && swp <= 10", anyType, hostSpec{num: num{"r15s": 0.5, "swp": 20}, str: str{"model": "Other"}}, true},
		{"(r15s < 1.0 || model == local) && swp <= 10", anyType, hostSpec{num: num{"r15s": 0.5, "swp": 20}, str: str{"model": "Other"}}, false},
		{"(r15s * 2 + r15m) < 3.0 && !(type == IBMAIX4) || fs", anyType, hostSpec{num: num{"r15s": 1, "r15m": 0.5}, str: str{"type": "LINUX"}}, true},
		{"(r15s * 2 + r15m) < 3.0 && !(type == IBMAIX4) || fs", anyType, hostSpec{num: num{"r15s": 1, "r15m": 0.5}, str: str{"type": "IBMAIX4"}}, false},
		{"(r15s * 2 + r15m) < 3.0 && !(type == IBMAIX4) || fs", anyType, hostSpec{num: num{"r15s": 1, "r15m": 0.5, "fs": 1}, str: str{"type": "IBMAIX4"}}, true},
		// Boolean resources are 1 or 0.
		{"fs", anyType, hostSpec{num: num{"fs": 1}}, true},
		{"fs", anyType, hostSpec{}, false},
		{"fs == 1", looseOpts, hostSpec{num: num{"fs": 1}, str: str{"type": "LINUX"}}, true},
		{"fs + hpux > 1", looseOpts, hostSpec{num: num{"fs": 1, "hpux": 1}}, true},
		{"fs + hpux > 1", looseOpts, hostSpec{num: num{"fs": 1}}, false},
		{"linux:qscw", looseOpts, hostSpec{num: num{"linux": 1, "qscw": 1}}, true},
		{"linux:qscw", looseOpts, hostSpec{num: num{"linux": 1}}, false},
		// defined() and shared resources.
		{"defined(avail_scratch) && avail_scratch > 100 && swap > 100", anyType, hostSpec{num: num{"avail_scratch": 150, "swp": 200}}, true},
		{"defined(avail_scratch) && avail_scratch > 100 && swap > 100", anyType, hostSpec{num: num{"swp": 200}}, false},
		{"defined(avail_scratch)", anyType, hostSpec{num: num{"avail_scratch": 0}}, true},
		{"!defined(avail_scratch)", anyType, hostSpec{}, true},
		{"defined(fs)", anyType, hostSpec{num: num{"fs": 1}}, true},
		{"defined(fs)", anyType, hostSpec{}, false},
		{"defined(os_version)", anyType, hostSpec{str: str{"os_version": "4.2"}}, true},
		{"defined(os_version)", anyType, hostSpec{}, false},
		{"select[os_version=='4.2' || cpu_type=='unknown']", anyType, hostSpec{str: str{"os_version": "4.2"}}, true},
		{"select[os_version=='4.2' || cpu_type=='unknown']", anyType, hostSpec{str: str{"os_version": "4.0", "cpu_type": "ia"}}, false},
		{"select[os_version=='4.2' || cpu_type=='unknown']", anyType, hostSpec{str: str{"os_version": "4.1", "cpu_type": "unknown"}}, true},
		{"select[hname!='host06-x12']", anyType, hostSpec{str: str{"hname": "host06-x12"}}, false},
		{"select[hname!='host06-x12']", anyType, hostSpec{str: str{"hname": "host07"}}, true},
		{"hname > hostB", anyType, hostSpec{str: str{"hname": "hostC"}}, true},
		{"hostB < hname", anyType, hostSpec{str: str{"hname": "hostC"}}, true},
		{"hostB >= hname", anyType, hostSpec{str: str{"hname": "hostC"}}, false},
		{"hname <= hostC", anyType, hostSpec{str: str{"hname": "hostC"}}, true},
		{"status==ok", anyType, hostSpec{str: str{"status": "ok"}}, true},
		{"status==ok", anyType, hostSpec{str: str{"status": "closed"}}, false},
		// Undefined values: comparisons are false.
		{"hname != x", anyType, hostSpec{}, false},
		{"avail_scratch > 1", anyType, hostSpec{}, false},
		{"avail_scratch < 1", anyType, hostSpec{}, false},
		{"avail_scratch != 1", anyType, hostSpec{}, false},
		{"avail_scratch + 1 > 0", anyType, hostSpec{}, false},
		// ut is a fraction; the old percentage form is converted.
		{"ut < 0.5", anyType, hostSpec{num: num{"ut": 0.3}}, true},
		{"ut < 0.5", anyType, hostSpec{num: num{"ut": 0.6}}, false},
		{"ut < 70", Options{Table: testTable, Context: CtxLsload}, hostSpec{num: num{"ut": 0.6}}, true},
		{"ut < 70", Options{Table: testTable, Context: CtxLsload}, hostSpec{num: num{"ut": 0.8}}, false},
		// slots and maxslots.
		{"select[slots>4 && maxslots < 10 || mem > 10]", anyType, hostSpec{num: num{"slots": 5, "maxslots": 8, "mem": 1}}, true},
		{"select[slots>4 && maxslots < 10 || mem > 10]", anyType, hostSpec{num: num{"slots": 5, "maxslots": 12, "mem": 1}}, false},
		{"select[slots>4 && maxslots < 10 || mem > 10]", anyType, hostSpec{num: num{"slots": 5, "maxslots": 12, "mem": 11}}, true},
		// Units: host values are in MB.
		{"mem > 4GB", anyType, hostSpec{num: num{"mem": 5000}}, true},
		{"mem > 4GB", anyType, hostSpec{num: num{"mem": 4000}}, false},
		{"mem > 4", Options{Table: testTable, Context: CtxLsload, Unit: "GB"}, hostSpec{num: num{"mem": 5000}}, true},
		{"mem > 4", Options{Table: testTable, Context: CtxLsload, Unit: "GB"}, hostSpec{num: num{"mem": 4000}}, false},
		{"select[mem>=4096MB]", anyType, hostSpec{num: num{"mem": 4096}}, true},
		// Arithmetic.
		{"mem / 0 > 1", anyType, hostSpec{num: num{"mem": 1}}, true},
		{"-mem < -1", anyType, hostSpec{num: num{"mem": 2}}, true},
		{"mem - swp * 2 == 0", anyType, hostSpec{num: num{"mem": 4, "swp": 2}}, true},
		{"inf > 1 && nan < 2", anyType, hostSpec{num: num{"inf": 2, "nan": 1}}, true},
		// Aliases.
		{"swap > 1 && idle > 1 && login < 1 && cpu < 1", anyType, hostSpec{num: num{"swp": 2, "it": 2, "ls": 0, "r1m": 0}}, true},
		// No select section.
		{"", anyType, hostSpec{}, true},
		{"rusage[mem=1]", anyType, hostSpec{}, true},
	}
	for _, tt := range tests {
		c := compile(t, tt.req, tt.o, local)
		if got := c.Select(tt.host.host(t)); got != tt.want {
			t.Errorf("%q on %+v: Select = %v, want %v", tt.req, tt.host, got, tt.want)
		}
	}
}

// TestDefaultType: the seed's default type rules per command.
func TestDefaultType(t *testing.T) {
	tests := []struct {
		ctx  Context
		req  string
		want TypeRule
	}{
		{CtxBsub, "", TypeLocal},
		{CtxBsub, "mem > 1", TypeLocal},
		{CtxBsub, "rusage[mem=1] order[ut]", TypeLocal},
		{CtxBsub, "fs", TypeAny},
		{CtxBsub, "mem > 1 || !fs", TypeAny},
		{CtxBsub, "hname == hostA", TypeAny},
		{CtxBsub, "model == IntelI5", TypeAny},
		{CtxBsub, "defined(os_version)", TypeAny},
		{CtxBsub, "type == any", TypeExplicit},
		{CtxBsub, "type == LINUX && fs", TypeExplicit},
		{CtxBhosts, "mem > 1", TypeLocal},
		{CtxBhosts, "cs", TypeAny},
		{CtxLsplace, "mem > 1", TypeLocal},
		{CtxLsplace, "console == root", TypeAny},
		{CtxLsrun, "", TypeLocal},
		{CtxLsrun, "fs", TypeAny},
		{CtxLshosts, "", TypeAny},
		{CtxLshosts, "mem > 1", TypeAny},
		{CtxLsload, "mem > 1", TypeAny},
		{CtxLsload, "type == local", TypeAny},
		{CtxQueue, "", TypeLocal},
		{CtxQueue, "mem > 1", TypeLocal},
		{CtxQueue, "fs", TypeAny},
		{CtxQueue, "model == IntelI5", TypeAny},
		{CtxQueue, "hname == hostA", TypeLocal}, // queues: only a model or Boolean resource lifts it
		{CtxQueue, "type == any", TypeExplicit},
		{CtxCond, "it < 5 && r1m > 2.5", TypeExplicit},
		{CtxCond, "", TypeExplicit},
	}
	local := Local{Type: "LINUX", Model: "IntelI5"}
	linux := hostSpec{num: num{"mem": 2, "fs": 1, "cs": 1}, str: str{"type": "LINUX", "hname": "hostA", "model": "IntelI5", "console": "root", "os_version": "1"}}
	aix := hostSpec{num: num{"mem": 2, "fs": 1, "cs": 1}, str: str{"type": "AIX", "hname": "hostA", "model": "IntelI5", "console": "root", "os_version": "1"}}
	for _, tt := range tests {
		o := Options{Table: testTable, Context: tt.ctx}
		r, err := Parse(tt.req, o)
		if err != nil {
			t.Fatalf("%v %q: %v", tt.ctx, tt.req, err)
		}
		if got := r.Simple.TypeRule; got != tt.want {
			t.Errorf("%v %q: %v, want %v", tt.ctx, tt.req, got, tt.want)
		}
		c := compile(t, tt.req, o, local)
		if c.TypeRule != tt.want {
			t.Errorf("%v %q: compiled rule %v", tt.ctx, tt.req, c.TypeRule)
		}
		// A host of another type is selected unless the rule is type==local
		// (the conditions that mention LINUX aside).
		if strings.Contains(tt.req, "type") {
			continue
		}
		wantAIX := tt.want != TypeLocal
		if got := c.Select(aix.host(t)); got != wantAIX && !(tt.ctx == CtxCond && tt.req != "") {
			t.Errorf("%v %q on an AIX host: %v, want %v", tt.ctx, tt.req, got, wantAIX)
		}
		if tt.ctx != CtxCond {
			if got := c.Select(linux.host(t)); !got {
				t.Errorf("%v %q on the local type: not selected", tt.ctx, tt.req)
			}
		}
	}
	// Compound: each term has its own rule.
	r, err := Parse("2*{select[fs]} + {select[mem>1]}", strictOpts)
	if err != nil {
		t.Fatal(err)
	}
	if r.Terms[0].Req.TypeRule != TypeAny || r.Terms[1].Req.TypeRule != TypeLocal {
		t.Errorf("compound rules %v %v", r.Terms[0].Req.TypeRule, r.Terms[1].Req.TypeRule)
	}
	if TypeLocal.String() != "type==local" || TypeAny.String() != "type==any" || TypeExplicit.String() != "explicit" {
		t.Error("TypeRule.String")
	}
}

// TestExclusive: a host with an exclusive resource is selected only by a
// requirement that names it.
func TestExclusive(t *testing.T) {
	anyType := Options{Table: testTable, Context: CtxLsload}
	big := hostSpec{num: num{"mem": 100}, exclusive: []string{"bigmem"}}
	two := hostSpec{num: num{"mem": 100, "fs": 1}, exclusive: []string{"bigmem", "fs"}}
	tests := []struct {
		req  string
		host hostSpec
		want bool
	}{
		{"mem > 1", big, false},
		{"", big, false},
		{"bigmem", big, true},
		{"bigmem && mem > 1", big, true},
		{"mem > 1000 || bigmem", big, true},
		{"!bigmem", big, false},
		{"defined(bigmem)", big, true},
		{"mem > 1", hostSpec{num: num{"mem": 100, "bigmem": 1}}, true}, // not exclusive there
		{"bigmem", two, false},
		{"bigmem && fs", two, true},
	}
	for _, tt := range tests {
		c := compile(t, tt.req, anyType, Local{})
		if got := c.Select(tt.host.host(t)); got != tt.want {
			t.Errorf("%q on %v: %v, want %v", tt.req, tt.host.exclusive, got, tt.want)
		}
	}
	c := compile(t, "bigmem && mem > 1", anyType, Local{})
	if !c.Names(idx(t, "bigmem")) || !c.Names(IdxMem) || c.Names(IdxSwp) || c.Names(-1) || c.Names(1<<20) {
		t.Error("Names")
	}
}

func TestLess(t *testing.T) {
	anyType := Options{Table: testTable, Context: CtxLsload}
	h := func(n num) *Host { return hostSpec{num: n}.host(t) }
	tests := []struct {
		req  string
		a, b num
		want bool // a before b
	}{
		{"", num{"r15s": 0.1, "pg": 9}, num{"r15s": 0.2, "pg": 0}, true},
		{"", num{"r15s": 0.2, "pg": 0}, num{"r15s": 0.1, "pg": 9}, false},
		{"", num{"r15s": 0.1, "pg": 1}, num{"r15s": 0.1, "pg": 2}, true},
		{"", num{"r15s": 0.1, "pg": 1}, num{"r15s": 0.1, "pg": 1}, false},
		{"order[mem]", num{"mem": 200}, num{"mem": 100}, true}, // decreasing index: more is better
		{"order[-mem]", num{"mem": 200}, num{"mem": 100}, false},
		{"order[-mem]", num{"mem": 100}, num{"mem": 200}, true},
		{"order[ut]", num{"ut": 0.1}, num{"ut": 0.9}, true}, // increasing: less is better
		{"order[-ut]", num{"ut": 0.1}, num{"ut": 0.9}, false},
		{"order[slots]", num{"slots": 8}, num{"slots": 2}, true},  // spread
		{"order[-slots]", num{"slots": 2}, num{"slots": 8}, true}, // pack
		{"order[nio]", num{"nio": 1}, num{"nio": 2}, true},        // INCREASING=Y external index
		{"order[avail_scratch]", num{"avail_scratch": 2}, num{"avail_scratch": 1}, true},
		{"order[swp:r1m]", num{"swp": 10, "r1m": 5}, num{"swp": 10, "r1m": 1}, false},
		{"order[swp:r1m]", num{"swp": 10, "r1m": 1}, num{"swp": 10, "r1m": 5}, true},
		{"order[mem]", num{"mem": 1}, num{}, true},  // undefined last
		{"order[mem]", num{}, num{"mem": 1}, false}, // undefined last
		{"order[mem:ut]", num{"ut": 0.1}, num{"ut": 0.2}, true},
	}
	for _, tt := range tests {
		c := compile(t, tt.req, anyType, Local{})
		if got := c.Less(h(tt.a), h(tt.b)); got != tt.want {
			t.Errorf("%q: Less(%v, %v) = %v, want %v", tt.req, tt.a, tt.b, got, tt.want)
		}
	}
	// Sorting a set of hosts: best first.
	c := compile(t, "order[-slots:ut]", anyType, Local{})
	hosts := []*Host{h(num{"slots": 4, "ut": 0.5}), h(num{"slots": 1, "ut": 0.9}), h(num{"slots": 4, "ut": 0.1}), h(num{})}
	sort.SliceStable(hosts, func(i, j int) bool { return c.Less(hosts[i], hosts[j]) })
	got := []float64{hosts[0].Num[IdxSlots], hosts[0].Num[IdxUt], hosts[1].Num[IdxUt], hosts[2].Num[IdxUt]}
	if want := []float64{1, 0.9, 0.1, 0.5}; !floatsEqual(got, want) || !math.IsNaN(hosts[3].Num[IdxSlots]) {
		t.Errorf("sorted %v, want %v then the undefined host", got, want)
	}
}

func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCompiledViews(t *testing.T) {
	c := compile(t, "select[mem>1] order[!-slots:ut] rusage[mem=2GB:duration=10m:decay=1, license=1 || lic=2:duration=30s] "+
		"span[ptile='!',HP:8] same[type:model] cu[type=rack:maxcus=2]", strictOpts, Local{})
	if len(c.Order) != 2 || !c.OrderResort ||
		c.Order[0] != (OrderKey{Index: IdxSlots, Name: "slots", Reverse: true, Ascending: true}) ||
		c.Order[1] != (OrderKey{Index: IdxUt, Name: "ut", Ascending: true}) {
		t.Errorf("order %+v", c.Order)
	}
	want := [][]Usage{
		{
			{Index: IdxMem, Name: "mem", Value: 2048, Duration: 10 * time.Minute, Decay: true, Group: 0},
			{Index: idx(t, "license"), Name: "license", Value: 1, Group: 1},
		},
		{
			{Index: idx(t, "lic"), Name: "lic", Value: 2, Duration: 30 * time.Second, Group: 0},
		},
	}
	if len(c.Rusage) != len(want) {
		t.Fatalf("rusage %+v", c.Rusage)
	}
	for i := range want {
		if len(c.Rusage[i]) != len(want[i]) {
			t.Fatalf("rusage alt %d: %+v", i, c.Rusage[i])
		}
		for j := range want[i] {
			if c.Rusage[i][j] != want[i][j] {
				t.Errorf("rusage[%d][%d] = %+v, want %+v", i, j, c.Rusage[i][j], want[i][j])
			}
		}
	}
	if c.Span == nil || !c.Span.PtileMax || len(c.Span.PtileByName) != 1 || c.Span.PtileByName[0] != (PtileEntry{"HP", 8}) {
		t.Errorf("span %+v", c.Span)
	}
	if len(c.Same) != 2 || c.Same[0] != IdxType || c.Same[1] != IdxModel {
		t.Errorf("same %v", c.Same)
	}
	if c.Cu == nil || c.Cu.Type != "rack" || c.Cu.MaxCUs != 2 {
		t.Errorf("cu %+v", c.Cu)
	}
	// Decay without a duration is ignored.
	c = compile(t, "rusage[mem=1:decay=1] span[hosts=1]", strictOpts, Local{})
	if c.Rusage[0][0].Decay || c.Rusage[0][0].Duration != 0 || c.Span.Hosts != 1 {
		t.Errorf("decay without duration: %+v", c.Rusage[0][0])
	}
	// Default order.
	c = compile(t, "", strictOpts, Local{})
	if len(c.Order) != 2 || c.Order[0].Name != "r15s" || c.Order[1].Name != "pg" || c.Rusage != nil || c.Span != nil {
		t.Errorf("defaults %+v", c)
	}
}

func TestCompileCompound(t *testing.T) {
	anyType := Options{Table: testTable, Context: CtxLsload}
	c := compile(t, "2*{select[fs] order[mem]} + {select[hpux]}", anyType, Local{})
	if c.Kind != KindCompound || len(c.Terms) != 2 || c.Terms[0].Slots != 2 || c.Terms[1].Slots != 0 {
		t.Fatalf("terms %+v", c.Terms)
	}
	fs, hp, none := hostSpec{num: num{"fs": 1}}.host(t), hostSpec{num: num{"hpux": 1}}.host(t), hostSpec{}.host(t)
	if !c.Select(fs) || !c.Select(hp) || c.Select(none) {
		t.Error("compound Select")
	}
	if !c.Terms[0].Req.Select(fs) || c.Terms[0].Req.Select(hp) {
		t.Error("term Select")
	}
	if !c.Less(hostSpec{num: num{"mem": 2}}.host(t), hostSpec{num: num{"mem": 1}}.host(t)) {
		t.Error("compound Less uses the first term's order")
	}
	c = compile(t, "{select[fs]} || {select[hpux] order[-mem]}", anyType, Local{})
	if c.Kind != KindAlternative || len(c.Alternatives) != 2 || !c.Select(fs) || !c.Select(hp) || c.Select(none) {
		t.Error("alternative Select")
	}
	if c.Less(hostSpec{num: num{"r15s": 2}}.host(t), hostSpec{num: num{"r15s": 1}}.host(t)) {
		t.Error("alternative Less uses the first alternative's order")
	}
}

func TestCompileOtherTable(t *testing.T) {
	r, err := Parse("fs && mem > 1 rusage[license=1] same[os_version]", looseOpts)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewTable([]ResourceDef{{Name: "license", Type: Numeric}, {Name: "os_version", Type: String}, {Name: "fs", Type: Boolean}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Compile(other, Local{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Rusage[0][0].Index != NumBuiltin || c.Same[0] != NumBuiltin+1 {
		t.Errorf("indices %+v %v", c.Rusage, c.Same)
	}
	h := &Host{Num: make([]float64, other.Len()), Str: make([]string, other.Len())}
	h.Num[IdxMem], h.Num[NumBuiltin+2] = 2, 1
	if !c.Select(h) {
		t.Error("not selected with the other table's indices")
	}
	if _, err := r.Compile(BuiltinTable(), Local{}); !errors.Is(err, ErrUnknownResource) {
		t.Errorf("compile without fs: %v", err)
	}
	if c, err := r.Compile(nil, Local{}); err == nil || c != nil {
		t.Error("nil table means built-ins, without fs")
	}
}

// TestShortHost: vectors shorter than the table never panic; missing values
// are undefined.
func TestShortHost(t *testing.T) {
	c := compile(t, "fs || mem > 1 || hname == x || defined(os_version) || defined(fs) || defined(avail_scratch) order[avail_scratch]",
		Options{Table: testTable, Context: CtxBsub}, Local{Type: "LINUX"})
	for _, h := range []*Host{{}, {Num: []float64{1}}, {Str: []string{"x"}}, {Exclusive: []int{-1, 5000}}} {
		if c.Select(h) {
			t.Errorf("selected %+v", h)
		}
		_ = c.Less(h, &Host{})
	}
}

func TestZeroAlloc(t *testing.T) {
	local := Local{Type: "LINUX"}
	c := compile(t, "select[(swp > 50 && type == x86_64) || (swp > 35 && type == local)] order[mem:-ut]", strictOpts, local)
	a := hostSpec{num: num{"swp": 40, "mem": 3}, str: str{"type": "LINUX"}}.host(t)
	b := hostSpec{num: num{"swp": 60, "mem": 3}, str: str{"type": "x86_64"}}.host(t)
	if n := testing.AllocsPerRun(100, func() { c.Select(a); c.Less(a, b) }); n != 0 {
		t.Errorf("Select+Less allocate %v times", n)
	}
}

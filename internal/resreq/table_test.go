package resreq

import (
	"errors"
	"testing"
)

func TestBuiltinIndices(t *testing.T) {
	tb := BuiltinTable()
	// LSF's load index numbers (lsf.h) must be the first table indices.
	want := []string{"r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem",
		"ncpus", "nprocs", "ncores", "nthreads", "ndisks", "maxmem", "maxswp", "maxtmp", "cpuf",
		"rexpri", "server", "type", "model", "hname", "status", "slots", "maxslots"}
	if tb.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", tb.Len(), len(want))
	}
	for i, name := range want {
		got, ok := tb.Index(name)
		if !ok || got != i {
			t.Errorf("Index(%q) = %d, %v; want %d", name, got, ok, i)
		}
		if d := tb.Def(i); d.Name != name || !d.Builtin {
			t.Errorf("Def(%d) = %+v", i, d)
		}
	}
	for _, c := range []struct {
		idx  int
		want string
	}{{IdxR15s, "r15s"}, {IdxMem, "mem"}, {IdxSwp, "swp"}, {IdxType, "type"}, {IdxMaxslots, "maxslots"}} {
		if tb.Name(c.idx) != c.want {
			t.Errorf("Name(%d) = %q, want %q", c.idx, tb.Name(c.idx), c.want)
		}
	}
}

func TestBuiltinProperties(t *testing.T) {
	tb := BuiltinTable()
	tests := []struct {
		name       string
		typ        ValueType
		increasing bool
		dynamic    bool
	}{
		{"r15s", Numeric, true, true},
		{"ut", Numeric, true, true},
		{"it", Numeric, false, true},
		{"mem", Numeric, false, true},
		{"swp", Numeric, false, true},
		{"tmp", Numeric, false, true},
		{"ncpus", Numeric, false, false},
		{"maxmem", Numeric, false, false},
		{"cpuf", Numeric, false, false},
		{"server", Boolean, false, false},
		{"type", String, false, false},
		{"model", String, false, false},
		{"hname", String, false, false},
		{"status", String, false, false},
		{"slots", Numeric, false, false},
	}
	for _, tt := range tests {
		i, ok := tb.Index(tt.name)
		if !ok {
			t.Fatalf("%s not found", tt.name)
		}
		d := tb.Def(i)
		if d.Type != tt.typ || d.Increasing != tt.increasing || d.Dynamic() != tt.dynamic {
			t.Errorf("%s: type %v increasing %v dynamic %v; want %v %v %v",
				tt.name, d.Type, d.Increasing, d.Dynamic(), tt.typ, tt.increasing, tt.dynamic)
		}
	}
}

func TestAliases(t *testing.T) {
	tb := BuiltinTable()
	for alias, want := range map[string]int{"swap": IdxSwp, "idle": IdxIt, "login": IdxLs, "cpu": IdxR1m} {
		if got, ok := tb.Index(alias); !ok || got != want {
			t.Errorf("Index(%q) = %d, %v; want %d", alias, got, ok, want)
		}
	}
}

func TestNewTable(t *testing.T) {
	defs := []ResourceDef{
		{Name: "fs", Type: Boolean},
		{Name: "verilog", Type: Numeric, Consumable: true, Release: true, Shared: true},
		{Name: "nio", Type: Numeric, Interval: 60, Increasing: true},
		{Name: "console", Type: String, Interval: 60},
		{Name: "Fs", Type: Boolean},
	}
	tb, err := NewTable(defs)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != NumBuiltin+len(defs) {
		t.Fatalf("Len = %d", tb.Len())
	}
	for k, d := range defs {
		i, ok := tb.Index(d.Name)
		if !ok || i != NumBuiltin+k {
			t.Errorf("Index(%q) = %d, %v", d.Name, i, ok)
		}
		if got := tb.Def(i); got.Builtin || got.Name != d.Name || got.Type != d.Type {
			t.Errorf("Def(%d) = %+v", i, got)
		}
	}
	if !tb.Def(NumBuiltin + 2).Dynamic() {
		t.Error("nio (Numeric, INTERVAL 60) should be dynamic")
	}
	if tb.Def(NumBuiltin + 3).Dynamic() {
		t.Error("console (String) is not a dynamic numeric resource")
	}
	// Case folding: exact wins; "FS" is ambiguous (fs, Fs).
	if i, ok := tb.IndexFold("Fs"); !ok || i != NumBuiltin+4 {
		t.Errorf("IndexFold(Fs) = %d, %v", i, ok)
	}
	if _, ok := tb.IndexFold("FS"); ok {
		t.Error("IndexFold(FS) should be ambiguous")
	}
	if i, ok := tb.IndexFold("MEM"); !ok || i != IdxMem {
		t.Errorf("IndexFold(MEM) = %d, %v", i, ok)
	}
	if i, ok := tb.IndexFold("SWAP"); !ok || i != IdxSwp {
		t.Errorf("IndexFold(SWAP) = %d, %v", i, ok)
	}
	if _, ok := tb.Index("MEM"); ok {
		t.Error("Index is case-sensitive")
	}
}

func TestNewTableErrors(t *testing.T) {
	tests := []struct {
		defs []ResourceDef
		want error
	}{
		{[]ResourceDef{{Name: "fs"}, {Name: "fs"}}, ErrDuplicateResource},
		{[]ResourceDef{{Name: "mem"}}, ErrReservedName},
		{[]ResourceDef{{Name: "swap"}}, ErrReservedName},
		{[]ResourceDef{{Name: "local"}}, ErrReservedName},
		{[]ResourceDef{{Name: "select"}}, ErrReservedName},
		{[]ResourceDef{{Name: "nprocs"}}, ErrReservedName},
		{[]ResourceDef{{Name: "1abc"}}, ErrBadResourceName},
		{[]ResourceDef{{Name: "a-b"}}, ErrBadResourceName},
		{[]ResourceDef{{Name: "a:b"}}, ErrBadResourceName},
		{[]ResourceDef{{Name: "a.b"}}, ErrBadResourceName},
		{[]ResourceDef{{Name: "a,b"}}, ErrBadResourceName},
		{[]ResourceDef{{Name: ""}}, ErrBadResourceName},
		{[]ResourceDef{{Name: "a234567890123456789012345678901234567890"}}, ErrBadResourceName},
		{[]ResourceDef{{Name: "x", Type: ValueType(7)}}, ErrBadResourceName},
	}
	for _, tt := range tests {
		_, err := NewTable(tt.defs)
		if !errors.Is(err, tt.want) {
			t.Errorf("NewTable(%v) = %v, want %v", tt.defs, err, tt.want)
		}
	}
	// 39 characters is the limit, inclusive.
	if _, err := NewTable([]ResourceDef{{Name: "a23456789012345678901234567890123456789"}}); err != nil {
		t.Errorf("39-character name: %v", err)
	}
	// inf and nan are ordinary names.
	if _, err := NewTable([]ResourceDef{{Name: "inf"}, {Name: "nan"}, {Name: "nanny"}}); err != nil {
		t.Errorf("inf/nan: %v", err)
	}
}

package resreq

import (
	"math"
	"testing"
)

// Targets (brief): compiled evaluation of each seed example against one host
// at most 50 ns/op and 0 allocs/op; parse+compile of a typical -R string at
// most 5 µs.

func benchHost(b *testing.B) *Host {
	h := &Host{Num: make([]float64, testTable.Len()), Str: make([]string, testTable.Len())}
	for i := range h.Num {
		h.Num[i] = math.NaN()
	}
	h.Num[IdxSwp], h.Num[IdxR15s], h.Num[IdxR1m], h.Num[IdxR15m], h.Num[IdxCpuf] = 40, 0.5, 0.4, 0.3, 5
	h.Num[NumBuiltin] = 0 // fs
	h.Str[IdxType] = "LINUX"
	return h
}

func benchSelect(b *testing.B, req string) {
	r, err := Parse(req, Options{Table: testTable, Strict: true})
	if err != nil {
		b.Fatal(err)
	}
	c, err := r.Compile(testTable, Local{Type: "LINUX"})
	if err != nil {
		b.Fatal(err)
	}
	h := benchHost(b)
	if !c.Select(h) {
		b.Fatal("host not selected")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !c.Select(h) {
			b.Fatal("not selected")
		}
	}
}

func BenchmarkSelectSeedTypes(b *testing.B) {
	benchSelect(b, "select[(swp > 50 && type == x86_64) || (swp > 35 && type == LINUX)]")
}

func BenchmarkSelectSeedArith(b *testing.B) {
	benchSelect(b, "select[((2*r15s + 3*r1m + r15m) / 6 < 1.0) && !fs && (cpuf > 4.0)]")
}

func BenchmarkLess(b *testing.B) {
	r, err := Parse("order[-slots:ut:mem]", Options{Table: testTable})
	if err != nil {
		b.Fatal(err)
	}
	c, err := r.Compile(testTable, Local{})
	if err != nil {
		b.Fatal(err)
	}
	x, y := benchHost(b), benchHost(b)
	x.Num[IdxSlots], y.Num[IdxSlots] = 4, 4
	x.Num[IdxUt], y.Num[IdxUt] = 0.5, 0.5
	x.Num[IdxMem], y.Num[IdxMem] = 100, 200
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if c.Less(x, y) {
			b.Fatal("wrong order")
		}
	}
}

const typicalReq = "select[mem>4000 && type==any] order[-slots:ut] rusage[mem=2000:duration=10m] span[hosts=1]"

func BenchmarkParse(b *testing.B) {
	o := Options{Table: testTable, Strict: true}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(typicalReq, o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseCompile(b *testing.B) {
	o := Options{Table: testTable, Strict: true}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r, err := Parse(typicalReq, o)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Compile(testTable, Local{Type: "LINUX"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkString(b *testing.B) {
	r, err := Parse(typicalReq, Options{Table: testTable})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = r.String()
	}
}

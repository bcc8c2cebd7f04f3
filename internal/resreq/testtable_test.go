package resreq

import (
	"math"
	"testing"
)

// testDefs is an lsf.shared Resource section covering the seed's examples.
var testDefs = []ResourceDef{
	{Name: "fs", Type: Boolean},
	{Name: "hpux", Type: Boolean},
	{Name: "linux", Type: Boolean},
	{Name: "qscw", Type: Boolean},
	{Name: "mg", Type: Boolean},
	{Name: "bigmem", Type: Boolean},
	{Name: "AMD64", Type: Boolean},
	{Name: "microcs73", Type: Boolean},
	{Name: "cs", Type: Boolean},
	{Name: "rhel6", Type: Boolean},
	{Name: "rhel7", Type: Boolean},
	{Name: "avail_scratch", Type: Numeric, Consumable: true, Shared: true},
	{Name: "verilog", Type: Numeric, Consumable: true, Release: true, Shared: true},
	{Name: "license", Type: Numeric, Consumable: true, Shared: true},
	{Name: "lic", Type: Numeric, Consumable: true, Shared: true},
	{Name: "hmem", Type: Numeric, Consumable: true},
	{Name: "app_lic_v201", Type: Numeric, Consumable: true, Shared: true},
	{Name: "app_lic_v15", Type: Numeric, Consumable: true, Shared: true},
	{Name: "ngpus", Type: Numeric, Consumable: false},
	{Name: "nio", Type: Numeric, Interval: 60, Increasing: true},
	{Name: "mode", Type: Numeric, Interval: 15},
	{Name: "cntrl", Type: Numeric, Interval: 15},
	{Name: "it_t", Type: Numeric, Interval: 15},
	{Name: "console", Type: String, Interval: 60},
	{Name: "os_version", Type: String, Shared: true},
	{Name: "cpu_type", Type: String, Shared: true},
	{Name: "inf", Type: Numeric},
	{Name: "nan", Type: Numeric},
	{Name: "nanny", Type: Boolean},
}

var testTable = func() *Table {
	t, err := NewTable(testDefs)
	if err != nil {
		panic(err)
	}
	return t
}()

func idx(t testing.TB, name string) int {
	t.Helper()
	i, ok := testTable.Index(name)
	if !ok {
		t.Fatalf("no resource %q", name)
	}
	return i
}

// hostSpec builds a Host from name=value pairs: numbers, Booleans (1/0) and
// strings. Every other numeric value is undefined (NaN), Booleans 0.
type hostSpec struct {
	num       map[string]float64
	str       map[string]string
	exclusive []string
}

func (hs hostSpec) host(t testing.TB) *Host {
	h := &Host{Num: make([]float64, testTable.Len()), Str: make([]string, testTable.Len())}
	for i := range h.Num {
		h.Num[i] = math.NaN()
		if testTable.Def(i).Type == Boolean {
			h.Num[i] = 0
		}
	}
	for k, v := range hs.num {
		h.Num[idx(t, k)] = v
	}
	for k, v := range hs.str {
		h.Str[idx(t, k)] = v
	}
	for _, k := range hs.exclusive {
		h.Exclusive = append(h.Exclusive, idx(t, k))
		h.Num[idx(t, k)] = 1
	}
	return h
}

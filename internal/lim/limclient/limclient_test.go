package limclient

import (
	"math"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

func fixture() *Cluster {
	return newCluster(&api.ClusterReply{Cluster: "c", Master: "h1",
		Hosts: []*api.HostLoad{
			{Name: "h1", Type: "X86_64", Model: "m1", CPUF: 2, Server: true, Resources: []string{"fs", "!bigmem", "os=rhel9", "slotsx=4"},
				Load:   []float64{2, 4, 1, 0.5, 0, 0, 0, 0, 100, 200, 300},
				Static: &api.HostStatic{NCPUs: 4, MaxMem: 8000},
				Ext:    []*api.IndexValue{{Name: "usr_tmp", Value: 30}}},
			{Name: "h2", Type: "X86_64", Model: "m1", CPUF: 1, Server: true, Status: api.LimUnavail},
		},
		Shared: []*api.SharedResource{
			{Name: "lic", Dynamic: true, Numeric: true, Instances: []*api.SharedInstance{{Value: "7", Hosts: []string{"h1"}}, {Value: "-", Hosts: []string{"h2"}}}},
			{Name: "verilog", Numeric: true, Instances: []*api.SharedInstance{{Value: "5", Hosts: []string{"h1", "h2"}}}},
		}})
}

func TestValue(t *testing.T) {
	c := fixture()
	tests := []struct {
		name, host string
		want       float64
		ok         bool
	}{
		{"r1m", "h1", 4, true},   // raw run queue
		{"mem", "H1", 300, true}, // host names fold case
		{"usr_tmp", "h1", 30, true},
		{"lic", "h1", 7, true},
		{"lic", "h2", 0, false}, // no value yet
		{"verilog", "h2", 5, true},
		{"nosuch", "h1", 0, false},
		{"r1m", "h2", 0, false}, // unavail: no load
		{"mem", "h9", 0, false},
	}
	for _, tt := range tests {
		got, ok := c.Value(tt.name, tt.host)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Value(%s, %s) = %v, %v; want %v, %v", tt.name, tt.host, got, ok, tt.want, tt.ok)
		}
	}
}

func TestVectorSelect(t *testing.T) {
	tb, err := resreq.NewTable([]resreq.ResourceDef{
		{Name: "fs", Type: resreq.Boolean}, {Name: "bigmem", Type: resreq.Boolean},
		{Name: "os", Type: resreq.String}, {Name: "slotsx", Type: resreq.Numeric},
		{Name: "usr_tmp", Type: resreq.Numeric, Interval: 15}, {Name: "lic", Type: resreq.Numeric, Interval: 15, Shared: true},
		{Name: "verilog", Type: resreq.Numeric, Shared: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := fixture()
	v := c.Vector(tb, "h1")
	idx := func(n string) int { i, _ := tb.Index(n); return i }
	checks := map[string]float64{"r1m": effective(4, 4), "ncpus": 4, "maxmem": 8000, "cpuf": 2, "server": 1,
		"fs": 1, "bigmem": 1, "slotsx": 4, "usr_tmp": 30, "lic": 7, "verilog": 5}
	for n, want := range checks {
		if got := v.Num[idx(n)]; math.Abs(got-want) > 1e-9 {
			t.Errorf("Vector %s = %v, want %v", n, got, want)
		}
	}
	if v.Str[idx("os")] != "rhel9" || v.Str[resreq.IdxType] != "X86_64" || v.Str[resreq.IdxStatus] != "ok" {
		t.Errorf("Vector strings: os %q type %q status %q", v.Str[idx("os")], v.Str[resreq.IdxType], v.Str[resreq.IdxStatus])
	}
	if len(v.Exclusive) != 1 || v.Exclusive[0] != idx("bigmem") {
		t.Errorf("Exclusive = %v", v.Exclusive)
	}
	for _, tt := range []struct {
		req  string
		want bool
	}{{"select[usr_tmp > 15 && lic >= 7]", false}, {"select[usr_tmp > 15 && lic >= 7 && bigmem]", true},
		{"select[bigmem && os == rhel9]", true}, {"select[bigmem && usr_tmp > 40]", false}} {
		r, err := resreq.Parse(tt.req, resreq.Options{Context: resreq.CtxLsload, Table: tb})
		if err != nil {
			t.Fatal(err)
		}
		cr, err := r.Compile(tb, resreq.Local{Type: "X86_64"})
		if err != nil {
			t.Fatal(err)
		}
		if got := cr.Select(v); got != tt.want {
			t.Errorf("Select(%s) = %v, want %v", tt.req, got, tt.want)
		}
	}
	if v := c.Vector(tb, "h2"); !math.IsNaN(v.Num[resreq.IdxR1m]) || v.Str[resreq.IdxStatus] != "unavail" {
		t.Errorf("unavail host vector: r1m %v status %q", v.Num[resreq.IdxR1m], v.Str[resreq.IdxStatus])
	}
}

// effective(raw, n): 4 runnable on 4 CPUs is a full load of 1 per CPU.
func effective(raw float64, n int) float64 {
	if raw == 4 && n == 4 {
		return 1
	}
	panic("fixture")
}

func TestStatusString(t *testing.T) {
	for s, want := range map[api.LimStatus]string{0: "ok", api.LimBusy: "busy", api.LimLockW: "lockW", api.LimUnavail: "unavail"} {
		if got := StatusString(s); got != want {
			t.Errorf("StatusString(%d) = %q", s, got)
		}
	}
}

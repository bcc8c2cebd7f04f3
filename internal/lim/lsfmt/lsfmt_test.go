package lsfmt

import (
	"bytes"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func TestIndexValue(t *testing.T) {
	tests := []struct {
		name        string
		v           float64
		known, busy bool
		wide        bool
		want        string
	}{
		{"r15s", 0.52, true, false, false, "   0.5"},
		{"r1m", 12.25, true, true, false, " *12.2"},
		{"r15m", 123456, true, false, false, " 1e+05"}, // too long: %g
		{"ut", 0.251, true, false, false, "  25%"},
		{"ut", 1, true, true, false, "*100%"},
		{"pg", 3.25, true, false, false, "   3.2"},
		{"io", 120, true, false, false, "   120"},
		{"io", 123456, true, false, false, " 1e+05"},
		{"ls", 2, true, false, false, "   2"},
		{"it", 4000, true, false, false, "  4000"},
		{"tmp", 900, true, false, false, "  900M"},
		{"tmp", 15000, true, false, false, "   15G"}, // 15000M is too long: GB
		{"swp", 0, true, true, false, "   *0M"},
		{"mem", 3500, true, false, false, " 3500M"},
		{"mem", 1500000, true, false, false, " 1465G"},
		{"swap", 2048, true, false, false, " 2048M"}, // alias of swp
		{"usr_tmp", 30, true, false, false, "    30.0"},
		{"lic", 7, true, false, false, "    7.0"},
		{"lic", 7, true, false, true, "           7.0"},
		{"lic", 0, false, false, false, "      -"},
		{"r1m", 0, false, false, false, "     -"},
	}
	for _, tt := range tests {
		if got := IndexValue(tt.name, tt.v, tt.known, tt.busy, tt.wide); got != tt.want {
			t.Errorf("IndexValue(%s, %v, busy=%v, wide=%v) = %q, want %q", tt.name, tt.v, tt.busy, tt.wide, got, tt.want)
		}
	}
}

func TestIndexHeader(t *testing.T) {
	for _, tt := range []struct {
		name string
		wide bool
		want string
	}{{"r15s", false, "  r15s"}, {"ut", false, "   ut"}, {"ls", false, "  ls"}, {"lic", false, "    lic"},
		{"usr_tmp", false, " usr_tmp"}, {"lic", true, "           lic"}} {
		if got := IndexHeader(tt.name, tt.wide); got != tt.want {
			t.Errorf("IndexHeader(%s, %v) = %q, want %q", tt.name, tt.wide, got, tt.want)
		}
	}
}

func hostsFixture() []*api.HostLoad {
	return []*api.HostLoad{
		{Name: "hostA", Type: "X86_64", Model: "x86_64", CPUF: 1, Server: true, Resources: []string{"fs", "!bigmem"},
			Load:   []float64{0.5, 6.1, 0.9, 0.25, 1.5, 120, 2, 0, 15000, 2048, 3500},
			Static: &api.HostStatic{NCPUs: 4, NDisks: 1, MaxMem: 7800, MaxSwp: 2048, MaxTmp: 50000},
			Status: api.LimBusy, Busy: []string{"r1m"}, Thresholds: []*api.LoadThresholdValue{{Index: "r1m", Value: 3.5}, {Index: "ut", Value: 0.9}}},
		{Name: "a-very-long-host-name.example.com", Type: "LINUXARM64", Model: "aarch64", CPUF: 2.5, Server: true,
			Status: api.LimUnavail},
		{Name: "client1", Type: "X86_64", Model: "x86_64", CPUF: 1, Server: false, Status: api.LimUnavail},
		{Name: "hostL", Type: "X86_64", Model: "x86_64", CPUF: 1, Server: true, Status: api.LimLockU | api.LimLockW,
			Load: []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, Static: &api.HostStatic{NCPUs: 1}},
	}
}

func TestWriteLoad(t *testing.T) {
	var b bytes.Buffer
	WriteLoad(&b, hostsFixture(), DefaultIndices, LoadOptions{})
	want := `HOST_NAME       status  r15s   r1m  r15m   ut    pg  ls    it   tmp   swp   mem
hostA             busy   0.5  *6.1   0.9  25%   1.5   2     0   15G 2048M 3500M
a-very-long-hos unavail
client1         unavail
hostL           lockUW   0.0   0.0   0.0   0%   0.0   0     0    0M    0M    0M
`
	if b.String() != want {
		t.Errorf("WriteLoad:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	lic := &api.SharedResource{Name: "lic", Dynamic: true, Numeric: true, Instances: []*api.SharedInstance{{Value: "7", Hosts: []string{"hostA"}}}}
	WriteLoad(&b, hostsFixture()[:1], []string{"r1m"}, LoadOptions{Long: true, Shared: []*api.SharedResource{lic}})
	if want := "HOST_NAME               status   r1m  lic\nhostA                     busy  *6.1    7\n"; b.String() != want {
		t.Errorf("WriteLoad -l with shared:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	WriteLoad(&b, hostsFixture()[:2], []string{"r1m"}, LoadOptions{Wide: true, RunQueue: Effective})
	want = `HOST_NAME               status   r1m
hostA                     busy  *1.1
a-very-long-host-name.example.com unavail
`
	if b.String() != want {
		t.Errorf("WriteLoad -w -E:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteHosts(t *testing.T) {
	var b bytes.Buffer
	WriteHosts(&b, hostsFixture(), HostsOptions{})
	want := `HOST_NAME      type    model  cpuf ncpus maxmem maxswp server RESOURCES
hostA        X86_64   x86_64   1.0     4  7800M  2048M    Yes (fs !bigmem)
a-very-long LINUXAR  aarch64   2.5     -      -      -    Yes ()
client1      X86_64   x86_64   1.0     -      -      -     No ()
hostL        X86_64   x86_64   1.0     1      -      -    Yes ()
`
	if b.String() != want {
		t.Errorf("WriteHosts:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	WriteHostsLong(&b, hostsFixture()[:1], []string{"r15s", "r1m", "ut", "usr_tmp"},
		[]*api.SharedResource{{Name: "verilog", Numeric: true, Instances: []*api.SharedInstance{{Value: "5", Hosts: []string{"hostA"}}}},
			{Name: "lic", Dynamic: true, Instances: []*api.SharedInstance{{Value: "7", Hosts: []string{"hostA"}}}}})
	want = `
HOST_NAME:  hostA
type             model  cpuf ncpus ndisks maxmem maxswp maxtmp rexpri server
X86_64          x86_64   1.0     4      1  7800M  2048M 50000M      0    Yes
  verilog
        5

RESOURCES: (fs !bigmem)
RUN_WINDOWS:  (always open)

LOAD_THRESHOLDS:
  r15s   r1m   ut usr_tmp
     -   3.5  90%       -
`
	if b.String() != want {
		t.Errorf("WriteHostsLong:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteShared(t *testing.T) {
	shared := []*api.SharedResource{
		{Name: "lic", Dynamic: true, Numeric: true, Instances: []*api.SharedInstance{
			{Value: "7", Hosts: []string{"host1", "host2"}},
			{Value: "-", Hosts: []string{"h-0000000001", "h-0000000002", "h-0000000003", "h-0000000004"}},
		}},
		{Name: "verilog", Numeric: true, Instances: []*api.SharedInstance{{Value: "5", Hosts: []string{"host1"}}}},
	}
	var b bytes.Buffer
	WriteShared(&b, shared, true, nil)
	want := `RESOURCE                                VALUE       LOCATION
lic                                         7       host1 host2 
lic                                         -       h-0000000001 h-0000000002 
                                                    h-0000000003 h-0000000004 
`
	if b.String() != want {
		t.Errorf("WriteShared dynamic:\n%q\nwant:\n%q", b.String(), want)
	}
	b.Reset()
	WriteShared(&b, shared, false, []string{"lic"})
	if b.String() != "No static shared resources defined \n" {
		t.Errorf("WriteShared static lic = %q", b.String())
	}
}

func TestWriteInfoAndClusters(t *testing.T) {
	var b bytes.Buffer
	res := []Resource{{Name: "mem", Type: "Numeric", Order: "Dec", Description: "Available memory (Mbytes)", Interval: 15, Builtin: true, Dynamic: true}}
	missing := WriteInfo(&b, res, []string{"X86_64"}, []*api.ModelInfo{{Name: "x86_64", CPUFactor: 1, Arch: []string{"x86_64"}}, {Name: "Old", CPUFactor: 0.5}},
		map[string]bool{"x86_64": true}, InfoOptions{Names: []string{"mem", "nosuch"}})
	want := `RESOURCE_NAME   TYPE   ORDER  DESCRIPTION
mem           Numeric   Dec   Available memory (Mbytes)
nosuch: Resource name not found
`
	if b.String() != want || len(missing) != 1 || missing[0] != "nosuch" {
		t.Errorf("WriteInfo names:\n%s\nmissing %v", b.String(), missing)
	}
	b.Reset()
	WriteClusters(&b, "cluster1", "ok", "a-master-host-with-a-long-name", "lsfadmin", 10, 8, false)
	want = `CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS
cluster1       ok       a-master-host-with     lsfadmin       10        8
`
	if b.String() != want {
		t.Errorf("WriteClusters:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	WriteID(&b, "Basalt x", "c1", "m1")
	if b.String() != "Basalt x\n\nMy cluster name is c1\nMy master name is m1\n" {
		t.Errorf("WriteID = %q", b.String())
	}
}

func TestStatus(t *testing.T) {
	for s, want := range map[api.LimStatus]string{0: "ok", api.LimBusy: "busy", api.LimLockU: "lockU", api.LimLockW: "lockW",
		api.LimLockU | api.LimLockW | api.LimBusy: "lockUW", api.LimUnavail | api.LimLockU: "unavail"} {
		if got := Status(s); got != want {
			t.Errorf("Status(%d) = %q, want %q", s, got, want)
		}
	}
}

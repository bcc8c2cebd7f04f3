package api

import (
	"reflect"
	"testing"

	"github.com/basalt-lsf/basalt/api/wire"
)

// TestLimRoundTrip encodes and decodes every LIM message with every field
// set, including zero values inside a load vector (they must survive).
func TestLimRoundTrip(t *testing.T) {
	msgs := []wire.Message{
		&LoadReport{Host: "h1", Load: []float64{0, 1.5, 0, 0.25, 0, 0, 2, 0, 1000, 0, 3500},
			Ext: []*IndexValue{{Name: "usr_tmp", Value: 30}}, Shared: []*IndexValue{{Name: "lic", Value: 7}},
			Static:  &HostStatic{NCPUs: 4, NProcs: 1, NCores: 4, NThreads: 1, NDisks: 1, MaxMem: 8000, MaxSwp: 2048, MaxTmp: 9000, Type: "X86_64", Model: "x86_64"},
			LockedU: true, LockUntil: 1700000000, Seq: 9, BootTime: 1600000000, Leaving: true},
		&ReportReply{Accepted: true, Master: "h1", Resources: []string{"lic"}, RunElims: true},
		&PingRequest{From: "h2"},
		&PingReply{Host: "h1", Cluster: "c", Master: "h1", IsMaster: true, MasterAddr: "127.0.1.1:6879", Epoch: 3},
		&ClusterRequest{Hosts: []string{"h1"}},
		&ClusterReply{Cluster: "c", Master: "h1", Admins: []string{"a"}, Types: []string{"X86_64"}, NotFound: []string{"x"}, Time: 5,
			Hosts: []*HostLoad{{Name: "h1", Status: LimBusy | LimLockU, Busy: []string{"r1m"}, Load: []float64{0, 1},
				Ext: []*IndexValue{{Name: "a", Value: 1}}, Static: &HostStatic{NCPUs: 2}, Type: "t", Model: "m", CPUF: 1.5, Server: true,
				RExPri: -3, Resources: []string{"!bigmem"}, RunWindow: "8:00-17:00", Thresholds: []*LoadThresholdValue{{Index: "r1m", Value: 3.5}},
				LastReport: 4, ND: 2}},
			Resources: []*ResourceInfo{{Name: "lic", Type: "Numeric", Interval: 30, Increasing: true, Release: true, Consumable: true, Description: "d", Shared: true}},
			Models:    []*ModelInfo{{Name: "m", CPUFactor: 2, Arch: []string{"x86_64"}}},
			Shared: []*SharedResource{{Name: "lic", Dynamic: true, Numeric: true,
				Instances: []*SharedInstance{{Value: "7", Hosts: []string{"h1"}, Reporter: "h1"}}}}},
		&LimControlRequest{Op: LimOpLock, LockSeconds: 60},
		&LimControlReply{Host: "h1", Message: "m"},
	}
	for _, m := range msgs {
		b := wire.Marshal(m)
		out := reflect.New(reflect.TypeOf(m).Elem()).Interface().(wire.Message)
		if err := out.UnmarshalWire(b); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		if !reflect.DeepEqual(m, out) {
			t.Errorf("%T round trip:\n got %+v\nwant %+v", m, out, m)
		}
	}
}

package output

import (
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func TestGPUMem(t *testing.T) {
	for mb, want := range map[int64]string{0: "0M", 512: "512M", 1024: "1.0G", 16160: "15.8G"} {
		if got := gpuMem(mb); got != want {
			t.Errorf("gpuMem(%d) = %q, want %q", mb, got, want)
		}
	}
}

func TestWriteHostsGPU(t *testing.T) {
	var b strings.Builder
	if err := WriteHostsGPU(&b, []*api.HostInfo{{Name: "cpuonly"}}, &Options{}); err == nil {
		t.Error("hosts without GPUs: no error")
	}
	hosts := []*api.HostInfo{{Name: "averyveryverylonghostname", GPUs: []*api.HostGPU{
		{Index: 0, Model: "TeslaV100_SXM2_16GB", NJobs: 2, Run: 1, Susp: 1, MemUsed: 2048},
		{Index: 1, Model: "TeslaV100_SXM2_16GB"}}}}
	if err := WriteHostsGPU(&b, hosts, &Options{NoHeader: true}); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"averyveryverylongho*   0 TeslaV100_SXM2_1     2.0G       0M      2      1      1      0\n" +
		"                       1 TeslaV100_SXM2_1        -       0M      0      0      0      0\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestGPUDetails(t *testing.T) {
	j := &api.JobRecord{Spec: &api.JobSpec{GPUReq: "-"}}
	var b strings.Builder
	writeGPUDetails(&b, j, JobsFlags{GPUDefault: "num=2:j_exclusive=yes", GPU: true})
	want := "\n GPU REQUIREMENT DETAILS:\n Combined: num=2:mode=shared:mps=no:j_exclusive=yes\n Effective: num=2:mode=shared:mps=no:j_exclusive=yes\n"
	if b.String() != want {
		t.Errorf("pending job: got %q, want %q", b.String(), want)
	}
	b.Reset()
	writeGPUDetails(&b, &api.JobRecord{Spec: &api.JobSpec{}}, JobsFlags{GPU: true})
	if b.Len() != 0 {
		t.Errorf("job without -gpu: %q", b.String())
	}
	// A job without -gpu in a queue with GPU_REQ: mbatchd's merge.
	b.Reset()
	writeGPUDetails(&b, &api.JobRecord{Spec: &api.JobSpec{}, CombinedGPUReq: "num=1:mode=exclusive_process:mps=no:j_exclusive=yes"},
		JobsFlags{GPUDefault: "num=2"})
	want = "\n GPU REQUIREMENT DETAILS:\n Combined: num=1:mode=exclusive_process:mps=no:j_exclusive=yes\n Effective: num=1:mode=exclusive_process:mps=no:j_exclusive=yes\n"
	if b.String() != want {
		t.Errorf("queue GPU_REQ: got %q, want %q", b.String(), want)
	}
}

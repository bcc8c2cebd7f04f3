package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/resreq/gpureq"
)

// GPU output (bsub -gpu). LSF 10.1's documentation names bhosts -gpu's
// columns (HOST_NAME ID MODEL MUSED MRSV NJOBS RUN SUSP RSV) and bjobs -l
// -gpu's (HOST TASK GPU_ID MODEL MTOTAL FACTOR MRSV SOCKET NVLINK) but
// no source here shows their exact widths: the layouts below are Basalt's.
// MUSED (measured use) is "-": Basalt does not sample GPU memory; MRSV is
// 0M and RSV 0 (no gmem reservation, no GPU reservation for pending jobs).

// gpuMem is a GPU memory size (MB) as LSF prints it: "512M", "15.8G".
func gpuMem(mb int64) string {
	if mb >= 1024 {
		return fmt.Sprintf("%.1fG", float64(mb)/1024)
	}
	return fmt.Sprintf("%dM", mb)
}

const hostsGPUFormat = "%-20s %3s %-16s %8s %8s %6s %6s %6s %6s\n"

// WriteHostsGPU is bhosts -gpu: a line per GPU of each host that has
// GPUs, the host named on its first.
func WriteHostsGPU(w io.Writer, hosts []*api.HostInfo, o *Options) error {
	var b strings.Builder
	n := 0
	for _, h := range hosts {
		for i, g := range h.GPUs {
			if n == 0 && !o.NoHeader {
				fmt.Fprintf(&b, hostsGPUFormat, "HOST_NAME", "ID", "MODEL", "MUSED", "MRSV", "NJOBS", "RUN", "SUSP", "RSV")
			}
			n++
			name := ""
			if i == 0 {
				name = h.Name
				if !o.Wide && len(name) > 20 {
					name = name[:19] + "*"
				}
			}
			model := g.Model
			if len(model) > 16 {
				model = model[:16]
			}
			mused := "-"
			if g.MemUsed > 0 {
				mused = gpuMem(g.MemUsed)
			}
			fmt.Fprintf(&b, hostsGPUFormat, name, fmt.Sprint(g.Index), model, mused, gpuMem(g.MemRsv),
				fmt.Sprint(g.NJobs), fmt.Sprint(g.Run), fmt.Sprint(g.Susp), fmt.Sprint(g.Rsv))
		}
	}
	if n == 0 {
		return fmt.Errorf("no GPU found on the hosts")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// gpuRequested is the submission line's GPU part in bjobs -l and bhist
// -l: the job's -gpu as given.
func gpuRequested(s *api.JobSpec) string {
	if s.GPUReq == "" {
		return ""
	}
	return ", Requested GPU <" + s.GPUReq + ">"
}

// writeGPUDetails ends a GPU job in bjobs -l: LSF 10.1's GPU REQUIREMENT
// DETAILS (the job's -gpu merged with its profile's and queue's GPU_REQ
// and LSB_GPU_REQ, as mbatchd merged it, j.CombinedGPUReq, and the
// requirement its GPUs were allocated with), then with -gpu the
// GPU_ALLOCATION table of a started job (models and sizes from
// fl.GPUHosts, bhosts' data).
func writeGPUDetails(b *strings.Builder, j *api.JobRecord, fl JobsFlags) {
	s := spec(j)
	combined := j.CombinedGPUReq
	if combined == "" {
		// mbatchd did not merge it (an older one): the job's -gpu over
		// LSB_GPU_REQ.
		if s.GPUReq == "" {
			return
		}
		combined = s.GPUReq
		if r, ok, err := gpureq.Resolve(s.GPUReq, fl.GPUDefault); err == nil && ok {
			combined = r.String()
		}
	}
	effective := combined
	if len(j.ExecHosts) > 0 && j.ExecHosts[0].GPUReq != "" {
		effective = j.ExecHosts[0].GPUReq
	}
	b.WriteString("\n GPU REQUIREMENT DETAILS:\n")
	b.WriteString(" Combined: " + combined + "\n")
	b.WriteString(" Effective: " + effective + "\n")
	if !fl.GPU {
		return
	}
	var rows []string
	for _, eh := range j.ExecHosts {
		for _, id := range eh.GPUs {
			model, mtotal := "-", "-"
			for _, g := range fl.GPUHosts[eh.Host] {
				if g.Index == id {
					model, mtotal = g.Model, gpuMem(g.MemTotal)
				}
			}
			if len(model) > 12 {
				model = model[:12]
			}
			rows = append(rows, fmt.Sprintf(gpuAllocFormat, eh.Host, "0", fmt.Sprint(id), model, mtotal, "-", "0M", "-", "-"))
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n GPU_ALLOCATION:\n")
	fmt.Fprintf(b, gpuAllocFormat, "HOST", "TASK", "GPU_ID", "MODEL", "MTOTAL", "FACTOR", "MRSV", "SOCKET", "NVLINK")
	for _, r := range rows {
		b.WriteString(r)
	}
}

const gpuAllocFormat = " %-16s %-4s %-6s %-12s %-6s %-6s %-6s %-6s %s\n"

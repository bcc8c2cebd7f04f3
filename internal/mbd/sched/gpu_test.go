package sched

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// setGPUs gives scenario hosts GPUs: "host1:2,host2:4" (model TeslaV100,
// 16 GB), or "host1:2:TeslaK80".
func setGPUs(h *harness, spec string) {
	for _, item := range strings.Split(spec, ",") {
		f := strings.Split(item, ":")
		n, _ := strconv.Atoi(f[1])
		model := "TeslaV100"
		if len(f) > 2 {
			model = f[2]
		}
		for _, hh := range h.hosts {
			if hh.Name != f[0] {
				continue
			}
			hh.GPUs = nil
			for i := range n {
				hh.GPUs = append(hh.GPUs, &api.GPUDevice{Index: int32(i), Model: model, MemTotal: 16384})
			}
		}
	}
}

// gpusText shows an execution host's GPUs as "[0,1]" (scenario output).
func gpusText(h *api.ExecHost) string {
	if len(h.GPUs) == 0 {
		return ""
	}
	var ids []string
	for _, i := range h.GPUs {
		ids = append(ids, fmt.Sprint(i))
	}
	return "[" + strings.Join(ids, ",") + "]"
}

package output

import (
	"fmt"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// writeResizeLong shows a resizable job's allocation changes in bjobs -l
// (Basalt's wording: LSF's is not documented): the "Started" line above
// shows the allocation as it is now; here when it last changed and the
// active pending allocation request.
func writeResizeLong(b *strings.Builder, j *api.JobRecord, o *Options) {
	if j.ResizeTime > 0 && !Finished(j.State) {
		event(b, j.ResizeTime, o, fmt.Sprintf("Allocation resized: %d Task(s) on Host(s)%s;", allocSlots(j), hostsText(ExecHostList(j.ExecHosts))))
	}
	if j.ResizeMax > 0 && !Finished(j.State) {
		ind := strings.Repeat(" ", indent21)
		if j.ResizeMin == j.ResizeMax {
			fmt.Fprintf(b, "%sPending resize request: %d additional Task(s)\n", ind, j.ResizeMax)
		} else {
			fmt.Fprintf(b, "%sPending resize request: %d-%d additional Task(s)\n", ind, j.ResizeMin, j.ResizeMax)
		}
	}
}

package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

// forwardedOnly keeps the jobs forwarded to another cluster (bjobs -fwd).
func forwardedOnly(jobs []*api.JobRecord) []*api.JobRecord {
	return slices.DeleteFunc(jobs, func(j *api.JobRecord) bool { return j == nil || j.FwdCluster == "" })
}

// writeForwarded writes bjobs -fwd as LSF 10.1 prints it: the default
// columns, then the cluster the job was forwarded to and when.
//
//	JOBID USER STAT QUEUE EXEC_HOST JOB_NAME CLUSTER FORWARD_TIME
func writeForwarded(w io.Writer, jobs []*api.JobRecord, o *output.Options) error {
	var b strings.Builder
	row := func(id, user, stat, queue, host, name, cluster, t string) {
		if o == nil || !o.Wide {
			fmt.Fprintf(&b, "%-7s %-7.7s %-5.5s %-10.10s %-11.11s %-10.10s %-10.10s %s\n", id, user, stat, queue, host, name, cluster, t)
			return
		}
		fmt.Fprintf(&b, "%-7s %-7s %-5s %-10s %-11s %-10s %-10s %s\n", id, user, stat, queue, host, name, cluster, t)
	}
	if len(jobs) > 0 && (o == nil || !o.NoHeader) {
		row("JOBID", "USER", "STAT", "QUEUE", "EXEC_HOST", "JOB_NAME", "CLUSTER", "FORWARD_TIME")
	}
	for _, j := range jobs {
		host := "-"
		if hs := output.ExecHostList(j.ExecHosts); len(hs) > 0 {
			host = strings.Join(hs, ":")
		}
		name := output.JobName(j)
		if o == nil || !o.Wide {
			if len(name) > 10 {
				name = "*" + name[len(name)-9:]
			}
		}
		row(refString(&api.JobRef{JobID: j.JobID, Index: j.Index}), j.User, output.Stat(j.State), j.Queue, host, name,
			j.FwdCluster, output.ShortTime(j.FwdTime, o))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

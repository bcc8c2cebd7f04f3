package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

// bresize changes a running resizable job's allocation (LSF 10.1):
//
//	bresize release [-c] [-rnc resize_notification_cmd | -rncn] released_host_specification job_ID
//	bresize request [-c] [-rnc resize_notification_cmd | -rncn] [min_task,] tasks job_ID
//	bresize cancel job_ID
//	bresize [-h | -V]
const bresizeUsage = `Usage: bresize release [-c] [-rnc resize_notification_cmd | -rncn] released_host_specification job_ID
       bresize request [-c] [-rnc resize_notification_cmd | -rncn] [min_task,] tasks job_ID
       bresize cancel job_ID
       bresize [-h | -V]`

var (
	bresizeSpec       = lsfopt.New("c|rnc:|rncn")
	bresizeCancelSpec = lsfopt.New("")
)

func init() {
	Register(&Command{Name: "bresize", Summary: "release or request tasks of a running resizable job", Run: runBresize})
}

func runBresize(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		env.Errorf("%s", bresizeUsage)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help":
		env.Errorf("%s", bresizeUsage)
		return 0
	case "-V":
		return PrintVersion(env)
	}
	req := &api.ResizeRequest{}
	spec := bresizeSpec
	switch args[0] {
	case "release":
		req.Op = api.ResizeOpRelease
	case "request":
		req.Op = api.ResizeOpRequest
	case "cancel":
		req.Op, spec = api.ResizeOpCancel, bresizeCancelSpec
	default:
		env.Errorf("bresize: %s: Illegal subcommand", args[0])
		env.Errorf("%s", bresizeUsage)
		return ExitUsage
	}
	res, err := spec.Parse(args[1:])
	if err != nil {
		env.Errorf("bresize %s: %v", args[0], err)
		env.Errorf("%s", bresizeUsage)
		return ExitUsage
	}
	want := 2
	if req.Op == api.ResizeOpCancel {
		want = 1
	}
	if len(res.Operands) != want {
		env.Errorf("%s", bresizeUsage)
		return ExitUsage
	}
	if res.Has("rnc") && res.Has("rncn") {
		env.Errorf("bresize %s: -rnc and -rncn cannot be used together", args[0])
		return ExitUsage
	}
	req.CancelPending = res.Has("c")
	if v, ok := res.Last("rnc"); ok {
		if strings.TrimSpace(v) == "" {
			env.Errorf("bresize %s: -rnc: the resize notification command is empty", args[0])
			return ExitUsage
		}
		req.NotifyCmd, req.SetNotify = v, true
	}
	if res.Has("rncn") {
		req.NotifyCmd, req.SetNotify = "", true
	}
	idArg := res.Operands[len(res.Operands)-1]
	refs, err := parseJobIDs([]string{idArg})
	if err != nil || len(refs) != 1 || refs[0].JobID <= 0 {
		env.Errorf("%s: Illegal job ID.", idArg)
		return ExitUsage
	}
	req.Job = refs[0]
	switch req.Op {
	case api.ResizeOpRelease:
		hs := strings.Fields(res.Operands[0])
		if len(hs) == 0 {
			env.Errorf("bresize release: no host specification")
			return ExitUsage
		}
		if len(hs) == 1 && hs[0] == "all" {
			req.All = true
		} else {
			req.Hosts = hs
		}
	case api.ResizeOpRequest:
		lo, hi, ok := parseTasks(res.Operands[0])
		if !ok {
			env.Errorf("%s: Bad task specification: [min_task,]tasks, positive integers, min_task not above tasks", res.Operands[0])
			return ExitUsage
		}
		req.Min, req.Max = lo, hi
	}
	var reply api.ControlReply
	if !batchCall(ctx, env, api.MBatchdResize, req, &reply) {
		return ExitUsage
	}
	ref := output.LongJobRef(req.Job.JobID, req.Job.Index)
	if reply.Status != nil && reply.Status.Code != 0 {
		env.Errorf("%s", reply.Status.Message)
		return ExitUsage
	}
	for _, r := range reply.Results {
		if r.Status != nil && r.Status.Code != 0 {
			env.Errorf("Job <%s>: %s", ref, r.Status.Message)
			return ExitUsage
		}
		fmt.Fprintf(env.Stdout, "Job <%s>: %s\n", ref, r.Detail)
	}
	return 0
}

// parseTasks reads bresize request's "[min_task,]tasks".
func parseTasks(s string) (lo, hi int32, ok bool) {
	a, b, two := strings.Cut(s, ",")
	n, err := strconv.ParseInt(strings.TrimSpace(b), 10, 32)
	if !two {
		n, err = strconv.ParseInt(strings.TrimSpace(a), 10, 32)
	}
	if err != nil || n <= 0 {
		return 0, 0, false
	}
	hi, lo = int32(n), int32(n)
	if two {
		m, err := strconv.ParseInt(strings.TrimSpace(a), 10, 32)
		if err != nil || m <= 0 || m > n {
			return 0, 0, false
		}
		lo = int32(m)
	}
	return lo, hi, true
}

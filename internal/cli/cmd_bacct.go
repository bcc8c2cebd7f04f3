package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var bacctSpec = lsfopt.New("l|b|d|e|w|h|V|u:|q:|m:|P:|C:|S:|D:|" + unsupportedBacctOptions)

func init() {
	Register(&Command{Name: "bacct", Summary: "display accounting statistics about finished jobs", Run: runBacct})
}

func bacctUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: bacct [-h] [-V] [-b | -l] [-d] [-e] [-w] [-C time0,time1] [-S time0,time1] [-D time0,time1]\n"+
		"             [-m host_name ...] [-P project_name ...]\n"+
		`             [-q queue_name ...] [-u user_name ... | -u all] [job_ID | "job_ID[index]" ...]`)
}

func runBacct(ctx context.Context, env *Env, args []string) int {
	res, err := bacctSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "bacct: %v\n", err)
		bacctUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bacctUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "bacct", res, unsupportedBacctOptions) {
		return ExitUsage
	}
	if res.Has("l") && res.Has("b") {
		bacctUsage(env)
		return ExitUsage
	}
	refs, err := parseJobIDs(res.Operands)
	if err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	req := &api.JobsRequest{Jobs: refs, Detail: res.Has("l"), IncludeFinished: true}
	req.User, _ = res.Last("u")
	req.Queue, _ = res.Last("q")
	req.Host, _ = res.Last("m")
	req.Project, _ = res.Last("P")
	if len(refs) > 0 && req.User == "" {
		req.User = "all"
	}
	if !timeWindows(env, "bacct", res, req) {
		return ExitUsage
	}
	switch {
	case res.Has("d") && !res.Has("e"):
		req.StateMask = uint32(api.StateDone)
	case res.Has("e") && !res.Has("d"):
		req.StateMask = uint32(api.StateExit)
	default:
		req.StateMask = uint32(api.StateDone | api.StateExit)
	}

	c, ok := batchConnect(ctx, env)
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	st, err := c.Stream(ctx, api.MBatchdAcct, req)
	if err != nil {
		batchError(env, err)
		return ExitUsage
	}
	var jobs []*api.JobRecord
	var notFound []*api.JobRef
	if err := recvAll(st, func(r *api.JobsReply) {
		jobs = append(jobs, r.Jobs...)
		notFound = append(notFound, r.NotFound...)
	}); err != nil {
		batchError(env, err)
		return ExitUsage
	}
	rc := 0
	for _, r := range notFound {
		env.Errorf("Job <%s> is not found", refString(r))
		rc = ExitUsage
	}
	o := outputOptions(env)
	o.Wide = res.Has("w")
	if res.Has("l") {
		if len(jobs) == 0 {
			if len(notFound) == 0 {
				env.Errorf("No matching job found")
			}
			return ExitUsage
		}
		err = output.WriteAcctLong(env.Stdout, jobs, o)
	} else {
		f := output.AcctFilter{Requester: userName()}
		if u, ok := res.Last("u"); ok {
			f.Users = []string{u}
		}
		if q, ok := res.Last("q"); ok {
			f.Queues = []string{q}
		}
		if m, ok := res.Last("m"); ok {
			f.Hosts = []string{m}
		}
		if p, ok := res.Last("P"); ok {
			f.Projects = []string{p}
		}
		err = output.WriteAcct(env.Stdout, jobs, f, o)
	}
	if err != nil {
		env.Errorf("bacct: %v", err)
		return ExitUsage
	}
	return rc
}

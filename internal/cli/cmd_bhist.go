package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var bhistSpec = lsfopt.New("l|b|w|a|d|p|s|r|h|V|u:|q:|m:|J:|P:|C:|S:|D:|" + unsupportedBhistOptions)

func init() {
	Register(&Command{Name: "bhist", Summary: "display historical information about jobs", Run: runBhist})
}

func bhistUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: bhist [-h] [-V] [-l | -b] [-w] [-a] [-d] [-p] [-s] [-r]\n"+
		"             [-C time0,time1] [-S time0,time1] [-D time0,time1]\n"+
		"             [-m host_name] [-q queue_name] [-u user_name | -u all] [-J job_name] [-P project_name]\n"+
		`             [job_ID | "job_ID[index]" ...]`)
}

func runBhist(ctx context.Context, env *Env, args []string) int {
	res, err := bhistSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "bhist: %v\n", err)
		bhistUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bhistUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "bhist", res, unsupportedBhistOptions) {
		return ExitUsage
	}
	refs, err := parseJobIDs(res.Operands)
	if err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	req := &api.JobsRequest{Jobs: refs, Detail: res.Has("l")}
	req.User, _ = res.Last("u")
	req.Queue, _ = res.Last("q")
	req.Host, _ = res.Last("m")
	req.JobName, _ = res.Last("J")
	req.Project, _ = res.Last("P")
	if len(refs) > 0 && req.User == "" {
		req.User = "all"
	}
	var mask uint32
	if res.Has("d") {
		mask |= uint32(api.StateDone | api.StateExit)
	}
	if res.Has("p") {
		mask |= uint32(api.StatePend | api.StatePSusp)
	}
	if res.Has("r") {
		mask |= uint32(api.StateRun)
	}
	if res.Has("s") {
		mask |= uint32(api.StateSSusp | api.StateUSusp | api.StatePSusp)
	}
	if res.Has("a") {
		mask = 0 // -a overrides -d -p -s -r
	}
	req.StateMask = mask
	req.IncludeFinished = res.Has("a") || res.Has("d") || len(refs) > 0
	if !timeWindows(env, "bhist", res, req) {
		return ExitUsage
	}
	if res.Has("C") && mask == 0 {
		// Jobs that completed in the interval: finished ones.
		req.StateMask = uint32(api.StateDone | api.StateExit)
		req.IncludeFinished = true
	}

	c, ok := batchConnect(ctx, env)
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	st, err := c.Stream(ctx, api.MBatchdHistory, req)
	if err != nil {
		batchError(env, err)
		return ExitUsage
	}
	var hs []*api.JobHistory
	var notFound []*api.JobRef
	if err := recvAll(st, func(r *api.HistoryReply) {
		hs = append(hs, r.Jobs...)
		notFound = append(notFound, r.NotFound...)
	}); err != nil {
		batchError(env, err)
		return ExitUsage
	}
	rc := 0
	for _, r := range notFound {
		env.Errorf("%s: No matching job found", refString(r))
		rc = ExitUsage
	}
	if len(hs) == 0 {
		if len(notFound) == 0 {
			env.Errorf("No matching job found")
		}
		return ExitUsage
	}
	o := outputOptions(env)
	o.Wide = res.Has("w")
	if res.Has("l") {
		err = output.WriteHistoryLong(env.Stdout, hs, o)
	} else {
		err = output.WriteHistory(env.Stdout, hs, o)
	}
	if err != nil {
		env.Errorf("bhist: %v", err)
		return ExitUsage
	}
	return rc
}

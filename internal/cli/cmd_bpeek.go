package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

var bpeekSpec = lsfopt.New("f|q:|m:|J:|h|V")

func init() {
	Register(&Command{Name: "bpeek", Summary: "display the output of an unfinished job", Run: runBpeek})
}

const bpeekUsage = "Usage: bpeek [-f] [-q queue_name | -m host_name | -J job_name | job_ID | \"job_ID[index]\"]"

// runBpeek shows a running job's output: mbatchd says where the job runs,
// that host's sbatchd streams the output.
func runBpeek(ctx context.Context, env *Env, args []string) int {
	res, err := bpeekSpec.Parse(args)
	if err != nil || len(res.Operands) > 1 {
		env.Errorf("%s", bpeekUsage)
		return ExitUsage
	}
	if res.Has("h") {
		env.Errorf("%s", bpeekUsage)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	req := &api.JobsRequest{}
	req.Queue, _ = res.Last("q")
	req.Host, _ = res.Last("m")
	req.JobName, _ = res.Last("J")
	if len(res.Operands) == 1 {
		refs, err := parseJobIDs(res.Operands)
		if err != nil || len(refs) != 1 {
			env.Errorf("%s: Illegal job ID.", res.Operands[0])
			return ExitUsage
		}
		req.Jobs = refs
	} else {
		req.StateMask = uint32(api.StateRun | api.StateSSusp | api.StateUSusp)
	}
	c, ok := batchConnect(ctx, env)
	if !ok {
		return ExitUsage
	}
	var jobs []*api.JobRecord
	var notFound []*api.JobRef
	st, err := c.Stream(ctx, api.MBatchdJobs, req)
	if err == nil {
		err = recvAll(st, func(r *api.JobsReply) {
			jobs = append(jobs, r.Jobs...)
			notFound = append(notFound, r.NotFound...)
		})
	}
	c.Close()
	if err != nil {
		batchError(env, err)
		return ExitUsage
	}
	if len(notFound) > 0 {
		env.Errorf("Job <%s> is not found", output.LongJobRef(notFound[0].JobID, notFound[0].Index))
		return ExitUsage
	}
	if len(jobs) == 0 {
		env.Errorf("No unfinished job found")
		return ExitUsage
	}
	// Without a job ID LSF peeks at the most recently submitted match.
	j := jobs[len(jobs)-1]
	ref := output.LongJobRef(j.JobID, j.Index)
	switch {
	case j.State == api.StatePend || j.State == api.StatePSusp:
		env.Errorf("Job <%s> : Not yet started.", ref)
		return ExitUsage
	case j.State == api.StateDone || j.State == api.StateExit:
		env.Errorf("Job <%s> : Job has already finished.", ref)
		return ExitUsage
	case len(j.ExecHosts) == 0:
		env.Errorf("Job <%s> : Not yet started.", ref)
		return ExitUsage
	}
	cc, err := loadClientConf(env)
	if err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	host := j.ExecHosts[0].Host
	addr, err := cc.addr(ctx, host, cc.conf.SBDPort())
	if err != nil {
		env.Errorf("%s: %v", host, err)
		return ExitUsage
	}
	hello, err := cc.hello(ctx, cc.creds(env), auth.KindSbatchd, host)
	if err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	sc, err := rpc.Dial(ctx, addr, hello)
	if err != nil {
		env.Errorf("Unable to contact execution host <%s>: %v", host, err)
		return ExitUsage
	}
	defer sc.Close()
	ps, err := sc.Stream(ctx, api.SBatchdPeek, &api.PeekRequest{JobID: j.JobID, Index: j.Index, Follow: res.Has("f")})
	if err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	fmt.Fprintln(env.Stdout, "<< output from stdout >>")
	var stderrBuf []byte
	for {
		var chunk api.PeekChunk
		err := ps.Recv(&chunk)
		if err == io.EOF {
			break
		}
		if err != nil {
			env.Errorf("%v", err)
			return ExitUsage
		}
		env.Stdout.Write(chunk.Stdout)
		stderrBuf = append(stderrBuf, chunk.Stderr...)
	}
	if len(stderrBuf) > 0 {
		fmt.Fprintln(env.Stdout, "\n<< output from stderr >>")
		env.Stdout.Write(stderrBuf)
	}
	return 0
}

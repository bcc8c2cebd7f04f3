package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

// The job control commands (bkill, bstop, bresume, brequeue, bswitch, btop,
// bbot, brun, bmig) share one shape: select jobs by ID or by -u/-q/-m/-J
// with job ID 0, ask mbatchd, print LSF's line for each job. The reason
// bkill, bstop and bresume take with -C is accepted and not recorded.

type jobCtl struct {
	name  string
	op    api.ControlOp
	spec  *lsfopt.Spec
	usage string
	// done is the success line for a job ("Job <%s> is being terminated").
	done func(ref string, req *api.ControlRequest, r *api.ControlResult) string
	// extra reads command-specific options and operands into the request
	// and returns the job ID operands.
	extra func(env *Env, res *lsfopt.Result, req *api.ControlRequest) ([]string, error)
}

var jobCtls = []*jobCtl{
	{name: "bkill", op: api.OpKill, spec: lsfopt.New("b|l|r|d|s:|u:|q:|m:|J:|h|V|app:|g:|sla:|stat:|C:"),
		usage: "bkill [-l] [-b] [-d] [-r | -s (signal_value | signal_name)] [-stat run | pend | susp] [-app application_profile] [-g job_group] [-sla service_class] [-J job_name] [-m host_name] [-q queue_name] [-u user_name | -u all] [0] [job_ID ... | \"job_ID[index_list]\" ...]",
		done: func(ref string, req *api.ControlRequest, r *api.ControlResult) string {
			// OpenLava's words by signal: KILL terminates, STOP stops, CONT
			// resumes, any other signals.
			verb := "terminated"
			switch syscall.Signal(req.Signal) {
			case 0, syscall.SIGKILL:
			case syscall.SIGSTOP:
				verb = "stopped"
			case syscall.SIGCONT:
				verb = "resumed"
			default:
				verb = "signaled"
			}
			return fmt.Sprintf("Job <%s> is being %s", ref, verb)
		},
		extra: func(env *Env, res *lsfopt.Result, req *api.ControlRequest) ([]string, error) {
			req.Remove, req.IncludeFinished = res.Has("r"), res.Has("d")
			if st, ok := res.Last("stat"); ok {
				// -stat run | pend | susp: only the jobs in that state.
				switch strings.ToLower(st) {
				case "run":
					req.StateMask = uint32(api.StateRun)
				case "pend":
					req.StateMask = uint32(api.StatePend | api.StatePSusp)
				case "susp":
					req.StateMask = uint32(api.StateSSusp | api.StateUSusp | api.StatePSusp)
				default:
					env.Errorf("%s: Illegal job status: run, pend or susp", st)
					return nil, errReported
				}
			}
			if s, ok := res.Last("s"); ok {
				if req.Remove {
					return nil, errors.New("-r and -s cannot be used together")
				}
				n, err := signalNumber(s)
				if err != nil {
					env.Errorf("%s: Illegal signal value", s)
					return nil, errReported
				}
				req.Signal = int32(n)
			}
			return res.Operands, nil
		}},
	{name: "bstop", op: api.OpStop, spec: lsfopt.New("a|d|u:|q:|m:|J:|g:|h|V|app:|sla:|C:"),
		usage: "bstop [-a] [-d] [-J job_name] [-m host_name] [-q queue_name] [-u user_name | -u all] [0] [job_ID ...]",
		done: func(ref string, req *api.ControlRequest, r *api.ControlResult) string {
			return fmt.Sprintf("Job <%s> is being stopped", ref)
		}},
	{name: "bresume", op: api.OpResume, spec: lsfopt.New("u:|q:|m:|J:|g:|h|V|app:|sla:|C:"),
		usage: "bresume [-J job_name] [-m host_name] [-q queue_name] [-u user_name | -u all] [0] [job_ID ...]",
		done: func(ref string, req *api.ControlRequest, r *api.ControlResult) string {
			return fmt.Sprintf("Job <%s> is being resumed", ref)
		}},
	{name: "brequeue", op: api.OpRequeue, spec: lsfopt.New("u:|J:|d|e|r|a|H|p|h|V|q:|m:"),
		usage: "brequeue [-J job_name] [-u user_name | -u all] [-d] [-e] [-r] [-a] [-H] [job_ID ...]",
		done: func(ref string, req *api.ControlRequest, r *api.ControlResult) string {
			return fmt.Sprintf("Job <%s> is being requeued", ref)
		},
		extra: func(env *Env, res *lsfopt.Result, req *api.ControlRequest) ([]string, error) {
			var m uint32
			if res.Has("d") {
				m |= uint32(api.StateDone)
			}
			if res.Has("e") {
				m |= uint32(api.StateExit)
			}
			if res.Has("r") {
				m |= uint32(api.StateRun | api.StateSSusp | api.StateUSusp)
			}
			if res.Has("a") {
				m |= uint32(api.StateDone | api.StateExit | api.StateRun | api.StateSSusp | api.StateUSusp)
			}
			req.RequeueStates, req.RequeueHold = m, res.Has("H")
			return res.Operands, nil
		}},
	{name: "bswitch", op: api.OpSwitch, spec: lsfopt.New("u:|q:|m:|J:|h|V|a"),
		usage: "bswitch [-J job_name] [-m host_name] [-q queue_name] [-u user_name | -u all] destination_queue [0] [job_ID ...]",
		done: func(ref string, req *api.ControlRequest, r *api.ControlResult) string {
			return fmt.Sprintf("Job <%s> is switched to queue <%s>", ref, r.Detail)
		},
		extra: func(env *Env, res *lsfopt.Result, req *api.ControlRequest) ([]string, error) {
			if len(res.Operands) < 1 {
				return nil, fmt.Errorf("destination queue is missing")
			}
			req.DestQueue = res.Operands[0]
			return res.Operands[1:], nil
		}},
	{name: "btop", op: api.OpMoveTop, spec: lsfopt.New("h|V|u:"),
		usage: "btop job_ID | \"job_ID[index_list]\" [position]",
		done: func(ref string, req *api.ControlRequest, r *api.ControlResult) string {
			return fmt.Sprintf("Job <%s> has been moved to position %s from top.", ref, r.Detail)
		},
		extra: positionOperand},
	{name: "bbot", op: api.OpMoveBottom, spec: lsfopt.New("h|V|u:"),
		usage: "bbot job_ID | \"job_ID[index_list]\" [position]",
		done: func(ref string, req *api.ControlRequest, r *api.ControlResult) string {
			return fmt.Sprintf("Job <%s> has been moved to position %s from bottom.", ref, r.Detail)
		},
		extra: positionOperand},
	{name: "brun", op: api.OpForceRun, spec: lsfopt.New("f|b|c|m:|h|V"),
		usage: "brun [-b] [-c] [-f] -m \"host_name ...\" job_ID | \"job_ID[index_list]\" ...",
		done: func(ref string, req *api.ControlRequest, r *api.ControlResult) string {
			return fmt.Sprintf("Job <%s> is being forced to run.", ref)
		},
		extra: func(env *Env, res *lsfopt.Result, req *api.ControlRequest) ([]string, error) {
			m, ok := res.Last("m")
			if !ok {
				return nil, fmt.Errorf("-m host_name is required")
			}
			req.Hosts, req.Force = strings.Fields(m), res.Has("f")
			return res.Operands, nil
		}},
	{name: "bmig", op: api.OpMigrate, spec: lsfopt.New("f|u:|m:|J:|h|V"),
		usage: "bmig [-f] [-J job_name] [-m \"host_name ...\"] [-u user_name | -u all] [0] [job_ID ...]",
		done: func(ref string, req *api.ControlRequest, r *api.ControlResult) string {
			return fmt.Sprintf("Job <%s> is being migrated", ref)
		},
		extra: func(env *Env, res *lsfopt.Result, req *api.ControlRequest) ([]string, error) {
			// -m names the hosts to migrate to, not a selector.
			if m, ok := res.Last("m"); ok {
				req.Host, req.Hosts = "", strings.Fields(m)
			}
			req.Force = res.Has("f")
			return res.Operands, nil
		}},
}

func positionOperand(env *Env, res *lsfopt.Result, req *api.ControlRequest) ([]string, error) {
	ops := res.Operands
	if len(ops) < 1 || len(ops) > 2 {
		return nil, fmt.Errorf("one job ID and an optional position are expected")
	}
	if len(ops) == 2 {
		n, err := strconv.Atoi(ops[1])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: Bad position", ops[1])
		}
		req.Position = int32(n)
	}
	return ops[:1], nil
}

func init() {
	for _, jc := range jobCtls {
		jc := jc
		Register(&Command{Name: jc.name, Summary: jobCtlSummary[jc.name], Run: func(ctx context.Context, env *Env, args []string) int {
			return jc.run(ctx, env, args)
		}})
	}
}

var jobCtlSummary = map[string]string{
	"bkill": "send a signal to (terminate) jobs", "bstop": "suspend jobs", "bresume": "resume suspended jobs",
	"brequeue": "kill and requeue jobs", "bswitch": "switch jobs to another queue", "btop": "move a pending job to the top of its queue",
	"bbot": "move a pending job to the bottom of its queue", "brun": "force a job to run", "bmig": "migrate jobs",
}

func (jc *jobCtl) run(ctx context.Context, env *Env, args []string) int {
	res, err := jc.spec.Parse(args)
	if err != nil {
		env.Errorf("%s: %v", jc.name, err)
		env.Errorf("Usage: %s", jc.usage)
		return ExitUsage
	}
	if res.Has("h") {
		env.Errorf("Usage: %s", jc.usage)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if jc.name == "bkill" && res.Has("l") {
		fmt.Fprintln(env.Stdout, strings.Join(signalListLSF, " "))
		return 0
	}
	req := &api.ControlRequest{Op: jc.op}
	req.User, _ = res.Last("u")
	req.Queue, _ = res.Last("q")
	req.JobName, _ = res.Last("J")
	// -app, -g and -sla narrow the jobs acted on (the commands whose
	// options include them).
	req.App, _ = res.Last("app")
	req.JobGroup, _ = res.Last("g")
	req.SLA, _ = res.Last("sla")
	if jc.op != api.OpForceRun {
		req.Host, _ = res.Last("m")
	}
	ids := res.Operands
	if jc.extra != nil {
		if ids, err = jc.extra(env, res, req); err != nil {
			if errors.Is(err, errReported) {
				return ExitUsage
			}
			env.Errorf("%s: %v", jc.name, err)
			env.Errorf("Usage: %s", jc.usage)
			return ExitUsage
		}
	}
	selectors := req.User != "" || req.Queue != "" || req.JobName != "" || req.Host != ""
	for _, id := range ids {
		if id == "0" {
			req.AllJobs = true
		}
	}
	if !req.AllJobs {
		refs, err := parseJobIDs(ids)
		if err != nil {
			env.Errorf("%v", err)
			return ExitUsage
		}
		req.Jobs = refs
		if len(refs) == 0 && !selectors {
			env.Errorf("Job ID or one of '-m', '-u', '-q' and '-J' must be specified")
			env.Errorf("Usage: %s", jc.usage)
			return ExitUsage
		}
		if len(refs) == 0 {
			req.AllJobs = true
		}
	}
	var reply api.ControlReply
	if !batchCall(ctx, env, api.MBatchdControl, req, &reply) {
		return ExitUsage
	}
	status := 0
	if reply.Status != nil && reply.Status.Code != 0 {
		msg := reply.Status.Message
		if req.AllJobs && reply.Status.Code == 1 {
			msg = "No unfinished job found"
		}
		env.Errorf("%s", msg)
		return ExitUsage
	}
	for _, r := range reply.Results {
		ref := output.LongJobRef(r.Job.JobID, r.Job.Index)
		if r.Status != nil && r.Status.Code != 0 {
			env.Errorf("Job <%s>: %s", ref, r.Status.Message)
			status = ExitUsage
			continue
		}
		fmt.Fprintln(env.Stdout, jc.done(ref, req, r))
	}
	return status
}

// errReported is an error whose message was already printed.
var errReported = errors.New("reported")

// signalListLSF is what bkill -l prints: LSF's signal names.
var signalListLSF = []string{"HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
	"PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM",
	"PROF", "WINCH", "IO", "PWR", "SYS"}

// signalNumber reads bkill -s's value: a number or a name (with or without SIG).
func signalNumber(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 && n < 65 {
		return n, nil
	}
	name := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	for i, n := range signalListLSF {
		if n == name {
			return i + 1, nil
		}
	}
	return 0, fmt.Errorf("%s: Signal not supported", s)
}

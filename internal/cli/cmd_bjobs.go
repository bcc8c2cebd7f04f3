package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// This file holds bjobs and what the batch query commands (bjobs, bqueues,
// bhosts, busers, bugroup, bmgroup, bparams, bhist, bacct) share: the
// mbatchd client they need, the job ID operands and the output options read
// from the environment.

// batchClient is what the batch query commands need of mbatchd: unary calls
// and server streams (MBatchd.Jobs, MBatchd.History, MBatchd.Acct).
type batchClient interface {
	Call(ctx context.Context, method api.MethodDesc, req, resp wire.Message) error
	Stream(ctx context.Context, method api.MethodDesc, req wire.Message) (batchStream, error)
	Close() error
}

// batchStream is one server stream; Recv returns io.EOF at its end.
type batchStream interface {
	Recv(m wire.Message) error
}

// errBatchUnavailable is returned by dialBatch until a connection helper is
// installed.
var errBatchUnavailable = errors.New("batch daemons are not available in this build")

// dialBatch connects to mbatchd. The connection helper (dialMbd, owned by
// the mbatchd work) installs itself here, e.g.
//
//	dialBatch = func(ctx context.Context, env *Env) (batchClient, error) {
//		c, err := dialMbd(ctx, env)
//		if err != nil {
//			return nil, err
//		}
//		return RPCBatchClient(c), nil
//	}
//
// Tests replace it with a fake.
var dialBatch = func(ctx context.Context, env *Env) (batchClient, error) {
	return nil, errBatchUnavailable
}

// RPCBatchClient adapts an *rpc.Client to what the batch query commands use.
func RPCBatchClient(c *rpc.Client) batchClient { return rpcBatchClient{c} }

type rpcBatchClient struct{ c *rpc.Client }

func (r rpcBatchClient) Call(ctx context.Context, method api.MethodDesc, req, resp wire.Message) error {
	return r.c.Call(ctx, method, req, resp)
}

func (r rpcBatchClient) Stream(ctx context.Context, method api.MethodDesc, req wire.Message) (batchStream, error) {
	return r.c.Stream(ctx, method, req)
}

func (r rpcBatchClient) Close() error { return r.c.Close() }

// batchConnect dials mbatchd, printing LSF's outage message on failure.
func batchConnect(ctx context.Context, env *Env) (batchClient, bool) {
	c, err := dialBatch(ctx, env)
	if err != nil {
		batchError(env, err)
		return nil, false
	}
	return c, true
}

// batchCall sends one request to mbatchd and reads its reply; false once
// the failure was printed (the command exits 255).
func batchCall(ctx context.Context, env *Env, method api.MethodDesc, req, reply wire.Message) bool {
	c, ok := batchConnect(ctx, env)
	if !ok {
		return false
	}
	defer c.Close()
	if err := c.Call(ctx, method, req, reply); err != nil {
		batchError(env, err)
		return false
	}
	return true
}

// batchError prints a failed call the way LSF commands report an
// unreachable or failing mbatchd.
func batchError(env *Env, err error) {
	switch rpc.CodeOf(err) {
	case rpc.Unavailable, rpc.DeadlineExceeded:
		env.Errorf("Cannot connect to LSF. Please wait ...: %v", err)
	case rpc.PermissionDenied, rpc.Unauthenticated:
		env.Errorf("User permission denied: %v", err)
	default:
		if errors.Is(err, errBatchUnavailable) {
			env.Errorf("Cannot connect to LSF. Please wait ... %v", err)
			return
		}
		env.Errorf("%v", err)
	}
}

// recvAll reads a stream to its end, handing each reply to add.
func recvAll[T any, PT interface {
	*T
	wire.Message
}](st batchStream, add func(*T)) error {
	for {
		var r T
		err := st.Recv(PT(&r))
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		add(&r)
	}
}

// outputOptions are the formatter options of a command: now from the
// command's clock, LSB_DISPLAY_YEAR, LSB_JOBID_DISP_LENGTH and
// LSB_UNIT_FOR_JOBS_DISPLAY from its environment. (lsf.conf values of the same names are the config loader's
// to pass in; the environment wins, as in LSF.)
func outputOptions(env *Env) *output.Options {
	o := &output.Options{Now: env.Clock.Now().In(time.Local)}
	if v := strings.ToUpper(env.Getenv("LSB_DISPLAY_YEAR")); v == "Y" {
		o.DisplayYear = true
	}
	if n, err := strconv.Atoi(env.Getenv("LSB_JOBID_DISP_LENGTH")); err == nil {
		o.JobIDWidth = n
	}
	if u := strings.ToUpper(env.Getenv("LSB_UNIT_FOR_JOBS_DISPLAY")); output.ValidUnit(u) {
		o.Unit = u
	}
	return o
}

// parseJobIDs reads job ID operands: "123", "123[4]", "123[1-5,7,10-20:2]".
// An index list expands to one reference per element.
func parseJobIDs(args []string) ([]*api.JobRef, error) {
	var refs []*api.JobRef
	for _, a := range args {
		id, list, hasList := strings.Cut(a, "[")
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s: Illegal job ID.", a)
		}
		if !hasList {
			refs = append(refs, &api.JobRef{JobID: n})
			continue
		}
		if !strings.HasSuffix(list, "]") {
			return nil, fmt.Errorf("%s: Illegal job ID.", a)
		}
		idx, err := parseIndexList(strings.TrimSuffix(list, "]"))
		if err != nil {
			return nil, fmt.Errorf("%s: Illegal job ID.", a)
		}
		for _, i := range idx {
			refs = append(refs, &api.JobRef{JobID: n, Index: i})
		}
	}
	return refs, nil
}

// maxIndexListLen bounds an expanded index list (LSF's MAX_JOB_ARRAY_SIZE
// default is 1000; Basalt allows up to a million elements per operand).
const maxIndexListLen = 1 << 20

// parseIndexList expands "1-5,7,10-20:2".
func parseIndexList(s string) ([]int32, error) {
	var out []int32
	for _, part := range strings.Split(s, ",") {
		rng, step := part, "1"
		if i := strings.IndexByte(part, ':'); i >= 0 {
			rng, step = part[:i], part[i+1:]
		}
		lo, hi, isRange := strings.Cut(rng, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		st, err3 := strconv.Atoi(step)
		if err1 != nil || err2 != nil || err3 != nil || a < 1 || b < a || st < 1 || b > 1<<30 {
			return nil, fmt.Errorf("bad index list %q", s)
		}
		for i := a; i <= b; i += st {
			if len(out) >= maxIndexListLen {
				return nil, fmt.Errorf("index list %q too long", s)
			}
			out = append(out, int32(i))
		}
	}
	return out, nil
}

// refString is "123" or "123[4]".
func refString(r *api.JobRef) string { return output.LongJobRef(r.JobID, r.Index) }

var bjobsSpec = lsfopt.New("a|A|d|fwd|p|p0|p1|p2|p3|r|s|sum|l|w|W|WL|WP|WF|X|x|UF|noheader|json|hms|h|V|gpu|" +
	"u:|q:|m:|J:|P:|o:|N:|G:|g:|app:|sla:|Jd:|" + unsupportedBjobsOptions)

// unsupportedBjobsOptions are IBM LSF 10.1's other bjobs options, parsed as
// themselves and refused by name: otherwise "-psum" would read as -p -s -u m
// and print another user's jobs, or none.
const unsupportedBjobsOptions = "aff|aps|bucket|cname|data|env|hostfile|pe|pei|pi|plan|prio|psum|script|ss|" +
	"Lp:|rusage:"

func init() {
	Register(&Command{Name: "bjobs", Summary: "display information about jobs", Run: runBjobs})
}

func bjobsUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: bjobs [-h] [-V] [-w | -l [-gpu] | -W | -o "field ... [delimiter='c']" [-json] [-hms]] [-noheader]
             [-a] [-d] [-p] [-s] [-r] [-A] [-X] [-x] [-sum]
             [-m host_name | -m host_group] [-q queue_name] [-u user_name | -u user_group | -u all]
             [-P project_name] [-J job_name] [-G user_group] [-g job_group] [-app application_profile]
             [job_ID | "job_ID[index_list]" ...]`)
}

func runBjobs(ctx context.Context, env *Env, args []string) int {
	res, err := bjobsSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "bjobs: %v\n", err)
		bjobsUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bjobsUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if name := res.FirstOf(unsupportedBjobsOptions); name != "" {
		env.Errorf("bjobs: -%s: Option not supported", name)
		return ExitUsage
	}
	long := res.Has("l") || res.Has("UF")
	// -X asks for host groups and compute units uncondensed: Basalt never
	// condenses them, so it changes nothing (and combines with -o and -l,
	// as LSF's; an LSF exporter runs bjobs -X -u all -o ... -json).
	wide := res.Has("w")
	_, hasFormat := res.Last("o")
	json := res.Has("json")
	if (long && (wide || hasFormat || res.Has("W"))) || (wide && hasFormat) || res.Has("gpu") && !long {
		bjobsUsage(env)
		return ExitUsage
	}
	f, ok := listFormat(env, "bjobs", res, "LSB_BJOBS_FORMAT", long || wide || res.Has("W") || res.Has("A"), output.JobFields, bjobsUsage)
	if !ok {
		return ExitUsage
	}
	hasFormat = f != nil
	refs, err := parseJobIDs(res.Operands)
	if err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	// -o fields may show any part of the submission (app, cwd,
	// output_file...): the records carry it, as for -l.
	// -WL, -WP and -WF need each job's run limit and estimate: its spec.
	estimates := res.Has("WL") || res.Has("WP") || res.Has("WF")
	req := &api.JobsRequest{Jobs: refs, Detail: long || hasFormat || estimates, Long: long || f.Has("combined_resreq"), ArraySummary: res.Has("A")}
	req.User, _ = res.Last("u")
	req.Queue, _ = res.Last("q")
	req.Host, _ = res.Last("m")
	req.JobName, _ = res.Last("J")
	req.Project, _ = res.Last("P")
	req.App, _ = res.Last("app")
	req.UserGroup, _ = res.Last("G")
	req.JobGroup, _ = res.Last("g")
	req.SLA, _ = res.Last("sla")
	req.Description, _ = res.Last("Jd")
	if len(refs) > 0 && req.User == "" {
		req.User = "all" // explicit IDs: any user's job, finished ones too
	}
	var mask uint32
	if res.Has("d") {
		mask |= uint32(api.StateDone | api.StateExit)
	}
	if res.Has("p") || res.Has("p0") || res.Has("p1") || res.Has("p2") || res.Has("p3") {
		mask |= uint32(api.StatePend | api.StatePSusp)
	}
	if res.Has("r") {
		mask |= uint32(api.StateRun)
	}
	if res.Has("s") {
		mask |= uint32(api.StateSSusp | api.StateUSusp | api.StatePSusp)
	}
	req.StateMask = mask
	req.IncludeFinished = res.Has("a") || len(refs) > 0
	req.PendHosts = long && res.Has("p")

	c, ok := batchConnect(ctx, env)
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	st, err := c.Stream(ctx, api.MBatchdJobs, req)
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

	o := outputOptions(env)
	o.Wide = wide
	o.NoHeader = res.Has("noheader")
	o.Unformatted = res.Has("UF")
	o.HMS = res.Has("hms") || strings.EqualFold(env.Getenv("LSB_HMS_TIME_FORMAT"), "y")
	fl := output.JobsFlags{
		W: res.Has("W"),
		// OpenLava: the pending header only when -p is the sole state
		// option and no job IDs were given (IDs add ALL_JOB).
		PendOnly:    res.Has("p") && !res.Has("d") && !res.Has("r") && !res.Has("s") && !res.Has("a") && len(refs) == 0,
		PendReasons: res.Has("p"),
		SuspReasons: res.Has("s"),
		PendHosts:   req.PendHosts,
		WL:          res.Has("WL"),
		WP:          res.Has("WP"),
		WF:          res.Has("WF"),
	}
	// LSF's exit status for IDs not found (LSB_BJOBS_CONSISTENT_EXIT_CODE,
	// whose IBM examples agree with what Open OnDemand's LSF adapter
	// observed): a single ID not found exits 0, several IDs of which one
	// is not found exit 255; with the parameter set to Y, any ID not found
	// exits 255.
	consistent := strings.EqualFold(env.Getenv("LSB_BJOBS_CONSISTENT_EXIT_CODE"), "y")
	rc := 0
	var nf []output.NotFound
	for _, r := range notFound {
		msg := fmt.Sprintf("Job <%s> is not found", refString(r))
		if json {
			nf = append(nf, output.NotFound{JobID: refString(r), Error: msg})
		} else {
			env.Errorf("%s", msg)
		}
		if len(refs) > 1 || consistent {
			rc = ExitUsage
		}
	}
	if res.Has("x") {
		// -x: the jobs that triggered a job exception (overrun, underrun,
		// idle). Basalt raises none, so none has.
		jobs = nil
	}
	if res.Has("fwd") {
		jobs = forwardedOnly(jobs) // bjobs_fwd.go
	}
	if res.Has("A") && len(refs) == 0 && !long && !hasFormat {
		// Without IDs, -A summarises job arrays only (OpenLava's bjobs
		// asks mbatchd for array nodes).
		jobs = slices.DeleteFunc(jobs, func(j *api.JobRecord) bool { return j == nil || j.ArraySpec == "" })
	}
	switch {
	case res.Has("sum"):
		// The slots of the jobs selected, by state, even when there are
		// none (IBM 10.1 bjobs -sum).
		err = output.WriteJobsSummary(env.Stdout, jobs)
		if err == nil {
			return rc
		}
	case json:
		err = output.WriteJobsJSON(env.Stdout, jobs, f, nf, o)
	case len(jobs) == 0:
	case hasFormat:
		err = output.WriteJobsCustom(env.Stdout, jobs, f, o)
	case long:
		bjobsGPU(ctx, env, res.Has("gpu"), jobs, &fl)
		err = output.WriteJobsLong(env.Stdout, jobs, o, fl)
	case res.Has("A"):
		err = output.WriteArraySummary(env.Stdout, jobs, o)
	case res.Has("fwd"):
		err = writeForwarded(env.Stdout, jobs, o)
	default:
		err = output.WriteJobs(env.Stdout, jobs, o, fl)
	}
	if err != nil {
		env.Errorf("bjobs: %v", err)
		return ExitUsage
	}
	if len(jobs) == 0 && len(refs) == 0 {
		if !json {
			env.Errorf("%s", noJobMessage(res))
		}
		if consistent {
			return ExitUsage
		}
	}
	return rc
}

// noJobMessage is LSF's message when nothing matched: "No unfinished job
// found", "No pending job found", ... (lsf-clients.md §2c).
func noJobMessage(res *lsfopt.Result) string {
	n := 0
	kind := ""
	for _, k := range []struct{ opt, word string }{{"p", "pending"}, {"r", "running"}, {"s", "suspended"}, {"d", "done"}} {
		if res.Has(k.opt) {
			n++
			kind = k.word
		}
	}
	switch {
	case res.Has("a"):
		return "No job found"
	case n == 1:
		return "No " + kind + " job found"
	case n > 1:
		return "No job found"
	}
	return "No unfinished job found"
}

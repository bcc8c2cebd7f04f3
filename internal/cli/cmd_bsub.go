package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/chkpnt"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/lsfhosts"
	"github.com/basalt-lsf/basalt/internal/esub"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// bsubSpec is bsub's option table (LSF 10 synopsis, options this release
// reaches). Options come first; the first operand starts the job's command.
var bsubSpec = func() *lsfopt.Spec {
	s := lsfopt.New(bsubOptions)
	s.StopAtOperand = true
	return s
}()

// bsubScriptSpec parses the options of #BSUB lines (no operands there).
var bsubScriptSpec = lsfopt.New(bsubOptions)

const bsubOptions = "" +
	// flags
	"ar|B|H|I|Ip|Is|K|N|r|rn|x|h|V|tty|Zs|" +
	// value options
	"a:|app:|b:|C:|c:|clusters:|cwd:|D:|E:|Ep:|e:|eo:|env:|F:|f:|G:|g:|i:|is:|J:|Jd:|k:|L:|M:|m:|n:|nnodes:|" +
	"gpu:|o:|oo:|P:|p:|pack:|Q:|q:|R:|rnc:|S:|sla:|sp:|T:|t:|U:|u:|v:|W:|We:|w:|wa:|wt:|" +
	unsupportedBsubOptions

// unsupportedBsubOptions are IBM LSF 10.1's other bsub options. They are
// parsed as the options they are, so that bsub refuses them by name:
// otherwise "-outdir d" would read as -o utdir, "-eptl 10" as -e ptl and
// "-clusters all" as -c lusters, and a job would run with a wrong output
// file or command.
const unsupportedBsubOptions = "" +
	"datachk|hl|IS|ISp|ISs|IX|IXp|IXs|Ne|ti|ul|XF|zs|notify::|" +
	"alloc_flags:|cn_cu:|cn_mem:|core_isolation:|csm:|data:|datagrp:|eptl:|ext:|extsched:|" +
	"freq:|hostfile:|jobaff:|jsdl:|jsdl_strict:|jsm:|Lp:|ln_mem:|ln_slots:|mig:|network:|outdir:|" +
	"ptl:|rcacct:|s:|smt:|stage:|step_cgroup:|yaml:|json:"

// unsupportedBsubOption returns the first option of res that Basalt's bsub
// (and bmod) does not implement, "" when there is none.
func unsupportedBsubOption(res *lsfopt.Result) string { return res.FirstOf(unsupportedBsubOptions) }

func init() {
	Register(&Command{Name: "bsub", Summary: "submit a batch job", Run: runBsub})
}

// notSubmitted prints LSF's submission failure line and returns bsub's status.
func notSubmitted(env *Env, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	msg = strings.TrimSuffix(strings.TrimSpace(msg), ".")
	fmt.Fprintf(env.Stderr, "%s. Job not submitted.\n", msg)
	return ExitUsage
}

func runBsub(ctx context.Context, env *Env, args []string) int {
	res, err := bsubSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "bsub: %v\n", err)
		bsubUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bsubUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	// BSUB_CHK_RESREQ set to any value: check the resource requirement's
	// select section and stop, without contacting any daemon.
	if _, ok := env.LookupEnv("BSUB_CHK_RESREQ"); ok {
		return bsubCheckResReq(env, res.All("R"))
	}
	if file, ok := res.Last("pack"); ok {
		if len(res.Opts) > 1 || len(res.Operands) > 0 {
			return notSubmitted(env, "-pack cannot be used with other options or a command")
		}
		return bsubPack(ctx, env, file)
	}
	cc, err := loadClientConf(env)
	if err != nil {
		return notSubmitted(env, "%v", err)
	}
	spec, err := bsubJobSpec(env, cc, res, true)
	if err != nil {
		return notSubmitted(env, "%v", err)
	}
	if spec, err = runEsub(ctx, env, cc, spec); err != nil {
		return bsubEsubFailed(env, err)
	}
	return bsubSubmit(ctx, env, cc, []*api.JobSpec{spec}, res.Has("tty"))
}

// runEsub runs LSF_SERVERDIR/esub and the esub methods (LSB_ESUB_METHOD,
// bsub -a) on the submission, as LSF does before sending it.
func runEsub(ctx context.Context, env *Env, cc *clientConf, spec *api.JobSpec) (*api.JobSpec, error) {
	dir := cc.conf.ServerDir()
	if dir == "" {
		return spec, nil
	}
	methods := append([]string(nil), cc.conf.ESubMethod()...)
	for _, a := range strings.Fields(spec.EsubParams) {
		name, _, _ := strings.Cut(a, "(")
		methods = append(methods, name)
	}
	res, err := esub.Run(ctx, spec, esub.Options{ServerDir: dir, Methods: methods, Env: env.Environ(), Stdin: env.Stdin, Stderr: env.Stderr})
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(env.Stderr, w)
	}
	res.Spec.EsubOutput = res.Output
	return res.Spec, nil
}

func bsubEsubFailed(env *Env, err error) int {
	if errors.Is(err, esub.ErrAborted) {
		fmt.Fprintln(env.Stderr, err.Error())
		return ExitUsage
	}
	return notSubmitted(env, "%v", err)
}

// bsubSubmit sends the jobs and prints LSF's lines; with one job and -K it
// waits for the job to finish, with -I* it joins it (tty: -tty).
func bsubSubmit(ctx context.Context, env *Env, cc *clientConf, specs []*api.JobSpec, tty bool) int {
	c, err := cc.dialMbd(ctx, env)
	if err != nil {
		return notSubmitted(env, "Cannot connect to LSF. Please wait ...: %v", err)
	}
	defer func() { c.Close() }()
	results, status := submitPack(ctx, env, cc, &c, specs)
	if len(specs) == 1 && specs[0].Interactive && status == 0 {
		return bsubInteractive(ctx, env, cc, c, results[0].JobID, specs[0], tty)
	}
	if len(specs) == 1 && specs[0].Wait && status == 0 {
		return bsubWait(ctx, env, cc, c, results[0].JobID)
	}
	return status
}

// submitPack sends one request and prints its results; the status is
// ExitUsage when any job was not submitted. The request carries a key:
// when its answer is lost it is sent again, on a new connection (*c), and
// mbatchd answers with the jobs it created the first time.
func submitPack(ctx context.Context, env *Env, cc *clientConf, c **rpc.Client, specs []*api.JobSpec) ([]*api.SubmitResult, int) {
	req := &api.SubmitRequest{Jobs: specs, Key: newSubmitKey()}
	reply, err := submitRetry(ctx, env, cc, c, req)
	if err != nil {
		return nil, notSubmitted(env, "%v", err)
	}
	status := 0
	for _, r := range reply.Results {
		for _, w := range r.Warnings {
			fmt.Fprintln(env.Stderr, w)
		}
		if r.Status != nil && r.Status.Code != 0 {
			notSubmitted(env, "%s", r.Status.Message)
			status = ExitUsage
			continue
		}
		if r.DefaultQueue {
			fmt.Fprintf(env.Stdout, "Job <%d> is submitted to default queue <%s>.\n", r.JobID, r.Queue)
		} else {
			fmt.Fprintf(env.Stdout, "Job <%d> is submitted to queue <%s>.\n", r.JobID, r.Queue)
		}
	}
	return reply.Results, status
}

// submitRetryFor is how long bsub keeps sending a request whose answer
// was lost (mbatchd restarting, the master moving).
const submitRetryFor = 2 * time.Minute

// newSubmitKey returns a fresh random submission key.
func newSubmitKey() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "" // no key: no retry either
	}
	return hex.EncodeToString(b[:])
}

// answerLost reports whether a failed call may have been carried out: the
// connection broke after the request went, or mbatchd lost its
// mastership while committing it.
func answerLost(err error) bool {
	return errors.Is(err, rpc.ErrClosed) || rpc.CodeOf(err) == rpc.FailedPrecondition ||
		rpc.CodeOf(err) == rpc.Unavailable && strings.Contains(err.Error(), "is not the master")
}

// submitRetry sends req until it is answered, resending it with its key
// on a new connection while the answer is lost, for submitRetryFor.
func submitRetry(ctx context.Context, env *Env, cc *clientConf, c **rpc.Client, req *api.SubmitRequest) (*api.SubmitReply, error) {
	clk := env.Clock
	if clk == nil {
		clk = clock.Real()
	}
	deadline := clk.Now().Add(submitRetryFor)
	wait := 100 * time.Millisecond
	for {
		var reply api.SubmitReply
		err := (*c).Call(ctx, api.MBatchdSubmit, req, &reply)
		if err == nil || req.Key == "" || !answerLost(err) {
			return &reply, err
		}
		// Reconnect and send it again: mbatchd knows the key.
		for {
			if clk.Now().After(deadline) {
				return nil, err
			}
			t := clk.NewTimer(wait)
			select {
			case <-t.C():
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
			wait = min(2*wait, 2*time.Second)
			nc, derr := cc.dialMbd(ctx, env)
			if derr == nil {
				(*c).Close()
				*c = nc
				break
			}
		}
	}
}

// bsubWait implements -K: report dispatch and completion, exit with the
// job's exit code (126 when it never ran).
func bsubWait(ctx context.Context, env *Env, cc *clientConf, c *rpc.Client, id int64) int {
	fmt.Fprintln(env.Stderr, "<<Waiting for dispatch ...>>")
	st, err := c.Stream(ctx, api.MBatchdWaitJob, &api.JobRef{JobID: id})
	if err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	var last api.JobRecord
	started := false
	for {
		var r api.JobRecord
		err := st.Recv(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			env.Errorf("%v", err)
			return ExitUsage
		}
		if !started && (r.State == api.StateRun || r.StartTime > 0 && len(r.ExecHosts) > 0) {
			started = true
			// LSF names the host only with LSB_SUBK_SHOW_EXEC_HOST.
			if confYes(env, cc, "LSB_SUBK_SHOW_EXEC_HOST") && len(r.ExecHosts) > 0 {
				fmt.Fprintf(env.Stderr, "<<Starting on %s>>\n", r.ExecHosts[0].Host)
			}
		}
		last = r
	}
	if last.State == api.StateExit && last.RunCount == 0 && last.StartTime == 0 {
		fmt.Fprintln(env.Stderr, "<<Terminated while pending>>")
		return 126
	}
	if confYes(env, cc, "LSB_SUBK_SHOW_JOBID") {
		fmt.Fprintf(env.Stderr, "<<Job <%d> is finished>>\n", id)
	} else {
		fmt.Fprintln(env.Stderr, "<<Job is finished>>")
	}
	switch last.State {
	case api.StateDone:
		return 0
	case api.StateExit:
		if last.RunCount == 0 && last.StartTime == 0 {
			return 126
		}
		ws := syscall.WaitStatus(last.ExitStatus)
		switch {
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
		return 1
	}
	return ExitUsage
}

// defaultMaxPackJobs is the sub-pack size when lsf.conf does not set
// LSB_MAX_PACK_JOBS (LSF's high-throughput template value). LSF disables
// packs then; Basalt enables them, and LSB_MAX_PACK_JOBS=0 disables them.
const defaultMaxPackJobs = 300

// bsubPack submits every line of a pack file (bsub options and command per
// line) in sub-packs of LSB_MAX_PACK_JOBS jobs, as bsub -pack does. With
// LSB_PACK_SKIP_ERROR=Y every line is submitted whatever fails; otherwise
// submission stops at the first job that is not submitted.
func bsubPack(ctx context.Context, env *Env, file string) int {
	f, err := os.Open(file)
	if err != nil {
		return notSubmitted(env, "%s: %v", file, err)
	}
	defer f.Close()
	cc, err := loadClientConf(env)
	if err != nil {
		return notSubmitted(env, "%v", err)
	}
	size := cc.conf.Int("LSB_MAX_PACK_JOBS", defaultMaxPackJobs)
	if size <= 0 {
		return notSubmitted(env, "Job packs are disabled: LSB_MAX_PACK_JOBS is 0 in lsf.conf")
	}
	skipErrors := cc.conf.Bool("LSB_PACK_SKIP_ERROR", false)
	c, err := cc.dialMbd(ctx, env)
	if err != nil {
		return notSubmitted(env, "Cannot connect to LSF. Please wait ...: %v", err)
	}
	defer func() { c.Close() }()
	var specs []*api.JobSpec
	status, jobs := 0, 0
	flush := func() bool {
		if len(specs) == 0 {
			return true
		}
		_, st := submitPack(ctx, env, cc, &c, specs)
		specs = specs[:0]
		if st != 0 {
			status = st
			return skipErrors
		}
		return true
	}
	fail := func(code int) int {
		if skipErrors {
			status = code
			return 0
		}
		return code
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		jobs++
		spec, code := packLine(ctx, env, cc, file, line, t)
		if code != 0 {
			if code = fail(code); code != 0 {
				flush()
				return code
			}
			continue
		}
		specs = append(specs, spec)
		if len(specs) >= size && !flush() {
			return status
		}
	}
	if err := sc.Err(); err != nil {
		flush()
		return notSubmitted(env, "%s: %v", file, err)
	}
	if jobs == 0 {
		return notSubmitted(env, "%s: no job in the pack file", file)
	}
	flush()
	return status
}

// packLine turns one pack file line into a submission (esub included).
func packLine(ctx context.Context, env *Env, cc *clientConf, file string, line int, text string) (*api.JobSpec, int) {
	words, err := shellWords(text)
	if err != nil {
		return nil, notSubmitted(env, "%s: line %d: %v", file, line, err)
	}
	res, err := bsubSpec.Parse(words)
	if err != nil {
		return nil, notSubmitted(env, "%s: line %d: %v", file, line, err)
	}
	spec, err := bsubJobSpec(env, cc, res, false)
	if err != nil {
		return nil, notSubmitted(env, "%s: line %d: %v", file, line, err)
	}
	if spec, err = runEsub(ctx, env, cc, spec); err != nil {
		return nil, bsubEsubFailed(env, err)
	}
	return spec, 0
}

// bsubJobSpec builds the submission from the parsed command line; stdin
// may supply the job script (when there is no command).
func bsubJobSpec(env *Env, cc *clientConf, res *lsfopt.Result, allowStdin bool) (*api.JobSpec, error) {
	spec := &api.JobSpec{}
	var script string
	switch {
	case len(res.Operands) == 1 && isJobScriptFile(res.Operands[0]) && env.Getenv("LSB_BSUB_PARSE_SCRIPT") != "N":
		b, err := os.ReadFile(res.Operands[0])
		if err != nil {
			return nil, err
		}
		script = string(b)
	case len(res.Operands) > 0:
		spec.Command = joinCommand(res.Operands)
	case allowStdin:
		s, err := readScript(env)
		if err != nil {
			return nil, err
		}
		script = s
	}
	if script != "" {
		spec.Command, spec.FromScript = script, true
		if strings.HasPrefix(script, "#!") {
			spec.Shell = strings.TrimSpace(strings.SplitN(script[2:], "\n", 2)[0])
		}
		args, err := parseBSUBLines(script)
		if err != nil {
			return nil, fmt.Errorf("job script: %v", err)
		}
		sres, err := bsubScriptSpec.Parse(args)
		if err != nil {
			return nil, fmt.Errorf("job script: %v", err)
		}
		if sres.Has("tty") {
			return nil, errors.New("job script: -tty: give it on the command line")
		}
		res = mergeOptions(sres, res)
	}
	if strings.TrimSpace(spec.Command) == "" {
		return nil, errors.New("No command is specified")
	}
	if err := applyBsubOptions(env, cc, spec, res); err != nil {
		return nil, err
	}
	return spec, nil
}

// isJobScriptFile reports whether a lone command operand is a job script to
// read (it has #BSUB directives), as LSF does with LSB_BSUB_PARSE_SCRIPT=Y.
func isJobScriptFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > 4<<20 {
		return false
	}
	// A program (bsub /bin/true, an ELF file) has a NUL byte early: it is
	// not read further.
	br := bufio.NewReader(f)
	if head, _ := br.Peek(512); bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	sc := bufio.NewScanner(br)
	for i := 0; i < 200 && sc.Scan(); i++ {
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) > 0 && t[0] == '#' && bytes.HasPrefix(bytes.TrimLeft(t[1:], " \t"), []byte("BSUB")) {
			return true
		}
	}
	return false
}

// joinCommand rebuilds the command line as LSF does: the words joined with
// blanks, for /bin/sh to interpret (bsub "cmd1; cmd2" runs both).
func joinCommand(words []string) string { return strings.Join(words, " ") }

// readScript reads the job script from stdin, prompting with "bsub> " on a
// terminal as LSF does.
func readScript(env *Env) (string, error) {
	tty := false
	if f, ok := env.Stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	var b strings.Builder
	r := bufio.NewReader(env.Stdin)
	for {
		if tty {
			fmt.Fprint(env.Stdout, "bsub> ")
		}
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// mergeOptions returns the script's options overridden by the command
// line's: an option given on the command line replaces every occurrence of
// it in the script.
func mergeOptions(script, cmdline *lsfopt.Result) *lsfopt.Result {
	out := &lsfopt.Result{Operands: cmdline.Operands}
	given := map[string]bool{}
	for _, o := range cmdline.Opts {
		given[o.Name] = true
	}
	for _, o := range script.Opts {
		if !given[o.Name] {
			out.Opts = append(out.Opts, o)
		}
	}
	out.Opts = append(out.Opts, cmdline.Opts...)
	return out
}

// applyBsubOptions fills spec from the options.
func applyBsubOptions(env *Env, cc *clientConf, spec *api.JobSpec, res *lsfopt.Result) error {
	if name := unsupportedBsubOption(res); name != "" {
		return fmt.Errorf("-%s: Option not supported", name)
	}
	unit := cc.conf.UnitForLimits()
	limits := &api.Limits{}
	ttyOpt := false // -tty
	now := env.Clock.Now()
	envMode := ""
	for _, o := range res.Opts {
		v := o.Value
		var err error
		switch o.Name {
		case "J":
			spec.JobName = v
		case "Jd":
			spec.Description = v
		case "q":
			spec.Queues = strings.Fields(v)
		case "n":
			spec.MinProcs, spec.MaxProcs, err = parseProcs(v)
		case "nnodes":
			// Nodes (LSF with CSM; Parsl's LSF provider writes #BSUB
			// -nnodes): N hosts, one slot on each, so that LSB_HOSTS names
			// each host once. CSM's nodes are whole; here they are whole
			// only with -x, which the queue must accept (EXCLUSIVE=Y).
			var n int64
			if n, err = parseCount(v, "-nnodes"); err == nil && n > math.MaxInt32 {
				err = fmt.Errorf("%s: -nnodes value should be a positive integer", v)
			} else if err == nil {
				spec.MinProcs, spec.MaxProcs = int32(n), int32(n)
				spec.ResReq = append(spec.ResReq, "span[ptile=1]")
			}
		case "R":
			spec.ResReq = append(spec.ResReq, v)
		case "gpu":
			spec.GPUReq, err = bsubGPU(v)
		case "m":
			spec.AskedHosts = append(spec.AskedHosts, strings.Fields(v)...)
		case "o":
			spec.OutFile, spec.OutOverwrite = v, false
		case "oo":
			spec.OutFile, spec.OutOverwrite = v, true
		case "e":
			spec.ErrFile, spec.ErrOverwrite = v, false
		case "eo":
			spec.ErrFile, spec.ErrOverwrite = v, true
		case "i":
			spec.InFile, spec.InSpool = v, false
		case "is":
			spec.InFile, spec.InSpool = v, true
		case "cwd":
			spec.Cwd = v
		case "env":
			envMode = v
		case "W":
			limits.Run, limits.RunHost, err = parseMinutes(v, "RUNLIMIT")
		case "We":
			limits.RunEstimate, _, err = parseMinutes(v, "RUNLIMIT")
		case "c":
			limits.CPU, limits.CPUHost, err = parseMinutes(v, "CPULIMIT")
		case "M":
			limits.Mem, err = parseSizeKB(v, unit, "MEMLIMT")
		case "v":
			limits.Swap, err = parseSizeKB(v, unit, "SWAPLIMIT")
		case "C":
			// A zero core limit is a limit (no core files), as in LSF,
			// whose -C alone among the size limits takes 0.
			if f, perr := strconv.ParseFloat(strings.TrimRight(strings.ToUpper(strings.TrimSpace(v)), "KMGTPEB"), 64); perr == nil && f == 0 {
				limits.Core, limits.CoreZero = 0, true
				break
			}
			limits.Core, err = parseSizeKB(v, unit, "CORELIMIT")
		case "D":
			limits.Data, err = parseSizeKB(v, "KB", "DATALIMIT")
		case "F":
			limits.File, err = parseSizeKB(v, "KB", "FILELIMIT")
		case "S":
			limits.Stack, err = parseSizeKB(v, unit, "STACKLIMIT")
		case "p":
			limits.Process, err = parseCount(v, "PROCESSLIMIT")
		case "T":
			limits.Thread, err = parseCount(v, "THREADLIMIT")
		case "Q":
			if _, perr := config.ParseRequeueExitValues(v); perr != nil {
				err = fmt.Errorf("%s: Bad requeue exit values specification: %v", v, perr)
				break
			}
			spec.RequeueExitValues = v
		case "P":
			spec.Project = v
		case "G":
			spec.UserGroup = v
		case "w":
			spec.Dependency = v
		case "x":
			spec.Exclusive = true
		case "ar":
			spec.AutoResizable = true
		case "rnc":
			spec.ResizeNotifyCmd = v
		case "r":
			spec.Rerunnable, spec.NotRerunnable = true, false
		case "rn":
			spec.Rerunnable, spec.NotRerunnable = false, true
		case "H":
			spec.Hold = true
		case "b":
			spec.BeginTime, err = parseTimeSpec(v, now)
		case "t":
			spec.TermTime, err = parseTimeSpec(v, now)
		case "K":
			spec.Wait = true
		case "E":
			spec.PreExec = v
		case "Ep":
			spec.PostExec = v
		case "L":
			spec.LoginShell = v
		case "u":
			spec.MailUser = v
		case "B":
			spec.NotifyBegin = true
		case "N":
			spec.NotifyEnd = true
		case "app":
			spec.App = v
		case "clusters":
			spec.Clusters, err = parseClustersOption(v)
		case "sp":
			var n int
			n, err = strconv.Atoi(v)
			if err != nil || n < 1 {
				err = fmt.Errorf("%s: Bad user priority", v)
			}
			spec.UserPriority = int32(n)
		case "f":
			var ft *api.FileTransfer
			ft, err = parseFileTransfer(v)
			spec.Files = append(spec.Files, ft)
		case "a":
			spec.EsubParams = v
		case "sla":
			spec.SLA = v
		case "g":
			spec.JobGroup = v
		case "U":
			spec.Reservation = v
		case "k":
			// "dir [period] [method=name]" (internal/chkpnt).
			var ck chkpnt.Spec
			if ck, err = chkpnt.ParseSpec(v); err != nil {
				var pe *chkpnt.ParseError
				if errors.As(err, &pe) {
					err = errors.New(pe.Msg)
				}
			}
			spec.ChkpntDir, spec.ChkpntPeriod, spec.ChkpntMethod = ck.Dir, int64(ck.Period/time.Second), ck.Method
		case "I":
			spec.Interactive = true
		case "tty":
			ttyOpt = true
		case "Ip":
			spec.Interactive, spec.Pty = true, true
		case "Is":
			spec.Interactive, spec.Pty, spec.PtyShell = true, true, true
		case "wa":
			spec.WarningAction = v
		case "wt":
			spec.WarningTime, _, err = parseMinutes(v, "warning time")
		}
		if err != nil {
			return err
		}
	}
	if spec.Wait && strings.Contains(spec.JobName, "[") {
		return errors.New("Job array doesn't support -K option")
	}
	if spec.Interactive && spec.Wait {
		return errors.New("Option -K cannot be used with interactive jobs (-I, -Ip, -Is)")
	}
	if err := checkTTYOption(spec, ttyOpt); err != nil {
		return err
	}
	if spec.Interactive && strings.Contains(spec.JobName, "[") {
		return errors.New("Job array doesn't support interactive jobs")
	}
	if spec.Interactive && spec.Rerunnable {
		return errors.New("Interactive jobs cannot be rerunnable")
	}
	if *limits != (api.Limits{}) {
		spec.Limits = limits
	}
	// Where and as whom.
	spec.FromHost = cc.localHost(env)
	if wd := env.Getenv("PWD"); wd != "" {
		spec.SubCwd = wd
	} else if wd, err := env.Getwd(); err == nil {
		spec.SubCwd = wd
	}
	spec.SubHome = env.Getenv("HOME")
	if err := spoolFiles(spec, res.Has("Zs")); err != nil {
		return err
	}
	spec.UID, spec.GID = int32(os.Getuid()), int32(os.Getgid())
	// The user's account mapping (.lsfhosts send lines; a file open to
	// others is ignored, as LSF ignores it): the execution host checks the
	// mapped account's consent.
	if spec.SubHome != "" {
		if es, err := lsfhosts.Load(spec.SubHome, os.Getuid()); err == nil {
			spec.UserMap = lsfhosts.SendEntries(es)
		}
	}
	old := syscall.Umask(0)
	syscall.Umask(old)
	spec.Umask = uint32(old)
	var err error
	spec.Env, err = jobEnv(env, envMode)
	return err
}

// jobEnv is the environment the job gets (-env: "all" (default), "none",
// or "[all|none,]var[=value],...", and after all "~var" to leave var out).
func jobEnv(env *Env, mode string) ([]string, error) {
	base := env.Environ()
	mode = strings.TrimSpace(mode)
	if mode == "" || strings.EqualFold(mode, "all") {
		return base, nil
	}
	parts := splitEnvList(mode)
	// Without "all" first, only the variables listed go (IBM: "-env
	// var_name[=var_value][, ...]").
	all := false
	switch strings.ToLower(strings.TrimSpace(parts[0])) {
	case "all":
		all = true
		parts = parts[1:]
	case "none":
		parts = parts[1:]
	}
	vals := map[string]string{}
	var order []string
	if all {
		for _, kv := range base {
			k, v, _ := strings.Cut(kv, "=")
			if _, ok := vals[k]; !ok {
				order = append(order, k)
			}
			vals[k] = v
		}
	}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if name, ok := strings.CutPrefix(p, "~"); ok {
			// "all, ~VAR": every variable but VAR (LSF allows ~ after all).
			name = strings.TrimSpace(name)
			if !all || name == "" || strings.ContainsAny(name, "=~\"'") {
				return nil, fmt.Errorf("%s: Bad argument for option -env", mode)
			}
			delete(vals, name)
			continue
		}
		k, v, hasVal := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if k == "" || strings.ContainsAny(k, "~\"'") {
			return nil, fmt.Errorf("%s: Bad argument for option -env", mode)
		}
		if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			v = v[1 : len(v)-1] // a value with commas: -env "TEST='A, B'"
		}
		if !hasVal {
			cur, ok := env.LookupEnv(k)
			if !ok {
				continue
			}
			v = cur
		}
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		if v, ok := vals[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return out, nil
}

// splitEnvList splits an -env list at its commas, except those inside
// single quotes (a value with commas is quoted).
func splitEnvList(s string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// parseProcs parses -n min[,max].
func parseProcs(v string) (int32, int32, error) {
	lo, hi, hasMax := strings.Cut(v, ",")
	min, err := strconv.Atoi(strings.TrimSpace(lo))
	if err != nil || min < 1 {
		return 0, 0, fmt.Errorf("%s: Bad argument for option -n", v)
	}
	max := min
	if hasMax {
		if max, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || max < min {
			return 0, 0, fmt.Errorf("%s: Bad argument for option -n", v)
		}
	}
	return int32(min), int32(max), nil
}

// parseMinutes parses [hours:]minutes[/host_spec] into seconds. Minutes
// may be fractional (LSF 10 accepts 0.5).
func parseMinutes(v, what string) (int64, string, error) {
	s, host, _ := strings.Cut(v, "/")
	bad := fmt.Errorf("%s: Bad %s specification", v, what)
	var total float64
	if h, m, ok := strings.Cut(s, ":"); ok {
		hours, err1 := strconv.Atoi(h)
		mins, err2 := strconv.ParseFloat(m, 64)
		if err1 != nil || err2 != nil || hours < 0 || mins < 0 {
			return 0, "", bad
		}
		total = float64(hours)*60 + mins
	} else {
		mins, err := strconv.ParseFloat(s, 64)
		if err != nil || mins < 0 {
			return 0, "", bad
		}
		total = mins
	}
	return int64(total*60 + 0.5), host, nil
}

// maxLimitKB bounds a size limit: 8 EiB in KB, the most a limit in bytes
// (a cgroup's memory.max, setrlimit) can hold.
const maxLimitKB = 1 << 53

// parseSizeKB parses a memory or size limit in unit (KB, MB, GB, TB; the
// value may carry its own unit suffix) into KB.
func parseSizeKB(v, unit, what string) (int64, error) {
	s := strings.ToUpper(strings.TrimSpace(v))
	mult := map[string]int64{"K": 1, "KB": 1, "M": 1 << 10, "MB": 1 << 10, "G": 1 << 20, "GB": 1 << 20, "T": 1 << 30, "TB": 1 << 30, "P": 1 << 40, "PB": 1 << 40, "E": 1 << 50, "EB": 1 << 50}
	u := strings.ToUpper(unit)
	if u == "" {
		u = "KB"
	}
	num := s
	for _, suf := range []string{"KB", "MB", "GB", "TB", "PB", "EB", "K", "M", "G", "T", "P", "E"} {
		if strings.HasSuffix(s, suf) {
			num, u = strings.TrimSuffix(s, suf), suf
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f <= 0 || mult[u] == 0 {
		return 0, fmt.Errorf("%s: %s value should be a positive integer", v, what)
	}
	kb := f*float64(mult[u]) + 0.5
	if kb >= maxLimitKB {
		// Converted, it would wrap around to a negative number, and the
		// limit would be dropped without a word.
		return 0, fmt.Errorf("%s: %s value is too large", v, what)
	}
	return int64(kb), nil
}

func parseCount(v, what string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s: %s value should be a positive integer", v, what)
	}
	return n, nil
}

// parseTimeSpec parses [[[year:]month:]day:]hour:minute as the next such
// time (LSF: a time already past today means tomorrow; with a year, the
// time is taken as it is: Open OnDemand submits -b YYYY:MM:DD:HH:MM).
func parseTimeSpec(v string, now time.Time) (int64, error) {
	bad := fmt.Errorf("%s: Bad time specification", v)
	parts := strings.Split(v, ":")
	if len(parts) < 2 || len(parts) > 5 {
		return 0, bad
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, bad
		}
		nums[i] = n
	}
	minute, hour := nums[len(nums)-1], nums[len(nums)-2]
	if minute > 59 || hour > 23 {
		return 0, bad
	}
	y, mo, d := now.Date()
	switch len(nums) {
	case 3:
		d = nums[0]
	case 4:
		mo, d = time.Month(nums[0]), nums[1]
		if mo < 1 || mo > 12 {
			return 0, bad
		}
	case 5:
		y, mo, d = nums[0], time.Month(nums[1]), nums[2]
		if y < 1970 || y > 9999 || mo < 1 || mo > 12 {
			return 0, bad
		}
	}
	if len(nums) >= 3 && (d < 1 || d > 31) {
		return 0, bad
	}
	t := time.Date(y, mo, d, hour, minute, 0, 0, now.Location())
	if len(nums) >= 4 && t.Day() != d {
		return 0, bad // a day the month does not have (2:31:10:00)
	}
	if !t.After(now) && len(nums) < 5 {
		switch len(nums) {
		case 2:
			t = t.AddDate(0, 0, 1)
		case 3:
			t = t.AddDate(0, 1, 0)
		case 4:
			t = t.AddDate(1, 0, 0)
		}
	}
	return t.Unix(), nil
}

func bsubUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: bsub [-h] [-V] [-H] [-x] [-r | -rn] [-N] [-B] [-K]
            [-q "queue_name ..."] [-m "host_name[+[pref_level]] | host_group[+[pref_level]] ..."]
            [-n min_proc[,max_proc]] [-ar] [-rnc resize_notification_cmd] [-R "res_req"] [-gpu - | "num=N:mode=shared|exclusive_process:mps=yes|no:j_exclusive=yes|no"]
            [-J job_name | -J "name[index_list]%job_limit"]
            [-b [[month:]day:]hour:minute] [-t [[month:]day:]hour:minute] [-w 'dependency_expression']
            [-i input_file | -is input_file] [-o output_file | -oo output_file] [-e error_file | -eo error_file]
            [-cwd "dir"] [-env "none" | "all" | "[all,]var_name[=var_value][,var_name[=var_value] ...]"]
            [-E "pre_exec_command [args ...]"] [-Ep "post_exec_command [args ...]"] [-L login_shell]
            [-P project_name] [-G user_group] [-app application_profile] [-sp priority] [-u mail_user]
            [-W [hour:]minute[/host_name | /host_model]] [-c [hour:]minute[/host_name | /host_model]]
            [-M mem_limit] [-C core_limit] [-D data_limit] [-F file_limit] [-S stack_limit] [-v swap_limit]
            [-p process_limit] [-T thread_limit] [-Jd "job_description"] [-f "local_file op [remote_file]"]
            [-pack job_submission_file]
            [command [argument ...]]`)
}

// confYes says whether an lsf.conf parameter is set to y (the environment
// first, as LSF's clients read it).
func confYes(env *Env, cc *clientConf, name string) bool {
	v := env.Getenv(name)
	if v == "" && cc != nil && cc.conf != nil {
		v = cc.conf.Get(name)
	}
	return strings.EqualFold(v, "y") || strings.EqualFold(v, "yes")
}

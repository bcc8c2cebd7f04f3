package jobenv

import (
	"github.com/basalt-lsf/basalt/internal/chkpnt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// Host is what the execution host adds to a job's environment.
type Host struct {
	// ExecUser, ExecHome and ExecShell describe the account the job runs
	// as on this host.
	ExecUser  string
	ExecHome  string
	ExecShell string
	// Extra are NAME=VALUE pairs every job gets (LSF_ENVDIR,
	// LSF_SERVERDIR, LSF_BINDIR...).
	Extra []string
	// GPUDevices: the job's device cgroup holds only its GPUs
	// (LSB_RESOURCE_ENFORCE="gpu"), which CUDA then numbers from 0.
	GPUDevices bool
}

// Files are the paths of the files sbatchd prepares for the job.
type Files struct {
	JobFile  string // LSB_JOBFILENAME
	HostFile string // LSB_DJOB_HOSTFILE
	// Script holds the job script of a script job (bsub < script, or a
	// script file with #BSUB lines).
	Script string
	// CmdSpool holds the spooled command file of a -Zs job (run in place
	// of the command's first word); InSpool the spooled input of -is.
	CmdSpool string
	InSpool  string
}

// MaxHostsVar is the number of slots above which LSB_HOSTS is not set
// (the value would be too long for some shells); LSB_MCPU_HOSTS and
// LSB_DJOB_HOSTFILE always are.
const MaxHostsVar = 2048

// ExitPreAbort is the exit value with which a pre-execution command aborts
// the job instead of sending it back to pending (LSB_EXIT_PRE_ABORT).
const ExitPreAbort = 99

// Env returns the job's environment: the submitter's (Spec.Env) with LSF's
// job variables set on top. Variables keep their order; new ones follow.
func Env(l *api.JobLaunch, h Host, f Files) []string {
	spec := l.Spec
	if spec == nil {
		spec = &api.JobSpec{}
	}
	e := NewEnv(spec.Env)
	if e.Get("PATH") == "" {
		e.Set("PATH", "/bin:/usr/bin")
	}
	if h.ExecHome != "" {
		e.Set("HOME", h.ExecHome)
	}
	if h.ExecUser != "" {
		e.Set("USER", h.ExecUser)
		e.Set("LOGNAME", h.ExecUser)
	}
	for _, kv := range h.Extra {
		if k, v, ok := strings.Cut(kv, "="); ok {
			e.Set(k, v)
		}
	}
	e.Set("LSB_JOBID", strconv.FormatInt(l.JobID, 10))
	e.Set("LSB_JOBINDEX", strconv.Itoa(int(l.Index)))
	if l.Index > 0 || l.ArrayEnd > 0 {
		e.Set("LSB_JOBINDEX_END", strconv.Itoa(int(l.ArrayEnd)))
		step := l.ArrayStep
		if step == 0 {
			step = 1
		}
		e.Set("LSB_JOBINDEX_STEP", strconv.Itoa(int(step)))
	}
	e.Set("LSB_JOBNAME", JobName(l))
	if l.Queue != nil {
		e.Set("LSB_QUEUE", l.Queue.Name)
	}
	slots := SlotHosts(l.ExecHosts)
	if len(slots) <= MaxHostsVar {
		e.Set("LSB_HOSTS", strings.Join(slots, " "))
	}
	e.Set("LSB_MCPU_HOSTS", MCPUHosts(l.ExecHosts))
	e.Set("LSB_EXECHOSTS", strings.Join(uniqueHosts(l.ExecHosts), " "))
	e.Set("LSB_DJOB_NUMPROC", strconv.Itoa(len(slots)))
	if f.HostFile != "" {
		e.Set("LSB_DJOB_HOSTFILE", f.HostFile)
	}
	if f.JobFile != "" {
		e.Set("LSB_JOBFILENAME", f.JobFile)
		e.Set("LSB_CHKFILENAME", f.JobFile)
	}
	if spec.OutFile != "" {
		e.Set("LSB_OUTPUTFILE", Expand(spec.OutFile, l.JobID, l.Index))
	}
	if spec.ErrFile != "" {
		e.Set("LSB_ERRORFILE", Expand(spec.ErrFile, l.JobID, l.Index))
	}
	if spec.SubCwd != "" {
		e.Set("LS_SUBCWD", spec.SubCwd)
	}
	if spec.FromHost != "" {
		e.Set("LSB_SUB_HOST", spec.FromHost)
	}
	project := spec.Project
	if project == "" {
		project = "default"
	}
	e.Set("LSB_PROJECT_NAME", project)
	if l.Queue != nil && (len(l.Queue.RequeueExitValues) > 0 || len(l.Queue.ExcludeExitValues) > 0) {
		e.Set("LSB_EXIT_REQUEUE", RequeueValues(l.Queue))
	}
	if l.EffectiveResReq != "" {
		e.Set("LSB_EFFECTIVE_RSRCREQ", l.EffectiveResReq)
	}
	if l.ExecRusage != "" {
		e.Set("LSB_EXEC_RUSAGE", l.ExecRusage)
	}
	setGPUEnv(e, l, h)
	if l.RunCount > 1 && (spec.Rerunnable || (l.Queue != nil && l.Queue.Rerunnable)) {
		e.Set("LSB_RESTART", "Y")
	}
	if spec.ChkpntDir != "" {
		e.Set("LSB_CHKPNT_DIR", chkpnt.JobDir(spec.ChkpntDir, l.JobID, l.Index))
		if spec.ChkpntPeriod > 0 {
			e.Set("LSB_CHKPNT_PERIOD", strconv.FormatInt(spec.ChkpntPeriod, 10))
		}
		if spec.ChkpntMethod != "" {
			// bsub -k method=name, over lsf.conf's LSB_ECHKPNT_METHOD.
			e.Set("LSB_ECHKPNT_METHOD", spec.ChkpntMethod)
		}
	}
	if spec.Interactive {
		e.Set("LSB_INTERACTIVE", "Y")
	}
	if l.Queue != nil && l.Queue.JobStarter != "" {
		e.Set("LSB_JOB_STARTER", l.Queue.JobStarter)
	}
	return e.List()
}

// PrePostEnv returns the environment of a queue-level pre- or
// post-execution command: the job's environment with LSF's fixed PATH.
func PrePostEnv(jobEnv []string) []string {
	e := NewEnv(jobEnv)
	e.Set("PATH", "/bin:/usr/bin:/sbin:/usr/sbin")
	return e.List()
}

// PostInfo is how a job ended, for its post-execution commands.
type PostInfo struct {
	WaitStatus int32  // LSB_JOBEXIT_STAT
	Info       string // LSB_JOBEXIT_INFO ("" when not killed by LSF)
	Pending    bool   // LSB_JOBPEND: the job is requeued
}

// PostEnv adds LSB_JOBEXIT_STAT, LSB_JOBEXIT_INFO and LSB_JOBPEND.
func PostEnv(env []string, p PostInfo) []string {
	e := NewEnv(env)
	e.Set("LSB_JOBEXIT_STAT", strconv.Itoa(int(p.WaitStatus)))
	if p.Info != "" {
		e.Set("LSB_JOBEXIT_INFO", p.Info)
	}
	if p.Pending {
		e.Set("LSB_JOBPEND", "Y")
	}
	return e.List()
}

// JobName is the job's name: the resolved name mbatchd sent, else -J, else
// the command (LSF's default job name).
func JobName(l *api.JobLaunch) string {
	if l.JobName != "" {
		return l.JobName
	}
	if l.Spec == nil {
		return ""
	}
	if l.Spec.JobName != "" {
		return l.Spec.JobName
	}
	if l.Spec.FromScript {
		return strings.Join(strings.Split(strings.TrimRight(l.Spec.Command, "\n"), "\n"), ";")
	}
	return l.Spec.Command
}

// SlotHosts lists one host name per slot (LSB_HOSTS, the host file).
func SlotHosts(hs []*api.ExecHost) []string {
	var out []string
	for _, h := range hs {
		n := int(h.Slots)
		if n < 1 {
			n = 1
		}
		for i := 0; i < n; i++ {
			out = append(out, h.Host)
		}
	}
	return out
}

// MCPUHosts is LSB_MCPU_HOSTS: "host slots " for each host, in order, each
// pair followed by a blank (the trailing blank is LSF's).
func MCPUHosts(hs []*api.ExecHost) string {
	var b strings.Builder
	for _, h := range hs {
		n := int(h.Slots)
		if n < 1 {
			n = 1
		}
		b.WriteString(h.Host)
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(n))
		b.WriteByte(' ')
	}
	return b.String()
}

func uniqueHosts(hs []*api.ExecHost) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range hs {
		if !seen[h.Host] {
			seen[h.Host] = true
			out = append(out, h.Host)
		}
	}
	return out
}

// HostFile is the content of LSB_DJOB_HOSTFILE: one line per slot.
func HostFile(hs []*api.ExecHost) []byte {
	var b strings.Builder
	for _, h := range SlotHosts(hs) {
		b.WriteString(h)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// RequeueValues is LSB_EXIT_REQUEUE: the queue's REQUEUE_EXIT_VALUES as
// written ("7 31 EXCLUDE(20)").
func RequeueValues(q *api.QueueExec) string {
	var parts []string
	for _, v := range q.RequeueExitValues {
		parts = append(parts, strconv.Itoa(int(v)))
	}
	if len(q.ExcludeExitValues) > 0 {
		var ex []string
		for _, v := range q.ExcludeExitValues {
			ex = append(ex, strconv.Itoa(int(v)))
		}
		parts = append(parts, "EXCLUDE("+strings.Join(ex, " ")+")")
	}
	return strings.Join(parts, " ")
}

// Expand replaces %J by the job ID and %I by the array index (0 for a job
// that is not an array element) in a file name.
func Expand(path string, jobID int64, index int32) string {
	if !strings.Contains(path, "%") {
		return path
	}
	path = strings.ReplaceAll(path, "%J", strconv.FormatInt(jobID, 10))
	return strings.ReplaceAll(path, "%I", strconv.Itoa(int(index)))
}

// Dirs returns the working directories to try, in order: the job's -cwd
// (relative to the submission directory) or the submission directory;
// when that is under the submitter's home, the same path under the
// execution home; then /tmp.
func Dirs(l *api.JobLaunch, execHome string) []string {
	var spec api.JobSpec
	if l.Spec != nil {
		spec = *l.Spec
	}
	base := spec.SubCwd
	if spec.Cwd != "" {
		c := Expand(spec.Cwd, l.JobID, l.Index)
		if filepath.IsAbs(c) || base == "" {
			base = c
		} else {
			base = filepath.Join(base, c)
		}
	}
	var out []string
	add := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		d = filepath.Clean(d)
		for _, x := range out {
			if x == d {
				return
			}
		}
		out = append(out, d)
	}
	add(base)
	if rel, ok := under(base, spec.SubHome); ok && execHome != "" {
		add(filepath.Join(execHome, rel))
	}
	if base == "" {
		add(execHome)
	}
	add("/tmp")
	return out
}

// under reports whether path is home or below it, and the rest of path.
func under(path, home string) (string, bool) {
	if path == "" || home == "" {
		return "", false
	}
	path, home = filepath.Clean(path), filepath.Clean(home)
	if path == home {
		return ".", true
	}
	if home != "/" && strings.HasPrefix(path, home+"/") {
		return path[len(home)+1:], true
	}
	return "", false
}

// EnvList is an environment list with keyed updates that keep the order.
type EnvList struct {
	kv    []string
	index map[string]int
}

// NewEnv copies list; a later duplicate of a name wins, at the first's
// position.
func NewEnv(list []string) *EnvList {
	e := &EnvList{index: make(map[string]int, len(list)+32)}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		e.Set(k, v)
	}
	return e
}

// Set sets name k to v.
func (e *EnvList) Set(k, v string) {
	if i, ok := e.index[k]; ok {
		e.kv[i] = k + "=" + v
		return
	}
	e.index[k] = len(e.kv)
	e.kv = append(e.kv, k+"="+v)
}

// Get returns k's value ("" when unset).
func (e *EnvList) Get(k string) string {
	if i, ok := e.index[k]; ok {
		return e.kv[i][len(k)+1:]
	}
	return ""
}

// List returns the NAME=VALUE pairs.
func (e *EnvList) List() []string { return append([]string(nil), e.kv...) }

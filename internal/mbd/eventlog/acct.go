package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/basalt-lsf/basalt/api"
)

// AcctQuery is what ReadAcct reads and keeps (bacct).
type AcctQuery struct {
	// Filter: States defaults to DONE and EXIT (bacct -d: DONE, -e: EXIT);
	// Completed is -C, Submitted -S, Dispatched -D; Hosts match any
	// execution host (-m), Queues the queue the job finished in (-q).
	Filter
	// Dir is the log directory; its lsb.acct is read unless Files is set.
	Dir string
	// Files are read instead, in order (bacct -f).
	Files []string
}

// AcctResult is ReadAcct's answer.
type AcctResult struct {
	// Jobs are finished job runs in file order (one per JOB_FINISH: a
	// requeued job that ran twice has two). Times are Unix seconds.
	Jobs []*api.JobRecord
	// Warnings are records that could not be read (*ParseError), skipped.
	Warnings []error
}

// ReadAcct reads finished jobs from accounting files.
func ReadAcct(ctx context.Context, q *AcctQuery) (*AcctResult, error) {
	files := q.Files
	if len(files) == 0 {
		files = []string{filepath.Join(q.Dir, AcctFile)}
	}
	res := &AcctResult{}
	for _, name := range files {
		if err := readAcctFile(ctx, name, q, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func readAcctFile(ctx context.Context, name string, q *AcctQuery, res *AcctResult) error {
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && len(q.Files) == 0 {
			return nil // no job has finished yet
		}
		return fmt.Errorf("reading accounting file: %w", err)
	}
	defer f.Close()
	r := NewReader(f, name)
	if len(q.Jobs) > 0 {
		r.SkipJobs(q.Filter.wantJobID)
	}
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				res.Warnings = append(res.Warnings, err)
				continue
			}
			return err
		}
		fin, ok := rec.Log.(*JobFinish)
		if !ok {
			continue
		}
		if j := FinishedJob(rec.Time, fin); q.Filter.keepFinished(j, fin) {
			res.Jobs = append(res.Jobs, j)
		}
	}
}

func (f *Filter) keepFinished(j *api.JobRecord, l *JobFinish) bool {
	return f.wantJob(j.JobID, j.Index) && f.wantUser(j.User) &&
		f.wantName(matchName(l.JobName, l.Command)) &&
		f.wantState(j.State, uint32(api.StateDone|api.StateExit)) &&
		inList(f.Queues, j.Queue) && anyIn(f.Hosts, j.ExecHosts) &&
		inList(f.Projects, l.ProjectName) &&
		(f.Completed.IsZero() || f.Completed.Contains(j.EndTime)) &&
		(f.Submitted.IsZero() || f.Submitted.Contains(j.SubmitTime)) &&
		(f.Dispatched.IsZero() || j.StartTime != 0 && f.Dispatched.Contains(j.StartTime))
}

// FinishedJob converts a JOB_FINISH logged at time t into a job record.
func FinishedJob(t int64, l *JobFinish) *api.JobRecord {
	st := api.JobState(l.JStatus) &^ (api.StatePDone | api.StatePErr)
	spec := &api.JobSpec{
		Command: l.Command, JobName: l.JobName, MinProcs: int32(l.NumProcessors),
		MaxProcs: int32(l.MaxNumProcessors), AskedHosts: l.AskedHosts, InFile: l.InFile,
		OutFile: l.OutFile, ErrFile: l.ErrFile, Project: l.ProjectName,
		Dependency: l.DependCond, Exclusive: l.Options&SubExclusive != 0,
		Rerunnable: l.Options&SubRerunnable != 0, BeginTime: l.BeginTime,
		TermTime: l.TermTime, PreExec: l.PreExecCmd, PostExec: l.PostExecCmd,
		LoginShell: l.LoginShell, MailUser: l.MailUser, App: l.App, SLA: l.SLA,
		JobGroup: l.JobGroupName, Description: l.JobDescription,
		WarningAction: l.WarningAction, FromHost: l.FromHost,
	}
	if l.WarningTime > 0 {
		spec.WarningTime = l.WarningTime
	}
	if l.ResReq != "" {
		spec.ResReq = []string{l.ResReq}
	}
	if l.Queue != "" && l.Options&SubQueue != 0 {
		spec.Queues = []string{l.Queue}
	}
	applyExt(spec, l.Cwd, l.Ext)
	if l.SubCwd != "" && spec.SubCwd == l.Cwd && l.SubCwd != l.Cwd {
		spec.Cwd, spec.SubCwd = l.Cwd, l.SubCwd
	}
	if l.RunLimit > 0 || l.RuntimeEstimation > 0 {
		spec.Limits = &api.Limits{Run: max(l.RunLimit, 0)}
		if l.RuntimeEstimation > 0 {
			spec.Limits.RunEstimate = l.RuntimeEstimation
		}
	}
	u := usageOf(&l.Rusage)
	u.MaxMem = max(u.MaxMem, l.MaxRMem)
	u.MaxSwap, u.AvgMem, u.RunTime = max(l.MaxRSwap, 0), max(l.AvgMem, 0), max(l.RunTime, 0)
	name := l.JobName
	if name == "" {
		name = l.Command // LSF shows the command as the name of a job without -J
	}
	if l.Idx > 0 {
		if base := baseOf(name); base != "" {
			name = base + "[" + strconv.FormatInt(l.Idx, 10) + "]"
		}
	}
	term := TermName(l.ExitInfo)
	if v, ok := Lookup(l.Ext, ExtTermReason); ok && term == "" {
		term = v
	}
	execHosts := groupHosts(l.ExecHosts)
	return &api.JobRecord{
		JobID: l.JobID, Index: int32(l.Idx), User: l.UserName, State: st, Queue: l.Queue,
		FromHost: l.FromHost, ExecHosts: execHosts, JobName: name,
		SubmitTime: l.SubmitTime, StartTime: l.StartTime, DispatchTime: l.StartTime,
		EndTime: t, Spec: spec, EffectiveResReq: l.EffectiveResReq,
		ExitStatus: int32(l.ExitStatus), TermReason: term, Usage: u,
		NumSlots: int32(len(l.ExecHosts)), UserGroup: spec.UserGroup,
	}
}

// baseOf returns the name of an array job name ("a[1-10]%2" -> "a"); "" for
// a name without an index list.
func baseOf(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] == '[' {
			return name[:i]
		}
	}
	return ""
}

// matchName is the name -J matches: the job name, an array's name without
// its index list, or the command of a job without -J.
func matchName(jobName, command string) string {
	if jobName == "" {
		return command
	}
	if b := baseOf(jobName); b != "" {
		return b
	}
	return jobName
}

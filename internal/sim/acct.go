package sim

import (
	"context"
	"fmt"
	"sort"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/eventlog"
)

// ReadAcct reads LSF's lsb.acct (the finished jobs of a real cluster, as
// eventlog.ReadAcct reads them for bacct) as a workload: each run's submit
// time, slots, run time (end minus start), run limit (-W) when it had one,
// user and queue. Record N stands for line N in messages. Runs without a
// start (killed while pending) are reported and left out.
func ReadAcct(ctx context.Context, path string) (*Workload, error) {
	res, err := eventlog.ReadAcct(ctx, &eventlog.AcctQuery{Files: []string{path}})
	if err != nil {
		return nil, err
	}
	w := FromAcct(res.Jobs)
	w.Problems = append(res.Warnings, w.Problems...)
	return w, nil
}

// FromAcct makes a workload of finished job records.
func FromAcct(recs []*api.JobRecord) *Workload {
	w := &Workload{}
	var first int64
	for _, r := range recs {
		if r.SubmitTime > 0 && (first == 0 || r.SubmitTime < first) {
			first = r.SubmitTime
		}
	}
	w.UnixStart = first
	for i, r := range recs {
		n := i + 1
		switch {
		case r.SubmitTime <= 0:
			w.Problems = append(w.Problems, &LineError{Line: n, Msg: fmt.Sprintf("job %d: no submit time: not replayed", r.JobID)})
			continue
		case r.StartTime <= 0 || r.EndTime < r.StartTime:
			w.Problems = append(w.Problems, &LineError{Line: n, Msg: fmt.Sprintf("job %d never ran: not replayed", r.JobID)})
			continue
		}
		procs := int(r.NumSlots)
		if procs <= 0 && r.Spec != nil {
			procs = int(r.Spec.MinProcs)
		}
		procs = max(procs, 1)
		j := &Job{Line: n, ID: r.JobID, Submit: r.SubmitTime - first, Wait: r.StartTime - r.SubmitTime, Run: r.EndTime - r.StartTime,
			Procs: procs, ReqTime: -1, Status: 1, User: r.User, Group: "g0", Queue: -1, QueueName: r.Queue}
		if r.State == api.StateExit {
			j.Status = 0
		}
		if r.Spec != nil && r.Spec.Limits != nil && r.Spec.Limits.Run > 0 {
			j.ReqTime = r.Spec.Limits.Run
		}
		w.Jobs = append(w.Jobs, j)
	}
	sort.SliceStable(w.Jobs, func(a, b int) bool { return w.Jobs[a].Submit < w.Jobs[b].Submit })
	return w
}

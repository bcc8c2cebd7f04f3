package sbd

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/sbd/loadsusp"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// loadCheck is the SBD_SLEEP_TIME turn of load- and window-based job
// control (package loadsusp decides; the shepherds act).
func (d *Daemon) loadCheck(ctx context.Context) {
	now := d.cfg.Clock.Now()
	var jobs []loadsusp.Job
	byKey := map[string]*job{}
	for _, j := range d.sorted() {
		if j.status == nil || j.launch == nil || j.final() || j.client == nil {
			continue
		}
		st := j.status.State
		if st != api.StateRun && st != api.StateSSusp && st != api.StateUSusp {
			continue
		}
		lj := loadsusp.Job{Key: j.key, State: st, Reasons: j.status.SuspReasons, Forced: j.launch.Forced,
			Start: j.started.UnixNano(), WindowOpen: true}
		if q := j.launch.Queue; q != nil {
			lj.Priority = int(q.Priority)
			lj.Thresholds = loadsusp.Thresholds(d.cfg.Table, q.Thresholds)
			var err error
			if lj.StopCond, err = loadsusp.Cond(d.cfg.Table, q.StopCond); err != nil {
				d.cfg.Log.Warn("STOP_COND not usable", "queue", q.Name, "err", err)
			}
			if lj.ResumeCond, err = loadsusp.Cond(d.cfg.Table, q.ResumeCond); err != nil {
				d.cfg.Log.Warn("RESUME_COND not usable", "queue", q.Name, "err", err)
			}
			if q.RunWindow != "" {
				if w, err := timewin.Parse(q.RunWindow); err == nil {
					lj.WindowOpen = w.Open(now)
				} else {
					d.cfg.Log.Warn("RUN_WINDOW not usable", "queue", q.Name, "err", err)
				}
			}
			for _, t := range q.TerminateWhen {
				switch t {
				case "WINDOW":
					lj.TerminateOnWindow = true
				case "LOAD":
					lj.TerminateOnLoad = true
				}
			}
		}
		jobs = append(jobs, lj)
		byKey[j.key] = j
	}
	if len(jobs) == 0 {
		return
	}
	host := loadsusp.Host{Thresholds: loadsusp.Thresholds(d.cfg.Table, d.cfg.HostThresholds), PGSuspIT: d.cfg.PGSuspIT,
		Increasing: func(i int) bool { return i < d.cfg.Table.Len() && d.cfg.Table.Def(i).Increasing }}
	if d.cfg.Loads != nil {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		l, err := d.cfg.Loads.Load(lctx)
		cancel()
		if err != nil {
			d.cfg.Log.Warn("load of the host unavailable", "host", d.cfg.Host, "err", err)
		} else {
			host.Load = l
		}
	} else {
		// Without a LIM every index is unknown: no load condition holds,
		// and jobs resumed by their user are resumed.
		host.Load = &resreq.Host{Num: nanVector(d.cfg.Table.Len())}
	}
	allowed := now.Sub(d.lastSusp) >= d.cfg.SleepTime
	for _, a := range loadsusp.Decide(host, jobs, allowed) {
		j := byKey[a.Key]
		switch a.Op {
		case loadsusp.Suspend:
			d.cfg.Log.Info("job suspended", "job", j.key, "reasons", fmt.Sprintf("%#x", a.Reasons), "index", a.Subreason)
			d.shepCommand(j, &sbdwire.Command{Op: sbdwire.OpSuspend, SuspReasons: a.Reasons, SuspSubreason: a.Subreason}, 0)
			if a.Reasons&loadsusp.SuspQueueWindow == 0 {
				d.lastSusp = now
			}
		case loadsusp.Resume:
			d.cfg.Log.Info("job resumed", "job", j.key)
			d.shepCommand(j, &sbdwire.Command{Op: sbdwire.OpResume}, 0)
		case loadsusp.Terminate:
			d.cfg.Log.Info("job terminated", "job", j.key, "reason", a.TermReason)
			d.shepCommand(j, &sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: a.TermReason}, 0)
		}
	}
}

func nanVector(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

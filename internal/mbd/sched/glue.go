package sched

import (
	"math"
	"strconv"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// Pure helpers shared by the two drivers of the scheduler, mbatchd
// (internal/mbd) and the workload simulator (internal/sim): the hosts'
// values, the event of a dispatch, the run a finished job feeds to the
// fairshare history, a started job's run limit.

// HostValues builds a batch host's resreq vector from its configuration and
// the load its LIM reported (num and str in table order; nil, or slices of
// another length, when none is known: load indices then read as an idle
// host's).
func HostValues(tab *resreq.Table, cfg *config.Config, bh *config.BatchHost, num []float64, str []string) *resreq.Host {
	n := tab.Len()
	h := &resreq.Host{Num: make([]float64, n), Str: make([]string, n)}
	if len(num) == n && len(str) == n {
		copy(h.Num, num)
		copy(h.Str, str)
	} else {
		for i := 0; i < n; i++ {
			d := tab.Def(i)
			if !d.Builtin {
				h.Num[i] = math.NaN()
			}
		}
		set := func(name string, v float64) {
			if i, ok := tab.Index(name); ok {
				h.Num[i] = v
			}
		}
		set("server", 1)
		set("it", 1e6)
		set("mem", 1e9)
		set("swp", 1e9)
		set("tmp", 1e9)
		set("maxmem", 1e9)
		set("maxswp", 1e9)
		set("maxtmp", 1e9)
		set("ncpus", 1)
		if m, ok := cfg.Shared.Model(bh.Model); ok {
			set("cpuf", m.CPUFactor)
		}
	}
	setS := func(name, v string) {
		if i, ok := tab.Index(name); ok && h.Str[i] == "" {
			h.Str[i] = v
		}
	}
	setS("type", bh.Type)
	setS("model", bh.Model)
	setS("hname", bh.Name)
	setS("status", "ok")
	if ch := cfg.Cluster.Host(bh.Name); ch != nil {
		for _, r := range ch.Resources {
			i, ok := tab.Index(r.Name)
			if !ok {
				continue
			}
			if r.Value == "" {
				h.Num[i] = 1
			} else if tab.Def(i).Type == resreq.String {
				h.Str[i] = r.Value
			} else if f, err := strconv.ParseFloat(r.Value, 64); err == nil {
				h.Num[i] = f
			}
			if r.Exclusive {
				h.Exclusive = append(h.Exclusive, i)
			}
		}
	}
	return h
}

// StartEvent is the JOB_START event that records d.
func (d *Dispatch) StartEvent() *api.Event {
	return &api.Event{JobStart: &api.EvJobStart{JobID: d.Key.ID, Index: d.Key.Index, ExecHosts: d.Hosts, ExecRusage: d.ExecRusage,
		BackfillLimit: int64(d.RunLimit / time.Second), EffectiveResReq: d.EffectiveResReq}}
}

// FinishedRunOf is the run a finished job feeds to the fairshare history
// (UsageFeed.Finished); false when j has not finished a run.
func FinishedRunOf(j *state.Job) (FinishedRun, bool) {
	if j == nil || !job.Finished(j.State) || j.RunCount == 0 {
		return FinishedRun{}, false
	}
	r := FinishedRun{Key: j.Key, User: j.User, Queue: j.Queue, Start: unixOrZero(j.StartTime), End: unixOrZero(j.EndTime), RunCount: j.RunCount}
	if len(j.ExecHosts) > 0 {
		r.Host = j.ExecHosts[0].Host
	}
	if j.Usage != nil {
		r.CPU = j.Usage.CPUTime
	}
	return r, true
}

func unixOrZero(sec int64) time.Time {
	if sec <= 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0)
}

// RunLimit is a job's run limit as the scheduler predicts with it: -W, else
// its queue's default, else the queue's maximum, and a started
// interruptible backfill job's limit when shorter (0: none).
func RunLimit(j *state.Job, q *config.Queue) time.Duration { return runLimit(j, q) }

package mbd

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/version"
)

type counts struct{ pend, run, ssusp, ususp, rsv int32 }

func (c *counts) add(j *state.Job) {
	n := j.Slots()
	switch j.State {
	case api.StatePend, api.StatePSusp:
		c.pend += n
	case api.StateRun:
		c.run += n
	case api.StateSSusp:
		c.ssusp += n
	case api.StateUSusp:
		c.ususp += n
	}
}

func (c counts) njobs() int32 { return c.pend + c.run + c.ssusp + c.ususp + c.rsv }

func limitOrMinus(n int) int32 {
	if n <= 0 {
		return -1
	}
	return int32(n)
}

// queues answers bqueues.
func (s *Server) queues(ctx context.Context, id auth.Identity, req *api.QueuesRequest) (*api.QueuesReply, error) {
	cfg := s.cfg.Current()
	reply := &api.QueuesReply{}
	per := map[string]*counts{}
	var qs map[string]state.QueueState = map[string]state.QueueState{}
	now := s.clock.Now()
	s.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			if job.Finished(j.State) {
				return true
			}
			c := per[j.Queue]
			if c == nil {
				c = &counts{}
				per[j.Queue] = c
			}
			c.add(j)
			return true
		})
		for _, q := range cfg.Queues {
			qs[q.Name] = v.QueueState(q.Name)
		}
	})
	want := map[string]bool{}
	for _, n := range req.Queues {
		want[n] = true
		if cfg.Queue(n) == nil {
			reply.NotFound = append(reply.NotFound, n)
		}
	}
	for _, q := range cfg.Queues {
		if len(want) > 0 && !want[q.Name] {
			continue
		}
		st := qs[q.Name]
		c := per[q.Name]
		if c == nil {
			c = &counts{}
		}
		qi := &api.QueueInfo{
			Name: q.Name, Priority: int32(q.Priority), Nice: int32(q.Nice), Open: !st.Closed, Active: !st.Inactive,
			InactiveByAdmin: st.Inactive, Max: limitOrMinus(q.QJobLimit), JLU: limitOrMinus(q.UJobLimit),
			JLP: -1, JLH: limitOrMinus(q.HJobLimit), NJobs: c.njobs(), Pend: c.pend, Run: c.run, SSusp: c.ssusp,
			USusp: c.ususp, Rsv: c.rsv, Description: q.Description, Admins: q.Admins, ResReq: q.ResReq.Text, GPUReq: q.GPUReq,
			StopCond: q.StopCond.Text, ResumeCond: q.ResumeCond.Text, SlotPool: q.SlotPool, SlotShare: int32(q.SlotShare),
			JobStarter: q.JobStarter, PreExec: q.PreExec, PostExec: q.PostExec, Mig: int32(q.Mig),
			ProcLimitMin: int32(q.Limits.Proc.Min), ProcLimitDefault: int32(q.Limits.Proc.Default), ProcLimitMax: int32(q.Limits.Proc.Max),
		}
		if q.PJobLimit > 0 {
			qi.JLP = q.PJobLimit
		}
		if q.Fairshare != nil {
			var us []string
			for _, a := range q.Fairshare {
				us = append(us, fmt.Sprintf("[%s, %d]", a.Name, a.Shares))
			}
			qi.UserShares = strings.Join(us, " ")
			qi.Shares = s.queueShares(q.Name)
			if qi.Shares == nil {
				// No pass has published the accounts yet: the configured shares.
				qi.Shares = shareAccounts(q.Fairshare)
			}
		}
		if !q.RunWindow.Always() {
			qi.RunWindow = q.RunWindow.String()
			if !q.RunWindow.Open(now) {
				qi.Active, qi.InactiveByWindow = false, true
			}
		}
		if !q.DispatchWindow.Always() {
			qi.DispatchWindow = q.DispatchWindow.String()
			if !q.DispatchWindow.Open(now) {
				qi.Active, qi.InactiveByWindow = false, true
			}
		}
		for _, t := range q.Thresholds {
			qi.Thresholds = append(qi.Thresholds, threshold(t))
		}
		if q.Users.All || len(q.Users.Names) == 0 {
			qi.Users = []string{"all"}
		} else {
			qi.Users = q.Users.Names
		}
		if q.Hosts == nil {
			qi.Hosts = []string{"all"}
		} else {
			for _, hs := range q.HostSpec {
				name := hs.Name
				if hs.Exclude {
					name = "~" + name
				}
				if hs.Pref > 0 {
					name += "+" + strconv.Itoa(hs.Pref)
				}
				qi.Hosts = append(qi.Hosts, name)
			}
		}
		qi.SchedulingPolicies = strings.Join(queuePolicies(q), " ")
		qi.DefaultLimits, qi.MaxLimits = limitsInfo(q.Limits)
		for _, kv := range q.Raw {
			qi.Params = append(qi.Params, &api.KeyValue{Key: kv.Key, Value: kv.Value})
		}
		reply.Queues = append(reply.Queues, qi)
	}
	return reply, nil
}

// queuePolicies are the words of bqueues -l's SCHEDULING POLICIES line
// for a queue, in LSF's order.
func queuePolicies(q *config.Queue) []string {
	var pol []string
	if q.Fairshare != nil {
		pol = append(pol, "FAIRSHARE")
	}
	if q.Preemption.Preemptive {
		pol = append(pol, "PREEMPTIVE")
	}
	if q.Preemption.Preemptable {
		pol = append(pol, "PREEMPTABLE")
	}
	if q.Exclusive {
		pol = append(pol, "EXCLUSIVE")
	}
	if q.Backfill {
		pol = append(pol, "BACKFILL")
	}
	if q.InterruptibleBackfill > 0 {
		pol = append(pol, "INTERRUPTIBLE_BACKFILL")
	}
	return pol
}

func limitsInfo(l config.ResourceLimits) (def, max *api.Limits) {
	def, max = &api.Limits{}, &api.Limits{}
	def.Run, max.Run = int64(l.Run.Default.Seconds()), int64(l.Run.Max.Seconds())
	def.CPU, max.CPU = int64(l.CPU.Default.Seconds()), int64(l.CPU.Max.Seconds())
	sz := func(d, m *int64, s config.SizeLimit) {
		if s.Set {
			*d, *m = s.Default, s.Max
		}
	}
	sz(&def.Mem, &max.Mem, l.Mem)
	sz(&def.Data, &max.Data, l.Data)
	sz(&def.Process, &max.Process, l.Process)
	sz(&def.Thread, &max.Thread, l.Thread)
	sz(&def.File, &max.File, l.File)
	sz(&def.Stack, &max.Stack, l.Stack)
	sz(&def.Core, &max.Core, l.Core)
	sz(&def.Swap, &max.Swap, l.Swap)
	max.CoreZero = l.Core.Zero()
	return def, max
}

// hostsInfo answers bhosts.
func (s *Server) hostsInfo(ctx context.Context, id auth.Identity, req *api.HostsRequest) (*api.HostsReply, error) {
	cfg := s.cfg.Current()
	reply := &api.HostsReply{}
	want := map[string]bool{}
	for _, n := range req.Hosts {
		m := expandHostName(cfg, n)
		if len(m) == 0 {
			reply.NotFound = append(reply.NotFound, n)
		}
		for _, h := range m {
			want[h] = true
		}
	}
	now := s.clock.Now()
	s.st.View(func(v *state.View) {
		hosts := s.schedHosts(cfg, v)
		for _, h := range hosts {
			if len(req.Hosts) > 0 && !want[h.Name] {
				continue // names given, none of them this host (or none known)
			}
			hi := &api.HostInfo{Name: h.Name, JLU: limitOrMinus(h.Cfg.JLU), Max: int32(h.MaxSlots), Type: h.Type, Model: h.Model, NCPUs: int32(h.NCPUs)}
			if h.MaxSlots < 0 {
				hi.Max = -1
			}
			hi.GPUs = hostGPUs(h, v)
			if m, ok := cfg.Shared.Model(h.Model); ok {
				hi.CPUF = m.CPUFactor
			}
			var c counts
			excl := false
			v.OnHost(h.Name, func(j *state.Job) bool {
				for _, eh := range j.ExecHosts {
					if eh.Host != h.Name {
						continue
					}
					n := eh.Slots
					switch j.State {
					case api.StateRun:
						c.run += n
					case api.StateSSusp:
						c.ssusp += n
					case api.StateUSusp:
						c.ususp += n
					}
				}
				if j.Spec.Exclusive {
					excl = true
				}
				return true
			})
			hi.Run, hi.SSusp, hi.USusp, hi.NJobs = c.run, c.ssusp, c.ususp, c.run+c.ssusp+c.ususp
			hi.Status = h.Status
			if hs := v.HostState(h.Name); hs.Closed {
				hi.Comment = hs.Comment
				hi.StatusTime = hs.Time
			}
			if hi.Status == "ok" {
				switch {
				case excl:
					hi.Status = "closed_Excl"
				case h.Cfg.DispatchWindow.String() != "" && !h.Cfg.DispatchWindow.Always() && !h.Cfg.DispatchWindow.Open(now):
					hi.Status = "closed_Wind"
				case h.MaxSlots >= 0 && int(hi.NJobs) >= h.MaxSlots:
					hi.Status = "closed_Full"
				}
			}
			if !h.Cfg.DispatchWindow.Always() {
				hi.DispatchWindow = h.Cfg.DispatchWindow.String()
			}
			for _, t := range h.Cfg.Thresholds {
				hi.Thresholds = append(hi.Thresholds, threshold(t))
			}
			rsv := s.hostReservation(h.Name)
			if rsv != nil {
				hi.Rsv = int32(rsv.Slots)
				hi.NJobs += hi.Rsv
			}
			hi.Load = hostLoadRows(cfg.ResourceTable(), h.Values, rsv)
			reply.Hosts = append(reply.Hosts, hi)
		}
	})
	return reply, nil
}

// users answers busers.
func (s *Server) users(ctx context.Context, id auth.Identity, req *api.UsersRequest) (*api.UsersReply, error) {
	cfg := s.cfg.Current()
	reply := &api.UsersReply{}
	per := map[string]*counts{}
	s.st.View(func(v *state.View) {
		// Users of finished jobs still in the system are known users too
		// (busers all lists them, with nothing counted), as in LSF.
		v.Jobs(func(j *state.Job) bool {
			c := per[j.User]
			if c == nil {
				c = &counts{}
				per[j.User] = c
			}
			if !job.Finished(j.State) {
				c.add(j)
			}
			return true
		})
	})
	names := req.Users
	if len(names) == 0 {
		names = []string{id.User}
	}
	if len(names) == 1 && names[0] == "all" {
		names = nil
		seen := map[string]bool{}
		for u := range per {
			seen[u] = true
		}
		if cfg.Users != nil {
			for _, l := range cfg.Users.Users {
				if l.Name != "default" {
					seen[l.Name] = true
				}
			}
		}
		for u := range seen {
			names = append(names, u)
		}
		sortStrings(names)
	}
	for _, n := range names {
		ui := &api.UserInfo{Name: n, JLP: -1, Max: -1, MaxPend: -1}
		g := cfg.UserGroup(n)
		members := []string{n}
		if g != nil {
			ui.Group = true
			members = g.Members
		}
		var c counts
		for _, m := range members {
			if pc := per[m]; pc != nil {
				c.pend += pc.pend
				c.run += pc.run
				c.ssusp += pc.ssusp
				c.ususp += pc.ususp
			}
		}
		ui.Pend, ui.Run, ui.SSusp, ui.USusp, ui.NJobs = c.pend, c.run, c.ssusp, c.ususp, c.njobs()
		if cfg.Users != nil {
			l := cfg.Users.Limit(n, false)
			if l == nil {
				l = cfg.Users.Limit("default", false)
			}
			if l != nil {
				ui.Max = int32(l.MaxJobs)
				if l.JLP > 0 {
					ui.JLP = l.JLP
				}
				ui.MaxPend = int32(l.MaxPendJobs)
			}
		}
		reply.Users = append(reply.Users, ui)
	}
	return reply, nil
}

// groups answers bugroup and bmgroup.
func (s *Server) groups(ctx context.Context, id auth.Identity, req *api.GroupsRequest) (*api.GroupsReply, error) {
	cfg := s.cfg.Current()
	reply := &api.GroupsReply{}
	want := map[string]bool{}
	for _, n := range req.Names {
		want[n] = true
	}
	found := map[string]bool{}
	if req.HostGroups {
		if cfg.LSBHosts != nil {
			for _, g := range cfg.LSBHosts.Groups {
				if len(want) > 0 && !want[g.Name] {
					continue
				}
				found[g.Name] = true
				members := g.Spec
				if req.Recursive {
					members = g.Members
				}
				reply.Groups = append(reply.Groups, &api.Group{Name: g.Name, Members: members, Admins: g.Admins})
			}
		}
	} else if cfg.Users != nil {
		for _, g := range cfg.Users.Groups {
			if len(want) > 0 && !want[g.Name] {
				continue
			}
			found[g.Name] = true
			var members []string
			if req.Recursive || g.All {
				members = g.Members
				if g.All {
					members = []string{"all"}
				}
			} else {
				for _, m := range g.Spec {
					if cfg.UserGroup(m) != nil {
						m += "/"
					}
					members = append(members, m)
				}
			}
			grp := &api.Group{Name: g.Name, Members: members, Admins: g.Admins, Shares: shareAccounts(g.Shares)}
			reply.Groups = append(reply.Groups, grp)
		}
	}
	for _, n := range req.Names {
		if !found[n] {
			reply.NotFound = append(reply.NotFound, n)
		}
	}
	return reply, nil
}

// params answers bparams and badmin showconf mbd.
func (s *Server) params(ctx context.Context, id auth.Identity, req *api.ParamsRequest) (*api.ParamsReply, error) {
	cfg := s.cfg.Current()
	p := cfg.Params
	secs := func(d time.Duration) string { return strconv.Itoa(int(d.Seconds())) }
	kv := []*api.KeyValue{
		{Key: "DEFAULT_QUEUE", Value: strings.Join(cfg.DefaultQueues(), " ")},
		{Key: "DEFAULT_PROJECT", Value: p.DefaultProject},
		{Key: "MBD_SLEEP_TIME", Value: secs(p.MBDSleepTime)},
		{Key: "SBD_SLEEP_TIME", Value: secs(p.SBDSleepTime)},
		{Key: "JOB_ACCEPT_INTERVAL", Value: strconv.Itoa(p.JobAcceptInterval)},
		{Key: "MAX_JOB_NUM", Value: strconv.Itoa(p.MaxJobNum)},
		{Key: "MAX_JOBID", Value: strconv.Itoa(p.MaxJobID)},
		{Key: "CLEAN_PERIOD", Value: secs(p.CleanPeriod)},
		{Key: "MAX_SBD_FAIL", Value: strconv.Itoa(p.MaxSBDFail)},
		{Key: "JOB_TERMINATE_INTERVAL", Value: secs(p.JobTerminateInterval)},
		{Key: "MAX_JOB_ARRAY_SIZE", Value: strconv.Itoa(p.MaxJobArraySize)},
		{Key: "PG_SUSP_IT", Value: secs(p.PGSuspIT)},
		{Key: "CPU_TIME_FACTOR", Value: fmtFloat(p.CPUTimeFactor)},
		{Key: "RUN_TIME_FACTOR", Value: fmtFloat(p.RunTimeFactor)},
		{Key: "RUN_JOB_FACTOR", Value: fmtFloat(p.RunJobFactor)},
		{Key: "HIST_HOURS", Value: fmtFloat(p.HistHours)},
	}
	if p.MaxUserPriority > 0 {
		kv = append(kv, &api.KeyValue{Key: "MAX_USER_PRIORITY", Value: strconv.Itoa(p.MaxUserPriority)})
	}
	if p.MaxJobPreempt > 0 {
		kv = append(kv, &api.KeyValue{Key: "MAX_JOB_PREEMPT", Value: strconv.Itoa(p.MaxJobPreempt)})
	}
	if len(p.PreemptFor) > 0 {
		kv = append(kv, &api.KeyValue{Key: "PREEMPT_FOR", Value: strings.Join(p.PreemptFor, " ")})
	}
	if p.ParallelSchedBySlot {
		kv = append(kv, &api.KeyValue{Key: "PARALLEL_SCHED_BY_SLOT", Value: "Y"})
	}
	seen := map[string]bool{}
	for _, x := range kv {
		seen[x.Key] = true
	}
	for _, r := range p.Raw {
		if !seen[r.Key] {
			kv = append(kv, &api.KeyValue{Key: r.Key, Value: r.Value})
		}
	}
	return &api.ParamsReply{Params: kv}, nil
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// info answers lsid and lsclusters as far as mbatchd knows.
func (s *Server) info(ctx context.Context, id auth.Identity, req *api.InfoRequest) (*api.InfoReply, error) {
	cfg := s.cfg.Current()
	return &api.InfoReply{Cluster: cfg.ClusterName(), Master: s.opts.Host, Admins: cfg.Admins(),
		NumHosts: int32(len(cfg.Cluster.Hosts)), NumServers: int32(len(cfg.BatchHosts)), Version: version.Version,
		StartTime: s.start.Unix()}, nil
}

// admin answers badmin's queue, host and reconfiguration operations.
func (s *Server) admin(ctx context.Context, id auth.Identity, req *api.AdminRequest) (*api.AdminReply, error) {
	cfg := s.cfg.Current()
	reply := &api.AdminReply{}
	switch req.Op {
	case api.AdminReconfig, api.AdminMbdRestart:
		if !s.isAdmin(id, cfg) {
			reply.Status = &api.Status{Code: int32(lsberr.Permission), Message: lsberr.Permission.Text()}
			return reply, nil
		}
		if err := s.cfg.Reload(ctx); err != nil {
			reply.Status = &api.Status{Code: int32(lsberr.BadArg), Message: err.Error()}
			return reply, nil
		}
		if err := s.propose(ctx, &api.Event{User: id.User, Reconfig: &api.EvReconfig{}}); err != nil {
			return nil, err
		}
		s.status.reconfigured(s.clock.Now()) // showstatus.go
		s.poke()
		return reply, nil
	case api.AdminQOpen, api.AdminQClose, api.AdminQAct, api.AdminQInact:
		op := map[api.AdminOp]int32{api.AdminQOpen: api.QueueOpen, api.AdminQClose: api.QueueClose,
			api.AdminQAct: api.QueueActivate, api.AdminQInact: api.QueueInactivate}[req.Op]
		targets := req.Targets
		if len(targets) == 0 || len(targets) == 1 && targets[0] == "all" {
			targets = nil
			for _, q := range cfg.Queues {
				targets = append(targets, q.Name)
			}
		}
		for _, qn := range targets {
			r := &api.AdminResult{Target: qn}
			reply.Results = append(reply.Results, r)
			switch {
			case cfg.Queue(qn) == nil:
				r.Status = &api.Status{Code: int32(lsberr.BadQueue), Message: lsberr.BadQueue.Text()}
			case !s.isQueueAdmin(id, cfg, qn):
				r.Status = &api.Status{Code: int32(lsberr.Permission), Message: lsberr.Permission.Text()}
			default:
				if err := s.propose(ctx, &api.Event{User: id.User, UID: int32(id.UID), QueueCtrl: &api.EvQueueCtrl{Queue: qn, Op: op, Message: req.Message}}); err != nil {
					return nil, err
				}
			}
		}
	case api.AdminHOpen, api.AdminHClose:
		op := int32(api.HostOpen)
		if req.Op == api.AdminHClose {
			op = api.HostClose
		}
		for _, h := range adminHosts(cfg, req.Targets, reply) {
			r := &api.AdminResult{Target: h}
			reply.Results = append(reply.Results, r)
			if !s.isAdmin(id, cfg) {
				r.Status = &api.Status{Code: int32(lsberr.Permission), Message: lsberr.Permission.Text()}
				continue
			}
			if err := s.propose(ctx, &api.Event{User: id.User, UID: int32(id.UID), HostCtrl: &api.EvHostCtrl{Host: h, Op: op, Message: req.Message}}); err != nil {
				return nil, err
			}
		}
	case api.AdminHShutdown, api.AdminHRestart:
		s.sbdControl(ctx, id, cfg, req, reply)
	default:
		return nil, fmt.Errorf("unknown admin operation %d", req.Op)
	}
	s.poke()
	return reply, nil
}

// adminHosts expands badmin's host operands (none or "all": every batch
// host; host groups); a name that is no host gets its result in reply.
func adminHosts(cfg *config.Config, names []string, reply *api.AdminReply) []string {
	var hosts []string
	if len(names) == 0 || len(names) == 1 && names[0] == "all" {
		for _, h := range cfg.BatchHosts {
			hosts = append(hosts, h.Name)
		}
		return hosts
	}
	for _, t := range names {
		m := expandHostName(cfg, t)
		if len(m) == 0 {
			reply.Results = append(reply.Results, &api.AdminResult{Target: t,
				Status: &api.Status{Code: int32(lsberr.BadHost), Message: lsberr.BadHost.Text()}})
		}
		hosts = append(hosts, m...)
	}
	return hosts
}

// sbdControl asks the sbatchd of each host named (all: every batch host)
// to shut down or restart (badmin hshutdown, hrestart); the result is its
// acknowledgement. Jobs run on under their shepherds either way.
func (s *Server) sbdControl(ctx context.Context, id auth.Identity, cfg *config.Config, req *api.AdminRequest, reply *api.AdminReply) {
	targets := adminHosts(cfg, req.Targets, reply)
	ctl := &api.SbdControl{Shutdown: req.Op == api.AdminHShutdown, Restart: req.Op == api.AdminHRestart}
	for _, h := range targets {
		r := &api.AdminResult{Target: h}
		reply.Results = append(reply.Results, r)
		if !s.isAdmin(id, cfg) {
			r.Status = &api.Status{Code: int32(lsberr.Permission), Message: lsberr.Permission.Text()}
			continue
		}
		sess := s.sess.get(h)
		if sess == nil {
			r.Status = &api.Status{Code: int32(lsberr.NotRunning), Message: "Slave batch daemon (sbatchd) is unreachable now"}
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		ack, err := sess.call(cctx, &api.MbdMessage{Control: ctl})
		cancel()
		switch {
		case err != nil:
			r.Status = &api.Status{Code: int32(lsberr.NotRunning), Message: "Slave batch daemon (sbatchd) is unreachable now"}
		case ack.Status != nil && ack.Status.Code != 0:
			r.Status = ack.Status
		default:
			s.log.Warn("sbatchd control", "host", h, "shutdown", ctl.Shutdown, "restart", ctl.Restart, "by", id.User)
		}
	}
}

func sortStrings(a []string) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// builtinLoad are the load indices bhosts -l shows, in LSF's order.
var builtinLoad = []string{"r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem"}

// hostLoadRows is bhosts -l's CURRENT LOAD USED FOR SCHEDULING: the built-in
// indices and the host's dynamic external ones, each with what is reserved
// on it (rsv) and the total the scheduler sees: the load plus the reserved
// amount for an increasing index, minus it for a decreasing one.
func hostLoadRows(tab *resreq.Table, vals *resreq.Host, rsv *sched.HostReservation) []*api.LoadValue {
	reserved := map[string]float64{}
	if rsv != nil {
		for _, r := range rsv.Resources {
			reserved[r.Index] += r.Amount
		}
	}
	names := append([]string(nil), builtinLoad...)
	for i := 0; i < tab.Len(); i++ {
		d := tab.Def(i)
		if d.Interval > 0 && d.Type == resreq.Numeric && !slices.Contains(builtinLoad, d.Name) && vals != nil && i < len(vals.Num) && !math.IsNaN(vals.Num[i]) {
			names = append(names, d.Name)
		}
	}
	var out []*api.LoadValue
	for _, n := range names {
		lv := &api.LoadValue{Index: n, Reserved: reserved[n]}
		if i, ok := tab.Index(n); ok && vals != nil && i < len(vals.Num) && !math.IsNaN(vals.Num[i]) {
			lv.HasValue = true
			if tab.Def(i).Increasing {
				lv.Total = vals.Num[i] + lv.Reserved
			} else {
				lv.Total = vals.Num[i] - lv.Reserved
			}
		}
		out = append(out, lv)
	}
	return out
}

// shareAccounts are configured share assignments as accounts with no usage.
func shareAccounts(shares []config.ShareAssignment) []*api.ShareAccount {
	var out []*api.ShareAccount
	for _, a := range shares {
		out = append(out, &api.ShareAccount{Name: a.Name, Shares: int32(a.Shares)})
	}
	return out
}

package mbd

import (
	"context"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// specField copies one bsub option's value from src to dst (set) or clears
// it in dst (reset).
type specField func(dst, src *api.JobSpec, reset bool)

func limitsOf(s *api.JobSpec) *api.Limits {
	if s.Limits == nil {
		s.Limits = &api.Limits{}
	}
	return s.Limits
}

func srcLimits(s *api.JobSpec) *api.Limits {
	if s.Limits == nil {
		return &api.Limits{}
	}
	return s.Limits
}

// bmodFields maps bsub/bmod option names to the fields they change. The
// reset form of option X is "Xn".
var bmodFields = map[string]specField{
	"q": func(d, s *api.JobSpec, r bool) { d.Queues = pick(r, nil, s.Queues) },
	"R": func(d, s *api.JobSpec, r bool) { d.ResReq = pick(r, nil, s.ResReq) },
	"n": func(d, s *api.JobSpec, r bool) {
		d.MinProcs, d.MaxProcs = pick(r, 0, s.MinProcs), pick(r, 0, s.MaxProcs)
	},
	"m":  func(d, s *api.JobSpec, r bool) { d.AskedHosts = pick(r, nil, s.AskedHosts) },
	"J":  func(d, s *api.JobSpec, r bool) { d.JobName = pick(r, "", s.JobName) },
	"Jd": func(d, s *api.JobSpec, r bool) { d.Description = pick(r, "", s.Description) },
	"W": func(d, s *api.JobSpec, r bool) {
		limitsOf(d).Run, limitsOf(d).RunHost = pick(r, 0, srcLimits(s).Run), pick(r, "", srcLimits(s).RunHost)
	},
	"c": func(d, s *api.JobSpec, r bool) {
		limitsOf(d).CPU, limitsOf(d).CPUHost = pick(r, 0, srcLimits(s).CPU), pick(r, "", srcLimits(s).CPUHost)
	},
	"M": func(d, s *api.JobSpec, r bool) { limitsOf(d).Mem = pick(r, 0, srcLimits(s).Mem) },
	"v": func(d, s *api.JobSpec, r bool) { limitsOf(d).Swap = pick(r, 0, srcLimits(s).Swap) },
	"C": func(d, s *api.JobSpec, r bool) {
		limitsOf(d).Core, limitsOf(d).CoreZero = pick(r, 0, srcLimits(s).Core), pick(r, false, srcLimits(s).CoreZero)
	},
	"D":   func(d, s *api.JobSpec, r bool) { limitsOf(d).Data = pick(r, 0, srcLimits(s).Data) },
	"F":   func(d, s *api.JobSpec, r bool) { limitsOf(d).File = pick(r, 0, srcLimits(s).File) },
	"S":   func(d, s *api.JobSpec, r bool) { limitsOf(d).Stack = pick(r, 0, srcLimits(s).Stack) },
	"p":   func(d, s *api.JobSpec, r bool) { limitsOf(d).Process = pick(r, 0, srcLimits(s).Process) },
	"T":   func(d, s *api.JobSpec, r bool) { limitsOf(d).Thread = pick(r, 0, srcLimits(s).Thread) },
	"o":   func(d, s *api.JobSpec, r bool) { d.OutFile, d.OutOverwrite = pick(r, "", s.OutFile), false },
	"oo":  func(d, s *api.JobSpec, r bool) { d.OutFile, d.OutOverwrite = pick(r, "", s.OutFile), !r },
	"e":   func(d, s *api.JobSpec, r bool) { d.ErrFile, d.ErrOverwrite = pick(r, "", s.ErrFile), false },
	"eo":  func(d, s *api.JobSpec, r bool) { d.ErrFile, d.ErrOverwrite = pick(r, "", s.ErrFile), !r },
	"i":   func(d, s *api.JobSpec, r bool) { d.InFile = pick(r, "", s.InFile) },
	"P":   func(d, s *api.JobSpec, r bool) { d.Project = pick(r, "", s.Project) },
	"G":   func(d, s *api.JobSpec, r bool) { d.UserGroup = pick(r, "", s.UserGroup) },
	"w":   func(d, s *api.JobSpec, r bool) { d.Dependency = pick(r, "", s.Dependency) },
	"E":   func(d, s *api.JobSpec, r bool) { d.PreExec = pick(r, "", s.PreExec) },
	"Ep":  func(d, s *api.JobSpec, r bool) { d.PostExec = pick(r, "", s.PostExec) },
	"b":   func(d, s *api.JobSpec, r bool) { d.BeginTime = pick(r, 0, s.BeginTime) },
	"t":   func(d, s *api.JobSpec, r bool) { d.TermTime = pick(r, 0, s.TermTime) },
	"x":   func(d, s *api.JobSpec, r bool) { d.Exclusive = !r && s.Exclusive },
	"r":   func(d, s *api.JobSpec, r bool) { d.Rerunnable, d.NotRerunnable = !r, r },
	"sp":  func(d, s *api.JobSpec, r bool) { d.UserPriority = pick(r, 0, s.UserPriority) },
	"u":   func(d, s *api.JobSpec, r bool) { d.MailUser = pick(r, "", s.MailUser) },
	"B":   func(d, s *api.JobSpec, r bool) { d.NotifyBegin = !r },
	"N":   func(d, s *api.JobSpec, r bool) { d.NotifyEnd = !r },
	"L":   func(d, s *api.JobSpec, r bool) { d.LoginShell = pick(r, "", s.LoginShell) },
	"cwd": func(d, s *api.JobSpec, r bool) { d.Cwd = pick(r, "", s.Cwd) },
	"app": func(d, s *api.JobSpec, r bool) { d.App = pick(r, "", s.App) },
	"ar":  func(d, s *api.JobSpec, r bool) { d.AutoResizable = !r },
	"rnc": func(d, s *api.JobSpec, r bool) { d.ResizeNotifyCmd = pick(r, "", s.ResizeNotifyCmd) },
}

// runningModifiable are the options bmod may change on a started job.
var runningModifiable = map[string]bool{"c": true, "M": true, "W": true, "o": true, "oo": true, "e": true, "eo": true, "r": true,
	"ar": true, "rnc": true}

func pick[T any](reset bool, zero, v T) T {
	if reset {
		return zero
	}
	return v
}

// modify answers bmod.
func (s *Server) modify(ctx context.Context, id auth.Identity, req *api.ModifyRequest) (*api.ControlReply, error) {
	cfg := s.cfg.Current()
	reply := &api.ControlReply{}
	res := &api.ControlResult{Job: req.Job}
	reply.Results = []*api.ControlResult{res}
	if req.Job == nil {
		res.Status = lsbStatus(lsberr.New(lsberr.BadJobID))
		return reply, nil
	}
	var ev *api.Event
	var err error
	s.st.View(func(v *state.View) {
		k := state.Key{ID: req.Job.JobID, Index: req.Job.Index}
		j := v.Job(k)
		if j == nil && k.Index == 0 {
			// A whole array: its first unfinished element stands for it.
			var first *state.Job
			v.Elements(k.ID, func(e *state.Job) bool {
				if first == nil {
					first = e
				}
				if !job.Finished(e.State) {
					j = e
					return false
				}
				return true
			})
			if j == nil {
				j = first
			}
		}
		if j == nil {
			err = lsberr.New(lsberr.NoJob)
			return
		}
		if !s.mayControlJob(id, cfg, j.User, j.Queue) {
			err = lsberr.New(lsberr.Permission)
			return
		}
		if job.Finished(j.State) {
			err = lsberr.New(lsberr.JobFinished)
			return
		}
		if limit, ok := arrayLimitOnly(req); ok {
			// bmod -J "%limit" of a whole array: its running element
			// limit, whatever state its elements are in.
			switch {
			case j.Array == nil || req.Job.Index != 0:
				err = lsberr.New(lsberr.NoArray)
			case limit < 0:
				err = lsberr.Errorf(lsberr.BadArg, "%s: Bad job array limit", req.Spec.JobName)
			default:
				ev = &api.Event{User: id.User, UID: int32(id.UID), JobModify: &api.EvJobModify{JobID: j.ID,
					SetArrayLimit: true, ArrayLimit: int32(limit)}}
			}
			return
		}
		started := job.Started(j.State)
		spec := *j.Spec.Full()
		if spec.Limits != nil {
			l := *spec.Limits
			spec.Limits = &l
		}
		src := req.Spec
		if src == nil {
			src = &api.JobSpec{}
		}
		for _, opt := range req.Set {
			f := bmodFields[opt]
			if f == nil {
				err = lsberr.Errorf(lsberr.BadArg, "-%s: option cannot be modified", opt)
				return
			}
			if started && !runningModifiable[opt] {
				err = lsberr.New(lsberr.RunningModify)
				return
			}
			if opt == "J" && j.Array != nil {
				err = lsberr.New(lsberr.ArrayRename)
				return
			}
			f(&spec, src, false)
		}
		for _, opt := range req.Reset {
			base := opt[:len(opt)-1]
			f := bmodFields[base]
			if len(opt) < 2 || opt[len(opt)-1] != 'n' || f == nil {
				err = lsberr.Errorf(lsberr.BadArg, "-%s: unknown reset option", opt)
				return
			}
			if started && !runningModifiable[base] {
				err = lsberr.New(lsberr.RunningModify)
				return
			}
			f(&spec, src, true)
		}
		owner := auth.Identity{User: j.User, UID: int(j.UID)}
		if started {
			// bmod -ar, -arn, -rnc, -rncn of a running job: what bsub
			// would refuse is refused (a pending job is validated whole).
			if err = checkResizable(&spec, parsedReq(cfg, spec.ResReq)); err != nil {
				return
			}
			ev = &api.Event{User: id.User, UID: int32(id.UID), JobModify: &api.EvJobModify{JobID: j.ID, Index: req.Job.Index, Spec: &spec}}
			return
		}
		// A pending job is re-validated as a new submission would be.
		if j.Array != nil {
			spec.JobName = j.Name + "[" + j.Array.Spec + "]"
			if j.Array.Limit > 0 {
				spec.JobName += "%" + itoa(int(j.Array.Limit))
			}
		}
		var sub *api.Event
		sub, err = s.validate(v, cfg, owner, &spec, &api.SubmitResult{})
		if err != nil {
			return
		}
		n := sub.JobNew
		if len(req.Set) == 0 || !contains(req.Set, "q") {
			n.Queue = j.Queue
		}
		ev = &api.Event{User: id.User, UID: int32(id.UID), JobModify: &api.EvJobModify{JobID: j.ID, Index: req.Job.Index,
			Spec: &spec, Queue: n.Queue, JobName: n.JobName, Project: n.Project, PendingOnly: pendingOnly(req)}}
	})
	if err != nil {
		res.Status = lsbStatus(err)
		return reply, nil
	}
	if perr := s.propose(ctx, ev); perr != nil {
		res.Status = lsbStatus(perr)
	}
	s.poke()
	return reply, nil
}

// pendingOnly reports whether req changes an option only a pending job may
// have changed.
func pendingOnly(req *api.ModifyRequest) bool {
	for _, o := range req.Set {
		if !runningModifiable[o] {
			return true
		}
	}
	for _, o := range req.Reset {
		if !runningModifiable[strings.TrimSuffix(o, "n")] {
			return true
		}
	}
	return false
}

// arrayLimitOnly reports whether req is bmod -J "%limit" and nothing else,
// with the limit (-1 when it is not a positive number).
func arrayLimitOnly(req *api.ModifyRequest) (int, bool) {
	if len(req.Set) != 1 || req.Set[0] != "J" || len(req.Reset) > 0 || req.Spec == nil ||
		!strings.HasPrefix(req.Spec.JobName, "%") {
		return 0, false
	}
	n, err := strconv.Atoi(req.Spec.JobName[1:])
	if err != nil || n < 1 {
		return -1, true
	}
	return n, true
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

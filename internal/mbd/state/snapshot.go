package state

import (
	"bufio"
	"fmt"
	"io"
	"slices"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/job"
)

const snapVersion = 1

// Snapshot encodes the whole state as of the last entry applied (whose
// index it returns). It encodes an immutable view: entries apply meanwhile.
func (s *State) Snapshot() ([]byte, uint64) {
	v := s.Latest()
	return v.Encode(), v.Applied()
}

// Encode encodes the view as a snapshot for Restore.
func (v *View) Encode() []byte {
	t := v.s
	var b []byte
	put := func(r *api.SnapRecord) {
		b = wire.AppendVarint(b, uint64(r.SizeWire()))
		b = r.AppendWire(b)
	}
	meta := &api.SnapMeta{Version: snapVersion, NextJobID: t.lastJobID + 1, LastOrder: t.lastOrder,
		Finished: t.finished, MasterStart: t.masterStart, Jobs: int64(t.jobs.n), SubmitKeys: t.snapKeys(), Applied: t.applied,
		JobGroups: t.snapGroups(), Rsvs: t.snapRsvs()}
	for _, name := range sortedKeys(t.queues.m) {
		q := t.queues.m[name]
		meta.Queues = append(meta.Queues, &api.SnapQueue{Name: name, Closed: q.Closed, Inactive: q.Inactive})
	}
	for _, name := range sortedKeys(t.hosts.m) {
		h := t.hosts.m[name]
		meta.Hosts = append(meta.Hosts, &api.SnapHost{Name: name, Closed: h.Closed, Comment: h.Comment, Time: h.Time})
	}
	put(&api.SnapRecord{Meta: meta})
	keys := make([]Key, 0, t.jobs.n)
	envs := map[int64][]string{} // the interned environments in use
	t.jobs.each(func(k Key, j *Job) bool {
		keys = append(keys, k)
		if ref := j.Spec.ref; ref != 0 {
			envs[ref] = j.Spec.Env
		}
		return true
	})
	sortKeys(keys)
	// Environments and specs in a stable order (by reference).
	refs := make([]int64, 0, len(envs))
	for ref := range envs {
		refs = append(refs, ref)
	}
	slices.Sort(refs)
	for _, ref := range refs {
		put(&api.SnapRecord{Env: &api.SnapEnv{Ref: ref, Env: envs[ref]}})
	}
	specRef := map[*Spec]int64{}
	var next int64
	arraysDone := map[int64]bool{}
	for _, k := range keys {
		j, _ := t.jobs.get(k)
		ref, ok := specRef[j.Spec]
		if !ok {
			next++
			ref = next
			specRef[j.Spec] = ref
			sp := j.Spec.Full()
			sp.Env = nil
			put(&api.SnapRecord{Spec: &api.SnapSpec{Ref: ref, Spec: sp, EnvRef: j.Spec.ref}})
		}
		if j.Array != nil && !arraysDone[j.ID] {
			arraysDone[j.ID] = true
			a := j.Array
			put(&api.SnapRecord{Array: &api.SnapArray{JobID: a.ID, Spec: a.Spec, Limit: a.Limit, Indices: a.Indices}})
		}
		put(&api.SnapRecord{Job: snapJob(j, ref)})
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func snapJob(j *Job, specRef int64) *api.SnapJob {
	sj := &api.SnapJob{
		JobID: j.ID, Index: j.Index, SpecRef: specRef, User: j.User, UID: j.UID, Queue: j.Queue, Name: j.Name,
		Project: j.Project, State: j.State, PrevState: j.PrevState, SubmitTime: j.SubmitTime, StartTime: j.StartTime,
		EndTime: j.EndTime, Order: j.Order, NumProcs: j.NumProcs, MaxProcs: j.MaxProcs, ExecHosts: j.ExecHosts,
		PID: j.PID, PGID: j.PGID, ExecCwd: j.ExecCwd, ExecHome: j.ExecHome, ExecUser: j.ExecUser,
		ExitStatus: j.ExitStatus, TermReason: j.TermReason, SuspReasons: j.SuspReasons, SuspSubreason: j.SuspSubreason,
		PendReason: j.PendReason, RunCount: j.RunCount, Usage: j.Usage, Forced: j.Forced, NoSuspend: j.NoSuspend,
		ExcludedHosts: j.ExcludedHosts, PreemptCount: j.PreemptCount, UserPriority: j.UserPriority,
		PostDone: j.PostDone, PostFailed: j.PostFailed, ExecRusage: j.ExecRusage, StateTime: j.StateTime,
		DefaultQueue: j.DefaultQueue, PendSince: j.PendSince, BackfillLimit: j.BackfillLimit,
		EffectiveResReq: j.EffectiveResReq,
		ChkpntPeriod:    j.ChkpntPeriod, ChkpntPeriodSet: j.ChkpntPeriodSet, Chkpnts: j.Chkpnts, ChkpntTime: j.ChkpntTime,
		MigHosts: j.MigHosts, ChkpntReq: j.ChkpntReq, ChkpntReqs: j.ChkpntReqs, ChkpntReqFlags: j.ChkpntReqFlags,
		ChkpntReqState: j.ChkpntReqState, ChkpntReqUser: j.ChkpntReqUser,
		ResizeMin: j.ResizeMin, ResizeMax: j.ResizeMax, ResizeFlags: j.resizeFlags(), ResizeAfter: j.ResizeAfter,
	}
	if f := j.Fwd; f != nil {
		sj.FwdCluster, sj.FwdQueue, sj.FwdKey, sj.FwdTime, sj.FwdRemoteID, sj.FwdHosts = f.Cluster, f.Queue, f.Key, f.Time, f.RemoteID, f.ExecHosts
	}
	sj.FwdCount = j.FwdCount
	for _, sf := range j.FwdStale {
		sj.FwdStale = append(sj.FwdStale, &api.SnapStaleForward{Cluster: sf.Cluster, Queue: sf.Queue, Key: sf.Key, RemoteID: sf.RemoteID})
	}
	return sj
}

// Restore replaces the state with a snapshot's contents.
func (s *State) Restore(r io.Reader, applied uint64) error {
	ns := New()
	br := bufio.NewReaderSize(r, 1<<20)
	envs := map[int64][]string{}
	specs := map[int64]*Spec{}
	var rec api.SnapRecord
	var buf []byte
	n := 0
	gotMeta := false
	var jobsSeen, wantJobs int64
	for {
		l, err := readUvarint(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("snapshot record %d: %w", n, err)
		}
		if l > 256<<20 {
			return fmt.Errorf("snapshot record %d: length %d too large", n, l)
		}
		if uint64(cap(buf)) < l {
			buf = make([]byte, l)
		}
		buf = buf[:l]
		if _, err := io.ReadFull(br, buf); err != nil {
			return fmt.Errorf("snapshot record %d: %w", n, err)
		}
		if err := rec.UnmarshalWire(buf); err != nil {
			return fmt.Errorf("snapshot record %d: %w", n, err)
		}
		n++
		switch {
		case rec.Meta != nil:
			m := rec.Meta
			if m.Version != snapVersion {
				return fmt.Errorf("snapshot version %d not supported", m.Version)
			}
			gotMeta = true
			wantJobs = m.Jobs
			ns.lastJobID, ns.lastOrder, ns.finished, ns.masterStart = m.NextJobID-1, m.LastOrder, m.Finished, m.MasterStart
			if applied == 0 {
				applied = m.Applied
			}
			for _, q := range m.Queues {
				ns.queues.w(ns.gen)[q.Name] = QueueState{Closed: q.Closed, Inactive: q.Inactive}
			}
			for _, h := range m.Hosts {
				ns.hosts.w(ns.gen)[h.Name] = HostState{Closed: h.Closed, Comment: h.Comment, Time: h.Time}
			}
			ns.restoreKeys(m.SubmitKeys)
			ns.restoreGroups(m.JobGroups)
			ns.restoreRsvs(m.Rsvs)
		case rec.Env != nil:
			envs[rec.Env.Ref] = rec.Env.Env
		case rec.Spec != nil:
			sp := rec.Spec.Spec
			if sp == nil {
				sp = &api.JobSpec{}
			}
			sp.Env = envs[rec.Spec.EnvRef]
			spec := ns.internSpec(sp)
			ns.specs[spec]--
			specs[rec.Spec.Ref] = spec
		case rec.Array != nil:
			a := rec.Array
			ns.arrays.set(ns.gen, a.JobID, &Array{ID: a.JobID, Spec: a.Spec, Limit: a.Limit, Indices: a.Indices})
		case rec.Job != nil:
			sj := rec.Job
			spec := specs[sj.SpecRef]
			if spec == nil {
				return fmt.Errorf("snapshot record %d: job %d[%d] refers to missing spec %d", n, sj.JobID, sj.Index, sj.SpecRef)
			}
			jobsSeen++
			j := restoreJob(ns, sj, spec)
			ns.specs[spec]++
			ns.jobs.set(ns.gen, j.Key, j)
			ns.count(j.State, 1)
			if j.Fwd != nil && j.Fwd.Active {
				ns.setForwarded(j, true)
			}
			ns.setStale(j)
			if j.Name != "" {
				ns.appendName(nameKey{j.User, j.Name}, j.Key)
			}
			if job := j; job.State == api.StatePend || job.State == api.StatePSusp {
				ns.list(j)
			}
			if len(j.ExecHosts) > 0 && started(j.State) {
				ns.enterHosts(j)
			}
		}
	}
	if !gotMeta {
		return fmt.Errorf("snapshot has no metadata record")
	}
	if jobsSeen != wantJobs {
		return fmt.Errorf("snapshot holds %d job records, its metadata says %d (cut short?)", jobsSeen, wantJobs)
	}
	for spec, c := range ns.specs {
		if c <= 0 {
			ns.releaseSpec(spec)
		}
	}
	// Name lists are kept in submission order.
	ns.byName.each(func(_ nameKey, l *nameList) bool {
		sortKeys(l.keys) // ns's own: nothing published holds them
		return true
	})
	ns.applied = applied
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tables = ns.tables
	s.envs, s.strs, s.specs, s.bases, s.keyOrder = ns.envs, ns.strs, ns.specs, ns.bases, ns.keyOrder
	s.publish() // a new generation: ns's objects are the snapshot's
	return nil
}

func (s *State) arrayOf(id int64) *Array {
	a, _ := s.arrays.get(id)
	return a
}

func started(st api.JobState) bool {
	return st == api.StateRun || st == api.StateSSusp || st == api.StateUSusp || st == api.StateUnkwn || st == api.StateZombi
}

func restoreJob(ns *State, sj *api.SnapJob, spec *Spec) *Job {
	j := &Job{
		Key: Key{sj.JobID, sj.Index}, Spec: spec, Array: ns.arrayOf(sj.JobID), User: ns.strs.get(sj.User), UID: sj.UID,
		Queue: ns.strs.get(sj.Queue), DefaultQueue: sj.DefaultQueue, Name: sj.Name, Project: ns.strs.get(sj.Project),
		State: sj.State, PrevState: sj.PrevState, StateTime: sj.StateTime, SubmitTime: sj.SubmitTime,
		StartTime: sj.StartTime, EndTime: sj.EndTime, PendSince: sj.PendSince, Order: sj.Order,
		NumProcs: sj.NumProcs, MaxProcs: sj.MaxProcs, UserPriority: sj.UserPriority, ExecHosts: sj.ExecHosts,
		PID: sj.PID, PGID: sj.PGID, ExecCwd: sj.ExecCwd, ExecHome: sj.ExecHome, ExecUser: sj.ExecUser,
		ExecRusage: sj.ExecRusage, ExitStatus: sj.ExitStatus, TermReason: sj.TermReason, SuspReasons: sj.SuspReasons,
		SuspSubreason: sj.SuspSubreason, PendReason: sj.PendReason, RunCount: sj.RunCount, Usage: sj.Usage,
		Forced: sj.Forced, NoSuspend: sj.NoSuspend, ExcludedHosts: sj.ExcludedHosts, PreemptCount: sj.PreemptCount,
		PostDone: sj.PostDone, PostFailed: sj.PostFailed, BackfillLimit: sj.BackfillLimit,
		EffectiveResReq: ns.strs.get(sj.EffectiveResReq), gen: ns.gen, FwdCount: sj.FwdCount,
		ChkpntPeriod: sj.ChkpntPeriod, ChkpntPeriodSet: sj.ChkpntPeriodSet, Chkpnts: sj.Chkpnts, ChkpntTime: sj.ChkpntTime,
		MigHosts: sj.MigHosts, ChkpntReq: sj.ChkpntReq, ChkpntReqs: sj.ChkpntReqs, ChkpntReqFlags: sj.ChkpntReqFlags,
		ChkpntReqState: sj.ChkpntReqState, ChkpntReqUser: ns.strs.get(sj.ChkpntReqUser),
		ResizeMin: sj.ResizeMin, ResizeMax: sj.ResizeMax, ResizeAfter: sj.ResizeAfter,
		ResizeNoAuto: sj.ResizeFlags&api.SnapResizeNoAuto != 0, Resized: sj.ResizeFlags&api.SnapResizeResized != 0,
	}
	if sj.FwdKey != "" {
		j.Fwd = &Forward{Cluster: ns.strs.get(sj.FwdCluster), Queue: ns.strs.get(sj.FwdQueue), Key: sj.FwdKey, Time: sj.FwdTime,
			RemoteID: sj.FwdRemoteID, ExecHosts: sj.FwdHosts, Active: !job.Finished(sj.State)}
	}
	for _, sf := range sj.FwdStale {
		j.FwdStale = append(j.FwdStale, StaleForward{Cluster: ns.strs.get(sf.Cluster), Queue: ns.strs.get(sf.Queue), Key: sf.Key, RemoteID: sf.RemoteID})
	}
	for _, h := range j.ExecHosts {
		h.Host = ns.strs.get(h.Host)
	}
	return j
}

func readUvarint(r *bufio.Reader) (uint64, error) {
	var x uint64
	var s uint
	for i := 0; i < 10; i++ {
		c, err := r.ReadByte()
		if err != nil {
			if i > 0 && err == io.EOF {
				return 0, io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if c < 0x80 {
			if i == 9 && c > 1 {
				return 0, fmt.Errorf("varint overflows")
			}
			return x | uint64(c)<<s, nil
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	return 0, fmt.Errorf("varint overflows")
}

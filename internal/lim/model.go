package lim

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/load"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// model is the LIM's immutable view of the configuration.
type model struct {
	base       *config.Base
	name       string
	hosts      []*config.Host
	byName     map[string]*config.Host // lower-case name
	candidates []string
	params     config.ClusterParams
	// increasing tells, for every index a threshold may name, whether a
	// larger value is a heavier load.
	increasing map[string]bool
	anyDefault bool // some dynamic resource is mapped [default]
}

func newModel(b *config.Base) *model {
	m := &model{base: b, name: b.ClusterName(), hosts: b.Cluster.Hosts, byName: map[string]*config.Host{},
		params: b.Cluster.Params, increasing: map[string]bool{}}
	for _, h := range m.hosts {
		m.byName[strings.ToLower(h.Name)] = h
	}
	for _, c := range b.Conf.MasterList() {
		if h := m.host(c); h != nil && h.Server {
			m.candidates = append(m.candidates, h.Name)
		}
	}
	if len(m.candidates) == 0 {
		m.candidates = b.Cluster.ServerHosts()
	}
	t := resreq.BuiltinTable()
	for i := 0; i < resreq.NumLoadIndices; i++ {
		m.increasing[t.Name(i)] = t.Def(i).Increasing
	}
	for _, r := range b.Shared.Resources {
		if r.Dynamic() {
			m.increasing[r.Name] = r.Increasing
		}
	}
	for _, mp := range b.Cluster.ResourceMap {
		if r, ok := b.Shared.Resource(mp.Resource); ok && r.Dynamic() {
			for _, in := range mp.Instances {
				m.anyDefault = m.anyDefault || in.Default
			}
		}
	}
	return m
}

func (m *model) host(name string) *config.Host { return m.byName[strings.ToLower(name)] }

// dynamicMapped returns the dynamic resources of the ResourceMap.
func (m *model) dynamicMapped() []*config.ResourceMapping {
	var out []*config.ResourceMapping
	for _, mp := range m.base.Cluster.ResourceMap {
		if r, ok := m.base.Shared.Resource(mp.Resource); ok && r.Dynamic() {
			out = append(out, mp)
		}
	}
	return out
}

// isShared reports whether dynamic resource name is shared (mapped to
// anything other than [default]).
func (m *model) isShared(name string) bool {
	mp := m.base.Cluster.Mapping(name)
	return mp != nil && mp.Shared()
}

// instanceHosts lists the hosts of one LOCATION instance, in Host section
// order. [all] is every host but the ~exceptions; [others] is every host
// not named by another instance of the same resource.
func (m *model) instanceHosts(mp *config.ResourceMapping, in config.ResourceInstance) []string {
	var out []string
	switch {
	case in.All:
		for _, h := range m.hosts {
			if !containsFold(in.Except, h.Name) {
				out = append(out, h.Name)
			}
		}
	case in.Others:
		named := map[string]bool{}
		for _, o := range mp.Instances {
			for _, h := range o.Hosts {
				named[strings.ToLower(h)] = true
			}
		}
		for _, h := range m.hosts {
			if !named[strings.ToLower(h.Name)] {
				out = append(out, h.Name)
			}
		}
	default:
		for _, h := range in.Hosts {
			if ch := m.host(h); ch != nil {
				out = append(out, ch.Name)
			}
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// hostState is the master's record of one host.
type hostState struct {
	cfg     *config.Host
	rep     *api.LoadReport
	at      time.Time
	leaving bool
}

// table is the master LIM's cluster picture. It belongs to the loop.
type table struct {
	m     *model
	hosts []*hostState
	index map[string]*hostState // lower-case name
}

func newTable(m *model) *table {
	t := &table{m: m, index: map[string]*hostState{}}
	for _, h := range m.hosts {
		hs := &hostState{cfg: h}
		t.hosts = append(t.hosts, hs)
		t.index[strings.ToLower(h.Name)] = hs
	}
	return t
}

func (t *table) inactivity() time.Duration {
	return time.Duration(t.m.params.HostInactivityLimit) * t.m.params.ExInterval
}

// apply records a report; false when the host is not in the cluster.
func (t *table) apply(r *api.LoadReport, now time.Time) bool {
	hs := t.index[strings.ToLower(r.Host)]
	if hs == nil {
		return false
	}
	hs.rep, hs.at, hs.leaving = r, now, r.Leaving
	return true
}

// available reports whether a host's LIM is up as far as the master knows.
func (t *table) available(hs *hostState, now time.Time) bool {
	return hs.rep != nil && !hs.leaving && now.Sub(hs.at) <= t.inactivity()
}

// elimAssignment returns the dynamic resources host must report
// (LSF_RESOURCES) and whether its elims run at all: [default] resources on
// every host, [all] ones on the master, and each host set's resources on
// its first available host.
func (t *table) elimAssignment(host, master string, now time.Time) ([]string, bool) {
	var res []string
	for _, mp := range t.m.dynamicMapped() {
		mine := false
		for _, in := range mp.Instances {
			switch {
			case in.Default:
				mine = true
			case in.All:
				mine = mine || strings.EqualFold(host, master)
			default:
				mine = mine || strings.EqualFold(t.reporter(mp, in, master, now), host)
			}
		}
		if mine {
			res = append(res, mp.Resource)
		}
	}
	return res, len(res) > 0 || t.m.anyDefault
}

// reporter is the host whose elims report an instance of a shared dynamic
// resource: the master for [all], else the first available host of the
// set (the first of the set when none is).
func (t *table) reporter(mp *config.ResourceMapping, in config.ResourceInstance, master string, now time.Time) string {
	if in.All {
		return master
	}
	hosts := t.m.instanceHosts(mp, in)
	for _, h := range hosts {
		if hs := t.index[strings.ToLower(h)]; hs != nil && t.available(hs, now) {
			return hs.cfg.Name
		}
	}
	if len(hosts) > 0 {
		return hosts[0]
	}
	return ""
}

// status computes a host's LIM status and the indices beyond threshold.
func (t *table) status(hs *hostState, now time.Time) (api.LimStatus, []string) {
	if !t.available(hs, now) || hs.rep.NotServing {
		return api.LimUnavail, nil
	}
	var st api.LimStatus
	r := hs.rep
	if r.LockedU && (r.LockUntil == 0 || now.Unix() < r.LockUntil) {
		st |= api.LimLockU
	}
	if w := hs.cfg.RunWindow; !w.Always() && !w.Open(now) {
		st |= api.LimLockW
	}
	var busy []string
	for _, th := range hs.cfg.Thresholds {
		if !th.HasSched {
			continue
		}
		v, ok := t.indexValue(hs, th.Index)
		if !ok {
			continue
		}
		limit := th.Sched
		if th.Index == "ut" && limit > 1 {
			limit /= 100 // given as a percentage
		}
		inc, known := t.m.increasing[th.Index]
		if !known {
			continue
		}
		if inc && v > limit || !inc && v < limit {
			busy = append(busy, th.Index)
		}
	}
	if len(busy) > 0 {
		st |= api.LimBusy
	}
	return st, busy
}

// indexValue returns the value thresholds compare: effective run queue
// lengths, the other built-in indices as reported, external indices.
func (t *table) indexValue(hs *hostState, name string) (float64, bool) {
	r := hs.rep
	if i, ok := load.IndexOf(name); ok {
		if i >= len(r.Load) {
			return 0, false
		}
		v := r.Load[i]
		if i <= load.R15m {
			n := 1
			if r.Static != nil && r.Static.NCPUs > 0 {
				n = int(r.Static.NCPUs)
			}
			v = load.Effective(v, n)
		}
		return v, true
	}
	for _, e := range r.Ext {
		if e.Name == name {
			return e.Value, true
		}
	}
	return 0, false
}

// reply builds the cluster picture.
func (t *table) reply(req *api.ClusterRequest, master string, now time.Time) *api.ClusterReply {
	b := t.m.base
	out := &api.ClusterReply{Cluster: t.m.name, Master: master, Admins: b.Cluster.Admins, Time: now.Unix()}
	if len(out.Admins) == 0 {
		out.Admins = []string{"root"}
	}
	want := map[string]bool{}
	for _, h := range req.Hosts {
		hs := t.index[strings.ToLower(h)]
		if hs == nil {
			out.NotFound = append(out.NotFound, h)
			continue
		}
		want[hs.cfg.Name] = true
	}
	for _, hs := range t.hosts {
		if len(req.Hosts) > 0 && !want[hs.cfg.Name] {
			continue
		}
		out.Hosts = append(out.Hosts, t.hostLoad(hs, now))
	}
	for _, r := range b.Shared.Resources {
		out.Resources = append(out.Resources, &api.ResourceInfo{Name: r.Name, Type: r.Type.String(),
			Interval: int32(r.Interval), Increasing: r.Increasing, Release: r.Release, Consumable: r.Consumable,
			Description: r.Description, Shared: t.m.isShared(r.Name)})
	}
	out.Types = append(out.Types, b.Shared.HostTypes...)
	for _, hm := range b.Shared.HostModels {
		out.Models = append(out.Models, &api.ModelInfo{Name: hm.Name, CPUFactor: hm.CPUFactor, Arch: hm.Architectures})
	}
	out.Shared = t.shared(master, now)
	return out
}

func (t *table) hostLoad(hs *hostState, now time.Time) *api.HostLoad {
	c := hs.cfg
	h := &api.HostLoad{Name: c.Name, Server: c.Server, RExPri: int32(c.RExPri), ND: int32(c.ND),
		Type: c.Type, Model: c.Model}
	if !c.RunWindow.Always() {
		h.RunWindow = c.RunWindow.String()
	}
	for _, r := range c.Resources {
		n := r.Name
		if r.Value != "" {
			n += "=" + r.Value
		}
		if r.Exclusive {
			n = "!" + n
		}
		h.Resources = append(h.Resources, n)
	}
	for _, th := range c.Thresholds {
		if th.HasSched {
			h.Thresholds = append(h.Thresholds, &api.LoadThresholdValue{Index: th.Index, Value: th.Sched})
		}
	}
	h.Status, h.Busy = t.status(hs, now)
	if r := hs.rep; r != nil {
		h.LastReport = hs.at.Unix()
		h.Static = r.Static
		h.GPUs = r.GPUs
		if h.Status&api.LimUnavail == 0 {
			h.Load = r.Load
			h.Ext = r.Ext
		}
		if r.Static != nil {
			if h.Type == "" {
				h.Type = r.Static.Type
			}
			if h.Model == "" {
				h.Model = r.Static.Model
			}
		}
	}
	if h.Type == "" {
		h.Type = "UNKNOWN"
	}
	if h.Model == "" {
		h.Model = "UNKNOWN"
	}
	h.CPUF = 1
	if m, ok := t.m.base.Shared.Model(h.Model); ok {
		h.CPUF = m.CPUFactor
	}
	return h
}

// shared lists the ResourceMap's shared resources with their instances.
func (t *table) shared(master string, now time.Time) []*api.SharedResource {
	var out []*api.SharedResource
	for _, mp := range t.m.base.Cluster.ResourceMap {
		if !mp.Shared() {
			continue
		}
		r, _ := t.m.base.Shared.Resource(mp.Resource)
		sr := &api.SharedResource{Name: mp.Resource, Dynamic: r.Dynamic(), Numeric: r.Type == resreq.Numeric}
		for _, in := range mp.Instances {
			si := &api.SharedInstance{Hosts: t.m.instanceHosts(mp, in), Value: in.Value}
			if r.Dynamic() {
				si.Value = "-"
				si.Reporter = t.reporter(mp, in, master, now)
				if hs := t.index[strings.ToLower(si.Reporter)]; hs != nil && t.available(hs, now) {
					for _, v := range hs.rep.Shared {
						if v.Name == mp.Resource {
							si.Value = formatValue(v.Value)
						}
					}
				}
			} else if si.Value == "" {
				si.Value = "1" // Boolean resource present on those hosts
			}
			sr.Instances = append(sr.Instances, si)
		}
		out = append(out, sr)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// formatValue prints a resource value as LSF does: integers without a
// fraction, others with one decimal.
func formatValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func lower(s string) string { return strings.ToLower(s) }

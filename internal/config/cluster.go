package config

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/config/lex"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// ClusterFile is lsf.cluster.<name>: LIM's parameters, the cluster
// administrators, the hosts and where shared resources are.
type ClusterFile struct {
	Path   string
	Name   string
	Params ClusterParams
	// Admins are the cluster administrators; the first is the primary
	// administrator. Empty when the file has no ClusterAdmins section (LSF
	// then uses root).
	Admins      []string
	Hosts       []*Host
	ResourceMap []*ResourceMapping

	byName map[string]*Host // lower-cased host name
}

// ClusterParams is the Parameters section of lsf.cluster.<name>.
type ClusterParams struct {
	ExInterval            time.Duration // EXINTERVAL, 15s
	HostInactivityLimit   int           // HOST_INACTIVITY_LIMIT, 5 (× EXINTERVAL)
	MasterInactivityLimit int           // MASTER_INACTIVITY_LIMIT, 2
	RetryLimit            int           // RETRY_LIMIT, 2
	ProbeTimeout          time.Duration // PROBE_TIMEOUT, 2s
	ElimPollInterval      time.Duration // ELIM_POLL_INTERVAL, 5s
	ElimArgs              string        // ELIMARGS
	AdjustDuration        int           // ADJUST_DURATION, 3
	// ELIM controls: the Parameters section wins over lsf.conf.
	ELIMBlockTime int  // LSF_ELIM_BLOCKTIME; -1 = wait forever
	ELIMDebug     bool // LSF_ELIM_DEBUG
	ELIMRestarts  int  // LSF_ELIM_RESTARTS; -1 = no cap
	// Raw holds the section's lines as written.
	Raw []KV
}

func defaultClusterParams() ClusterParams {
	return ClusterParams{
		ExInterval: 15 * time.Second, HostInactivityLimit: 5, MasterInactivityLimit: 2,
		RetryLimit: 2, ProbeTimeout: 2 * time.Second, ElimPollInterval: 5 * time.Second,
		AdjustDuration: 3, ELIMBlockTime: -1, ELIMRestarts: -1,
	}
}

// Host is a row of the Host section.
type Host struct {
	Name string
	// Model and Type are "" when LIM detects them ('!').
	Model  string
	Type   string
	Server bool
	ND     int // number of local disks; 0 = detect
	// Thresholds make the host busy (lsload status) when exceeded.
	Thresholds []LoadThreshold
	// Resources are the host's static resources; Exclusive ones ("!name")
	// are used only by jobs that ask for them explicitly.
	Resources []HostResource
	RunWindow timewin.Window
	RExPri    int
	Pos       Pos
}

// HostResource is one entry of a host's RESOURCES list.
type HostResource struct {
	Name      string
	Value     string // for name=value; "" for a Boolean resource
	Exclusive bool
}

// HasResource reports whether the host has resource name.
func (h *Host) HasResource(name string) bool {
	for _, r := range h.Resources {
		if r.Name == name {
			return true
		}
	}
	return false
}

// ResourceMapping is a row of the ResourceMap section: where a resource's
// instances are.
type ResourceMapping struct {
	Resource  string
	Instances []ResourceInstance
	Pos       Pos
}

// ResourceInstance is one item of a LOCATION: value@[hosts] or [hosts].
type ResourceInstance struct {
	Value string // "" for dynamic resources
	// Hosts are the named hosts; All is [all] (Except its ~hosts), Others
	// is [others] (every host not in another instance), Default is
	// [default] (one instance per host).
	Hosts   []string
	All     bool
	Others  bool
	Default bool
	Except  []string
}

// Shared reports whether the mapping makes the resource shared: any
// instance other than [default].
func (m *ResourceMapping) Shared() bool {
	for _, in := range m.Instances {
		if !in.Default {
			return true
		}
	}
	return false
}

// Host returns the host named name (case-insensitively, as host names are).
func (c *ClusterFile) Host(name string) *Host {
	if c.byName != nil {
		return c.byName[strings.ToLower(name)]
	}
	for _, h := range c.Hosts {
		if strings.EqualFold(h.Name, name) {
			return h
		}
	}
	return nil
}

// ServerHosts returns the names of the server hosts, in file order (the
// order of master election).
func (c *ClusterFile) ServerHosts() []string {
	var out []string
	for _, h := range c.Hosts {
		if h.Server {
			out = append(out, h.Name)
		}
	}
	return out
}

// Mapping returns the ResourceMap row of resource name.
func (c *ClusterFile) Mapping(name string) *ResourceMapping {
	for _, m := range c.ResourceMap {
		if m.Resource == name {
			return m
		}
	}
	return nil
}

// parseCluster validates lsf.cluster.<name> against lsf.shared and lsf.conf.
// No valid host is an error; everything else is a warning.
func parseCluster(f *lex.File, name string, sh *Shared, conf *lsfconf.Conf, d *Diagnostics) *ClusterFile {
	c := &ClusterFile{Path: f.Name, Name: name, Params: defaultClusterParams(), byName: map[string]*Host{}}
	c.Params.ELIMBlockTime = conf.ELIMBlockTime()
	c.Params.ELIMDebug = conf.ELIMDebug()
	c.Params.ELIMRestarts = conf.ELIMRestarts()
	var maps []*lex.Section
	sawHost := false
	for _, sec := range f.Sections {
		switch {
		case sec.Is("Parameters"):
			c.parseParams(sec, d)
		case sec.Is("ClusterAdmins"), sec.Is("ClusterManager"):
			c.parseAdmins(sec, d)
		case sec.Is("Host"):
			sawHost = true
			c.parseHosts(sec, sh, d)
		case sec.Is("ResourceMap"):
			maps = append(maps, sec)
		default:
			d.Warnf(sec.Pos, "section %s in %s is not supported; section ignored", sec.Name, fileBase(f.Name))
		}
	}
	for _, sec := range maps {
		c.parseResourceMap(sec, sh, d)
	}
	if !sawHost || len(c.Hosts) == 0 {
		d.Errorf(Pos{File: f.Name}, "no valid host defined: %s needs a Host section", fileBase(f.Name))
	}
	for _, m := range conf.MasterList() {
		if h := c.Host(m); h == nil || !h.Server {
			d.Warnf(conf.Pos("LSF_MASTER_LIST"), "LSF_MASTER_LIST: host <%s> is not a server host of %s; ignored", m, fileBase(f.Name))
		}
	}
	return c
}

func (c *ClusterFile) parseParams(sec *lex.Section, d *Diagnostics) {
	p := &c.Params
	for _, kv := range sec.KeyValues(d) {
		v := kvVal(kv, "Parameters", d)
		c.Params.Raw = append(c.Params.Raw, KV{Key: v.key, Value: kv.Value, Pos: kv.KeyPos})
		switch v.key {
		case "EXINTERVAL":
			if n, ok := v.int(1, math.MaxInt32); ok {
				p.ExInterval = time.Duration(n) * time.Second
			}
		case "HOST_INACTIVITY_LIMIT":
			if n, ok := v.int(2, math.MaxInt32); ok {
				p.HostInactivityLimit = n
			}
		case "MASTER_INACTIVITY_LIMIT":
			if n, ok := v.int(1, math.MaxInt32); ok {
				p.MasterInactivityLimit = n
			}
		case "RETRY_LIMIT":
			if n, ok := v.int(0, math.MaxInt32); ok {
				p.RetryLimit = n
			}
		case "PROBE_TIMEOUT":
			if n, ok := v.int(1, math.MaxInt32); ok {
				p.ProbeTimeout = time.Duration(n) * time.Second
			}
		case "ELIM_POLL_INTERVAL":
			if f, ok := v.float(0.001, 5); ok {
				p.ElimPollInterval = time.Duration(f * float64(time.Second))
			}
		case "ELIMARGS":
			p.ElimArgs = kv.Value
		case "ADJUST_DURATION":
			if n, ok := v.int(0, math.MaxInt32); ok {
				p.AdjustDuration = n
			}
		case "LSF_ELIM_BLOCKTIME":
			if n, ok := v.int(0, math.MaxInt32); ok {
				p.ELIMBlockTime = n
			}
		case "LSF_ELIM_DEBUG":
			if b, ok := v.yesNo(); ok {
				p.ELIMDebug = b
				if b && p.ELIMBlockTime < 0 {
					p.ELIMBlockTime = 2
				}
			}
		case "LSF_ELIM_RESTARTS":
			if n, ok := v.int(0, math.MaxInt32); ok {
				p.ELIMRestarts = n
			}
		default:
			d.Warnf(kv.KeyPos, "Parameters: parameter %s is not supported by Basalt; ignored", kv.Key)
		}
	}
}

func (c *ClusterFile) parseAdmins(sec *lex.Section, d *Diagnostics) {
	for _, kv := range sec.KeyValues(d) {
		switch strings.ToUpper(kv.Key) {
		case "ADMINISTRATORS", "MANAGER", "MANAGERS":
			v := kvVal(kv, sec.Name, d)
			for _, n := range v.names() {
				if !nameOK(n) {
					v.warnf("bad administrator name <%s>; ignored", n)
					continue
				}
				c.Admins = append(c.Admins, n)
			}
		default:
			d.Warnf(kv.KeyPos, "%s: unknown keyword %s; ignored", sec.Name, kv.Key)
		}
	}
}

func (c *ClusterFile) parseHosts(sec *lex.Section, sh *Shared, d *Diagnostics) {
	t := sec.Table(d)
	nameCol := t.Col("HOSTNAME")
	if nameCol < 0 {
		nameCol = t.Col("HOST_NAME")
	}
	if nameCol < 0 {
		d.Warnf(sec.Pos, "section Host: no HOSTNAME column; section ignored")
		return
	}
	modelCol, typeCol, serverCol := t.Col("model"), t.Col("type"), t.Col("server")
	resCol, winCol, rexCol, ndCol := t.Col("RESOURCES"), t.Col("RUNWINDOW"), t.Col("REXPRI"), t.Col("nd")
	type thrCol struct {
		col   int
		index string
	}
	var thr []thrCol
	for i, col := range t.Columns {
		switch strings.ToUpper(col.Text) {
		case "HOSTNAME", "HOST_NAME", "MODEL", "TYPE", "SERVER", "RESOURCES", "RUNWINDOW", "REXPRI", "ND":
			continue
		}
		if idx, ok := canonicalIndex(col.Text); ok {
			thr = append(thr, thrCol{i, idx})
		} else if r, ok := sh.Resource(col.Text); ok && r.Type == resreq.Numeric && r.Dynamic() {
			thr = append(thr, thrCol{i, r.Name})
		} else {
			d.Warnf(col.Pos, "section Host: column %s is not a keyword or a load index; ignored", col.Text)
		}
	}
	for _, r := range t.Rows {
		h := &Host{Name: r.Fields[nameCol].Text, Server: true, Pos: r.Pos}
		where := "Host <" + h.Name + ">"
		if !nameOK(h.Name) {
			d.Warnf(r.Pos, "section Host: bad host name <%s>; line ignored", h.Name)
			continue
		}
		if c.Host(h.Name) != nil {
			d.Warnf(r.Pos, "section Host: host %s is defined twice; line ignored", h.Name)
			continue
		}
		if tok, ok := r.Get(modelCol); ok && tok.Text != "!" {
			if _, known := sh.Model(tok.Text); known {
				h.Model = tok.Text
			} else {
				d.Warnf(tok.Pos, "%s: unknown host model <%s>; the model is detected", where, tok.Text)
			}
		}
		if tok, ok := r.Get(typeCol); ok && tok.Text != "!" {
			if sh.HasType(tok.Text) {
				h.Type = tok.Text
			} else {
				d.Warnf(tok.Pos, "%s: unknown host type <%s>; the type is detected", where, tok.Text)
			}
		}
		if tok, ok := r.Get(serverCol); ok {
			switch tok.Text {
			case "1":
			case "0":
				h.Server = false
			default:
				d.Warnf(tok.Pos, "%s: server value <%s> must be 0 or 1; 1 is used", where, tok.Text)
			}
		}
		if tok, ok := r.Get(ndCol); ok {
			if n, ok := tokVal("nd", tok, where, d).int(0, math.MaxInt32); ok {
				h.ND = n
			}
		}
		if tok, ok := r.Get(rexCol); ok {
			if n, ok := tokVal("REXPRI", tok, where, d).int(-20, 20); ok {
				h.RExPri = n
			}
		}
		if tok, ok := r.Get(winCol); ok {
			if w, ok := tokVal("RUNWINDOW", tok, where, d).inner().window(); ok {
				h.RunWindow = w
			}
		}
		for _, tc := range thr {
			if tok, ok := r.Get(tc.col); ok {
				if th, ok := tokVal(t.Columns[tc.col].Text, tok, where, d).threshold(tc.index); ok {
					h.Thresholds = append(h.Thresholds, th)
				}
			}
		}
		if tok, ok := r.Get(resCol); ok {
			h.Resources = hostResources(tok, where, sh, d)
		}
		c.Hosts = append(c.Hosts, h)
		c.byName[strings.ToLower(h.Name)] = h
	}
}

func hostResources(tok lex.Token, where string, sh *Shared, d *Diagnostics) []HostResource {
	var out []HostResource
	for _, w := range tok.Words(d) {
		hr := HostResource{Name: w.Text}
		if strings.HasPrefix(hr.Name, "!") {
			hr.Exclusive, hr.Name = true, hr.Name[1:]
		}
		if n, v, ok := strings.Cut(hr.Name, "="); ok {
			hr.Name, hr.Value = n, v
		}
		r, known := sh.Resource(hr.Name)
		switch {
		case !known:
			d.Warnf(w.Pos, "%s: resource <%s> is not defined in lsf.shared; ignored", where, hr.Name)
			continue
		case r.Type == resreq.Boolean && hr.Value != "":
			d.Warnf(w.Pos, "%s: Boolean resource <%s> takes no value; ignored", where, hr.Name)
			continue
		case r.Type != resreq.Boolean && hr.Value == "":
			d.Warnf(w.Pos, "%s: %s resource <%s> needs a value (name=value); ignored", where, r.Type, hr.Name)
			continue
		case r.Type == resreq.Numeric:
			if _, err := strconv.ParseFloat(hr.Value, 64); err != nil {
				d.Warnf(w.Pos, "%s: value <%s> of numeric resource <%s> is not a number; ignored", where, hr.Value, hr.Name)
				continue
			}
		}
		dup := false
		for _, o := range out {
			dup = dup || o.Name == hr.Name
		}
		if dup {
			d.Warnf(w.Pos, "%s: resource <%s> is listed twice; ignored", where, hr.Name)
			continue
		}
		out = append(out, hr)
	}
	return out
}

func (c *ClusterFile) parseResourceMap(sec *lex.Section, sh *Shared, d *Diagnostics) {
	t := sec.Table(d)
	nameCol, locCol := t.Col("RESOURCENAME"), t.Col("LOCATION")
	if nameCol < 0 || locCol < 0 {
		d.Warnf(sec.Pos, "section ResourceMap: RESOURCENAME and LOCATION columns are required; section ignored")
		return
	}
	for _, r := range t.Rows {
		m := &ResourceMapping{Resource: r.Fields[nameCol].Text, Pos: r.Pos}
		where := "ResourceMap <" + m.Resource + ">"
		res, known := sh.Resource(m.Resource)
		if !known {
			d.Warnf(r.Pos, "%s: resource is not defined in lsf.shared; line ignored", where)
			continue
		}
		if c.Mapping(m.Resource) != nil {
			d.Warnf(r.Pos, "%s: resource is mapped twice; line ignored", where)
			continue
		}
		loc := r.Fields[locCol]
		items := loc.Words(d)
		if len(items) == 0 {
			d.Warnf(loc.Pos, "%s: empty LOCATION; line ignored", where)
			continue
		}
		ok := true
		for _, it := range items {
			in, good := c.instance(it, where, res, d)
			if !good {
				ok = false
				break
			}
			m.Instances = append(m.Instances, in)
		}
		if ok {
			c.ResourceMap = append(c.ResourceMap, m)
		}
	}
}

// instance parses one LOCATION item: [hosts] or value@[hosts].
func (c *ClusterFile) instance(it lex.Token, where string, res Resource, d *Diagnostics) (ResourceInstance, bool) {
	var in ResourceInstance
	text := it.Text
	pos := it.Pos
	if at := strings.IndexByte(text, '@'); at >= 0 {
		in.Value = text[:at]
		text = text[at+1:]
		pos = pos.Add(at + 1)
	}
	if len(text) < 2 || text[0] != '[' || text[len(text)-1] != ']' {
		d.Warnf(it.Pos, "%s: LOCATION item <%s> is not [hosts] or value@[hosts]; line ignored", where, it.Text)
		return in, false
	}
	static := !res.Dynamic() && res.Type != resreq.Boolean
	switch {
	case static && in.Value == "":
		d.Warnf(it.Pos, "%s: static resource needs a value (value@[hosts]); line ignored", where)
		return in, false
	case res.Dynamic() && in.Value != "":
		d.Warnf(it.Pos, "%s: dynamic resource must not have a value in LOCATION; line ignored", where)
		return in, false
	case res.Type == resreq.Numeric && in.Value != "":
		if _, err := strconv.ParseFloat(in.Value, 64); err != nil {
			d.Warnf(it.Pos, "%s: value <%s> is not a number; line ignored", where, in.Value)
			return in, false
		}
	}
	inner := lex.Token{Pos: pos.Add(1), Text: text[1 : len(text)-1]}
	for _, w := range lex.Fields(inner.Text, func(off int) Pos { return inner.Pos.Add(off) }, d) {
		switch name := w.Text; {
		case name == "all":
			in.All = true
		case name == "others":
			in.Others = true
		case name == "default":
			in.Default = true
		case strings.HasPrefix(name, "~"):
			in.Except = append(in.Except, name[1:])
			if c.Host(name[1:]) == nil {
				d.Warnf(w.Pos, "%s: host <%s> is not in the Host section", where, name[1:])
			}
		default:
			if c.Host(name) == nil {
				d.Warnf(w.Pos, "%s: host <%s> is not in the Host section; ignored", where, name)
				continue
			}
			in.Hosts = append(in.Hosts, name)
		}
	}
	if len(in.Except) > 0 && !in.All {
		d.Warnf(it.Pos, "%s: ~host is only allowed with all; line ignored", where)
		return in, false
	}
	if !in.All && !in.Others && !in.Default && len(in.Hosts) == 0 {
		d.Warnf(it.Pos, "%s: LOCATION item <%s> names no host; line ignored", where, it.Text)
		return in, false
	}
	return in, true
}

func fileBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

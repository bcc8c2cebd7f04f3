package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/lex"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// Shared is lsf.shared: cluster names, host types and models, and the
// site-defined resources.
type Shared struct {
	Path       string
	Clusters   []ClusterEntry
	HostTypes  []string
	HostModels []HostModel
	Resources  []Resource
}

// ClusterEntry is a row of the Cluster section.
type ClusterEntry struct {
	Name    string
	Servers []string
	Pos     Pos
}

// HostModel is a row of the HostModel section.
type HostModel struct {
	Name          string
	CPUFactor     float64
	Architectures []string
	Pos           Pos
}

// Resource is a row of the Resource section.
type Resource struct {
	Name string
	Type resreq.ValueType
	// Interval in seconds; > 0 makes the resource dynamic (reported by an
	// ELIM); 0 is a static resource.
	Interval   int
	Increasing bool
	Release    bool
	Consumable bool
	// Description is the DESCRIPTION text without its parentheses.
	Description string
	Pos         Pos
}

// Dynamic reports whether an ELIM reports the resource's value.
func (r Resource) Dynamic() bool { return r.Interval > 0 }

// Model returns the host model named name.
func (s *Shared) Model(name string) (HostModel, bool) {
	for _, m := range s.HostModels {
		if m.Name == name {
			return m, true
		}
	}
	return HostModel{}, false
}

// HasType reports whether name is a defined host type.
func (s *Shared) HasType(name string) bool {
	for _, t := range s.HostTypes {
		if t == name {
			return true
		}
	}
	return false
}

// Resource returns the resource named name.
func (s *Shared) Resource(name string) (Resource, bool) {
	for _, r := range s.Resources {
		if r.Name == name {
			return r, true
		}
	}
	return Resource{}, false
}

// ClusterNames returns the names of the Cluster section, in order.
func (s *Shared) ClusterNames() []string {
	var out []string
	for _, c := range s.Clusters {
		out = append(out, c.Name)
	}
	return out
}

// reservedResourceName says whether name may not be redefined in
// lsf.shared: the resource requirement language's reserved names (LIM's
// indices and static resources, their aliases, its words) and the
// configuration's own keywords.
func reservedResourceName(name string) bool {
	switch name {
	case "all", "others", "default", "none":
		return true
	}
	return resreq.Reserved(name)
}

// resourceNameProblem applies lsf.shared's naming rules; "" means the name
// is acceptable.
func resourceNameProblem(name string) string {
	switch {
	case name == "":
		return "is empty"
	case len(name) > resreq.MaxNameLen:
		return fmt.Sprintf("is longer than %d characters", resreq.MaxNameLen)
	case name[0] >= '0' && name[0] <= '9':
		return "starts with a digit"
	case reservedResourceName(name):
		return "is a reserved name"
	}
	for _, c := range name {
		if strings.ContainsRune(":.()[]{}+-*/!&|<>@=,'\" \t\n", c) || c < ' ' || c > '~' {
			return fmt.Sprintf("contains %q", c)
		}
	}
	return ""
}

// parseShared validates lsf.shared. A file without a Cluster section is an
// error: LIM cannot know its cluster. Everything else is a warning.
func parseShared(f *lex.File, d *Diagnostics) *Shared {
	s := &Shared{Path: f.Name}
	var sawCluster, sawType, sawModel bool
	for _, sec := range f.Sections {
		switch {
		case sec.Is("Cluster"):
			sawCluster = true
			s.parseClusters(sec, d)
		case sec.Is("HostType"):
			sawType = true
			s.parseTypes(sec, d)
		case sec.Is("HostModel"):
			sawModel = true
			s.parseModels(sec, d)
		case sec.Is("Resource"):
			s.parseResources(sec, d)
		default:
			d.Warnf(sec.Pos, "unknown section %s in lsf.shared; section ignored", sec.Name)
		}
	}
	fileStart := Pos{File: f.Name}
	if !sawCluster || len(s.Clusters) == 0 {
		d.Errorf(fileStart, "no cluster defined: lsf.shared needs a Cluster section with a ClusterName")
	}
	if !sawType {
		d.Warnf(fileStart, "no HostType section in lsf.shared")
	}
	if !sawModel {
		d.Warnf(fileStart, "no HostModel section in lsf.shared")
	}
	return s
}

func (s *Shared) parseClusters(sec *lex.Section, d *Diagnostics) {
	t := sec.Table(d)
	name := t.Col("ClusterName")
	if name < 0 {
		d.Warnf(sec.Pos, "section Cluster: no ClusterName column; section ignored")
		return
	}
	servers := t.Col("Servers")
	for _, r := range t.Rows {
		c := ClusterEntry{Name: r.Fields[name].Text, Pos: r.Pos}
		if !nameOK(c.Name) {
			d.Warnf(r.Pos, "section Cluster: bad cluster name <%s>; line ignored", c.Name)
			continue
		}
		if tok, ok := r.Get(servers); ok {
			for _, w := range tok.Words(d) {
				c.Servers = append(c.Servers, w.Text)
			}
		}
		dup := false
		for _, o := range s.Clusters {
			dup = dup || o.Name == c.Name
		}
		if dup {
			d.Warnf(r.Pos, "section Cluster: cluster %s is defined twice; line ignored", c.Name)
			continue
		}
		s.Clusters = append(s.Clusters, c)
	}
}

func (s *Shared) parseTypes(sec *lex.Section, d *Diagnostics) {
	t := sec.Table(d)
	col := t.Col("TYPENAME")
	if col < 0 {
		d.Warnf(sec.Pos, "section HostType: no TYPENAME column; section ignored")
		return
	}
	for _, r := range t.Rows {
		name := r.Fields[col].Text
		switch {
		case !nameOK(name):
			d.Warnf(r.Pos, "section HostType: bad host type <%s>; line ignored", name)
		case s.HasType(name):
			d.Warnf(r.Pos, "section HostType: host type %s is defined twice; line ignored", name)
		default:
			s.HostTypes = append(s.HostTypes, name)
		}
	}
}

func (s *Shared) parseModels(sec *lex.Section, d *Diagnostics) {
	t := sec.Table(d)
	nameCol, factorCol, archCol := t.Col("MODELNAME"), t.Col("CPUFACTOR"), t.Col("ARCHITECTURE")
	if nameCol < 0 || factorCol < 0 {
		d.Warnf(sec.Pos, "section HostModel: MODELNAME and CPUFACTOR columns are required; section ignored")
		return
	}
	for _, r := range t.Rows {
		m := HostModel{Name: r.Fields[nameCol].Text, Pos: r.Pos}
		if !nameOK(m.Name) {
			d.Warnf(r.Pos, "section HostModel: bad host model <%s>; line ignored", m.Name)
			continue
		}
		if _, dup := s.Model(m.Name); dup {
			d.Warnf(r.Pos, "section HostModel: host model %s is defined twice; line ignored", m.Name)
			continue
		}
		ftok := r.Fields[factorCol]
		f, err := strconv.ParseFloat(ftok.Text, 64)
		if err != nil || !(f > 0) || f > 1e9 {
			d.Warnf(ftok.Pos, "section HostModel: bad CPUFACTOR <%s> for model %s (want a positive number); line ignored", ftok.Text, m.Name)
			continue
		}
		m.CPUFactor = f
		if tok, ok := r.Get(archCol); ok {
			for _, w := range tok.Words(d) {
				m.Architectures = append(m.Architectures, w.Text)
			}
		}
		s.HostModels = append(s.HostModels, m)
	}
}

func (s *Shared) parseResources(sec *lex.Section, d *Diagnostics) {
	t := sec.Table(d)
	nameCol, descCol := t.Col("RESOURCENAME"), t.Col("DESCRIPTION")
	if nameCol < 0 || descCol < 0 {
		d.Warnf(sec.Pos, "section Resource: RESOURCENAME and DESCRIPTION columns are required; section ignored")
		return
	}
	for _, c := range t.Columns {
		switch strings.ToUpper(c.Text) {
		case "RESOURCENAME", "TYPE", "INTERVAL", "INCREASING", "RELEASE", "CONSUMABLE", "DESCRIPTION":
		default:
			d.Warnf(c.Pos, "section Resource: unknown column %s; ignored", c.Text)
		}
	}
	typeCol, intCol, incCol := t.Col("TYPE"), t.Col("INTERVAL"), t.Col("INCREASING")
	relCol, consCol := t.Col("RELEASE"), t.Col("CONSUMABLE")
rows:
	for _, r := range t.Rows {
		res := Resource{Name: r.Fields[nameCol].Text, Type: resreq.Boolean, Pos: r.Pos}
		ignore := func(format string, args ...any) {
			d.Warnf(r.Pos, "section Resource: %s; ignoring resource <%s> in section resource", fmt.Sprintf(format, args...), res.Name)
		}
		if p := resourceNameProblem(res.Name); p != "" {
			ignore("resource name <%s> %s", res.Name, p)
			continue
		}
		if _, dup := s.Resource(res.Name); dup {
			ignore("resource <%s> is defined twice", res.Name)
			continue
		}
		if tok, ok := r.Get(typeCol); ok {
			switch strings.ToLower(tok.Text) {
			case "boolean":
				res.Type = resreq.Boolean
			case "numeric":
				res.Type = resreq.Numeric
			case "string":
				res.Type = resreq.String
			default:
				ignore("TYPE <%s> is not Boolean, Numeric or String", tok.Text)
				continue rows
			}
		}
		typeName := strings.ToUpper(res.Type.String())
		if tok, ok := r.Get(intCol); ok {
			n, err := strconv.Atoi(tok.Text)
			if err != nil || n <= 0 {
				ignore("INTERVAL <%s> is not a positive integer", tok.Text)
				continue
			}
			if res.Type == resreq.Boolean {
				d.Warnf(tok.Pos, "section Resource: INTERVAL <%s> is not used by the resource <%s> with type <%s>; ignoring INTERVAL", tok.Text, res.Name, typeName)
			} else {
				res.Interval = n
			}
		}
		if tok, ok := r.Get(incCol); ok {
			if res.Type != resreq.Numeric {
				d.Warnf(tok.Pos, "section Resource: INCREASING <%s> is not used by the resource <%s> with type <%s>; ignoring INCREASING", tok.Text, res.Name, typeName)
			} else {
				switch strings.ToUpper(tok.Text) {
				case "Y":
					res.Increasing = true
				case "N":
				default:
					ignore("INCREASING <%s> for resource <%s> is not valid", tok.Text, res.Name)
					continue
				}
			}
		} else if res.Type == resreq.Numeric {
			ignore("No INCREASING specified for a numeric resource <%s>", res.Name)
			continue
		}
		res.Release = res.Type == resreq.Numeric
		if tok, ok := r.Get(relCol); ok {
			if res.Type != resreq.Numeric {
				d.Warnf(tok.Pos, "section Resource: RELEASE <%s> is not used by the resource <%s> with type <%s>; ignoring RELEASE", tok.Text, res.Name, typeName)
			} else {
				switch strings.ToUpper(tok.Text) {
				case "Y":
				case "N":
					res.Release = false
				default:
					ignore("RELEASE defined for resource <%s> should be 'Y', 'y', 'N' or 'n' not <%s>", res.Name, tok.Text)
					continue
				}
			}
		}
		res.Consumable = res.Type == resreq.Numeric
		if tok, ok := r.Get(consCol); ok {
			switch strings.ToUpper(tok.Text) {
			case "Y":
				if res.Type != resreq.Numeric {
					d.Warnf(tok.Pos, "section Resource: CONSUMABLE <%s> is not used by the resource <%s> with type <%s>; ignoring CONSUMABLE", tok.Text, res.Name, typeName)
				} else {
					res.Consumable = true
				}
			case "N":
				res.Consumable = false
			default:
				ignore("CONSUMABLE defined for resource <%s> should be 'Y' or 'N' not <%s>", res.Name, tok.Text)
				continue
			}
		}
		if tok, ok := r.Get(descCol); ok {
			res.Description = tok.Inner().Text
		}
		s.Resources = append(s.Resources, res)
	}
}

package config

import (
	"math"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/lex"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
)

// Limit is a Limit section of lsb.resources (either layout; in the vertical
// layout each row is one Limit). A job is subject to a limit when it matches
// every consumer given; the resources say how much jobs matching it may use.
type Limit struct {
	Name string // NAME; "" when not given
	Pos  Pos

	// Consumers. USERS, QUEUES, HOSTS, PROJECTS limit the consumers as a
	// whole; PER_* apply the limit to each of them.
	Users, PerUser       Consumer
	Queues, PerQueue     Consumer
	Hosts, PerHost       Consumer
	Projects, PerProject Consumer

	// Resources.
	Slots             LimitValue
	SlotsPerProcessor LimitValue
	Jobs              LimitValue
	Mem               LimitValue // MB, or percent of the host's with PER_HOST
	Swp               LimitValue
	Tmp               LimitValue
	Resources         []NamedLimit // RESOURCE: shared resources
	Licenses          []NamedLimit // LICENSE: License Scheduler licenses
}

// Consumer is one consumer of a limit: all (with ~exclusions) or names.
type Consumer struct {
	Set    bool
	All    bool
	Names  []string
	Except []string
}

// LimitValue is a resource limit: a number (or percent), possibly varying
// with time windows ([value window ...] ...).
type LimitValue struct {
	Set     bool
	Value   float64
	Percent bool
	Windows []WindowedValue
}

// At returns the value in force when open reports which windows are open
// (nil: the plain value). ok is false when no window is open.
func (l LimitValue) At(open func(timewin.Window) bool) (float64, bool) {
	if len(l.Windows) == 0 {
		return l.Value, l.Set
	}
	for _, w := range l.Windows {
		if open(w.Window) {
			return w.Value, true
		}
	}
	return 0, false
}

// WindowedValue is a value in force during a window.
type WindowedValue struct {
	Value  float64
	Window timewin.Window
}

// NamedLimit is one [resource, value] of RESOURCE.
type NamedLimit struct {
	Name  string
	Value float64
}

var consumerKeys = []string{"USERS", "PER_USER", "QUEUES", "PER_QUEUE", "HOSTS", "PER_HOST", "PROJECTS", "PER_PROJECT"}
var resourceKeys = []string{"SLOTS", "SLOTS_PER_PROCESSOR", "JOBS", "MEM", "SWP", "TMP", "RESOURCE", "LICENSE"}

func (l *Limit) consumer(key string) *Consumer {
	switch key {
	case "USERS":
		return &l.Users
	case "PER_USER":
		return &l.PerUser
	case "QUEUES":
		return &l.Queues
	case "PER_QUEUE":
		return &l.PerQueue
	case "HOSTS":
		return &l.Hosts
	case "PER_HOST":
		return &l.PerHost
	case "PROJECTS":
		return &l.Projects
	case "PER_PROJECT":
		return &l.PerProject
	}
	return nil
}

func (l *Limit) value(key string) *LimitValue {
	switch key {
	case "SLOTS":
		return &l.Slots
	case "SLOTS_PER_PROCESSOR":
		return &l.SlotsPerProcessor
	case "JOBS":
		return &l.Jobs
	case "MEM":
		return &l.Mem
	case "SWP":
		return &l.Swp
	case "TMP":
		return &l.Tmp
	}
	return nil
}

// parseLimits reads lsb.resources. memScale converts MEM/SWP/TMP values to
// MB (LSF_UNIT_FOR_LIMITS).
func parseLimits(f *lex.File, memScale float64, d *Diagnostics) []*Limit {
	var out []*Limit
	for _, sec := range f.Sections {
		if !sec.Is("Limit") {
			d.Warnf(sec.Pos, "section %s in lsb.resources is not supported by Basalt; section ignored", sec.Name)
			continue
		}
		if sec.Horizontal() {
			l := &Limit{Pos: sec.Pos}
			ok := true
			for _, kv := range sec.KeyValues(d) {
				ok = l.set(kvVal(kv, "Limit", d), memScale) && ok
			}
			if ok && l.check(d) {
				out = append(out, l)
			}
			continue
		}
		t := sec.Table(d)
		for i, c := range t.Columns {
			key := strings.ToUpper(c.Text)
			if key != "NAME" && (&Limit{}).consumer(key) == nil && (&Limit{}).value(key) == nil && key != "RESOURCE" && key != "LICENSE" {
				d.Warnf(c.Pos, "section Limit: column %s is not supported by Basalt; ignored", c.Text)
				t.Columns[i].Text = ""
			}
		}
		for _, r := range t.Rows {
			l := &Limit{Pos: r.Pos}
			ok := true
			for i, c := range t.Columns {
				tok, given := r.Get(i)
				if c.Text == "" || !given {
					continue
				}
				v := tokVal(strings.ToUpper(c.Text), tok, "Limit", d)
				if v.key != "NAME" && v.key != "RESOURCE" && v.key != "LICENSE" {
					v = v.inner()
				}
				ok = l.set(v, memScale) && ok
			}
			if ok && l.check(d) {
				out = append(out, l)
			}
		}
	}
	for i, l := range out {
		if l.Name == "" {
			continue
		}
		for _, o := range out[:i] {
			if o.Name == l.Name {
				d.Warnf(l.Pos, "Limit <%s> is defined twice", l.Name)
			}
		}
	}
	return out
}

// set reads one key; false means the whole limit is ignored.
func (l *Limit) set(v val, memScale float64) bool {
	if v.key == "NAME" {
		l.Name = strings.TrimSpace(lex.Token{Text: v.text}.Inner().Text)
		if !nameOK(l.Name) {
			v.bad("is not a limit name")
			return false
		}
		return true
	}
	if c := l.consumer(v.key); c != nil {
		if c.Set {
			v.warnf("%s is given twice; the last value is used", v.key)
		}
		*c = Consumer{Set: true}
		if (lex.Token{Text: strings.TrimSpace(v.text)}).IsDefault() {
			c.All = true // "()" or "-": every consumer, as in the vertical layout
			return true
		}
		for _, n := range v.names() {
			switch {
			case n == "all":
				c.All = true
			case strings.HasPrefix(n, "~") && nameOK(n[1:]):
				c.Except = append(c.Except, n[1:])
			case nameOK(n):
				c.Names = append(c.Names, n)
			default:
				v.warnf("%s: bad name <%s>; ignored", v.key, n)
			}
		}
		if len(c.Except) > 0 && !c.All {
			c.All = true
		}
		if !c.All && len(c.Names) == 0 {
			v.bad("names no consumer")
			return false
		}
		return true
	}
	if v.key == "RESOURCE" || v.key == "LICENSE" {
		var list []NamedLimit
		for _, w := range v.inner().words() {
			name, num, ok := strings.Cut(strings.Trim(w.Text, "[]"), ",")
			f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if !ok || !strings.HasPrefix(w.Text, "[") || !nameOK(strings.TrimSpace(name)) || err != nil || f < 0 {
				v.d.Warnf(w.Pos, "Limit: %s item <%s> is not [%s, value]; limit ignored", v.key, w.Text, strings.ToLower(v.key))
				return false
			}
			list = append(list, NamedLimit{Name: strings.TrimSpace(name), Value: f})
		}
		if v.key == "RESOURCE" {
			l.Resources = list
		} else {
			l.Licenses = list
		}
		return len(list) > 0
	}
	lv := l.value(v.key)
	if lv == nil {
		v.d.Warnf(v.keyPos, "Limit: keyword %s is not supported by Basalt; ignored", v.key)
		return true
	}
	scale := 1.0
	if v.key == "MEM" || v.key == "SWP" || v.key == "TMP" {
		scale = memScale
	}
	parsed, ok := parseLimitValue(v, scale)
	if ok {
		*lv = parsed
	}
	return ok
}

func parseLimitValue(v val, scale float64) (LimitValue, bool) {
	text := strings.TrimSpace(v.text)
	num := func(s string) (float64, bool, bool) {
		pct := strings.HasSuffix(s, "%")
		f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || (pct && f > 100) {
			return 0, false, false
		}
		if !pct {
			f *= scale
		}
		return f, pct, true
	}
	if !strings.HasPrefix(text, "[") {
		f, pct, ok := num(text)
		if !ok {
			v.bad("is not a non-negative number")
			return LimitValue{}, false
		}
		if pct && scale == 1 && v.key != "MEM" && v.key != "SWP" && v.key != "TMP" {
			v.bad("may not be a percentage")
			return LimitValue{}, false
		}
		return LimitValue{Set: true, Value: f, Percent: pct}, true
	}
	lv := LimitValue{Set: true}
	for _, w := range v.words() {
		inner := strings.Fields(strings.Trim(w.Text, "[]"))
		if !strings.HasPrefix(w.Text, "[") || !strings.HasSuffix(w.Text, "]") || len(inner) < 2 {
			v.d.Warnf(w.Pos, "Limit: %s item <%s> is not [value time_window ...]; limit ignored", v.key, w.Text)
			return LimitValue{}, false
		}
		f, pct, ok := num(inner[0])
		if !ok {
			v.d.Warnf(w.Pos, "Limit: %s value <%s> is not a non-negative number; limit ignored", v.key, inner[0])
			return LimitValue{}, false
		}
		win, err := timewin.Parse(strings.Join(inner[1:], " "))
		if err != nil {
			v.d.Warnf(w.Pos, "Limit: %s: %v; limit ignored", v.key, err)
			return LimitValue{}, false
		}
		lv.Percent = lv.Percent || pct
		lv.Windows = append(lv.Windows, WindowedValue{Value: f, Window: win})
	}
	return lv, len(lv.Windows) > 0
}

// check applies LSF's rules for a whole limit.
func (l *Limit) check(d *Diagnostics) bool {
	where := "Limit"
	if l.Name != "" {
		where = "Limit <" + l.Name + ">"
	}
	consumers, resources := 0, len(l.Resources)+len(l.Licenses)
	for _, k := range consumerKeys {
		if l.consumer(k).Set {
			consumers++
		}
	}
	for _, k := range resourceKeys[:6] {
		if l.value(k).Set {
			resources++
		}
	}
	pairs := [][2]string{{"USERS", "PER_USER"}, {"QUEUES", "PER_QUEUE"}, {"HOSTS", "PER_HOST"}, {"PROJECTS", "PER_PROJECT"}}
	for _, p := range pairs {
		if l.consumer(p[0]).Set && l.consumer(p[1]).Set {
			d.Warnf(l.Pos, "%s: %s and %s cannot both be given; limit ignored", where, p[0], p[1])
			return false
		}
	}
	switch {
	case consumers == 0:
		d.Warnf(l.Pos, "%s: no consumer (USERS, QUEUES, HOSTS, PROJECTS or PER_*); limit ignored", where)
		return false
	case resources == 0:
		d.Warnf(l.Pos, "%s: no resource (SLOTS, SLOTS_PER_PROCESSOR, JOBS, MEM, SWP, TMP, RESOURCE or LICENSE); limit ignored", where)
		return false
	case l.SlotsPerProcessor.Set && !l.PerHost.Set:
		d.Warnf(l.Pos, "%s: SLOTS_PER_PROCESSOR requires PER_HOST; limit ignored", where)
		return false
	}
	for _, v := range []*LimitValue{&l.Mem, &l.Swp, &l.Tmp} {
		if v.Percent && !l.PerHost.Set {
			d.Warnf(l.Pos, "%s: a percentage of MEM, SWP or TMP requires PER_HOST; limit ignored", where)
			return false
		}
	}
	return true
}

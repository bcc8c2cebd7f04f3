package mbd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config"
)

// limitSection renders a Limit section of lsb.resources as bresources
// shows it: one "KEY = value" line per parameter given, in the order of
// LSF's documentation, memory in MB (LSF_UNIT_FOR_LIMITS already
// applied). An unnamed limit is NONAME<index>, as blimits names it.
func limitSection(l *config.Limit, idx int) string {
	var b strings.Builder
	b.WriteString("Begin Limit\n")
	name := l.Name
	if name == "" {
		name = fmt.Sprintf("NONAME%03d", idx)
	}
	fmt.Fprintf(&b, "NAME = %s\n", name)
	for _, c := range []struct {
		key string
		c   config.Consumer
	}{{"USERS", l.Users}, {"PER_USER", l.PerUser}, {"QUEUES", l.Queues}, {"PER_QUEUE", l.PerQueue},
		{"HOSTS", l.Hosts}, {"PER_HOST", l.PerHost}, {"PROJECTS", l.Projects}, {"PER_PROJECT", l.PerProject}} {
		if !c.c.Set {
			continue
		}
		var parts []string
		if c.c.All {
			parts = append(parts, "all")
		}
		parts = append(parts, c.c.Names...)
		for _, e := range c.c.Except {
			parts = append(parts, "~"+e)
		}
		fmt.Fprintf(&b, "%s = %s\n", c.key, strings.Join(parts, " "))
	}
	for _, v := range []struct {
		key string
		v   config.LimitValue
	}{{"SLOTS", l.Slots}, {"SLOTS_PER_PROCESSOR", l.SlotsPerProcessor}, {"JOBS", l.Jobs},
		{"MEM", l.Mem}, {"SWP", l.Swp}, {"TMP", l.Tmp}} {
		if !v.v.Set && len(v.v.Windows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s = %s\n", v.key, limitValueText(v.v))
	}
	for _, n := range []struct {
		key string
		ls  []config.NamedLimit
	}{{"RESOURCE", l.Resources}, {"LICENSE", l.Licenses}} {
		if len(n.ls) == 0 {
			continue
		}
		parts := make([]string, len(n.ls))
		for i, r := range n.ls {
			parts[i] = "[" + r.Name + "," + num(r.Value) + "]"
		}
		fmt.Fprintf(&b, "%s = %s\n", n.key, strings.Join(parts, " "))
	}
	b.WriteString("End Limit\n")
	return b.String()
}

func limitValueText(v config.LimitValue) string {
	pct := ""
	if v.Percent {
		pct = "%"
	}
	if len(v.Windows) == 0 {
		return num(v.Value) + pct
	}
	parts := make([]string, len(v.Windows))
	for i, w := range v.Windows {
		parts[i] = "[" + num(w.Value) + pct + " " + w.Window.String() + "]"
	}
	return strings.Join(parts, " ")
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
)

// Dump renders the typed configuration as indented "Field: value" text:
// every non-zero field, durations and windows in their usual notation,
// positions as file:line:col with the file's base name. It is what the
// golden tests compare, and what "basalt config dump" prints.
func (c *Config) Dump() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Cluster: %s\n", c.ClusterName())
	dumpTo(&b, "Conf", c.Conf, 0)
	dumpTo(&b, "Shared", c.Shared, 0)
	dumpTo(&b, "ClusterFile", c.Cluster, 0)
	if c.HostsFile != nil {
		b.WriteString("HostsFile:\n")
		for _, e := range c.HostsFile.Entries {
			fmt.Fprintf(&b, "  - %s\n", strings.Join(append([]string{e.Addr.String(), e.Name}, e.Aliases...), " "))
		}
	}
	dumpTo(&b, "Params", c.Params, 0)
	dumpTo(&b, "Queues", c.Queues, 0)
	dumpTo(&b, "LSBHosts", c.LSBHosts, 0)
	dumpTo(&b, "BatchHosts", c.BatchHosts, 0)
	dumpTo(&b, "Users", c.Users, 0)
	dumpTo(&b, "Limits", c.Limits, 0)
	dumpTo(&b, "Pools", c.Pools, 0)
	if len(c.Applications) > 0 {
		dumpTo(&b, "Applications", c.Applications, 0)
	}
	for _, q := range c.Queues {
		if len(q.Fairshare) > 0 {
			fmt.Fprintf(&b, "ShareTree(%s):\n", q.Name)
			dumpShares(&b, c.ShareTree(q.Fairshare), 1)
		}
	}
	if !c.NextChange.IsZero() {
		fmt.Fprintf(&b, "NextChange: %s\n", c.NextChange.Format(time.RFC3339))
	}
	return b.String()
}

func dumpShares(b *strings.Builder, nodes []*ShareNode, depth int) {
	for _, n := range nodes {
		fmt.Fprintf(b, "%s- %s %s %d", strings.Repeat("  ", depth), n.Kind, n.Name, n.Shares)
		if len(n.Members) > 0 {
			fmt.Fprintf(b, " members=%s", strings.Join(n.Members, ","))
		}
		b.WriteByte('\n')
		dumpShares(b, n.Children, depth+1)
	}
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	windowType   = reflect.TypeOf(timewin.Window{})
	posType      = reflect.TypeOf(Pos{})
	confType     = reflect.TypeOf(&lsfconf.Conf{})
)

// skipFields are not dumped: raw text kept for showconf, parsed
// requirements (their text is dumped), diagnostics.
var skipFields = map[string]bool{"Raw": true, "Parsed": true, "Warnings": true}

func dumpTo(b *strings.Builder, name string, v any, depth int) {
	dumpValue(b, name, reflect.ValueOf(v), depth)
}

func dumpValue(b *strings.Builder, name string, v reflect.Value, depth int) {
	indent := strings.Repeat("  ", depth)
	label := indent + name + ":"
	if name == "" {
		label = indent + "-"
	}
	if !v.IsValid() {
		return
	}
	if v.Type() == confType {
		c := v.Interface().(*lsfconf.Conf)
		if c == nil {
			return
		}
		fmt.Fprintf(b, "%s\n", label)
		for _, p := range c.Params() {
			fmt.Fprintf(b, "%s  %s=%q\n", indent, p.Name, p.Value)
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		dumpValue(b, name, v.Elem(), depth)
		return
	}
	switch v.Type() {
	case durationType:
		fmt.Fprintf(b, "%s %s\n", label, time.Duration(v.Int()))
		return
	case windowType:
		w := v.Interface().(timewin.Window)
		fmt.Fprintf(b, "%s %s\n", label, w.String())
		return
	case posType:
		p := v.Interface().(Pos)
		p.File = filepath.Base(p.File)
		fmt.Fprintf(b, "%s %s\n", label, p)
		return
	}
	if s, ok := v.Interface().(fmt.Stringer); ok && v.Kind() != reflect.Struct {
		fmt.Fprintf(b, "%s %s\n", label, s.String())
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if s, ok := v.Interface().(fmt.Stringer); ok && isLeafStruct(v) {
			fmt.Fprintf(b, "%s %s\n", label, s.String())
			return
		}
		fmt.Fprintf(b, "%s\n", label)
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || skipFields[f.Name] || f.Anonymous {
				continue
			}
			fv := v.Field(i)
			if fv.IsZero() && !isEnum(fv) {
				continue
			}
			dumpValue(b, f.Name, fv, depth+1)
		}
	case reflect.Slice, reflect.Array:
		if v.Len() == 0 {
			fmt.Fprintf(b, "%s []\n", label)
			return
		}
		if isScalarKind(v.Type().Elem().Kind()) {
			var parts []string
			for i := 0; i < v.Len(); i++ {
				parts = append(parts, fmt.Sprint(v.Index(i).Interface()))
			}
			fmt.Fprintf(b, "%s [%s]\n", label, strings.Join(parts, " "))
			return
		}
		fmt.Fprintf(b, "%s\n", label)
		for i := 0; i < v.Len(); i++ {
			dumpValue(b, "", v.Index(i), depth+1)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		fmt.Fprintf(b, "%s\n", label)
		for _, k := range keys {
			dumpValue(b, fmt.Sprint(k.Interface()), v.MapIndex(k), depth+1)
		}
	case reflect.String:
		fmt.Fprintf(b, "%s %q\n", label, v.String())
	default:
		fmt.Fprintf(b, "%s %v\n", label, v.Interface())
	}
}

// isLeafStruct: small value structs printed through their String method.
func isLeafStruct(v reflect.Value) bool {
	switch v.Type() {
	case reflect.TypeOf(LoadThreshold{}), reflect.TypeOf(JobAction{}):
		return true
	}
	return false
}

// isEnum: a named integer type with a String method (printed even when
// zero, where zero is a meaningful value such as Numeric or ShareUser).
func isEnum(v reflect.Value) bool {
	_, ok := v.Interface().(fmt.Stringer)
	return ok && v.Kind() == reflect.Int && v.Type() != durationType
}

func isScalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Int, reflect.Int64, reflect.Float64, reflect.Bool:
		return true
	}
	return false
}

package lsfmt

import (
	"fmt"
	"io"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/lim/load"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// DefaultIndices are lsload's default columns.
var DefaultIndices = []string{"r15s", "r1m", "r15m", "ut", "pg", "ls", "it", "tmp", "swp", "mem"}

// RunQueue selects how run queue lengths are shown.
type RunQueue int

// Run queue display modes.
const (
	Raw        RunQueue = iota // lsload
	Effective                  // lsload -E
	Normalized                 // lsload -N
)

// LoadOptions are lsload's display options.
type LoadOptions struct {
	Wide, Long bool
	RunQueue   RunQueue
	// Shared are the dynamic shared resources lsload -l adds after the
	// load indices.
	Shared []*api.SharedResource
}

// sharedValue is the value of a shared resource's instance that includes
// host ("-" when none does).
func sharedValue(s *api.SharedResource, host string) string {
	for _, in := range s.Instances {
		for _, h := range in.Hosts {
			if strings.EqualFold(h, host) {
				return in.Value
			}
		}
	}
	return "-"
}

// shareCell prints a shared resource column: right-aligned in the name's
// length + 2, cut to the name's length + 1.
func shareCell(name, v string) string {
	if len(v) > len(name)+1 {
		v = v[:len(name)+1]
	}
	return fmt.Sprintf("%*s", len(name)+2, v)
}

// Status is lsload's status column.
func Status(s api.LimStatus) string {
	switch {
	case s&api.LimUnavail != 0:
		return "unavail"
	case s&(api.LimLockU|api.LimLockW) != 0:
		out := "lock"
		if s&api.LimLockU != 0 {
			out += "U"
		}
		if s&api.LimLockW != 0 {
			out += "W"
		}
		return out
	case s&api.LimBusy != 0:
		return "busy"
	}
	return "ok"
}

// LoadValue returns a host's value of a load index as lsload shows it.
func LoadValue(h *api.HostLoad, name string, mode RunQueue) (float64, bool) {
	if i, ok := load.IndexOf(canonical(name)); ok {
		if i >= len(h.Load) {
			return 0, false
		}
		v := h.Load[i]
		if i <= load.R15m && mode != Raw {
			n := 1
			if h.Static != nil && h.Static.NCPUs > 0 {
				n = int(h.Static.NCPUs)
			}
			if mode == Effective {
				v = load.Effective(v, n)
			} else {
				v = load.Normalized(v, h.CPUF, n)
			}
		}
		return v, true
	}
	for _, e := range h.Ext {
		if e.Name == name {
			return e.Value, true
		}
	}
	return 0, false
}

func canonical(name string) string {
	switch name {
	case "swap":
		return "swp"
	case "login":
		return "ls"
	case "idle":
		return "it"
	case "cpu":
		return "r1m"
	}
	return name
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// WriteLoad writes lsload's table of the given indices.
func WriteLoad(w io.Writer, hosts []*api.HostLoad, indices []string, o LoadOptions) {
	var b strings.Builder
	wideCols := o.Wide || o.Long
	if wideCols {
		b.WriteString("HOST_NAME               status")
	} else {
		b.WriteString("HOST_NAME       status")
	}
	for _, n := range indices {
		b.WriteString(IndexHeader(n, o.Wide))
	}
	var shared []*api.SharedResource
	if o.Long {
		for _, sr := range o.Shared {
			if sr.Dynamic {
				shared = append(shared, sr)
				b.WriteString(shareCell(sr.Name, sr.Name))
			}
		}
	}
	b.WriteByte('\n')
	for _, h := range hosts {
		st := Status(h.Status)
		if wideCols {
			fmt.Fprintf(&b, "%-23s %6s", h.Name, st)
		} else {
			fmt.Fprintf(&b, "%-15.15s %6s", h.Name, st)
		}
		if h.Status&api.LimUnavail == 0 {
			for _, n := range indices {
				v, ok := LoadValue(h, n, o.RunQueue)
				b.WriteString(IndexValue(n, v, ok, contains(h.Busy, canonical(n)), o.Wide))
			}
			for _, sr := range shared {
				b.WriteString(shareCell(sr.Name, sharedValue(sr, h.Name)))
			}
		}
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}

// WriteShared writes lsload -s (dynamic) or lshosts -s (static): one row
// per instance, its value and its hosts, wrapped at 80 columns.
func WriteShared(w io.Writer, shared []*api.SharedResource, dynamic bool, names []string) {
	var b strings.Builder
	first := true
	for _, s := range shared {
		if s.Dynamic != dynamic || len(names) > 0 && !contains(names, s.Name) {
			continue
		}
		for _, in := range s.Instances {
			if first {
				first = false
				fmt.Fprintf(&b, "%-25s%20s%15s\n", "RESOURCE", "VALUE", "LOCATION")
			}
			pos := 52
			if len(in.Value) <= 20 {
				fmt.Fprintf(&b, "%-25s%20s       ", s.Name, in.Value)
			} else {
				pos = 25 + len(in.Value) + 2
				fmt.Fprintf(&b, "%-25s%20s  ", s.Name, in.Value)
			}
			for _, h := range in.Hosts {
				pos += len(h) + 1
				if pos > 80 {
					b.WriteString("\n" + strings.Repeat(" ", 52))
					pos = 52 + len(h) + 1
				}
				b.WriteString(h + " ")
			}
			b.WriteByte('\n')
		}
	}
	if first {
		if dynamic {
			b.WriteString("No dynamic shared resources defined \n")
		} else {
			b.WriteString("No static shared resources defined \n")
		}
	}
	io.WriteString(w, b.String())
}

// HostsOptions are lshosts' display options.
type HostsOptions struct {
	Wide bool
}

// WriteHosts writes lshosts' table.
func WriteHosts(w io.Writer, hosts []*api.HostLoad, o HostsOptions) {
	var b strings.Builder
	if o.Wide {
		fmt.Fprintf(&b, "%-25.25s %10.10s %11.11s %5.5s %5.5s %6.6s %6.6s %6.6s %9.9s\n",
			"HOST_NAME", "type", "model", "cpuf", "ncpus", "maxmem", "maxswp", "server", "RESOURCES")
	} else {
		fmt.Fprintf(&b, "%-11.11s %7.7s %8.8s %5.5s %5.5s %6.6s %6.6s %6.6s %9.9s\n",
			"HOST_NAME", "type", "model", "cpuf", "ncpus", "maxmem", "maxswp", "server", "RESOURCES")
	}
	for _, h := range hosts {
		if o.Wide {
			fmt.Fprintf(&b, "%-25s %10s %11s %5.1f ", h.Name, h.Type, h.Model, h.CPUF)
		} else {
			fmt.Fprintf(&b, "%-11.11s %7.7s %8.8s %5.1f ", h.Name, h.Type, h.Model, h.CPUF)
		}
		var ncpus, maxmem, maxswp int32
		if s := h.Static; s != nil {
			ncpus, maxmem, maxswp = s.NCPUs, s.MaxMem, s.MaxSwp
		}
		if ncpus > 0 {
			fmt.Fprintf(&b, "%5d", ncpus)
		} else {
			fmt.Fprintf(&b, "%5.5s", "-")
		}
		for _, m := range []int32{maxmem, maxswp} {
			if m > 0 {
				fmt.Fprintf(&b, " %5dM", m)
			} else {
				fmt.Fprintf(&b, " %6.6s", "-")
			}
		}
		fmt.Fprintf(&b, " %6.6s (%s)\n", yesNo(h.Server), strings.Join(h.Resources, " "))
	}
	io.WriteString(w, b.String())
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// WriteHostsLong writes lshosts -l. indices are every load index name
// (built-in then external), for the LOAD_THRESHOLDS table; shared are the
// cluster's shared resources (the static ones are listed per host).
func WriteHostsLong(w io.Writer, hosts []*api.HostLoad, indices []string, shared []*api.SharedResource) {
	var b strings.Builder
	var header strings.Builder
	for _, n := range indices {
		header.WriteString(thresholdHeader(n))
	}
	for _, h := range hosts {
		fmt.Fprintf(&b, "\nHOST_NAME:  %s\n", h.Name)
		fmt.Fprintf(&b, "%-10.10s %11.11s %5.5s %5.5s %6.6s %6.6s %6.6s %6.6s %6.6s %6.6s\n",
			"type", "model", "cpuf", "ncpus", "ndisks", "maxmem", "maxswp", "maxtmp", "rexpri", "server")
		fmt.Fprintf(&b, "%-10.10s %11.11s %5.5s ", h.Type, h.Model, cutf(fmt.Sprintf("%5.1f", h.CPUF), 5))
		s := h.Static
		switch {
		case !h.Server:
			fmt.Fprintf(&b, "%5s %6s %6s %6s %6s %6s %6s\n", "-", "-", "-", "-", "-", "-", "No")
		case s != nil && s.NCPUs > 0:
			fmt.Fprintf(&b, "%5d %6d %5dM %5dM %5dM %6d %6s\n", s.NCPUs, s.NDisks, s.MaxMem, s.MaxSwp, s.MaxTmp, h.RExPri, "Yes")
		default:
			fmt.Fprintf(&b, "%5s %6s %6s %6s %6s %6d %6s\n", "-", "-", "-", "-", "-", h.RExPri, "Yes")
		}
		var names, values strings.Builder
		for _, sr := range shared {
			if !sr.Dynamic {
				names.WriteString(shareCell(sr.Name, sr.Name))
				values.WriteString(shareCell(sr.Name, sharedValue(sr, h.Name)))
			}
		}
		if names.Len() > 0 {
			b.WriteString(names.String() + "\n" + values.String() + "\n")
		}
		b.WriteString("\nRESOURCES: ")
		if len(h.Resources) > 0 {
			b.WriteString("(" + strings.Join(h.Resources, " ") + ")\n")
		} else {
			b.WriteString("Not defined\n")
		}
		b.WriteString("RUN_WINDOWS: ")
		switch {
		case !h.Server:
			b.WriteString("Not applicable for client-only host\n")
		case h.RunWindow == "":
			b.WriteString(" (always open)\n")
		default:
			b.WriteString(h.RunWindow + "\n")
		}
		if !h.Server {
			b.WriteByte('\n')
			continue
		}
		b.WriteString("\nLOAD_THRESHOLDS:\n")
		b.WriteString(header.String() + "\n")
		for _, n := range indices {
			v, ok := threshold(h, n)
			b.WriteString(thresholdValue(n, v, ok))
		}
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}

func cutf(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func threshold(h *api.HostLoad, name string) (float64, bool) {
	for _, t := range h.Thresholds {
		if t.Index == name {
			return t.Value, true
		}
	}
	return 0, false
}

// lshosts -l's threshold formats (OpenLava lshosts.c fmt1).
var thresholdFmt = map[string]struct {
	width int
	ok    string
	scale float64
}{
	"r15s": {6, "%5.1f", 1}, "r1m": {6, "%5.1f", 1}, "r15m": {6, "%5.1f", 1},
	"ut": {5, "%3.0f%%", 100}, "pg": {6, "%4.1f", 1}, "io": {6, "%4.0f", 1}, "ls": {5, "%2.0f", 1},
	"it": {5, "%4.0f", 1}, "tmp": {6, "%4.0fM", 1}, "swp": {6, "%4.0fM", 1}, "mem": {6, "%4.0fM", 1},
}

func thresholdHeader(n string) string {
	if f, ok := thresholdFmt[n]; ok {
		return fmt.Sprintf("%*s", f.width, n)
	}
	if len(n) >= 7 {
		return fmt.Sprintf("%*s", len(n)+1, n)
	}
	return fmt.Sprintf("%7s", n)
}

func thresholdValue(n string, v float64, ok bool) string {
	width := 7
	format, scale := "%6.1f", 1.0
	if f, builtin := thresholdFmt[n]; builtin {
		width, format, scale = f.width, f.ok, f.scale
	} else if len(n) >= 7 {
		width = len(n) + 1
	}
	s := "-"
	if ok {
		if n == "ut" && v > 1 {
			v /= 100
		}
		s = strings.TrimSpace(fmt.Sprintf(format, v*scale))
	}
	return fmt.Sprintf("%*s", width, s)
}

// Resource is one row of lsinfo.
type Resource struct {
	Name, Type, Order, Description string
	Interval                       int
	Builtin, Dynamic, Release      bool
}

// Resources returns lsinfo's resources: the built-in ones in LSF's order
// (the load indices, then the static resources), then lsf.shared's.
func Resources(site []*api.ResourceInfo) []Resource {
	var out []Resource
	t := resreq.BuiltinTable()
	for i := 0; i < t.Len(); i++ {
		d := t.Def(i)
		if i == resreq.IdxSlots || i == resreq.IdxMaxslots {
			continue // batch-level, not LIM resources
		}
		out = append(out, Resource{Name: d.Name, Type: d.Type.String(), Order: order(d.Type.String(), d.Increasing),
			Description: d.Description, Interval: d.Interval, Builtin: true, Dynamic: d.Interval > 0})
	}
	for _, r := range site {
		out = append(out, Resource{Name: r.Name, Type: r.Type, Order: order(r.Type, r.Increasing), Description: r.Description,
			Interval: int(r.Interval), Dynamic: r.Interval > 0, Release: r.Release && r.Shared})
	}
	return out
}

func order(typ string, inc bool) string {
	switch {
	case typ != "Numeric":
		return "N/A"
	case inc:
		return "Inc"
	}
	return "Dec"
}

// InfoOptions are lsinfo's options.
type InfoOptions struct {
	Long              bool
	Resources, Types  bool
	Models, AllModels bool
	Names             []string
}

// WriteInfo writes lsinfo. It returns the names not found.
func WriteInfo(w io.Writer, res []Resource, types []string, models []*api.ModelInfo, used map[string]bool, o InfoOptions) []string {
	var b strings.Builder
	if !o.Resources && !o.Types && !o.Models && len(o.Names) == 0 {
		o.Resources, o.Types, o.Models = true, true, true
	} else if len(o.Names) > 0 {
		o.Resources = true
	}
	var missing []string
	if o.Resources {
		if !o.Long {
			fmt.Fprintf(&b, "%-13.13s %7.7s  %5.5s  %s\n", "RESOURCE_NAME", "  TYPE ", "ORDER", "DESCRIPTION")
		}
		found := map[string]bool{}
		first := true
		for _, r := range res {
			if len(o.Names) > 0 && !contains(o.Names, r.Name) {
				continue
			}
			found[r.Name] = true
			if !o.Long {
				fmt.Fprintf(&b, "%-13.13s %7.7s %5.5s   %s\n", r.Name, r.Type, r.Order, r.Description)
				continue
			}
			if !first {
				b.WriteByte('\n')
			}
			first = false
			fmt.Fprintf(&b, "RESOURCE_NAME:  %s\nDESCRIPTION: %s\n", r.Name, r.Description)
			fmt.Fprintf(&b, "%-7.7s %5s  %9s %8s %8s %8s\n", "TYPE", "ORDER", "INTERVAL", "BUILTIN", "DYNAMIC", "RELEASE")
			fmt.Fprintf(&b, "%-7.7s %5s  %9d %8s %8s %8s\n", r.Type, r.Order, r.Interval, yesNo(r.Builtin), yesNo(r.Dynamic), yesNo(r.Release))
		}
		for _, n := range o.Names {
			if !found[n] && !contains(missing, n) {
				missing = append(missing, n)
				fmt.Fprintf(&b, "%s: Resource name not found\n", n)
			}
		}
	}
	if o.Types {
		if o.Resources {
			b.WriteByte('\n')
		}
		b.WriteString("TYPE_NAME\n")
		for _, t := range types {
			b.WriteString(t + "\n")
		}
	}
	if o.Models {
		if o.Resources || o.Types {
			b.WriteByte('\n')
		}
		b.WriteString("MODEL_NAME      CPU_FACTOR      ARCHITECTURE\n")
		for _, m := range models {
			if o.AllModels || used[m.Name] {
				fmt.Fprintf(&b, "%-16s    %6.2f      %s\n", m.Name, m.CPUFactor, strings.Join(m.Arch, " "))
			}
		}
	}
	io.WriteString(w, b.String())
	return missing
}

// WriteClusters writes lsclusters.
func WriteClusters(w io.Writer, name, status, master, admin string, hosts, servers int, wide bool) {
	if wide {
		fmt.Fprintf(w, "CLUSTER_NAME   STATUS   MASTER_HOST                     ADMIN    HOSTS  SERVERS\n")
		fmt.Fprintf(w, "%-14s %-8s %-24s %12s %8d %8d\n", name, status, master, admin, hosts, servers)
		return
	}
	fmt.Fprintf(w, "CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS\n")
	fmt.Fprintf(w, "%-14.14s %-8.8s %-18.18s %12.12s %8d %8d\n", name, status, master, admin, hosts, servers)
}

// WriteID writes lsid.
func WriteID(w io.Writer, banner, cluster, master string) {
	fmt.Fprintf(w, "%s\n\nMy cluster name is %s\nMy master name is %s\n", banner, cluster, master)
}

// ClusterRow is one line of lsclusters.
type ClusterRow struct {
	Name, Status, Master, Admin string
	Hosts, Servers              int
}

// WriteClusterRows writes lsclusters with a line per cluster (the local
// cluster and the MultiCluster peers), as WriteClusters does for one.
func WriteClusterRows(w io.Writer, rows []ClusterRow, wide bool) {
	if wide {
		fmt.Fprintf(w, "CLUSTER_NAME   STATUS   MASTER_HOST                     ADMIN    HOSTS  SERVERS\n")
	} else {
		fmt.Fprintf(w, "CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS\n")
	}
	for _, r := range rows {
		if wide {
			fmt.Fprintf(w, "%-14s %-8s %-24s %12s %8d %8d\n", r.Name, r.Status, r.Master, r.Admin, r.Hosts, r.Servers)
		} else {
			fmt.Fprintf(w, "%-14.14s %-8.8s %-18.18s %12.12s %8d %8d\n", r.Name, r.Status, r.Master, r.Admin, r.Hosts, r.Servers)
		}
	}
}

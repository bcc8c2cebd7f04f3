package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/basalt-lsf/basalt/api"
)

// Headers of the cluster listings (lsf-reference.md §5; spacing from IBM
// examples, column positions checked against their rows).
const (
	queuesHeader = "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP"
	hostsHeader  = "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV"
	usersHeader  = "USER/GROUP          JL/P    MAX  NJOBS   PEND    RUN  SSUSP  USUSP    RSV"
)

// limit prints a job slot limit: "-" for unlimited (0 or negative).
func limit(n int32) string {
	if n <= 0 {
		return "-"
	}
	return strconv.Itoa(int(n))
}

// flimit prints a per-processor limit (JL/P), "-" when unlimited, without
// decimals when whole.
func flimit(f float64) string {
	if f <= 0 {
		return "-"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// QueueStatus is bqueues' STATUS column: Open or Closed, Active or
// Inactive. Long forms (bqueues -l) name why a queue is inactive:
// Inact_Win (run or dispatch window) or Inact_Adm (badmin qinact).
func QueueStatus(q *api.QueueInfo, long bool) string {
	s := "Closed:"
	if q.Open {
		s = "Open:"
	}
	switch {
	case q.Active && !q.InactiveByWindow && !q.InactiveByAdmin:
		return s + "Active"
	case long && q.InactiveByAdmin:
		return s + "Inact_Adm"
	case long && q.InactiveByWindow:
		return s + "Inact_Win"
	}
	return s + "Inactive"
}

// WriteQueues writes bqueues' default listing. The row format
// "%-15.15s %3d  %-15s %3s %4s %4s %4s %5d %5d %5d %5d" puts every value
// under its header as IBM's example rows do; -w (o.Wide) does not cut the
// queue name.
func WriteQueues(w io.Writer, qs []*api.QueueInfo, o *Options) error {
	var b strings.Builder
	if len(qs) > 0 && !(o != nil && o.NoHeader) {
		b.WriteString(queuesHeader + "\n")
	}
	for _, q := range qs {
		if q == nil {
			continue
		}
		name := cut(q.Name, 15)
		if o != nil && o.Wide {
			name = pad(q.Name, 15)
		}
		fmt.Fprintf(&b, "%s %3d  %-15s %3s %4s %4s %4s %5d %5d %5d %5d\n", name, q.Priority, QueueStatus(q, false),
			limit(q.Max), limit(q.JLU), flimit(q.JLP), limit(q.JLH), q.NJobs, q.Pend, q.Run, q.SSusp+q.USusp)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteQueuesLong writes bqueues -l (OpenLava bqueues.c layout with IBM's
// section names): description, PARAMETERS/STATISTICS, limits, scheduling
// parameters, policies, users, hosts, administrators and commands.
func WriteQueuesLong(w io.Writer, qs []*api.QueueInfo, o *Options) error {
	var b strings.Builder
	for _, q := range qs {
		if q == nil {
			continue
		}
		fmt.Fprintf(&b, "\nQUEUE: %s\n", q.Name)
		if q.Description != "" {
			fmt.Fprintf(&b, "  -- %s\n", q.Description)
		}
		b.WriteString("\nPARAMETERS/STATISTICS\n")
		b.WriteString("PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV\n")
		fmt.Fprintf(&b, "%4d %4d %-15s %3s %4s %4s %4s %5d %5d %5d %5d %5d %4d\n", q.Priority, q.Nice, QueueStatus(q, true),
			limit(q.Max), limit(q.JLU), flimit(q.JLP), limit(q.JLH), q.NJobs, q.Pend, q.Run, q.SSusp, q.USusp, q.Rsv)
		if q.RunWindow != "" {
			fmt.Fprintf(&b, "Run Windows:  %s\n", q.RunWindow)
		}
		if q.DispatchWindow != "" {
			fmt.Fprintf(&b, "Dispatch Windows:  %s\n", q.DispatchWindow)
		}
		if l := q.DefaultLimits; l != nil && (l.CPU > 0 || l.Run > 0 || l.Mem > 0) {
			b.WriteString("\n DEFAULT LIMITS:")
			b.WriteString(limitsBlock(l))
		}
		if l := q.MaxLimits; l != nil {
			b.WriteString(limitsBlock(l))
		}
		if q.ProcLimitMax > 0 {
			fmt.Fprintf(&b, "\n PROCLIMIT\n %d %d %d\n", max(q.ProcLimitMin, 1), max(q.ProcLimitDefault, 1), q.ProcLimitMax)
		}
		b.WriteString("\nSCHEDULING PARAMETERS\n")
		b.WriteString(thresholdTable(q.Thresholds))
		if q.StopCond != "" {
			fmt.Fprintf(&b, "\nSTOP_COND:  %s\n", q.StopCond)
		}
		if q.ResumeCond != "" {
			fmt.Fprintf(&b, "\nRESUME_COND:  %s\n", q.ResumeCond)
		}
		if q.SchedulingPolicies != "" {
			fmt.Fprintf(&b, "\nSCHEDULING POLICIES:  %s\n", q.SchedulingPolicies)
		}
		if len(q.Shares) > 0 || q.UserShares != "" {
			shares := q.UserShares
			if shares == "" {
				var us []string
				for _, s := range q.Shares {
					if s != nil {
						us = append(us, fmt.Sprintf("[%s, %d]", s.Name, s.Shares))
					}
				}
				shares = strings.Join(us, " ")
			}
			b.WriteString("\nUSER_SHARES:  " + shares + " \n\n")
			writeShareInfo(&b, q.Name, q.Shares)
		}
		if q.Preemption != "" {
			fmt.Fprintf(&b, "\nPREEMPTION = %s\n", q.Preemption)
		}
		if q.ResReq != "" {
			fmt.Fprintf(&b, "\nRES_REQ:  %s\n", q.ResReq)
		}
		if q.GPUReq != "" {
			fmt.Fprintf(&b, "\nGPU_REQ:  %s\n", q.GPUReq)
		}
		users := "all"
		if len(q.Users) > 0 {
			users = strings.Join(q.Users, " ")
		}
		hosts := "all"
		if len(q.Hosts) > 0 {
			hosts = strings.Join(q.Hosts, " ")
		}
		fmt.Fprintf(&b, "\nUSERS: %s\nHOSTS:  %s\n", users, hosts)
		if len(q.Admins) > 0 {
			fmt.Fprintf(&b, "ADMINISTRATORS:  %s\n", strings.Join(q.Admins, " "))
		}
		if q.PreExec != "" {
			fmt.Fprintf(&b, "PRE_EXEC:  %s\n", q.PreExec)
		}
		if q.PostExec != "" {
			fmt.Fprintf(&b, "POST_EXEC:  %s\n", q.PostExec)
		}
		if q.JobStarter != "" {
			fmt.Fprintf(&b, "JOB_STARTER:  %s\n", q.JobStarter)
		}
		if q.RequeueExitValues != "" {
			fmt.Fprintf(&b, "REQUEUE_EXIT_VALUES:  %s\n", q.RequeueExitValues)
		}
		if q.JobControls != "" {
			fmt.Fprintf(&b, "JOB_CONTROLS:  %s\n", q.JobControls)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// thresholdTable prints loadSched/loadStop rows for the built-in indices
// under the header OpenLava's printThresholds uses, "-" where unset; other
// indices follow in tables of their own.
func thresholdTable(ts []*api.Threshold) string {
	byName := map[string]*api.Threshold{}
	var extra []*api.Threshold
	for _, t := range ts {
		if t == nil {
			continue
		}
		byName[t.Index] = t
		if builtinIndex(t.Index) < 0 {
			extra = append(extra, t)
		}
	}
	// Column formats of cmd.prt.c fill_load, in display order r15s r1m r15m
	// ut pg io ls it tmp swp mem.
	order := []string{"r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem"}
	var b strings.Builder
	b.WriteString("           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n")
	for _, row := range []string{" loadSched", " loadStop "} {
		b.WriteString(row)
		for _, n := range order {
			t := byName[n]
			has, v := false, 0.0
			if t != nil && row == " loadSched" {
				has, v = t.HasSched, t.Sched
			} else if t != nil {
				has, v = t.HasStop, t.Stop
			}
			b.WriteString(loadCell(n, has, v))
		}
		b.WriteByte('\n')
	}
	// Other indices follow in tables of as many columns as fit in 80
	// (OpenLava's printThresholds and getDispEnd): each column as wide as
	// its name, at least 7; an unset value is fillDefal's "     - ".
	for len(extra) > 0 {
		n, width := 0, len(" loadSched")
		for n < len(extra) {
			width += max(len(extra[n].Index), 7) + 1
			if width > 80 {
				break
			}
			n++
		}
		n = max(n, 1)
		b.WriteString("\n          ")
		for _, t := range extra[:n] {
			fmt.Fprintf(&b, "%*s ", max(len(t.Index), 7), t.Index)
		}
		for _, row := range []string{"\n loadSched", "\n loadStop "} {
			b.WriteString(row)
			for _, t := range extra[:n] {
				has, v := t.HasSched, t.Sched
				if row != "\n loadSched" {
					has, v = t.HasStop, t.Stop
				}
				s := "     - "
				if has {
					s = fmt.Sprintf("%6.1f", v)
				}
				fmt.Fprintf(&b, "%*s ", max(len(t.Index), 7), s)
			}
		}
		b.WriteByte('\n')
		extra = extra[n:]
	}
	return b.String()
}

// loadCell is one value of a threshold row (cmd.prt.c fill_load and
// fillDefal: "%5.1f " for r15s/r1m/r15m, " %3.1f " for ut, ...).
func loadCell(index string, has bool, v float64) string {
	if !has {
		switch index {
		case "ut", "ls":
			return "   - "
		case "r15s", "r1m", "r15m":
			return "   -  "
		case "it", "io":
			return "    - "
		case "swp", "mem", "tmp":
			return "    -  "
		case "pg":
			return "      - "
		}
		return "     - "
	}
	switch index {
	case "r15s", "r1m", "r15m":
		return fmt.Sprintf("%5.1f ", v)
	case "ut":
		return fmt.Sprintf(" %3.1f ", v)
	case "pg":
		return fmt.Sprintf("%7.1f ", v)
	case "io", "it":
		return fmt.Sprintf("%5.0f ", v)
	case "ls":
		return fmt.Sprintf(" %3.0f ", v)
	case "swp", "mem", "tmp":
		return fmt.Sprintf("%5.0fM ", v)
	}
	return fmt.Sprintf("%6.1f", v)
}

// WriteHosts writes bhosts' default listing:
// "%-18.18s %-12s %4s %6s %6d %6d %6d %6d %6d" under the IBM header; -w
// does not cut the host name.
func WriteHosts(w io.Writer, hs []*api.HostInfo, o *Options) error {
	var b strings.Builder
	if len(hs) > 0 && !(o != nil && o.NoHeader) {
		b.WriteString(hostsHeader + "\n")
	}
	wide := o != nil && o.Wide
	for _, h := range hs {
		if h == nil {
			continue
		}
		name, status := cut(h.Name, 18), h.Status
		if wide {
			name = pad(h.Name, 18)
		} else {
			status = shortHostStatus(status)
		}
		fmt.Fprintf(&b, "%s %-12s %4s %6s %6d %6d %6d %6d %6d\n", name, status, limit(h.JLU), limit(h.Max),
			h.NJobs, h.Run, h.SSusp, h.USusp, h.Rsv)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shortHostStatus: the default bhosts listing says "closed" for every
// closed_* state; -w and -l show the reason (LSF 7 command reference).
func shortHostStatus(s string) string {
	if strings.HasPrefix(s, "closed_") {
		return "closed"
	}
	return s
}

// WriteHostsLong writes bhosts -l as OpenLava's bhosts does: per host its
// STATUS line, the current load the scheduler uses (Total and Reserved
// rows, omitted for an unavailable or unreachable host) and the thresholds
// used for scheduling.
func WriteHostsLong(w io.Writer, hs []*api.HostInfo, o *Options) error {
	var b strings.Builder
	for _, h := range hs {
		if h == nil {
			continue
		}
		fmt.Fprintf(&b, "HOST  %s\n", h.Name)
		b.WriteString("STATUS           CPUF  JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV DISPATCH_WINDOW\n")
		win := h.DispatchWindow
		if win == "" {
			win = "     -"
		}
		fmt.Fprintf(&b, "%-14s %6.2f %5s %6s %6d %6d %6d %6d %6d %s\n\n", h.Status, h.CPUF, limit(h.JLU), limit(h.Max),
			h.NJobs, h.Run, h.SSusp, h.USusp, h.Rsv, win)
		if h.Comment != "" {
			fmt.Fprintf(&b, " ADMIN ACTION COMMENT: \"%s\"\n\n", h.Comment)
		}
		if len(h.Load) > 0 && h.Status != "unavail" && h.Status != "unreach" {
			b.WriteString(" CURRENT LOAD USED FOR SCHEDULING:\n")
			writeLoadRows(&b, h.Load)
			b.WriteByte('\n')
		}
		b.WriteString(" LOAD THRESHOLD USED FOR SCHEDULING:\n")
		b.WriteString(thresholdTable(h.Thresholds))
		b.WriteString("\n\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// loadFmt is how bhosts -l prints a load index (OpenLava bhosts.c fmt1):
// the column width, the printf format of the value, the width the value
// may take before a large memory value is shown in G, and the scale.
type loadFmt struct {
	width   int
	verb    string // e.g. "%.1f"
	dispLen int
	scale   float64
	suffix  string
}

var loadFmts = sync.OnceValue(func() map[string]loadFmt {
	return map[string]loadFmt{
		"r15s": {6, "%.1f", 6, 1, ""}, "r1m": {6, "%.1f", 6, 1, ""}, "r15m": {6, "%.1f", 6, 1, ""},
		"ut": {6, "%.0f", 6, 100, "%"}, "pg": {6, "%.1f", 6, 1, ""}, "io": {6, "%.0f", 4, 1, ""},
		"ls": {5, "%.0f", 3, 1, ""}, "it": {6, "%.0f", 5, 1, ""},
		"tmp": {6, "%.0f", 5, 1, "M"}, "swp": {6, "%.0f", 5, 1, "M"}, "mem": {6, "%.0f", 5, 1, "M"},
	}
})

// defaultLoadFmt is the format of an external load index.
var defaultLoadFmt = loadFmt{7, "%.1f", 7, 1, ""}

func loadFmtOf(index string) loadFmt {
	if f, ok := loadFmts()[index]; ok {
		return f
	}
	return defaultLoadFmt
}

// loadCellText is a load value as bhosts -l shows it, before padding.
func loadCellText(index string, v float64) string {
	f := loadFmtOf(index)
	s := fmt.Sprintf(f.verb, v*f.scale) + f.suffix
	if len(s) > f.dispLen && v > 1024 && f.suffix == "M" {
		s = fmt.Sprintf(f.verb, v/1024) + "G"
	}
	return s
}

// writeLoadRows writes the index names and the Total and Reserved rows,
// in chunks that fit 80 columns (OpenLava's getDispLastItem), each chunk
// followed by a blank line.
func writeLoadRows(b *strings.Builder, load []*api.LoadValue) {
	var ls []*api.LoadValue
	for _, l := range load {
		if l != nil {
			ls = append(ls, l)
		}
	}
	cell := func(l *api.LoadValue, text string) string {
		f := loadFmtOf(l.Index)
		if _, builtin := loadFmts()[l.Index]; !builtin && len(l.Index) >= 7 {
			return fmt.Sprintf(" %*s", len(l.Index), text)
		}
		return fmt.Sprintf("%*s", f.width, text)
	}
	for start := 0; start < len(ls); {
		end, width := start, 11
		for end < len(ls) {
			fw := len(ls[end].Index) + 1
			if len(ls[end].Index) < 7 {
				fw = loadFmtOf(ls[end].Index).dispLen
			}
			if width+fw >= 80 {
				break
			}
			width += fw
			end++
		}
		if end == start {
			end = start + 1
		}
		b.WriteString("            ")
		for _, l := range ls[start:end] {
			b.WriteString(cell(l, l.Index))
		}
		b.WriteString("\n Total      ")
		for _, l := range ls[start:end] {
			t := "-"
			if l.HasValue {
				t = loadCellText(l.Index, l.Total)
			}
			b.WriteString(cell(l, t))
		}
		b.WriteString("\n Reserved   ")
		for _, l := range ls[start:end] {
			t := "-"
			if l.HasValue {
				t = loadCellText(l.Index, l.Reserved)
			}
			b.WriteString(cell(l, t))
		}
		b.WriteString("\n\n")
		start = end
	}
}

// loadValue formats a load index value: memory-like indices in MB with an
// M, utilisation as a percentage, the rest with one decimal.
func loadValue(index string, v float64) string {
	switch index {
	case "mem", "swp", "tmp":
		return fmt.Sprintf("%.0fM", v)
	case "ut":
		return fmt.Sprintf("%.0f%%", v*100)
	case "io", "it", "ls":
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// WriteUsers writes busers: "%-19.19s %4s %6s %6d %6d %6d %6d %6d %6d"
// under the header; -w does not cut names.
func WriteUsers(w io.Writer, us []*api.UserInfo, o *Options) error {
	var b strings.Builder
	if len(us) > 0 && !(o != nil && o.NoHeader) {
		b.WriteString(usersHeader + "\n")
	}
	for _, u := range us {
		if u == nil {
			continue
		}
		name := cut(u.Name, 19)
		if o != nil && o.Wide {
			name = pad(u.Name, 19)
		}
		fmt.Fprintf(&b, "%s %4s %6s %6d %6d %6d %6d %6d %6d\n", name, flimit(u.JLP), limit(u.Max),
			u.NJobs, u.Pend, u.Run, u.SSusp, u.USusp, u.Rsv)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteGroups writes bugroup ("GROUP_NAME    USERS") or bmgroup
// ("GROUP_NAME    HOSTS"): a group per line, members separated by spaces
// with a trailing space, subgroups ending in "/" (OpenLava bgroup). A group
// without members is "all".
func WriteGroups(w io.Writer, gs []*api.Group, hostGroups bool, o *Options) error {
	var b strings.Builder
	col := "USERS"
	if hostGroups {
		col = "HOSTS"
	}
	if len(gs) > 0 && !(o != nil && o.NoHeader) {
		b.WriteString("GROUP_NAME    " + col + "\n")
	}
	for _, g := range gs {
		if g == nil {
			continue
		}
		b.WriteString(pad(g.Name, 13) + " ")
		if len(g.Members) == 0 {
			b.WriteString("all ")
		}
		for _, m := range g.Members {
			b.WriteString(m + " ")
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteGroupsLong writes bugroup -l: each group's members, then its shares
// and administrators.
func WriteGroupsLong(w io.Writer, gs []*api.Group, hostGroups bool, o *Options) error {
	var b strings.Builder
	col := "USERS"
	if hostGroups {
		col = "HOSTS"
	}
	for i, g := range gs {
		if g == nil {
			continue
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "GROUP_NAME:    %s\n%s: ", g.Name, col)
		if len(g.Members) == 0 {
			b.WriteString("all ")
		}
		for _, m := range g.Members {
			b.WriteString(m + " ")
		}
		b.WriteByte('\n')
		if len(g.Admins) > 0 {
			fmt.Fprintf(&b, "GROUP_ADMIN: %s\n", strings.Join(g.Admins, " "))
		}
		if len(g.Shares) > 0 {
			b.WriteString("SHARES:  ")
			for _, s := range g.Shares {
				if s != nil {
					fmt.Fprintf(&b, "[%s, %d] ", s.Name, s.Shares)
				}
			}
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteParams writes bparams' default summary (OpenLava bparams.c): the
// default queues and the scheduling intervals, from the parameters mbatchd
// reports.
func WriteParams(w io.Writer, ps []*api.KeyValue) error {
	get := func(k, def string) string {
		for _, p := range ps {
			if p != nil && p.Key == k && p.Value != "" {
				return p.Value
			}
		}
		return def
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Default Queues:  %s\n", get("DEFAULT_QUEUE", "normal"))
	if h := get("DEFAULT_HOST_SPEC", ""); h != "" {
		fmt.Fprintf(&b, "Default Host Specification:  %s\n", h)
	}
	fmt.Fprintf(&b, "MBD_SLEEP_TIME used for calculations:  %s seconds\n", get("MBD_SLEEP_TIME", "10"))
	fmt.Fprintf(&b, "Job Checking Interval:  %s seconds\n", get("SBD_SLEEP_TIME", "7"))
	fmt.Fprintf(&b, "Job Accepting Interval:  %s seconds\n", get("JOB_ACCEPT_INTERVAL", "0"))
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteParamsAll writes bparams -a: every parameter as "    KEY = VALUE"
// under a title line (IBM 10.1; Toil and the Snakemake plugin split these
// lines on "=").
func WriteParamsAll(w io.Writer, ps []*api.KeyValue, o *Options) error {
	var b strings.Builder
	var yo Options
	if o != nil {
		yo = *o
	}
	yo.DisplayYear = true
	fmt.Fprintf(&b, "lsb.params configuration at %s\n", LongTime(yo.Now.Unix(), &yo))
	for _, p := range ps {
		if p != nil {
			fmt.Fprintf(&b, "    %s = %s\n", p.Key, p.Value)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSharedResources writes bhosts -s as OpenLava does: a row per
// instance, its hosts wrapped at 80 columns under the LOCATION column.
func WriteSharedResources(w io.Writer, rs []*api.BatchSharedResource) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s%10s%15s%15s\n", "RESOURCE", "TOTAL", "RESERVED", "LOCATION")
	indent := strings.Repeat(" ", 52)
	for _, r := range rs {
		for _, in := range r.Instances {
			total := "-"
			if in.HasTotal {
				total = fmt.Sprintf("%.1f", in.Total)
			}
			fmt.Fprintf(&b, "%-20s%10s%15s       ", r.Name, total, fmt.Sprintf("%.1f", in.Reserved))
			pos := 52
			for _, h := range in.Hosts {
				pos += len(h) + 1
				if pos > 80 {
					b.WriteString("\n" + indent)
					pos = 52 + len(h) + 1
				}
				b.WriteString(h + " ")
			}
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeShareInfo writes a fairshare tree's accounts (bqueues -l, bhpart).
func writeShareInfo(b *strings.Builder, owner string, shares []*api.ShareAccount) {
	b.WriteString("SHARE_INFO_FOR: " + owner + "/\n")
	b.WriteString(" USER/GROUP   SHARES  PRIORITY  STARTED  RESERVED  CPU_TIME  RUN_TIME   ADJUST\n")
	for _, s := range shares {
		if s != nil {
			fmt.Fprintf(b, "%-12s %7d %9.3f %8d %9d %9.1f %9d %8.3f\n", s.Name, s.Shares, s.Priority, s.Started, s.Reserved, s.CPUTime, s.RunTime, s.Adjust)
		}
	}
}

// WriteHostPartitions writes bhpart: each partition's hosts and share
// accounts.
func WriteHostPartitions(w io.Writer, ps []*api.HostPartitionInfo) error {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "HOST_PARTITION_NAME: %s\n", p.Name)
		fmt.Fprintf(&b, "HOSTS: %s\n\n", strings.Join(p.Hosts, " "))
		writeShareInfo(&b, p.Name, p.Shares)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

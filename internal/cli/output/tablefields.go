package output

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/lim/lsfmt"
)

// The -o fields of bhosts, bqueues, lsload and lshosts. Names and aliases
// follow IBM LSF 10.1's field tables; a value is the string the command's
// default or -w listing prints in that column (limits "-" when unlimited,
// names never cut), "-" (-json: "") when unset.
//
// Headers: the batch commands print the field's name in upper case, also
// for an alias (bhosts -o "jl_u" prints JL_U, not the JL/U of the default
// listing; bqueues -o "prio" prints PRIORITY), as real 10.1 output read by
// the DataDog LSF check and -json consumers shows; lsload and lshosts
// print their default listing's header (HOST_NAME, status, r15s; type,
// maxmem). Recommended widths (name: with no width) are LSF's where real
// output shows them (lshosts cpuf: 8, maxmem: 10), else wide enough for
// the default listing's values.

func itoa(n int32) (string, bool) { return strconv.Itoa(int(n)), true }

func limitValue(n int32) (string, bool) { return limit(n), true }

var hostFields = newRecordFields(func() []recordField[api.HostInfo] {
	type rec = api.HostInfo
	return []recordField[rec]{
		{FieldInfo{Name: "host_name", Aliases: []string{"hname"}, Header: "HOST_NAME", Width: 20}, func(h *rec) (string, bool) { return str(h.Name) }},
		// The full status, as -w and -l print it (closed_Adm, not closed).
		{FieldInfo{Name: "status", Aliases: []string{"stat"}, Header: "STATUS", Width: 15}, func(h *rec) (string, bool) { return str(h.Status) }},
		{FieldInfo{Name: "cpuf", Header: "CPUF", Width: 10}, func(h *rec) (string, bool) { return strconv.FormatFloat(h.CPUF, 'f', 2, 64), true }},
		{FieldInfo{Name: "jl_u", Aliases: []string{"jlu"}, Header: "JL_U", Width: 8}, func(h *rec) (string, bool) { return limitValue(h.JLU) }},
		{FieldInfo{Name: "max", Header: "MAX", Width: 8}, func(h *rec) (string, bool) { return limitValue(h.Max) }},
		{FieldInfo{Name: "njobs", Header: "NJOBS", Width: 8}, func(h *rec) (string, bool) { return itoa(h.NJobs) }},
		{FieldInfo{Name: "run", Header: "RUN", Width: 8}, func(h *rec) (string, bool) { return itoa(h.Run) }},
		{FieldInfo{Name: "ssusp", Header: "SSUSP", Width: 8}, func(h *rec) (string, bool) { return itoa(h.SSusp) }},
		{FieldInfo{Name: "ususp", Header: "USUSP", Width: 8}, func(h *rec) (string, bool) { return itoa(h.USusp) }},
		{FieldInfo{Name: "rsv", Header: "RSV", Width: 8}, func(h *rec) (string, bool) { return itoa(h.Rsv) }},
		{FieldInfo{Name: "dispatch_window", Aliases: []string{"dispwin"}, Header: "DISPATCH_WINDOW", Width: 50}, func(h *rec) (string, bool) { return str(h.DispatchWindow) }},
		{FieldInfo{Name: "comments", Aliases: []string{"comment"}, Header: "COMMENTS", Width: 128}, func(h *rec) (string, bool) { return str(h.Comment) }},
		// LSF 10.1's GPU counters (what LSF monitors ask for: bhosts -o
		// "... ngpus ngpus_alloc ... ngpus_shared_avail" -json). Basalt
		// schedules no GPUs: "-". Their recommended widths are not in the
		// sources at hand: the header's length.
		{FieldInfo{Name: "ngpus", Header: "NGPUS", Width: 5}, noHostValue},
		{FieldInfo{Name: "ngpus_alloc", Header: "NGPUS_ALLOC", Width: 11}, noHostValue},
		{FieldInfo{Name: "ngpus_excl_alloc", Header: "NGPUS_EXCL_ALLOC", Width: 16}, noHostValue},
		{FieldInfo{Name: "ngpus_shared_alloc", Header: "NGPUS_SHARED_ALLOC", Width: 18}, noHostValue},
		{FieldInfo{Name: "ngpus_shared_jexcl_alloc", Header: "NGPUS_SHARED_JEXCL_ALLOC", Width: 24}, noHostValue},
		{FieldInfo{Name: "ngpus_excl_avail", Header: "NGPUS_EXCL_AVAIL", Width: 16}, noHostValue},
		{FieldInfo{Name: "ngpus_shared_avail", Header: "NGPUS_SHARED_AVAIL", Width: 18}, noHostValue},
	}
})

func noHostValue(*api.HostInfo) (string, bool) { return "", false }

// HostFields is the field set bhosts -o accepts.
var HostFields = hostFields.set

// WriteHostsCustom writes bhosts -o output (o.NoHeader: -noheader).
func WriteHostsCustom(w io.Writer, hs []*api.HostInfo, f *Format, o *Options) error {
	return hostFields.writeCustom(w, hs, f, o != nil && o.NoHeader)
}

// WriteHostsJSON writes bhosts -o ... -json output:
// {"COMMAND":"bhosts","HOSTS":N,"RECORDS":[...]}.
func WriteHostsJSON(w io.Writer, hs []*api.HostInfo, f *Format) error {
	return hostFields.writeJSON(w, "bhosts", "HOSTS", hs, f)
}

var queueFields = newRecordFields(func() []recordField[api.QueueInfo] {
	type rec = api.QueueInfo
	return []recordField[rec]{
		{FieldInfo{Name: "queue_name", Aliases: []string{"qname"}, Header: "QUEUE_NAME", Width: 15}, func(q *rec) (string, bool) { return str(q.Name) }},
		{FieldInfo{Name: "description", Aliases: []string{"desc"}, Header: "DESCRIPTION", Width: 50}, func(q *rec) (string, bool) { return str(q.Description) }},
		{FieldInfo{Name: "priority", Aliases: []string{"prio"}, Header: "PRIORITY", Width: 10}, func(q *rec) (string, bool) { return itoa(q.Priority) }},
		{FieldInfo{Name: "status", Aliases: []string{"stat"}, Header: "STATUS", Width: 15}, func(q *rec) (string, bool) { return QueueStatus(q, false), true }},
		{FieldInfo{Name: "max", Header: "MAX", Width: 10}, func(q *rec) (string, bool) { return limitValue(q.Max) }},
		{FieldInfo{Name: "jl_u", Aliases: []string{"jlu"}, Header: "JL_U", Width: 10}, func(q *rec) (string, bool) { return limitValue(q.JLU) }},
		{FieldInfo{Name: "jl_p", Aliases: []string{"jlp"}, Header: "JL_P", Width: 10}, func(q *rec) (string, bool) { return flimit(q.JLP), true }},
		{FieldInfo{Name: "jl_h", Aliases: []string{"jlh"}, Header: "JL_H", Width: 10}, func(q *rec) (string, bool) { return limitValue(q.JLH) }},
		{FieldInfo{Name: "njobs", Header: "NJOBS", Width: 10}, func(q *rec) (string, bool) { return itoa(q.NJobs) }},
		{FieldInfo{Name: "pend", Header: "PEND", Width: 10}, func(q *rec) (string, bool) { return itoa(q.Pend) }},
		{FieldInfo{Name: "run", Header: "RUN", Width: 10}, func(q *rec) (string, bool) { return itoa(q.Run) }},
		// SUSP is SSUSP+USUSP, as in the default listing.
		{FieldInfo{Name: "susp", Header: "SUSP", Width: 10}, func(q *rec) (string, bool) { return itoa(q.SSusp + q.USusp) }},
		{FieldInfo{Name: "rsv", Header: "RSV", Width: 10}, func(q *rec) (string, bool) { return itoa(q.Rsv) }},
		{FieldInfo{Name: "ususp", Header: "USUSP", Width: 10}, func(q *rec) (string, bool) { return itoa(q.USusp) }},
		{FieldInfo{Name: "ssusp", Header: "SSUSP", Width: 10}, func(q *rec) (string, bool) { return itoa(q.SSusp) }},
		{FieldInfo{Name: "nice", Header: "NICE", Width: 6}, func(q *rec) (string, bool) { return itoa(q.Nice) }},
	}
})

// QueueFields is the field set bqueues -o accepts.
var QueueFields = queueFields.set

// WriteQueuesCustom writes bqueues -o output (o.NoHeader: -noheader).
func WriteQueuesCustom(w io.Writer, qs []*api.QueueInfo, f *Format, o *Options) error {
	return queueFields.writeCustom(w, qs, f, o != nil && o.NoHeader)
}

// WriteQueuesJSON writes bqueues -o ... -json output:
// {"COMMAND":"bqueues","QUEUES":N,"RECORDS":[...]}.
func WriteQueuesJSON(w io.Writer, qs []*api.QueueInfo, f *Format) error {
	return queueFields.writeJSON(w, "bqueues", "QUEUES", qs, f)
}

// lshosts' number columns: "-" when not detected.
func staticNum(n int32, suffix string) (string, bool) {
	if n <= 0 {
		return "", false
	}
	return strconv.Itoa(int(n)) + suffix, true
}

var lshostsFields = newRecordFields(func() []recordField[api.HostLoad] {
	type rec = api.HostLoad
	st := func(h *rec) *api.HostStatic {
		if h.Static == nil {
			return &api.HostStatic{}
		}
		return h.Static
	}
	return []recordField[rec]{
		{FieldInfo{Name: "host_name", Aliases: []string{"name", "hname"}, Header: "HOST_NAME", Width: 20}, func(h *rec) (string, bool) { return str(h.Name) }},
		{FieldInfo{Name: "type", Header: "type", Width: 15}, func(h *rec) (string, bool) { return str(h.Type) }},
		{FieldInfo{Name: "model", Header: "model", Width: 15}, func(h *rec) (string, bool) { return str(h.Model) }},
		{FieldInfo{Name: "cpuf", Header: "cpuf", Width: 8}, func(h *rec) (string, bool) { return strconv.FormatFloat(h.CPUF, 'f', 1, 64), true }},
		{FieldInfo{Name: "ncpus", Header: "ncpus", Width: 8}, func(h *rec) (string, bool) { return staticNum(st(h).NCPUs, "") }},
		{FieldInfo{Name: "nprocs", Header: "nprocs", Width: 8}, func(h *rec) (string, bool) { return staticNum(st(h).NProcs, "") }},
		{FieldInfo{Name: "ncores", Header: "ncores", Width: 8}, func(h *rec) (string, bool) { return staticNum(st(h).NCores, "") }},
		{FieldInfo{Name: "nthreads", Header: "nthreads", Width: 8}, func(h *rec) (string, bool) { return staticNum(st(h).NThreads, "") }},
		{FieldInfo{Name: "maxmem", Header: "maxmem", Width: 10, ScaleS: true}, func(h *rec) (string, bool) { return staticNum(st(h).MaxMem, "M") }},
		{FieldInfo{Name: "maxswp", Header: "maxswp", Width: 10, ScaleS: true}, func(h *rec) (string, bool) { return staticNum(st(h).MaxSwp, "M") }},
		{FieldInfo{Name: "maxtmp", Header: "maxtmp", Width: 10, ScaleS: true}, func(h *rec) (string, bool) { return staticNum(st(h).MaxTmp, "M") }},
		{FieldInfo{Name: "ndisks", Header: "ndisks", Width: 8}, func(h *rec) (string, bool) { return staticNum(st(h).NDisks, "") }},
		{FieldInfo{Name: "rexpri", Header: "rexpri", Width: 8}, func(h *rec) (string, bool) { return itoa(h.RExPri) }},
		{FieldInfo{Name: "server", Header: "server", Width: 8}, func(h *rec) (string, bool) {
			if h.Server {
				return "Yes", true
			}
			return "No", true
		}},
		{FieldInfo{Name: "resources", Aliases: []string{"res"}, Header: "RESOURCES", Width: 30}, func(h *rec) (string, bool) {
			return "(" + strings.Join(h.Resources, " ") + ")", true
		}},
		{FieldInfo{Name: "run_windows", Header: "RUN_WINDOWS", Width: 30}, func(h *rec) (string, bool) { return str(h.RunWindow) }},
	}
})

// LshostsFields is the field set lshosts -o accepts.
var LshostsFields = lshostsFields.set

// WriteLshostsCustom writes lshosts -o output.
func WriteLshostsCustom(w io.Writer, hosts []*api.HostLoad, f *Format) error {
	return lshostsFields.writeCustom(w, hosts, f, false)
}

// WriteLshostsJSON writes lshosts -o ... -json output:
// {"COMMAND":"lshosts","HOSTS":N,"RECORDS":[...]}.
func WriteLshostsJSON(w io.Writer, hosts []*api.HostLoad, f *Format) error {
	return lshostsFields.writeJSON(w, "lshosts", "HOSTS", hosts, f)
}

// lsload's built-in columns in its -l order, and the aliases lsload -I
// also accepts.
var (
	lsloadIndices = []string{"r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem"}
	lsloadAliases = map[string][]string{"swp": {"swap"}, "ls": {"login"}, "it": {"idle"}}
)

// LsloadFields is the field set lsload -o accepts: HOST_NAME, status, the
// built-in load indices and the cluster's external (host-based, numeric,
// dynamic) indices, each under its name; one '*' in a name stands for the
// external indices it matches ("gpu_mode*"). An index's recommended width is
// its column's in the default listing.
func LsloadFields(external []string) *FieldSet {
	fields := []FieldInfo{
		{Name: "host_name", Header: "HOST_NAME", Width: 20},
		{Name: "status", Header: "status", Width: 8},
	}
	for _, n := range lsloadIndices {
		fields = append(fields, FieldInfo{Name: n, Aliases: lsloadAliases[n], Header: n, Width: len(lsfmt.IndexHeader(n, false)),
			ScaleS: n == "tmp" || n == "swp" || n == "mem"})
	}
	for _, n := range external {
		fields = append(fields, FieldInfo{Name: n, Header: n, Width: len(lsfmt.IndexHeader(n, false)), External: true})
	}
	return NewFieldSet(fields)
}

// lsloadValue is a host's value of an lsload column: the -w listing's
// string ('*' before a value beyond its threshold, ut in %), except memory
// (tmp, swp, mem), always in MB with one decimal as LSF's lsload -o prints
// it ("37823.2M", the DataDog check's sample; the listing switches to G);
// unset for an unavailable host's indices and an unknown index; with the
// unit S, scaled to M, G or T ("37.0G").
func lsloadValue(h *api.HostLoad, c *Column, mode lsfmt.RunQueue) (string, bool) {
	switch c.Name {
	case "host_name":
		return str(h.Name)
	case "status":
		return lsfmt.Status(h.Status), true
	}
	if h.Status&api.LimUnavail != 0 {
		return "", false
	}
	v, ok := lsfmt.LoadValue(h, c.Name, mode)
	if !ok {
		return "", false
	}
	busy := slices.Contains(h.Busy, c.Name)
	switch c.Name {
	case "tmp", "swp", "mem":
		s := strconv.FormatFloat(v, 'f', 1, 64) + "M"
		if c.Unit == "S" {
			s = scaleMB(s)
		}
		if busy {
			s = "*" + s
		}
		return s, true
	}
	return strings.TrimSpace(lsfmt.IndexValue(c.Name, v, true, busy, true)), true
}

// WriteLsloadCustom writes lsload -o output; mode is -N or -E's run queue
// display.
func WriteLsloadCustom(w io.Writer, hosts []*api.HostLoad, f *Format, mode lsfmt.RunQueue) error {
	hosts = nonNil(hosts)
	return writeCustom(w, f, false, len(hosts), func(i int, c *Column) (string, bool) { return lsloadValue(hosts[i], c, mode) })
}

// WriteLsloadJSON writes lsload -o ... -json output:
// {"COMMAND":"lsload","HOSTS":N,"RECORDS":[...]}.
func WriteLsloadJSON(w io.Writer, hosts []*api.HostLoad, f *Format, mode lsfmt.RunQueue) error {
	hosts = nonNil(hosts)
	return writeJSON(w, "lsload", "HOSTS", f, len(hosts), func(i int, c *Column) (string, bool) { return lsloadValue(hosts[i], c, mode) }, nil)
}

// userFields are busers -o's (IBM 10.1 LSB_BUSERS_FORMAT): the default
// listing's columns, MPEND (MAX_PEND_SLOTS), and "-" for what Basalt does
// not count (starting tasks, pending jobs as opposed to slots, the
// pending-jobs threshold, user priority, GPUs).
var userFields = newRecordFields(func() []recordField[api.UserInfo] {
	type rec = api.UserInfo
	none := func(*rec) (string, bool) { return "", false }
	return []recordField[rec]{
		{FieldInfo{Name: "user", Header: "USER", Width: 19}, func(u *rec) (string, bool) { return str(u.Name) }},
		{FieldInfo{Name: "jl/p", Header: "JL/P", Width: 4}, func(u *rec) (string, bool) { return flimit(u.JLP), true }},
		{FieldInfo{Name: "max", Header: "MAX", Width: 6}, func(u *rec) (string, bool) { return limitValue(u.Max) }},
		{FieldInfo{Name: "nstart", Header: "NSTART", Width: 6}, none},
		{FieldInfo{Name: "pend", Header: "PEND", Width: 6}, func(u *rec) (string, bool) { return itoa(u.Pend) }},
		{FieldInfo{Name: "run", Header: "RUN", Width: 6}, func(u *rec) (string, bool) { return itoa(u.Run) }},
		{FieldInfo{Name: "ssusp", Header: "SSUSP", Width: 6}, func(u *rec) (string, bool) { return itoa(u.SSusp) }},
		{FieldInfo{Name: "ususp", Header: "USUSP", Width: 6}, func(u *rec) (string, bool) { return itoa(u.USusp) }},
		{FieldInfo{Name: "rsv", Header: "RSV", Width: 6}, func(u *rec) (string, bool) { return itoa(u.Rsv) }},
		{FieldInfo{Name: "njobs", Header: "NJOBS", Width: 6}, func(u *rec) (string, bool) { return itoa(u.NJobs) }},
		{FieldInfo{Name: "pjobs", Header: "PJOBS", Width: 6}, none},
		{FieldInfo{Name: "mpend", Header: "MPEND", Width: 6}, func(u *rec) (string, bool) { return limitValue(u.MaxPend) }},
		{FieldInfo{Name: "mpjobs", Header: "MPJOBS", Width: 6}, none},
		{FieldInfo{Name: "priority", Header: "PRIORITY", Width: 8}, none},
		{FieldInfo{Name: "ngpus", Header: "NGPUS", Width: 6}, none},
		{FieldInfo{Name: "ngpus_shared", Header: "NGPUS_SHARED", Width: 12}, none},
		{FieldInfo{Name: "ngpus_excl", Header: "NGPUS_EXCL", Width: 10}, none},
		{FieldInfo{Name: "ngpus_shared_jexcl", Header: "NGPUS_SHARED_JEXCL", Width: 18}, none},
	}
})

// UserFields is the field set busers -o accepts.
var UserFields = userFields.set

// WriteUsersCustom writes busers -o output (o.NoHeader: -noheader).
func WriteUsersCustom(w io.Writer, us []*api.UserInfo, f *Format, o *Options) error {
	return userFields.writeCustom(w, us, f, o != nil && o.NoHeader)
}

// WriteUsersJSON writes busers -o ... -json output:
// {"COMMAND":"busers","USERS":N,"RECORDS":[...]}.
func WriteUsersJSON(w io.Writer, us []*api.UserInfo, f *Format) error {
	return userFields.writeJSON(w, "busers", "USERS", us, f)
}

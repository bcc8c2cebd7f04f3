package resreq

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// ValueType is the type of a resource's value (lsf.shared TYPE column).
type ValueType int

const (
	// Numeric resources have a number as value (load indices, static numbers,
	// counted shared resources such as licences).
	Numeric ValueType = iota
	// Boolean resources are 1 on a host that has them and 0 otherwise
	// (lsf.shared's default TYPE).
	Boolean
	// String resources have a string value (type, model, hname...).
	String
)

func (v ValueType) String() string {
	switch v {
	case Numeric:
		return "Numeric"
	case Boolean:
		return "Boolean"
	case String:
		return "String"
	}
	return fmt.Sprintf("ValueType(%d)", int(v))
}

// ResourceDef defines one resource: a built-in index or a row of lsf.shared's
// Resource section.
type ResourceDef struct {
	Name string
	Type ValueType
	// Interval in seconds; >0 makes a numeric resource dynamic (an external
	// load index reported by an ELIM). Built-in load indices carry LIM's
	// update interval.
	Interval int
	// Increasing: a larger value means more load (order direction).
	Increasing bool
	// Release: a shared numeric resource reserved by a job is released when
	// the job is suspended.
	Release bool
	// Consumable resources may appear in rusage[]. lsf.shared's default is Y
	// for Numeric resources; the caller sets the field explicitly.
	Consumable bool
	// Shared is set by the caller from the ResourceMap section (a LOCATION
	// other than [default]).
	Shared bool
	// Builtin marks LIM's own indices and static resources.
	Builtin bool
	// Description is lsf.shared's DESCRIPTION (lsinfo).
	Description string
}

// Dynamic reports whether the resource's value changes over time: a built-in
// load index or an external load index (numeric with an INTERVAL).
func (d ResourceDef) Dynamic() bool {
	return d.Type == Numeric && d.Interval > 0
}

// Table indices of the built-in resources. The first eleven are LSF's load
// index numbers (lsf.h R15S..MEM), so load vectors indexed by table index and
// by LSF load index number coincide.
const (
	IdxR15s = iota
	IdxR1m
	IdxR15m
	IdxUt
	IdxPg
	IdxIo
	IdxLs
	IdxIt
	IdxTmp
	IdxSwp
	IdxMem
	IdxNcpus
	IdxNprocs
	IdxNcores
	IdxNthreads
	IdxNdisks
	IdxMaxmem
	IdxMaxswp
	IdxMaxtmp
	IdxCpuf
	IdxRexpri
	IdxServer
	IdxType
	IdxModel
	IdxHname
	IdxStatus
	IdxSlots
	IdxMaxslots
	// NumBuiltin is the number of built-in resources; lsf.shared resources
	// follow in the order they were given to NewTable.
	NumBuiltin
)

// NumLoadIndices is the number of built-in load indices (r15s..mem).
const NumLoadIndices = IdxMem + 1

var builtinDefs = [NumBuiltin]ResourceDef{
	IdxR15s:     {Name: "r15s", Type: Numeric, Interval: 15, Increasing: true, Consumable: true, Description: "15-second CPU run queue length"},
	IdxR1m:      {Name: "r1m", Type: Numeric, Interval: 15, Increasing: true, Consumable: true, Description: "1-minute CPU run queue length (alias: cpu)"},
	IdxR15m:     {Name: "r15m", Type: Numeric, Interval: 15, Increasing: true, Consumable: true, Description: "15-minute CPU run queue length"},
	IdxUt:       {Name: "ut", Type: Numeric, Interval: 15, Increasing: true, Consumable: true, Description: "1-minute CPU utilization (0.0 to 1.0)"},
	IdxPg:       {Name: "pg", Type: Numeric, Interval: 15, Increasing: true, Consumable: true, Description: "Paging rate (pages/second)"},
	IdxIo:       {Name: "io", Type: Numeric, Interval: 15, Increasing: true, Consumable: true, Description: "Disk IO rate (Kbytes/second)"},
	IdxLs:       {Name: "ls", Type: Numeric, Interval: 30, Increasing: true, Consumable: true, Description: "Number of login sessions (alias: login)"},
	IdxIt:       {Name: "it", Type: Numeric, Interval: 30, Increasing: false, Consumable: true, Description: "Idle time (minutes) (alias: idle)"},
	IdxTmp:      {Name: "tmp", Type: Numeric, Interval: 120, Increasing: false, Consumable: true, Description: "Disk space in /tmp (Mbytes)"},
	IdxSwp:      {Name: "swp", Type: Numeric, Interval: 15, Increasing: false, Consumable: true, Description: "Available swap space (Mbytes) (alias: swap)"},
	IdxMem:      {Name: "mem", Type: Numeric, Interval: 15, Increasing: false, Consumable: true, Description: "Available memory (Mbytes)"},
	IdxNcpus:    {Name: "ncpus", Type: Numeric, Description: "Number of CPUs"},
	IdxNprocs:   {Name: "nprocs", Type: Numeric, Description: "Number of physical processors"},
	IdxNcores:   {Name: "ncores", Type: Numeric, Description: "Number of cores per physical processor"},
	IdxNthreads: {Name: "nthreads", Type: Numeric, Description: "Number of threads per processor core"},
	IdxNdisks:   {Name: "ndisks", Type: Numeric, Description: "Number of local disks"},
	IdxMaxmem:   {Name: "maxmem", Type: Numeric, Description: "Maximum memory (Mbytes)"},
	IdxMaxswp:   {Name: "maxswp", Type: Numeric, Description: "Maximum swap space (Mbytes)"},
	IdxMaxtmp:   {Name: "maxtmp", Type: Numeric, Description: "Maximum /tmp space (Mbytes)"},
	IdxCpuf:     {Name: "cpuf", Type: Numeric, Description: "CPU factor"},
	IdxRexpri:   {Name: "rexpri", Type: Numeric, Increasing: true, Description: "Remote execution priority"},
	IdxServer:   {Name: "server", Type: Boolean, Description: "LSF server host"},
	IdxType:     {Name: "type", Type: String, Description: "Host type"},
	IdxModel:    {Name: "model", Type: String, Description: "Host model"},
	IdxHname:    {Name: "hname", Type: String, Description: "Host name"},
	IdxStatus:   {Name: "status", Type: String, Description: "Host status"},
	IdxSlots:    {Name: "slots", Type: Numeric, Description: "Number of available job slots"},
	IdxMaxslots: {Name: "maxslots", Type: Numeric, Description: "Maximum number of job slots"},
}

// aliases are the alternative names the select string accepts.
var aliases = map[string]int{
	"swap":  IdxSwp,
	"idle":  IdxIt,
	"login": IdxLs,
	"cpu":   IdxR1m,
}

// Reserved says whether name may not be defined in lsf.shared (see
// reservedNames).
func Reserved(name string) bool { return reservedNames()[name] }

// reservedNames may not be defined in lsf.shared: every built-in name and
// alias, LSF's other reserved words, and the words of the language itself.
var reservedNames = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, d := range builtinDefs {
		m[d.Name] = true
	}
	for a := range aliases {
		m[a] = true
	}
	for _, w := range []string{"logins", "local", "any", "defined",
		"select", "order", "rusage", "span", "same", "cu", "affinity",
		"duration", "decay"} {
		m[w] = true
	}
	return m
})

// MaxNameLen is the longest resource name lsf.shared accepts (LSF 10).
const MaxNameLen = 39

// Errors returned by NewTable (wrapped with the offending name).
var (
	ErrDuplicateResource = errors.New("resource defined twice")
	ErrReservedName      = errors.New("reserved resource name")
	ErrBadResourceName   = errors.New("bad resource name")
)

// Table is the cluster's resource table: the built-in resources at their
// fixed indices, then the lsf.shared resources. A Table is immutable and safe
// for concurrent use.
type Table struct {
	defs   []ResourceDef
	byName map[string]int
	// byFold maps a lower-cased name to its index, or -1 when two names
	// differ only by case (non-strict, case-insensitive lookups).
	byFold map[string]int
}

// NewTable returns the built-in resources followed by defs. It fails on a
// duplicate name, a reserved name (built-in names and aliases, any, local,
// section keywords) or a name lsf.shared's rules forbid.
func NewTable(defs []ResourceDef) (*Table, error) {
	t := &Table{
		defs:   make([]ResourceDef, 0, NumBuiltin+len(defs)),
		byName: make(map[string]int, NumBuiltin+len(defs)+len(aliases)),
		byFold: make(map[string]int, NumBuiltin+len(defs)+len(aliases)),
	}
	for _, d := range builtinDefs {
		d.Builtin = true
		t.add(d)
	}
	var errs []error
	for _, d := range defs {
		if err := checkResourceName(d.Name); err != nil {
			errs = append(errs, err)
			continue
		}
		if Reserved(d.Name) {
			errs = append(errs, fmt.Errorf("%w: %s", ErrReservedName, d.Name))
			continue
		}
		if _, dup := t.byName[d.Name]; dup {
			errs = append(errs, fmt.Errorf("%w: %s", ErrDuplicateResource, d.Name))
			continue
		}
		if d.Type < Numeric || d.Type > String {
			errs = append(errs, fmt.Errorf("%w: %s: unknown type %d", ErrBadResourceName, d.Name, d.Type))
			continue
		}
		d.Builtin = false
		t.add(d)
	}
	for a, i := range aliases {
		t.byName[a] = i
		t.fold(a, i)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return t, nil
}

func (t *Table) add(d ResourceDef) {
	i := len(t.defs)
	t.defs = append(t.defs, d)
	t.byName[d.Name] = i
	t.fold(d.Name, i)
}

func (t *Table) fold(name string, i int) {
	k := strings.ToLower(name)
	if j, ok := t.byFold[k]; ok && j != i {
		t.byFold[k] = -1
		return
	}
	t.byFold[k] = i
}

// checkResourceName applies lsf.shared's naming rules.
func checkResourceName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty name", ErrBadResourceName)
	case len(name) > MaxNameLen:
		return fmt.Errorf("%w: %s: longer than %d characters", ErrBadResourceName, name, MaxNameLen)
	case name[0] >= '0' && name[0] <= '9':
		return fmt.Errorf("%w: %s: starts with a digit", ErrBadResourceName, name)
	}
	for _, c := range name {
		if strings.ContainsRune(":.()[]{}+-*/!&|<>@=,'\" \t\n", c) {
			return fmt.Errorf("%w: %s: contains %q", ErrBadResourceName, name, c)
		}
	}
	return nil
}

// Index returns the table index of name (aliases resolve: swap, idle,
// login, cpu). Names are case-sensitive.
func (t *Table) Index(name string) (int, bool) {
	i, ok := t.byName[name]
	return i, ok
}

// IndexFold is Index ignoring case, for the non-strict syntax. An exact match
// wins; a name that matches two resources by case folding is not found.
func (t *Table) IndexFold(name string) (int, bool) {
	if i, ok := t.byName[name]; ok {
		return i, true
	}
	i, ok := t.byFold[strings.ToLower(name)]
	if !ok || i < 0 {
		return 0, false
	}
	return i, true
}

// Def returns the definition at index i. It panics if i is out of range.
func (t *Table) Def(i int) ResourceDef { return t.defs[i] }

// Len returns the number of resources (built-in and configured).
func (t *Table) Len() int { return len(t.defs) }

// Name returns the canonical name at index i.
func (t *Table) Name(i int) string { return t.defs[i].Name }

// BuiltinTable returns the table of built-in resources only.
func BuiltinTable() *Table { return builtinTable() }

// builtinTable is built at its first use, not at every command's start.
var builtinTable = sync.OnceValue(func() *Table {
	t, err := NewTable(nil)
	if err != nil {
		panic(err) // the built-in definitions are constant
	}
	return t
})

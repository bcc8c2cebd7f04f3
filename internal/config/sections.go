package config

import (
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/lex"
)

// parseNamed parses the sections of a file made of named sections of one
// kind (lsb.queues' Queue, lsb.applications' Application): parse reads one
// (nil: ignored, it said why), name gives its name. Other sections and a
// second definition of a name are warned about and ignored.
func parseNamed[T any](f *lex.File, kind, file string, d *Diagnostics, parse func(*lex.Section) *T, name func(*T) string) []*T {
	var out []*T
	seen := map[string]bool{}
	for _, sec := range f.Sections {
		if !sec.Is(kind) {
			d.Warnf(sec.Pos, "unknown section %s in %s; section ignored", sec.Name, file)
			continue
		}
		v := parse(sec)
		if v == nil {
			continue
		}
		if seen[name(v)] {
			d.Warnf(sec.Pos, "%s <%s> is defined twice; the second definition is ignored", kind, name(v))
			continue
		}
		seen[name(v)] = true
		out = append(out, v)
	}
	return out
}

// sectionName is the name a named section gives itself with key
// (QUEUE_NAME, NAME), checked like a queue name; "" when it is missing or
// bad (warned: the section is ignored, called noun in the messages).
func sectionName(sec *lex.Section, kvs []lex.KeyValue, kind, key, noun string, d *Diagnostics) string {
	name := ""
	for _, kv := range kvs {
		if strings.EqualFold(kv.Key, key) {
			name = kv.Value
			if !queueNameOK(name) {
				d.Warnf(kv.ValuePos, "%s: bad %s <%s> (letters, digits, '_', '-', '.', at most 59 characters); %s ignored", kind, key, name, noun)
				return ""
			}
		}
	}
	if name == "" {
		d.Warnf(sec.Pos, "%s: %s is required; %s ignored", kind, key, noun)
	}
	return name
}

// setValues passes each parameter of a section (where names it in
// messages) to set, warning about a parameter given twice (the last value
// is used), and returns them as given.
func setValues(kvs []lex.KeyValue, where string, d *Diagnostics, set func(val)) []KV {
	var raw []KV
	seen := map[string]Pos{}
	for _, kv := range kvs {
		v := kvVal(kv, where, d)
		if prev, dup := seen[v.key]; dup {
			d.Warnf(kv.KeyPos, "%s: %s is defined twice (first at line %d); the last value is used", where, v.key, prev.Line)
		}
		seen[v.key] = kv.KeyPos
		raw = append(raw, KV{Key: v.key, Value: kv.Value, Pos: kv.KeyPos})
		set(v)
	}
	return raw
}

// set sets the limit parameter v (CPULIMIT, RUNLIMIT, MEMLIMIT...) of a
// queue or an application profile; false when v is not a limit. Unit is
// LSF_UNIT_FOR_LIMITS.
func (l *ResourceLimits) set(v val, unit string) bool {
	switch v.key {
	case "CPULIMIT":
		l.CPU = v.timeLimit()
	case "RUNLIMIT":
		l.Run = v.timeLimit()
	case "MEMLIMIT":
		l.Mem = v.sizeLimit(true, unit)
	case "DATALIMIT":
		l.Data = v.sizeLimit(true, "KB")
	case "PROCESSLIMIT":
		l.Process = v.sizeLimit(true, "")
	case "THREADLIMIT":
		l.Thread = v.sizeLimit(true, "")
	case "FILELIMIT":
		l.File = v.sizeLimit(false, "KB")
	case "STACKLIMIT":
		l.Stack = v.sizeLimit(false, unit)
	case "CORELIMIT":
		l.Core = v.sizeLimit(false, unit)
	case "SWAPLIMIT":
		l.Swap = v.sizeLimit(false, unit)
	case "PROCLIMIT", "TASKLIMIT":
		l.Proc = v.procLimit()
	default:
		return false
	}
	return true
}

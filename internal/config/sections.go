package config

import "github.com/basalt-lsf/basalt/internal/config/lex"

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

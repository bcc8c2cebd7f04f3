package hostsfile

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/lex"
)

// Entry is one line of the file.
type Entry struct {
	Addr    netip.Addr
	Name    string   // official name
	Aliases []string // may be empty
	Pos     lex.Pos
}

// File is a parsed hosts file. Lookups are case-insensitive, as host names
// are. The first entry that names a host wins, as in /etc/hosts.
type File struct {
	Path    string
	Entries []Entry
	byName  map[string]int // lower-cased name or alias -> entry
	byAddr  map[netip.Addr]int
}

// Parse reads a hosts file. Lines with a bad address or without a name are
// reported as warnings and ignored.
func Parse(path string, src []byte) (*File, lex.Diagnostics) {
	var d lex.Diagnostics
	f := &File{Path: path, byName: map[string]int{}, byAddr: map[netip.Addr]int{}}
	for i, raw := range strings.Split(string(src), "\n") {
		line := raw
		if c := strings.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		col := strings.Index(raw, fields[0]) + 1
		pos := lex.Pos{File: path, Line: i + 1, Col: col}
		addr, err := netip.ParseAddr(fields[0])
		if err != nil {
			d.Warnf(pos, "bad address <%s>; line ignored", fields[0])
			continue
		}
		if len(fields) < 2 {
			d.Warnf(pos, "no host name for address %s; line ignored", fields[0])
			continue
		}
		e := Entry{Addr: addr, Name: fields[1], Aliases: fields[2:], Pos: pos}
		idx := len(f.Entries)
		f.Entries = append(f.Entries, e)
		if _, dup := f.byAddr[addr]; !dup {
			f.byAddr[addr] = idx
		}
		for _, n := range fields[1:] {
			k := strings.ToLower(n)
			if prev, dup := f.byName[k]; dup {
				if f.Entries[prev].Addr != addr {
					d.Warnf(pos, "host %s already has address %s (line %d); %s ignored for it", n, f.Entries[prev].Addr, f.Entries[prev].Pos.Line, addr)
				}
				continue
			}
			f.byName[k] = idx
		}
	}
	return f, d
}

// Lookup returns the address of a host name or alias.
func (f *File) Lookup(name string) (netip.Addr, bool) {
	if f == nil {
		return netip.Addr{}, false
	}
	i, ok := f.byName[strings.ToLower(name)]
	if !ok {
		return netip.Addr{}, false
	}
	return f.Entries[i].Addr, true
}

// Official returns the official name of a host name or alias.
func (f *File) Official(name string) (string, bool) {
	if f == nil {
		return "", false
	}
	i, ok := f.byName[strings.ToLower(name)]
	if !ok {
		return "", false
	}
	return f.Entries[i].Name, true
}

// NameOf returns the official name of the first entry with address a.
func (f *File) NameOf(a netip.Addr) (string, bool) {
	if f == nil {
		return "", false
	}
	i, ok := f.byAddr[a.Unmap()]
	if !ok {
		i, ok = f.byAddr[a]
	}
	if !ok {
		return "", false
	}
	return f.Entries[i].Name, true
}

// Names returns every official name, sorted.
func (f *File) Names() []string {
	var out []string
	for _, e := range f.Entries {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}

// Format renders entries in the file's format, aligned, one per line.
func Format(entries []Entry) string {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%-15s %s", e.Addr, e.Name)
		for _, a := range e.Aliases {
			b.WriteString(" " + a)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

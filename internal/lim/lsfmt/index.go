package lsfmt

import (
	"fmt"
	"strings"
)

// indexFmt is how lsload prints one load index.
type indexFmt struct {
	width   int     // column width (right-aligned)
	prec    string  // value format without its width: ".1f"
	okW     int     // width of the value format
	busyW   int     // width when marked busy ('*' prefix)
	scale   float64 // ut is shown as a percentage
	dispLen int     // longer output switches to the G (memory) or g form
	suffix  string  // "%" for ut, "M" for memory indices
	memory  bool
}

var builtinFmt = map[string]indexFmt{
	"r15s": {6, ".1f", 5, 4, 1, 6, "", false},
	"r1m":  {6, ".1f", 5, 4, 1, 6, "", false},
	"r15m": {6, ".1f", 5, 4, 1, 6, "", false},
	"ut":   {5, ".0f", 3, 3, 100, 5, "%", false},
	"pg":   {6, ".1f", 4, 4, 1, 5, "", false},
	"io":   {6, ".0f", 4, 4, 1, 4, "", false},
	"ls":   {4, ".0f", 3, 2, 1, 3, "", false},
	"it":   {6, ".0f", 5, 4, 1, 5, "", false},
	"tmp":  {6, ".0f", 4, 3, 1, 5, "M", true},
	"swp":  {6, ".0f", 4, 3, 1, 5, "M", true},
	"mem":  {6, ".0f", 5, 4, 1, 5, "M", true},
}

// defaultFmt is the format of external indices; wide (-w) output gives
// them 14 columns.
func defaultFmt(name string, wide bool) indexFmt {
	f := indexFmt{7, ".1f", 6, 6, 1, 6, "", false}
	if wide {
		f.width, f.dispLen = 14, 13
	}
	if len(name) >= 7 && !wide {
		f.width = len(name) + 1
	}
	return f
}

func fmtOf(name string, wide bool) indexFmt {
	switch name {
	case "swap":
		name = "swp"
	case "login":
		name = "ls"
	case "idle":
		name = "it"
	case "cpu":
		name = "r1m"
	}
	if f, ok := builtinFmt[name]; ok {
		return f
	}
	return defaultFmt(name, wide)
}

// IndexHeader is one index's column header.
func IndexHeader(name string, wide bool) string {
	f := fmtOf(name, wide)
	if _, builtin := builtinFmt[name]; !builtin && len(name) >= 7 && !wide {
		return " " + name
	}
	return fmt.Sprintf("%*s", f.width, name)
}

// IndexValue formats one value as lsload does: a '*' before a value beyond
// its threshold, ut as a percentage, memory in MB ("M") or, when too long,
// in GB ("G"); "-" for an unknown value.
func IndexValue(name string, v float64, known, busy, wide bool) string {
	f := fmtOf(name, wide)
	if !known {
		return fmt.Sprintf("%*s", f.width, "-")
	}
	s := formatIndex(f, v, busy, false)
	if len(s) > f.dispLen {
		s = formatIndex(f, v, busy, v > 1024)
	}
	return fmt.Sprintf("%*s", f.width, s)
}

func formatIndex(f indexFmt, v float64, busy, big bool) string {
	w := f.okW
	if busy {
		w = f.busyW
	}
	x := v * f.scale
	verb, suffix := f.prec, f.suffix
	switch {
	case big && f.memory:
		x /= 1024
		suffix = "G"
	case big:
		verb = "g"
	}
	var s string
	if verb == "g" {
		// C's %g with the index's precision (at least one digit).
		p := int(f.prec[1] - '0')
		if p == 0 {
			p = 1
		}
		s = fmt.Sprintf("%*.*g", w, p, x)
	} else {
		s = fmt.Sprintf("%*"+verb, w, x)
	}
	s = strings.TrimLeft(s, " ")
	s += suffix
	if busy {
		s = "*" + s
	}
	return s
}

package output

import "strings"

// lineWidth is the widest physical line LSF's long formats print.
const lineWidth = 79

// indent21 is the continuation indent of bjobs -l and bacct -l: the width of
// "Mon Oct  1 11:14:04: ".
const indent21 = 21

// wrap appends the logical line s to b as IBM LSF 10.1 prints it in -l
// output: physical lines of at most 79 characters, each continuation line
// indented by indent spaces, the text cut at the column whatever it is (in
// the middle of a word: "Queue <normal>, Com" / "mand <sleep>"), and no
// character dropped or added, so that removing every "\n" followed by the
// indent restores the logical line (what Toil and Galaxy do). Measured from
// real 10.1 output (bjobs -l, bhist -l); OpenLava's prtLine instead drops a
// space that falls at the start of a continuation line.
func wrap(b *strings.Builder, s string, indent int) {
	if indent >= lineWidth {
		indent = 0
	}
	first := true
	for len(s) > 0 {
		room := lineWidth
		if !first {
			b.WriteString(strings.Repeat(" ", indent))
			room -= indent
		}
		if room > len(s) {
			room = len(s)
		}
		b.WriteString(s[:room])
		b.WriteByte('\n')
		s = s[room:]
		first = false
	}
	if first {
		b.WriteByte('\n')
	}
}

// wrap is the package-level wrap unless o.Unformatted (bjobs -UF) asks for
// each logical line whole.
func (o *Options) wrap(b *strings.Builder, s string, indent int) {
	if o != nil && o.Unformatted {
		b.WriteString(s)
		b.WriteByte('\n')
		return
	}
	wrap(b, s, indent)
}

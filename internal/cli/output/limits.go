package output

import (
	"io"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// WriteLimits prints blimits: INTERNAL RESOURCE LIMITS (slots, memory,
// temporary space, swap, jobs) and, for limits on shared resources,
// EXTERNAL RESOURCE LIMITS, one row per limit or per consumer of a PER_*
// limit, each resource as used/limit and "-" where the limit sets none or
// a consumer column does not apply (IBM 10.1 blimits). Columns are as wide
// as their widest cell, so that no name is cut.
func WriteLimits(w io.Writer, ls []*api.LimitUsage) error {
	var b strings.Builder
	var internal, external [][]string
	var extNames []string
	seen := map[string]bool{}
	for _, l := range ls {
		for _, r := range l.Resources {
			if !seen[r.Name] {
				seen[r.Name] = true
				extNames = append(extNames, r.Name)
			}
		}
	}
	for _, l := range ls {
		cons := []string{l.Name, dash(l.Users), dash(l.Queues), dash(l.Hosts), dash(l.Projects)}
		if l.HasSlots || l.HasMem || l.HasTmp || l.HasSwp || l.HasJobs {
			internal = append(internal, append(cons,
				usedOf(l.Slots, l.SlotsMax, l.HasSlots), usedOf(l.Mem, l.MemMax, l.HasMem),
				usedOf(l.Tmp, l.TmpMax, l.HasTmp), usedOf(l.Swp, l.SwpMax, l.HasSwp),
				usedOf(l.Jobs, l.JobsMax, l.HasJobs)))
		}
		if len(l.Resources) > 0 {
			row := append([]string(nil), cons...)
			for _, n := range extNames {
				cell := "-"
				for _, r := range l.Resources {
					if r.Name == n {
						cell = usedOf(r.Used, r.Max, true)
					}
				}
				row = append(row, cell)
			}
			external = append(external, row)
		}
	}
	consumers := []string{"NAME", "USERS", "QUEUES", "HOSTS", "PROJECTS"}
	if len(internal) > 0 {
		b.WriteString("INTERNAL RESOURCE LIMITS:\n\n")
		writeAligned(&b, append([]string(nil), append(consumers, "SLOTS", "MEM", "TMP", "SWP", "JOBS")...), internal)
	}
	if len(external) > 0 {
		if len(internal) > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("EXTERNAL RESOURCE LIMITS:\n\n")
		writeAligned(&b, append(append([]string(nil), consumers...), extNames...), external)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// usedOf is "used/limit", "-" for a resource the limit does not set.
func usedOf(used, max float64, has bool) string {
	if !has {
		return "-"
	}
	return limitNum(used) + "/" + limitNum(max)
}

func limitNum(v float64) string {
	return strconv.FormatFloat(float64(int64(v*100+0.5))/100, 'f', -1, 64)
}

// writeAligned writes a header and rows, each column padded to its widest
// cell plus two spaces (the last not padded), indented by four spaces.
func writeAligned(b *strings.Builder, header []string, rows [][]string) {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	line := func(cells []string) {
		b.WriteString("    ")
		for i, c := range cells {
			if i == len(cells)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-len(c)+2))
		}
		b.WriteByte('\n')
	}
	line(header)
	for _, r := range rows {
		line(r)
	}
}

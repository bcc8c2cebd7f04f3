package web

import (
	"fmt"
	"html/template"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/output"
	"github.com/basalt-lsf/basalt/internal/job"
)

type fsys = fs.FS

func subFS(dir string) (fs.FS, error) { return fs.Sub(files, dir) }

// RefString is a job reference as the commands print it: 123 or 123[4].
func RefString(r *api.JobRef) string {
	if r.Index != 0 {
		return fmt.Sprintf("%d[%d]", r.JobID, r.Index)
	}
	return strconv.FormatInt(r.JobID, 10)
}

// JobID is a record's job ID as the commands print it.
func JobID(j *api.JobRecord) string { return RefString(&api.JobRef{JobID: j.JobID, Index: j.Index}) }

var funcs = template.FuncMap{
	"jobid": JobID,
	"state": func(s api.JobState) string { return job.Name(s) },
	"time": func(t int64) string {
		if t <= 0 {
			return "-"
		}
		return time.Unix(t, 0).Format("Jan 2 15:04:05")
	},
	"hosts": func(hs []*api.ExecHost) string {
		var b []string
		for _, h := range hs {
			if h.Slots > 1 {
				b = append(b, fmt.Sprintf("%d*%s", h.Slots, h.Host))
			} else {
				b = append(b, h.Host)
			}
		}
		if len(b) == 0 {
			return "-"
		}
		return strings.Join(b, " ")
	},
	"load": func(h *api.HostInfo, index string) string {
		for _, l := range h.Load {
			if l.Index == index && l.HasValue {
				return strconv.FormatFloat(l.Total, 'f', 2, 64)
			}
		}
		return "-"
	},
	"limit": func(n int32) string {
		if n < 0 {
			return "-"
		}
		return strconv.Itoa(int(n))
	},
	"lower":    strings.ToLower,
	"started":  func(s api.JobState) bool { return job.Started(s) },
	"pending":  func(s api.JobState) bool { return job.Pending(s) },
	"finished": func(s api.JobState) bool { return s == api.StateDone || s == api.StateExit },
	"stopped":  func(s api.JobState) bool { return s == api.StatePSusp || s == api.StateUSusp || s == api.StateSSusp },
	// reasons are a job's pending or suspending reasons as bjobs -l
	// prints them, one a line.
	"reasons": func(j *api.JobRecord) []string {
		var text string
		switch {
		case job.Pending(j.State):
			text = output.PendReasonLines(j.PendReasons, false)
		case j.State == api.StateSSusp || j.State == api.StateUSusp:
			text = output.SuspReasonLine(j.SuspReasons, j.SuspSubreason)
		}
		var out []string
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(l), ";")); l != "" {
				out = append(out, l)
			}
		}
		return out
	},
	"exit": func(st int32) string {
		if st == 0 {
			return "0"
		}
		return strconv.Itoa(int(st >> 8))
	},
}

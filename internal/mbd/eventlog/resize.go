package eventlog

import (
	"fmt"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// Record types of resizable jobs (lsbatch.h EVENT_JOB_RESIZE_*). Their
// fields are lsbatch.h's log structures' in order, without the affinity
// data (Basalt has none) and nextStatusNo.
const (
	TypeJobResizeNotifyStart = "JOB_RESIZE_NOTIFY_START" // 60: an allocation grew
	TypeJobResizeRelease     = "JOB_RESIZE_RELEASE"      // 63: bresize release
	TypeJobResizeCancel      = "JOB_RESIZE_CANCEL"       // 64: bresize cancel, or -c
)

// JobResizeNotifyStart is JOB_RESIZE_NOTIFY_START: slots added to a job's
// allocation (one host name per slot).
type JobResizeNotifyStart struct {
	JobID       int64
	Idx         int64
	NotifyID    int64
	ResizeHosts []string
	Flags       int64
}

// JobResizeRelease is JOB_RESIZE_RELEASE: slots released by bresize (one
// host name per slot).
type JobResizeRelease struct {
	JobID           int64
	Idx             int64
	ReqID           int64
	Options         int64
	UserID          int64
	UserName        string
	ResizeNotifyCmd string
	ResizeHosts     []string
}

// JobResizeCancel is JOB_RESIZE_CANCEL: a pending allocation request
// cancelled.
type JobResizeCancel struct {
	JobID    int64
	Idx      int64
	UserID   int64
	UserName string
}

func (l *JobResizeNotifyStart) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("idx", &l.Idx)
	c.int("notifyId", &l.NotifyID)
	c.strs("numResizeHosts", &l.ResizeHosts)
	c.int("flags", &l.Flags)
}

func (l *JobResizeRelease) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("idx", &l.Idx)
	c.int("reqId", &l.ReqID)
	c.int("options", &l.Options)
	c.int("userId", &l.UserID)
	c.str("userName", &l.UserName)
	c.str("resizeNotifyCmd", &l.ResizeNotifyCmd)
	c.strs("numResizeHosts", &l.ResizeHosts)
}

func (l *JobResizeCancel) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("idx", &l.Idx)
	c.int("userId", &l.UserID)
	c.str("userName", &l.UserName)
}

// renderResize renders a resize event: a grow as JOB_RESIZE_NOTIFY_START,
// a release as JOB_RESIZE_RELEASE, a cancelled request (bresize cancel,
// or -c) as JOB_RESIZE_CANCEL. A bresize request has no record of its
// own.
func renderResize(e *api.EvJobResize, user string, uid int64, rec func(string, Log) *Record) []*Record {
	var out []*Record
	if e.CancelPending || e.Action == api.ResizeOpCancel {
		out = append(out, rec(TypeJobResizeCancel, &JobResizeCancel{JobID: e.JobID, Idx: int64(e.Index), UserID: uid, UserName: user}))
	}
	switch e.Action {
	case api.ResizeOpGrow:
		out = append(out, rec(TypeJobResizeNotifyStart, &JobResizeNotifyStart{JobID: e.JobID, Idx: int64(e.Index),
			ResizeHosts: expandHosts(e.Hosts)}))
	case api.ResizeOpRelease:
		out = append(out, rec(TypeJobResizeRelease, &JobResizeRelease{JobID: e.JobID, Idx: int64(e.Index), UserID: uid,
			UserName: user, ResizeNotifyCmd: e.NotifyCmd, ResizeHosts: expandHosts(e.Hosts)}))
	}
	return out
}

// resizeText is bhist's line for a resize record (Basalt's wording) and
// the allocation after it.
func resizeText(l Log, hosts []*api.ExecHost) (string, []*api.ExecHost) {
	switch l := l.(type) {
	case *JobResizeNotifyStart:
		add := groupHosts(l.ResizeHosts)
		return "Additional allocation on " + hostRefs(add) + ";", addHosts(hosts, add, 1)
	case *JobResizeRelease:
		rel := groupHosts(l.ResizeHosts)
		return fmt.Sprintf("Release allocation on %s by user or administrator <%s>;", hostRefs(rel), l.UserName), addHosts(hosts, rel, -1)
	case *JobResizeCancel:
		return fmt.Sprintf("Cancel pending allocation request by user or administrator <%s>;", l.UserName), hosts
	}
	return "", hosts
}

func hostRefs(hs []*api.ExecHost) string {
	var parts []string
	for _, h := range hs {
		if h.Slots > 1 {
			parts = append(parts, fmt.Sprintf("<%d*%s>", h.Slots, h.Host))
		} else {
			parts = append(parts, "<"+h.Host+">")
		}
	}
	return strings.Join(parts, " ")
}

// addHosts is hosts with sign times d's slots added (a new list; hosts
// left without slots leave it).
func addHosts(hosts, d []*api.ExecHost, sign int32) []*api.ExecHost {
	out := make([]*api.ExecHost, 0, len(hosts)+len(d))
	for _, h := range hosts {
		c := *h
		out = append(out, &c)
	}
	for _, x := range d {
		found := false
		for _, h := range out {
			if h.Host == x.Host {
				h.Slots += sign * x.Slots
				found = true
				break
			}
		}
		if !found && sign > 0 {
			out = append(out, &api.ExecHost{Host: x.Host, Slots: x.Slots})
		}
	}
	kept := out[:0]
	for _, h := range out {
		if h.Slots > 0 {
			kept = append(kept, h)
		}
	}
	return kept
}

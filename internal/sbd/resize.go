package sbd

import (
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/jobenv"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// Exit values a resize notification command is given (LSF's
// LSB_RESIZE_NOTIFY_OK, _FAIL and _FAIL_CANCEL_REQ; the numbers are
// Basalt's).
const (
	resizeNotifyOK         = 0
	resizeNotifyFail       = 1
	resizeNotifyFailCancel = 2
)

// resizeCommand takes a resized job's new allocation (mbatchd's ActResize)
// and makes its notification command the shepherd's command; it returns
// the Ack status to send at once (no command to run, or none can run).
func (d *Daemon) resizeCommand(j *job, s *api.JobSignal, c *sbdwire.Command) *api.Status {
	n := s.Resize
	if n == nil {
		return &api.Status{Code: LSBESbatchd, Message: "resize without its allocation"}
	}
	if j.launch != nil && len(n.Alloc) > 0 {
		l := *j.launch
		l.ExecHosts = n.Alloc
		j.launch = &l
	}
	if n.Cmd == "" {
		return &api.Status{}
	}
	if j.orphan != nil {
		return &api.Status{Code: LSBESbatchd, Message: "the job's shepherd is gone: no resize notification command"}
	}
	c.Op, c.ResizeCmd, c.ResizeEnv = sbdwire.OpResize, n.Cmd, ResizeEnv(n)
	return nil
}

// ResizeEnv is what a resize notification command gets over the job's
// environment: LSB_RESIZE_EVENT (grow, shrink), LSB_RESIZE_HOSTS ("host n
// ..." added or released), the exit values, and the new allocation's
// LSB_HOSTS, LSB_MCPU_HOSTS, LSB_EXECHOSTS and LSB_DJOB_NUMPROC.
func ResizeEnv(n *api.ResizeNotice) []string {
	var changed []string
	for _, h := range n.Changed {
		changed = append(changed, h.Host, strconv.Itoa(int(h.Slots)))
	}
	slots := jobenv.SlotHosts(n.Alloc)
	env := []string{
		"LSB_RESIZE_EVENT=" + n.Event,
		"LSB_RESIZE_HOSTS=" + strings.Join(changed, " "),
		"LSB_RESIZE_NOTIFY_OK=" + strconv.Itoa(resizeNotifyOK),
		"LSB_RESIZE_NOTIFY_FAIL=" + strconv.Itoa(resizeNotifyFail),
		"LSB_RESIZE_NOTIFY_FAIL_CANCEL_REQ=" + strconv.Itoa(resizeNotifyFailCancel),
	}
	if len(slots) <= jobenv.MaxHostsVar {
		env = append(env, "LSB_HOSTS="+strings.Join(slots, " "))
	}
	var hosts []string
	seen := map[string]bool{}
	for _, h := range n.Alloc {
		if !seen[h.Host] {
			seen[h.Host] = true
			hosts = append(hosts, h.Host)
		}
	}
	return append(env, "LSB_MCPU_HOSTS="+jobenv.MCPUHosts(n.Alloc), "LSB_EXECHOSTS="+strings.Join(hosts, " "),
		"LSB_DJOB_NUMPROC="+strconv.Itoa(len(slots)))
}

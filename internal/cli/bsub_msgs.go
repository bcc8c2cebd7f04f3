package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/output"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// LSF's enhanced messages for interactive batch jobs (LSB_INTERACT_MSG_ENH
// = y in lsf.conf or the environment; not with -K): while the job pends,
// its pending reasons every LSB_INTERACT_MSG_INTVAL seconds (60 when unset
// or not a positive number) when they changed since last shown; its
// suspension reasons when it is suspended; at its end "Job <N> is done
// successfully." or, after "Job finished, querying job status ..." and
// "To interrupt, press Ctrl-C.", how mbatchd has it ended. Each message
// is a "<< ... >>" block after an empty line, wrapped as LSF's NIOS wraps
// it (prtLine); a reason that counts hosts keeps bjobs -p's form
// ("<<  Closed by LSF administrator: 2 hosts; >>"), one of the job's own
// is its text ("<< New job is waiting for scheduling >>"), as in IBM's
// examples of these messages.

// interactMsgDefault is LSF's interval when LSB_INTERACT_MSG_INTVAL is
// unset or wrong.
const interactMsgDefault = 60 * time.Second

// interactMsgs prints the enhanced messages of one interactive job.
type interactMsgs struct {
	w        io.Writer
	interval time.Duration
	// raw: bsub's terminal is in raw mode (lines end "\r\n").
	raw bool
	// The state last shown (NIOS's cmpJobStates).
	shown   bool
	state   api.JobState
	reasons string
	susp    int32
	sub     int32
}

// newInteractMsgs returns the job's messages, nil unless
// LSB_INTERACT_MSG_ENH is y.
func newInteractMsgs(env *Env, cc *clientConf) *interactMsgs {
	if !confYes(env, cc, "LSB_INTERACT_MSG_ENH") {
		return nil
	}
	m := &interactMsgs{w: env.Stderr, interval: interactMsgDefault}
	v := env.Getenv("LSB_INTERACT_MSG_INTVAL")
	if v == "" && cc != nil && cc.conf != nil {
		v = cc.conf.Get("LSB_INTERACT_MSG_INTVAL")
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		m.interval = time.Duration(n) * time.Second
	}
	return m
}

// changed reports whether r differs from what was shown last (state,
// pending reasons, suspension reasons), and remembers r.
func (m *interactMsgs) changed(r *api.JobRecord) bool {
	reasons := output.PendReasonLines(r.PendReasons, false)
	ch := !m.shown || r.State != m.state
	if !ch {
		switch {
		case r.State&(api.StatePend|api.StatePSusp) != 0:
			ch = reasons != m.reasons
		case r.State&(api.StateSSusp|api.StateUSusp) != 0:
			ch = r.SuspReasons != m.susp || r.SuspSubreason != m.sub
		}
	}
	m.shown, m.state, m.reasons, m.susp, m.sub = true, r.State, reasons, r.SuspReasons, r.SuspSubreason
	return ch
}

// update shows r's state when it changed.
func (m *interactMsgs) update(r *api.JobRecord) {
	if m != nil && m.changed(r) {
		m.stateMsg(r)
	}
}

// stateMsg shows a job's state as NIOS's prtJobStateMsg does.
func (m *interactMsgs) stateMsg(r *api.JobRecord) {
	id := jobIDString(r)
	switch {
	case r.State == api.StateDone:
		m.line(fmt.Sprintf("Job <%s> is done successfully.", id))
	case r.State == api.StateExit:
		ws := syscall.WaitStatus(r.ExitStatus)
		switch {
		case r.ExitStatus != 0 && ws.Exited():
			m.line(fmt.Sprintf("Job <%s> exited with exit code %d.", id, ws.ExitStatus()))
		case r.ExitStatus != 0 && ws.Signaled():
			m.line(fmt.Sprintf("Job <%s> has been terminated by user or administrator:\n Exited by signal %d", id, int(ws.Signal())))
		default:
			m.line(fmt.Sprintf("Job <%s> has been terminated by user or administrator", id))
		}
	case r.State&(api.StatePend|api.StatePSusp) != 0:
		if text := reasonBlock(output.PendReasonLines(r.PendReasons, false), r.PendReasons); text != "" {
			m.line(text)
		}
	case r.State&(api.StateSSusp|api.StateUSusp) != 0:
		if r.SuspReasons != 0 {
			m.line(reasonText(output.SuspReasonLine(r.SuspReasons, r.SuspSubreason)))
		}
	}
}

// reasonBlock makes the message of pending reasons: bjobs -p's lines, a
// reason of the job's own (no host count) as its bare text.
func reasonBlock(lines string, reasons []*api.PendReason) string {
	var out []string
	for _, r := range reasons {
		if r == nil {
			continue
		}
		l, rest, _ := strings.Cut(lines, "\n")
		lines = rest
		if r.NumHosts == 0 {
			l = reasonText(l)
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// reasonText is a reason line's bare text: without its leading space and
// its closing ";".
func reasonText(line string) string {
	return strings.TrimSuffix(strings.TrimSpace(line), ";")
}

// msgWidth is NIOS's line width for its messages.
const msgWidth = 80

// line writes a message as NIOS's prtLine: an empty line, then "<< ",
// the text (each of its lines, and every part that would pass the width,
// a "<< ... >>" line of its own), " >>".
func (m *interactMsgs) line(text string) {
	nl := "\n"
	if m.raw {
		nl = "\r\n"
	}
	var b strings.Builder
	cursor := 0
	if !strings.HasPrefix(text, "\n") {
		b.WriteString(nl)
		cursor = 2
	}
	b.WriteString("<< ")
	cursor += 3
	for i := 0; i < len(text); {
		if text[i] == '\n' {
			if i+1 < len(text) {
				b.WriteString(" >>" + nl + "<< ")
			}
			cursor = 0
			i++
			continue
		}
		if cursor == msgWidth-7 {
			b.WriteString(" >>" + nl + "<< ")
			cursor = 0
			continue
		}
		b.WriteByte(text[i])
		cursor++
		i++
	}
	b.WriteString(" >>" + nl)
	_, _ = io.WriteString(m.w, b.String())
}

// jobIDString is the job's ID as LSF writes it: "N" or "N[i]".
func jobIDString(r *api.JobRecord) string {
	if r.Index > 0 {
		return fmt.Sprintf("%d[%d]", r.JobID, r.Index)
	}
	return strconv.FormatInt(r.JobID, 10)
}

// poll asks mbatchd for the job and shows its state if it changed.
func (m *interactMsgs) poll(ctx context.Context, c *rpc.Client, id int64) {
	if m == nil {
		return
	}
	st, err := c.Stream(ctx, api.MBatchdJobs, &api.JobsRequest{Jobs: []*api.JobRef{{JobID: id}}, User: "all", Detail: true})
	if err != nil {
		return
	}
	for {
		var reply api.JobsReply
		if err := st.Recv(&reply); err != nil {
			return
		}

		for _, r := range reply.Jobs {
			if r != nil && r.JobID == id {
				m.update(r)
			}
		}
	}
}

// finished shows the job's end (NIOS's JobExitInfo): at once when it
// exited 0, else once mbatchd has it finished.
func (m *interactMsgs) finished(ctx context.Context, c *rpc.Client, id int64, code int) {
	if m == nil {
		return
	}
	if code == 0 {
		m.line(fmt.Sprintf("Job <%d> is done successfully.", id))
		return
	}
	m.line("Job finished, querying job status ...")
	m.line("To interrupt, press Ctrl-C.")
	if r, ok := lastRecord(ctx, c, id); ok {
		m.stateMsg(&r)
	}
}

// lastRecord is the job's record once mbatchd has it finished.
func lastRecord(ctx context.Context, c *rpc.Client, id int64) (api.JobRecord, bool) {
	st, err := c.Stream(ctx, api.MBatchdWaitJob, &api.JobRef{JobID: id})
	if err != nil {
		return api.JobRecord{}, false
	}
	var last api.JobRecord
	for {
		var r api.JobRecord
		if err := st.Recv(&r); err != nil {
			return last, err == io.EOF && last.State&(api.StateDone|api.StateExit) != 0
		}
		last = r
	}
}

// watch shows the job's suspensions while it runs (raw: on bsub's
// terminal in raw mode) until the returned stop, which then waits for it.
func (m *interactMsgs) watch(ctx context.Context, c *rpc.Client, id int64, raw bool) (stop func()) {
	if m == nil {
		return func() {}
	}
	m.raw = raw
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		st, err := c.Stream(wctx, api.MBatchdWaitJob, &api.JobRef{JobID: id})
		if err != nil {
			return
		}
		for {
			var r api.JobRecord
			if err := st.Recv(&r); err != nil {
				return
			}
			if r.State&(api.StateRun|api.StateSSusp|api.StateUSusp) != 0 {
				m.update(&r)
			}
		}
	}()
	return func() {
		cancel()
		<-done
		m.raw = false
	}
}

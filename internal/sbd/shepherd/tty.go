package shepherd

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	sysunix "golang.org/x/sys/unix"

	"github.com/basalt-lsf/basalt/api"
)

// Interactive batch jobs (bsub -I, -Ip, -Is). The shepherd of an
// interactive job holds the job's start until sbatchd attaches its
// terminal: sbatchd opens a new connection to the shepherd's socket and
// sends a frameTTY whose ancillary data (SCM_RIGHTS) carries the job's
// standard streams, one pseudo-terminal slave (-Ip, -Is) or the ends of
// three pipes (-I), whose other ends sbatchd relays to bsub. The
// connection is then an ordinary one (it receives the job's states, and
// may send commands). A job nobody attaches to within AttachTimeout is
// ended, as LSF ends one whose submitter has gone.

// Frames of an interactive job's terminal on a shepherd connection.
const (
	// frameTTY: sbatchd -> shepherd, the job's standard streams. Payload:
	// 'p' (a terminal) or 'i' (stdin, stdout, stderr), then the session's
	// token. Descriptors: the job's ends (one terminal slave, or three
	// pipe ends), then optionally as many of sbatchd's ends (the master,
	// or stdin's writer, stdout's and stderr's readers), which the
	// shepherd holds for a re-attach.
	frameTTY = 'T'
	// frameStdinEOF: sbatchd -> shepherd, bsub's input ended (-I): the
	// shepherd closes its copy of stdin's writer.
	frameStdinEOF = 'E'
	// frameReattach: sbatchd -> shepherd, the session's token; the answer
	// is a frameReattach whose payload is 'p' or 'i' then 'o' (stdin open)
	// or 'c', with sbatchd's ends as SCM_RIGHTS, or a frameRefused.
	frameReattach = 'R'
	// frameRefused: shepherd -> sbatchd, why a re-attach was refused.
	frameRefused = 'X'
)

// AttachTimeout is how long an interactive job waits for its terminal, and
// how long a running one whose relay is gone (sbatchd restarting) waits
// for a re-attach.
const AttachTimeout = 2 * time.Minute

// ttyFDs are an interactive job's standard streams, owned by the shepherd
// until the job is forked with them.
type ttyFDs struct {
	pty           bool
	in, out, errf int
}

func (t *ttyFDs) close() {
	if t == nil {
		return
	}
	seen := map[int]bool{}
	for _, fd := range []int{t.in, t.out, t.errf} {
		if fd >= 0 && !seen[fd] {
			seen[fd] = true
			syscall.Close(fd)
		}
	}
}

// relayHold is sbatchd's side of a job's terminal as the shepherd keeps it
// while the job runs: the pty master, or stdin's writer (-1 once bsub's
// input ended), stdout's and stderr's readers. Holding them keeps the
// terminal alive (no hangup, no SIGPIPE) while sbatchd restarts; a new
// sbatchd that presents the session's token gets copies (Reattach).
type relayHold struct {
	pty   bool
	fds   []int
	token []byte
	// conn is the connection that relays them now, nil while none does.
	conn *sconn
	// lost: the relay went away while the job ran; ttyTimer runs.
	lost bool
	// draining: re-attached after the job ended, to take its last output;
	// the shepherd stays until that connection goes.
	draining bool
}

func (r *relayHold) close() {
	if r == nil {
		return
	}
	for i, fd := range r.fds {
		if fd >= 0 {
			syscall.Close(fd)
			r.fds[i] = -1
		}
	}
}

type ttyEvent struct {
	from     *sconn
	fds      *ttyFDs
	relay    *relayHold // with fds: sbatchd's ends, or nil
	stdinEOF bool
	reattach []byte // a re-attach's token
}

// parseTTY makes the streams of a frameTTY payload and its descriptors;
// on a mismatch it closes them.
func parseTTY(payload []byte, fds []int) (*ttyFDs, *relayHold, error) {
	if len(payload) >= 1 {
		token := append([]byte(nil), payload[1:]...)
		switch {
		case payload[0] == 'p' && len(fds) == 1:
			return &ttyFDs{pty: true, in: fds[0], out: fds[0], errf: fds[0]}, nil, nil
		case payload[0] == 'p' && len(fds) == 2:
			return &ttyFDs{pty: true, in: fds[0], out: fds[0], errf: fds[0]}, &relayHold{pty: true, fds: fds[1:], token: token}, nil
		case payload[0] == 'i' && len(fds) == 3:
			return &ttyFDs{in: fds[0], out: fds[1], errf: fds[2]}, nil, nil
		case payload[0] == 'i' && len(fds) == 6:
			return &ttyFDs{in: fds[0], out: fds[1], errf: fds[2]}, &relayHold{fds: fds[3:], token: token}, nil
		}
	}
	for _, fd := range fds {
		syscall.Close(fd)
	}
	return nil, nil, fmt.Errorf("shepherd: bad terminal frame (%d descriptors)", len(fds))
}

// ttyFrame handles a terminal frame read from connection sc (with the
// descriptors that came with the connection's first bytes); handled is
// false for other frames, stop true when the shepherd has finished.
func (s *Shepherd) ttyFrame(sc *sconn, typ byte, b []byte, fds *[]int) (handled, stop bool) {
	var e ttyEvent
	switch typ {
	case frameTTY:
		t, relay, err := parseTTY(b, *fds)
		*fds = nil
		if err != nil {
			s.warnf("%v", err)
			return true, false
		}
		e = ttyEvent{from: sc, fds: t, relay: relay}
	case frameStdinEOF:
		e = ttyEvent{from: sc, stdinEOF: true}
	case frameReattach:
		e = ttyEvent{from: sc, reattach: append([]byte{}, b...)}
	default:
		return false, false
	}
	select {
	case s.ttys <- e:
		return true, false
	case <-s.finished:
		e.fds.close()
		e.relay.close()
		return true, true
	}
}

// firstRead reads what a new connection sends first together with any
// descriptors passed with it (a buffered reader would drop them).
func firstRead(c net.Conn) ([]byte, []int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, nil, nil
	}
	buf := make([]byte, 4096)
	oob := make([]byte, sysunix.CmsgSpace(8*4))
	n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	if n <= 0 {
		if err == nil {
			err = io.EOF
		}
		return nil, nil, err
	}
	var fds []int
	if oobn > 0 {
		msgs, perr := sysunix.ParseSocketControlMessage(oob[:oobn])
		if perr == nil {
			for _, m := range msgs {
				if rights, err := sysunix.ParseUnixRights(&m); err == nil {
					fds = append(fds, rights...)
				}
			}
		}
	}
	for _, fd := range fds {
		sysunix.CloseOnExec(fd)
	}
	return buf[:n], fds, nil
}

// onTTY handles a terminal event: an interactive job's streams (which
// start a job that waited for them; streams that come too late or twice
// are closed), the end of bsub's input, or a re-attach.
func (s *Shepherd) onTTY(e ttyEvent) {
	switch {
	case e.stdinEOF:
		if r := s.relay; r != nil && !r.pty && r.fds[0] >= 0 {
			syscall.Close(r.fds[0])
			r.fds[0] = -1
		}
		return
	case e.reattach != nil:
		s.onReattach(e.from, e.reattach)
		return
	}
	if !s.l.Spec.Interactive || s.tty != nil || s.started || s.ended || s.done || s.term != nil {
		s.warnf("terminal refused: the job is not waiting for one")
		e.fds.close()
		e.relay.close()
		return
	}
	s.tty = e.fds
	if e.relay != nil && s.conns[e.from] {
		s.relay.close()
		s.relay = e.relay
		s.relay.conn = e.from
	} else {
		e.relay.close()
	}
	s.logf("terminal attached (pty %v)", e.fds.pty)
	if s.ttyTimer != nil {
		s.ttyTimer.Stop()
		s.ttyTimer = nil
	}
	if s.waitingTTY {
		s.waitingTTY = false
		s.startJobNow()
	}
}

// onReattach gives a new sbatchd the relay ends of the job's terminal when
// it presents the session's token and no other connection relays them.
func (s *Shepherd) onReattach(sc *sconn, token []byte) {
	if !s.conns[sc] {
		return
	}
	r := s.relay
	var why string
	switch {
	case r == nil:
		why = "the job has no terminal session to re-attach"
	case len(token) == 0 || subtle.ConstantTimeCompare(token, r.token) != 1:
		why = "the terminal session does not match"
	case r.conn != nil:
		why = "the terminal is attached"
	case (s.ended || s.done) && !r.lost:
		why = "the job has ended"
	}
	if why != "" {
		s.warnf("re-attach refused: %s", why)
		s.sendRaw(sc, frameRefused, []byte(why), nil)
		s.drop(sc)
		return
	}
	kind, stdin := byte('i'), byte('o')
	var fds []int
	for _, fd := range r.fds {
		if fd >= 0 {
			fds = append(fds, fd)
		}
	}
	if r.pty {
		kind = 'p'
	} else if r.fds[0] < 0 {
		stdin = 'c'
	}
	if !s.sendRaw(sc, frameReattach, []byte{kind, stdin}, fds) {
		return
	}
	r.conn = sc
	if s.ended || s.done {
		// The job's last output is read; the shepherd waits for that
		// (bounded by the timer that runs).
		r.lost, r.draining = false, true
		s.logf("terminal re-attached after the job's end")
		return
	}
	if r.lost {
		r.lost = false
		if s.ttyTimer != nil {
			s.ttyTimer.Stop()
			s.ttyTimer = nil
		}
	}
	s.logf("terminal re-attached")
}

// relayHeld reports whether the shepherd holds the terminal of a job that
// has ended by itself for a re-attach (its relay went away while sbatchd
// was down), or for the re-attached relay reading the job's last output:
// it then keeps its socket and stays after the job's final state.
func (s *Shepherd) relayHeld() bool {
	r := s.relay
	return r != nil && (s.ended || s.done) && (r.lost || r.draining) && s.term == nil
}

// holdRelay is relayHeld, with its bound: ttyTimer runs meanwhile.
func (s *Shepherd) holdRelay() bool {
	if !s.relayHeld() {
		return false
	}
	if s.ttyTimer == nil {
		s.ttyTimer = s.clk.NewTimer(AttachTimeout)
	}
	return true
}

// relayGone notes that connection sc, gone, relayed the job's terminal:
// while the job runs it waits AttachTimeout for a re-attach.
func (s *Shepherd) relayGone(sc *sconn) {
	r := s.relay
	if r == nil || r.conn != sc {
		return
	}
	r.conn = nil
	if r.draining {
		// The job's last output is out.
		r.draining = false
		r.close()
		return
	}
	if !s.started || s.ended || s.done || s.term != nil || s.ttyTimer != nil {
		return
	}
	r.lost = true
	s.logf("terminal relay gone: waiting %v for a re-attach", AttachTimeout)
	s.ttyTimer = s.clk.NewTimer(AttachTimeout)
}

// sendRaw writes a frame with raw payload and descriptors to sc (after
// what is buffered for it); false when sc failed and was dropped.
func (s *Shepherd) sendRaw(sc *sconn, typ byte, payload []byte, fds []int) bool {
	var buf bytes.Buffer
	_ = writeRaw(&buf, typ, payload)
	_ = sc.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	err := sc.w.Flush()
	if err == nil {
		uc, ok := sc.c.(*net.UnixConn)
		switch {
		case !ok:
			err = fmt.Errorf("not a unix socket")
		case len(fds) > 0:
			_, _, err = uc.WriteMsgUnix(buf.Bytes(), sysunix.UnixRights(fds...), nil)
		default:
			_, err = uc.Write(buf.Bytes())
		}
	}
	if err != nil {
		s.drop(sc)
		return false
	}
	return true
}

// waitTTY holds an interactive job until its terminal is attached.
func (s *Shepherd) waitTTY() {
	s.waitingTTY = true
	s.logf("waiting for the submitter's terminal")
	if s.ttyTimer == nil {
		s.ttyTimer = s.clk.NewTimer(AttachTimeout)
	}
}

// onTTYTimeout ends a job whose submitter never attached, or whose
// terminal nobody re-attached.
func (s *Shepherd) onTTYTimeout() {
	s.ttyTimer = nil
	if r := s.relay; r != nil && (r.lost || r.draining) {
		r.lost, r.draining = false, false
		switch {
		case s.ended || s.done:
			// Nobody came for the job's last output.
			r.close()
		case r.conn == nil && s.term == nil:
			s.warnf("terminal not re-attached within %v: the submitter is gone", AttachTimeout)
			s.terminate("TERM_OWNER", false, []step{{sig: syscall.SIGKILL}})
		}
		return
	}
	if !s.waitingTTY {
		return
	}
	s.waitingTTY = false
	s.warnf("no terminal attached within %v: the submitter is gone", AttachTimeout)
	s.terminate("TERM_OTHER", false, []step{{sig: syscall.SIGKILL}})
}

// AttachTTY opens a connection to the shepherd listening on name and hands
// it an interactive job's streams: one terminal (pty) or stdin, stdout and
// stderr, and with them (relay not empty) the other ends, which the
// shepherd keeps for a re-attach with token. The returned client receives
// the job's states.
func AttachTTY(ctx context.Context, name string, pty bool, fds, relay []int, token []byte) (*Client, error) {
	c, err := dialUnix(ctx, name)
	if err != nil {
		return nil, err
	}
	payload := []byte{'i'}
	if pty {
		payload = []byte{'p'}
	}
	if len(relay) > 0 {
		payload = append(payload, token...)
	}
	var buf bytes.Buffer
	if err := writeRaw(&buf, frameTTY, payload); err != nil {
		c.Close()
		return nil, err
	}
	uc := c.(*net.UnixConn)
	all := append(append([]int(nil), fds...), relay...)
	if _, _, err := uc.WriteMsgUnix(buf.Bytes(), sysunix.UnixRights(all...), nil); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: passing the terminal: %w", name, err)
	}
	return NewClient(c), nil
}

// StdinEOF tells the shepherd that bsub's input has ended: it closes its
// copy of stdin's writer, so that the job reads the end.
func (c *Client) StdinEOF() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return writeRaw(c.conn, frameStdinEOF, nil)
}

// ErrReattachRefused: the shepherd refused a re-attach (the message says
// why: a wrong token, the terminal attached elsewhere, the job ended).
var ErrReattachRefused = errors.New("re-attach refused")

// Relay is sbatchd's side of a job's terminal as a re-attach returns it:
// Master for a terminal; else Stdin (nil once bsub's input ended), Stdout
// and Stderr.
type Relay struct {
	Pty                           bool
	Master, Stdin, Stdout, Stderr *os.File
	// State is the job's state when it was re-attached (Final: it has
	// ended, the relay has its last output to read), Launch its launch.
	State  *api.JobStatusReport
	Launch *api.JobLaunch
}

// Close closes the relay's files.
func (r *Relay) Close() {
	for _, f := range []*os.File{r.Master, r.Stdin, r.Stdout, r.Stderr} {
		if f != nil {
			f.Close()
		}
	}
}

// Reattach opens a new connection to the shepherd listening on name and
// asks for the relay ends of the terminal session token (an sbatchd
// restarted while an interactive job ran). The returned client then
// receives the job's states.
func Reattach(ctx context.Context, name string, token []byte) (*Client, *Relay, error) {
	c, err := dialUnix(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*Client, *Relay, error) {
		c.Close()
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := writeRaw(c, frameReattach, token); err != nil {
		return fail(err)
	}
	fr := &fdReader{uc: c.(*net.UnixConn)}
	r := bufio.NewReaderSize(fr, 32<<10)
	deadline := time.Now().Add(10 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = c.SetReadDeadline(deadline)
	var state *api.JobStatusReport
	var launch *api.JobLaunch
	for {
		typ, b, err := readFrame(r)
		if err != nil {
			fr.closeFDs()
			return fail(err)
		}
		switch typ {
		case frameStatus:
			st := &api.JobStatusReport{}
			if st.UnmarshalWire(b) == nil {
				state = st
			}
		case frameLaunch:
			l := &api.JobLaunch{}
			if l.UnmarshalWire(b) == nil {
				launch = l
			}
		case frameRefused:
			fr.closeFDs()
			return fail(fmt.Errorf("%w: %s", ErrReattachRefused, b))
		case frameReattach:
			_ = c.SetReadDeadline(time.Time{})
			rl, err := relayOf(b, fr.takeFDs())
			if err != nil {
				return fail(err)
			}
			rl.State, rl.Launch = state, launch
			return &Client{conn: c, r: r}, rl, nil
		}
		// The job's state, launch and parameters come first.
	}
}

// relayOf makes the relay of a frameReattach answer.
func relayOf(payload []byte, fds []int) (*Relay, error) {
	files := func(names ...string) []*os.File {
		fs := make([]*os.File, len(fds))
		for i, fd := range fds {
			// Polled by the runtime: a read in progress ends with Close.
			_ = syscall.SetNonblock(fd, true)
			fs[i] = os.NewFile(uintptr(fd), names[i])
		}
		return fs
	}
	switch {
	case len(payload) == 2 && payload[0] == 'p' && len(fds) == 1:
		return &Relay{Pty: true, Master: files("ptmx")[0]}, nil
	case len(payload) == 2 && payload[0] == 'i' && payload[1] == 'o' && len(fds) == 3:
		f := files("stdin", "stdout", "stderr")
		return &Relay{Stdin: f[0], Stdout: f[1], Stderr: f[2]}, nil
	case len(payload) == 2 && payload[0] == 'i' && payload[1] == 'c' && len(fds) == 2:
		f := files("stdout", "stderr")
		return &Relay{Stdout: f[0], Stderr: f[1]}, nil
	}
	for _, fd := range fds {
		syscall.Close(fd)
	}
	return nil, fmt.Errorf("bad re-attach answer %q with %d descriptors", payload, len(fds))
}

// fdReader reads a unix socket with recvmsg, keeping the descriptors that
// come with the bytes (a plain read would drop them).
type fdReader struct {
	uc  *net.UnixConn
	fds []int
}

func (f *fdReader) Read(p []byte) (int, error) {
	oob := make([]byte, sysunix.CmsgSpace(8*4))
	n, oobn, _, _, err := f.uc.ReadMsgUnix(p, oob)
	if oobn > 0 {
		if msgs, perr := sysunix.ParseSocketControlMessage(oob[:oobn]); perr == nil {
			for _, m := range msgs {
				if rights, err := sysunix.ParseUnixRights(&m); err == nil {
					for _, fd := range rights {
						sysunix.CloseOnExec(fd)
					}
					f.fds = append(f.fds, rights...)
				}
			}
		}
	}
	if n == 0 && err == nil {
		err = io.EOF
	}
	return n, err
}

func (f *fdReader) takeFDs() []int {
	fds := f.fds
	f.fds = nil
	return fds
}

func (f *fdReader) closeFDs() {
	for _, fd := range f.takeFDs() {
		syscall.Close(fd)
	}
}

// writeRaw writes a frame whose payload is not a wire message.
func writeRaw(w io.Writer, typ byte, payload []byte) error {
	b := binary.AppendUvarint(nil, uint64(len(payload)+1))
	b = append(append(b, typ), payload...)
	_, err := w.Write(b)
	return err
}

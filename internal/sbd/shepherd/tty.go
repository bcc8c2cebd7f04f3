package shepherd

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	sysunix "golang.org/x/sys/unix"
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

// frameTTY: sbatchd -> shepherd, the job's standard streams. Payload: 'p'
// (one descriptor, a terminal) or 'i' (stdin, stdout, stderr).
const frameTTY = 'T'

// AttachTimeout is how long an interactive job waits for its terminal.
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

type ttyEvent struct {
	from *sconn
	fds  *ttyFDs
}

// parseTTY makes the streams of a frameTTY payload and its descriptors;
// on a mismatch it closes them.
func parseTTY(payload []byte, fds []int) (*ttyFDs, error) {
	switch {
	case bytes.Equal(payload, []byte{'p'}) && len(fds) == 1:
		return &ttyFDs{pty: true, in: fds[0], out: fds[0], errf: fds[0]}, nil
	case bytes.Equal(payload, []byte{'i'}) && len(fds) == 3:
		return &ttyFDs{in: fds[0], out: fds[1], errf: fds[2]}, nil
	}
	for _, fd := range fds {
		syscall.Close(fd)
	}
	return nil, fmt.Errorf("shepherd: bad terminal frame (%d descriptors)", len(fds))
}

// firstRead reads what a new connection sends first together with any
// descriptors passed with it (a buffered reader would drop them).
func firstRead(c net.Conn) ([]byte, []int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, nil, nil
	}
	buf := make([]byte, 4096)
	oob := make([]byte, sysunix.CmsgSpace(4*4))
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

// onTTY takes an interactive job's streams and starts a job that waited
// for them; streams that come too late or twice are closed.
func (s *Shepherd) onTTY(e ttyEvent) {
	if !s.l.Spec.Interactive || s.tty != nil || s.started || s.ended || s.done || s.term != nil {
		s.warnf("terminal refused: the job is not waiting for one")
		e.fds.close()
		return
	}
	s.tty = e.fds
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

// waitTTY holds an interactive job until its terminal is attached.
func (s *Shepherd) waitTTY() {
	s.waitingTTY = true
	s.logf("waiting for the submitter's terminal")
	if s.ttyTimer == nil {
		s.ttyTimer = s.clk.NewTimer(AttachTimeout)
	}
}

// onTTYTimeout ends a job whose submitter never attached.
func (s *Shepherd) onTTYTimeout() {
	s.ttyTimer = nil
	if !s.waitingTTY {
		return
	}
	s.waitingTTY = false
	s.warnf("no terminal attached within %v: the submitter is gone", AttachTimeout)
	s.terminate("TERM_OTHER", false, []step{{sig: syscall.SIGKILL}})
}

// AttachTTY opens a connection to the shepherd listening on name and hands
// it an interactive job's streams: one terminal (pty) or stdin, stdout and
// stderr. The returned client receives the job's states.
func AttachTTY(ctx context.Context, name string, pty bool, fds []int) (*Client, error) {
	c, err := dialUnix(ctx, name)
	if err != nil {
		return nil, err
	}
	payload := []byte{'i'}
	if pty {
		payload = []byte{'p'}
	}
	var buf bytes.Buffer
	if err := writeRaw(&buf, frameTTY, payload); err != nil {
		c.Close()
		return nil, err
	}
	uc := c.(*net.UnixConn)
	if _, _, err := uc.WriteMsgUnix(buf.Bytes(), sysunix.UnixRights(fds...), nil); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: passing the terminal: %w", name, err)
	}
	return NewClient(c), nil
}

// writeRaw writes a frame whose payload is not a wire message.
func writeRaw(w io.Writer, typ byte, payload []byte) error {
	b := binary.AppendUvarint(nil, uint64(len(payload)+1))
	b = append(append(b, typ), payload...)
	_, err := w.Write(b)
	return err
}

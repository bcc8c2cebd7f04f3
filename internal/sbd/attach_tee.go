package sbd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/jobenv"
	"github.com/basalt-lsf/basalt/internal/sbd/report"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

// bsub -tty with -o or -e: the job's output and error go to their files,
// and the relay shows them on the terminal as well, following the files
// as the job's user from where this run's output begins (after any
// pre-execution output, which LSF leaves off the terminal) up to the job
// report the shepherd appends to the output file.

// teePoll is how often a followed file is read again for more.
const teePoll = 100 * time.Millisecond

// teeSpec is what the relay follows: the job's -o and -e as given (%J and
// %I expanded), "" when not given, read as acct.
type teeSpec struct {
	jobID    int64
	out, err string
	cwd      string // where a relative path is, before the job has a cwd
	acct     *shepherd.Account
	// errStart is the size of the -e file (errAt) when the terminal was
	// attached, before the job could write to it.
	errAt    string
	errStart int64
}

// newTeeSpec is the tee of a job launched as l, nil without -o and -e.
func (d *Daemon) newTeeSpec(l *api.JobLaunch) *teeSpec {
	if l == nil || l.Spec == nil || l.Spec.OutFile == "" && l.Spec.ErrFile == "" {
		return nil
	}
	acct, err := d.accts.get(l.User)
	if err != nil {
		d.cfg.Log.Warn("bsub -tty: the job's user", "user", l.User, "err", err)
		return nil
	}
	t := &teeSpec{jobID: l.JobID, acct: acct, cwd: l.Spec.SubCwd}
	if filepath.IsAbs(l.Spec.Cwd) {
		t.cwd = l.Spec.Cwd
	}
	if l.Spec.OutFile != "" {
		t.out = jobenv.Expand(l.Spec.OutFile, l.JobID, l.Index)
	}
	if l.Spec.ErrFile != "" {
		t.err = jobenv.Expand(l.Spec.ErrFile, l.JobID, l.Index)
		t.errAt = t.path(t.err, "", "err")
		t.errStart = t.size(t.errAt)
	}
	return t
}

// path is file p of the job (relative to its cwd, or in it when a
// directory: JOBID.ext).
func (t *teeSpec) path(p, cwd, ext string) string {
	if cwd == "" {
		cwd = t.cwd
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		p = filepath.Join(p, fmt.Sprintf("%d.%s", t.jobID, ext))
	}
	return p
}

// size is the size of p as the job's user sees it, 0 when it cannot.
func (t *teeSpec) size(p string) int64 {
	f, err := t.open(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}

func (t *teeSpec) open(p string) (*os.File, error) {
	return shepherd.OpenAs(p, syscall.O_RDONLY|syscall.O_NONBLOCK, 0, int(t.acct.UID), int(t.acct.GID), t.acct.Groups)
}

// teeRun is the relay's followers of one stream.
type teeRun struct {
	once  sync.Once
	wg    sync.WaitGroup
	ended chan struct{} // closed at the job's end: read what is left
}

// start follows the job's files from the job's start (st: its running
// state, with its cwd and where its output begins), or from their ends
// (st nil: a re-attach; what was written while away is in the files).
func (r *relay) startTee(ctx context.Context, st *rpc.ServerStream, t *teeSpec, js *api.JobStatusReport, clk clock.Clock) {
	r.teeRun.once.Do(func() {
		cwd, outStart, errStart := "", int64(-1), int64(-1)
		if js != nil {
			cwd, outStart = js.ExecCwd, js.OutStart
		}
		if t.out != "" {
			r.teeRun.wg.Add(1)
			go r.follow(ctx, st, t, t.path(t.out, cwd, "out"), outStart, false, clk)
		}
		if t.err != "" {
			p := t.path(t.err, cwd, "err")
			if js != nil {
				errStart = 0
				if p == t.errAt {
					errStart = t.errStart
				}
			}
			r.teeRun.wg.Add(1)
			go r.follow(ctx, st, t, p, errStart, true, clk)
		}
	})
}

// follow sends what file p gets from start (-1: its end) as the job's
// stdout (or stderr) until the job has ended and the file is read, up to
// the job report.
func (r *relay) follow(ctx context.Context, st *rpc.ServerStream, t *teeSpec, p string, start int64, stderr bool, clk clock.Clock) {
	defer r.teeRun.wg.Done()
	tick := clk.NewTicker(teePoll)
	defer tick.Stop()
	ended := false
	wait := func() bool {
		if ended {
			return false
		}
		select {
		case <-tick.C():
		case <-r.teeRun.ended:
			ended = true
		case <-ctx.Done():
			return false
		}
		return true
	}
	var f *os.File
	for {
		var err error
		if f, err = t.open(p); err == nil {
			break
		}
		if !wait() {
			return
		}
	}
	defer f.Close()
	if start < 0 {
		_, _ = f.Seek(0, io.SeekEnd)
	} else {
		_, _ = f.Seek(start, io.SeekStart)
	}
	send := func(b []byte) bool {
		if len(b) == 0 {
			return true
		}
		m := &api.TaskOutput{Stdout: b}
		if stderr {
			m.Stdout, m.Stderr = nil, b
		}
		return r.send(st, m) == nil
	}
	buf := make([]byte, 32<<10)
	var held []byte // a read's end that may begin the report
	for {
		n, _ := f.Read(buf)
		if n > 0 {
			data := append(held, buf[:n]...)
			if !stderr {
				if i := bytes.Index(data, []byte(report.Start)); i >= 0 {
					send(data[:i])
					return
				}
				keep := reportPrefix(data)
				held = append([]byte(nil), data[len(data)-keep:]...)
				data = data[:len(data)-keep]
			}
			if !send(data) {
				return
			}
			continue
		}
		if !wait() {
			send(held)
			return
		}
	}
}

package sbd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/report"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
)

// Register adds sbatchd's RPC methods to srv: "SBatchd.Peek" (bpeek) and
// "SBatchd.Attach" (bsub -I, -Ip, -Is).
func (d *Daemon) Register(srv *rpc.Server) {
	d.server.Store(srv)
	rpc.HandleStream(srv, api.SBatchdPeek, d.peek)
	srv.Handle(api.SBatchdAttach, d.attachJob)
}

// peekChunk is the largest piece of output sent at once.
const peekChunk = 32 << 10

// reportPrefix is the length of the longest end of data that begins the
// job report (report.Start).
func reportPrefix(data []byte) int {
	for k := min(len(report.Start)-1, len(data)); k > 0; k-- {
		if bytes.HasPrefix([]byte(report.Start), data[len(data)-k:]) {
			return k
		}
	}
	return 0
}

// peek streams a job's output (its -o file, or the spool's output file)
// to its owner or root; with Follow it keeps sending what the job writes
// until the job ends or the caller goes away. Only this run's output is
// sent: an -o file appended to holds earlier jobs' output before it (the
// run's shepherd reports where its output begins), and the job report after
// it (report.Start: the shepherd appends it before sbatchd hears the job
// has ended, so a follower stops where it begins, holding back any end of a
// read that could begin it).
func (d *Daemon) peek(ctx context.Context, id auth.Identity, req *api.PeekRequest, send func(*api.PeekChunk) error) error {
	k := spool.Key(req.JobID, req.Index)
	var path, spoolOut, owner, queue string
	var acct *shepherd.Account
	var found bool
	var start int64
	done := func() bool {
		fin := true
		d.query(ctx, func() {
			if j := d.jobs[k]; j != nil {
				fin = j.final()
			}
		})
		return fin
	}
	if !d.query(ctx, func() {
		j := d.jobs[k]
		if j == nil || j.launch == nil {
			return
		}
		found, path, owner = true, j.outputPath(), j.launch.User
		spoolOut = j.userDir.Output()
		acct, _ = d.execAccount(j.launch)
		if j.launch.Queue != nil {
			queue = j.launch.Queue.Name
		}
		if j.status != nil {
			start = j.status.OutStart
		}
	}) {
		return rpc.Errorf(rpc.Unavailable, "sbatchd is shutting down")
	}
	if !found {
		return rpc.Errorf(rpc.NotFound, "Job <%s> is not found", k)
	}
	if !id.IsRoot() && id.User != owner && (d.cfg.MayPeek == nil || !d.cfg.MayPeek(id.User, owner, queue)) {
		return rpc.Errorf(rpc.PermissionDenied, "User permission denied")
	}
	// Opened as the job's account, not as sbatchd (root): a job whose -o
	// names a file its user may not read (bsub -o /etc/shadow: the job
	// itself writes to its spool instead) must not show it through bpeek.
	f, err := d.openAsJobUser(path, acct)
	if err != nil && path != spoolOut {
		// A -o its user cannot open: the job writes to the spool.
		f, err = d.openAsJobUser(spoolOut, acct)
	}
	if err != nil {
		return rpc.Errorf(rpc.NotFound, "Job <%s>: no output yet: %v", k, err)
	}
	defer f.Close()
	if start > 0 {
		if _, err := f.Seek(start, io.SeekStart); err != nil {
			return err
		}
	}
	fin := done()
	buf := make([]byte, peekChunk)
	// held is output read but not sent: the end of what was read when it
	// may begin the job report.
	var held []byte
	flush := func() error {
		if len(held) == 0 {
			return nil
		}
		err := send(&api.PeekChunk{Stdout: held})
		held = nil
		return err
	}
	var tick <-chan time.Time
	for {
		n, err := f.Read(buf)
		if n > 0 {
			data := append(held, buf[:n]...)
			if i := bytes.Index(data, []byte(report.Start)); i >= 0 {
				held = data[:i]
				return flush() // the job has ended: its report follows
			}
			keep := reportPrefix(data)
			held = append([]byte(nil), data[len(data)-keep:]...)
			if err := send(&api.PeekChunk{Stdout: data[:len(data)-keep]}); err != nil {
				return err
			}
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		if !req.Follow || fin {
			return flush()
		}
		if fin = done(); fin {
			continue // read what the job wrote last, up to its report
		}
		if tick == nil {
			t := d.cfg.Clock.NewTicker(time.Second)
			defer t.Stop()
			tick = t.C()
		}
		select {
		case <-tick:
		case <-ctx.Done():
			return nil
		}
	}
}

// openAsJobUser opens path for reading with the file system permissions of
// the job's account (sbatchd's own when it runs jobs as itself).
func (d *Daemon) openAsJobUser(path string, a *shepherd.Account) (*os.File, error) {
	if d.nonRoot {
		return os.Open(path)
	}
	if a == nil {
		return nil, fmt.Errorf("%s: no account to read it as", path)
	}
	return shepherd.OpenAs(path, os.O_RDONLY, 0, int(a.UID), int(a.GID), a.Groups)
}

package sbd

import (
	"bytes"
	"context"
	"io"
	"os"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/report"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
)

// Register adds sbatchd's RPC methods to srv: "SBatchd.Peek" (bpeek).
func (d *Daemon) Register(srv *rpc.Server) {
	rpc.HandleStream(srv, "SBatchd.Peek", d.peek)
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
// sent: an -o file appended to holds earlier jobs' output before it, and
// the job report after it (the range its shepherd reports).
func (d *Daemon) peek(ctx context.Context, id auth.Identity, req *api.PeekRequest, send func(*api.PeekChunk) error) error {
	k := spool.Key(req.JobID, req.Index)
	var path, owner string
	var found bool
	var start int64
	// done reports whether the run has ended, and where its output ends
	// (0: at the end of the file).
	done := func() (fin bool, end int64) {
		fin = true
		d.query(ctx, func() {
			if j := d.jobs[k]; j != nil {
				fin = j.final()
				if j.status != nil {
					end = j.status.OutEnd
				}
			}
		})
		return fin, end
	}
	if !d.query(ctx, func() {
		j := d.jobs[k]
		if j == nil || j.launch == nil {
			return
		}
		found, path, owner = true, j.outputPath(), j.launch.User
		if j.status != nil {
			start = j.status.OutStart
		}
	}) {
		return rpc.Errorf(rpc.Unavailable, "sbatchd is shutting down")
	}
	if !found {
		return rpc.Errorf(rpc.NotFound, "Job <%s> is not found", k)
	}
	if !id.IsRoot() && id.User != owner {
		return rpc.Errorf(rpc.PermissionDenied, "User permission denied")
	}
	f, err := os.Open(path)
	if err != nil {
		return rpc.Errorf(rpc.NotFound, "Job <%s>: no output yet: %v", k, err)
	}
	defer f.Close()
	if start > 0 {
		if _, err := f.Seek(start, io.SeekStart); err != nil {
			return err
		}
	}
	fin, end := done()
	pos := start
	buf := make([]byte, peekChunk)
	// held is output read but not sent: the end of what was read when it
	// may be the start of the job report, which the shepherd appends
	// before sbatchd learns where the output ends.
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
		want := buf
		if end > 0 {
			if pos >= end {
				return flush() // the job report follows
			}
			want = buf[:min(int64(len(buf)), end-pos)]
		}
		n, err := f.Read(want)
		if n > 0 {
			pos += int64(n)
			data := append(held, want[:n]...)
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
		if fin, end = done(); fin {
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

package sbd

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
)

// Register adds sbatchd's RPC methods to srv: "SBatchd.Peek" (bpeek).
func (d *Daemon) Register(srv *rpc.Server) {
	rpc.HandleStream(srv, "SBatchd.Peek", d.peek)
}

// peekChunk is the largest piece of output sent at once.
const peekChunk = 32 << 10

// peek streams a job's output (its -o file, or the spool's output file)
// to its owner or root; with Follow it keeps sending what the job writes
// until the job ends or the caller goes away.
func (d *Daemon) peek(ctx context.Context, id auth.Identity, req *api.PeekRequest, send func(*api.PeekChunk) error) error {
	k := spool.Key(req.JobID, req.Index)
	var path, owner string
	var found bool
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
	buf := make([]byte, peekChunk)
	var tick <-chan time.Time
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if err := send(&api.PeekChunk{Stdout: append([]byte(nil), buf[:n]...)}); err != nil {
				return err
			}
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		if !req.Follow || done() {
			return nil
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

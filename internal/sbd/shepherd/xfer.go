package shepherd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// Remote reads and writes files of another host (a job's submission host)
// for bsub -f, as a user of that host: the daemon binary's is RES's client
// (res.FileClient), acting for the job's user with the execution host's
// daemon credential.
type Remote interface {
	// Fetch opens path on host, read as user: its permission bits and its
	// content. The reader must be closed.
	Fetch(ctx context.Context, host, user, path string) (os.FileMode, io.ReadCloser, error)
	// Store writes r's content to path on host as user: created with mode
	// (minus the umask there), truncated, or appended to when appendTo.
	Store(ctx context.Context, host, user, path string, appendTo bool, mode os.FileMode, r io.Reader) error
}

// RemoteFor makes the Remote of a job of the sbatchd that p comes from
// (its LSF_ENVDIR is in p.ExtraEnv, its host is p.Host).
type RemoteFor func(p *sbdwire.Params) (Remote, error)

// transfer is one bsub -f entry: a file copied from the submission host to
// the execution host before the job (in), and/or back after it (out,
// appended with "<<").
type transfer struct {
	local, remote string
	in, out       bool
	appendOut     bool
}

// transfers reads bsub -f entries ("local op [remote]"; op is >, <, <<, ><
// or <>; remote defaults to local, as LSF's does). Entries with another op
// are returned as notes.
func transfers(files []*api.FileTransfer) ([]transfer, []string) {
	var out []transfer
	var notes []string
	for _, f := range files {
		t := transfer{local: f.Local, remote: f.Remote}
		if t.remote == "" {
			t.remote = t.local
		}
		switch f.Op {
		case ">":
			t.in = true
		case "<":
			t.out = true
		case "<<":
			t.out, t.appendOut = true, true
		case "><", "<>":
			t.in, t.out = true, true
		default:
			notes = append(notes, fmt.Sprintf("Unknown file transfer operator <%s> in <%s %s %s>; ignored.", f.Op, f.Local, f.Op, f.Remote))
			continue
		}
		if t.local == "" {
			notes = append(notes, fmt.Sprintf("File transfer <%s %s> has no local file; ignored.", f.Op, f.Remote))
			continue
		}
		out = append(out, t)
	}
	return out, notes
}

// under resolves a relative path against base.
func under(p, base string) string {
	if filepath.IsAbs(p) || base == "" {
		return p
	}
	return filepath.Join(base, p)
}

// staging is where a job's -f copies go: the submission side (FromHost,
// the job's user there, its working directory) and the execution side
// (the job's working directory, its account).
type staging struct {
	// remote reaches the submission host; nil copies through this host's
	// file system (a host's own jobs, tests).
	remote   Remote
	fromHost string // submission host; "" or this host: local copies
	user     string // the submitting user, whose files they are on fromHost
	subCwd   string // absolute local paths are under it (LSF: else subHome/subCwd)
	subHome  string
	execCwd  string // remote paths are under it
	c        *cred  // the job account's file system identity (nil: the shepherd's)
}

// subPath is a local_file as the submission host names it.
func (g *staging) subPath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if filepath.IsAbs(g.subCwd) || g.subHome == "" {
		return under(p, g.subCwd)
	}
	return filepath.Join(g.subHome, g.subCwd, p)
}

// copyFiles runs a direction of the job's file transfers (toExec: the
// copies made before the job) and returns the report's notes about
// failures, worded as LSF's (it does not stop the job). A file that both
// sides see as one (a shared file system) is not copied, as in LSF.
func (g *staging) copyFiles(ctx context.Context, ts []transfer, toExec bool) []string {
	var notes []string
	for _, t := range ts {
		sub, ex := g.subPath(t.local), under(t.remote, g.execCwd)
		switch {
		case toExec && t.in:
			if err := g.copyIn(ctx, sub, ex); err != nil {
				notes = append(notes, fmt.Sprintf("Failed to copy file <%s> from submission host <%s> to file <%s> on execution host: %s.",
					sub, g.fromHost, t.remote, why(err)))
			}
		case !toExec && t.out:
			if err := g.copyOut(ctx, ex, sub, t.appendOut); err != nil {
				notes = append(notes, fmt.Sprintf("Unable to copy file <%s> to <%s> on submission host <%s>: %s.",
					t.remote, sub, g.fromHost, why(err)))
			}
		}
	}
	return notes
}

// why is an error as the report says it: a system error's text without
// the operation and path the message already names.
func why(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// copyIn copies sub (submission host) to ex (this host).
func (g *staging) copyIn(ctx context.Context, sub, ex string) error {
	if g.remote == nil {
		return copyLocal(sub, ex, false, g.c)
	}
	if g.shared(ctx, sub, ex) {
		return nil
	}
	mode, r, err := g.remote.Fetch(ctx, g.fromHost, g.user, sub)
	if err != nil {
		return err
	}
	defer r.Close()
	if mode == 0 {
		mode = 0o644
	}
	out, err := openAs(ex, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode, g.c)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// copyOut copies ex (this host) to sub (submission host), appending.
func (g *staging) copyOut(ctx context.Context, ex, sub string, appendTo bool) error {
	if g.remote == nil {
		return copyLocal(ex, sub, appendTo, g.c)
	}
	if g.shared(ctx, sub, ex) {
		return nil
	}
	in, err := openAs(ex, os.O_RDONLY, 0, g.c)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", ex)
	}
	// What the file holds now: a file growing while it is sent does not
	// make the copy endless.
	return g.remote.Store(ctx, g.fromHost, g.user, sub, appendTo, st.Mode().Perm(), io.LimitReader(in, st.Size()))
}

// shared reports whether sub on the submission host and ex here are one
// file of a file system both hosts mount (LSF copies nothing then; a copy
// would truncate the file it reads). Paths alone cannot tell, so a probe
// file of random name and content is made beside ex and looked for beside
// sub through the submission host: only a shared directory shows it.
func (g *staging) shared(ctx context.Context, sub, ex string) bool {
	if filepath.Base(sub) != filepath.Base(ex) {
		return false
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return false
	}
	token := hex.EncodeToString(b[:])
	name := ".basalt-xf-" + token
	probe := filepath.Join(filepath.Dir(ex), name)
	f, err := openAs(probe, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644, g.c)
	if err != nil {
		return false // not writable here: a copy into it would fail anyway
	}
	_, werr := f.WriteString(token)
	f.Close()
	defer removeAs(probe, g.c)
	if werr != nil {
		return false
	}
	_, r, err := g.remote.Fetch(ctx, g.fromHost, g.user, filepath.Join(filepath.Dir(sub), name))
	if err != nil {
		return false
	}
	defer r.Close()
	got, err := io.ReadAll(io.LimitReader(r, int64(len(token))+1))
	return err == nil && string(got) == token
}

// copyLocal copies src to dst through this host's file system with the
// permissions of c (nil: the shepherd's), truncating dst or appending to
// it; nothing when they are one file.
func copyLocal(src, dst string, appendTo bool, c *cred) error {
	in, err := openAs(src, os.O_RDONLY, 0, c)
	if err != nil {
		return err
	}
	defer in.Close()
	ist, err := in.Stat()
	if err != nil {
		return err
	}
	if cur, err := openAs(dst, os.O_RDONLY, 0, c); err == nil {
		cst, err := cur.Stat()
		cur.Close()
		if err == nil && os.SameFile(ist, cst) {
			return nil
		}
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	out, err := openAs(dst, flags, ist.Mode().Perm(), c)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// removeAs removes path with the file system identity of c (nil: the
// shepherd's), on a locked thread as openAs does.
func removeAs(path string, c *cred) error {
	if c == nil {
		return os.Remove(path)
	}
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		restore, err := threadAs(c.uid, c.gid, c.groups)
		if err == nil {
			err = os.Remove(path)
		}
		if restore() != nil {
			ch <- err // the thread stays locked and is discarded
			return
		}
		runtime.UnlockOSThread()
		ch <- err
	}()
	return <-ch
}

package res

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"syscall"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config/lsfhosts"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

// account is a user account of this host.
type account = shepherd.Account

// Server is a RES. Its zero value is not usable: set Host.
type Server struct {
	// Host is this host's name, reported in TaskStarted.
	Host string
	// Cluster is the cluster's name (.lsfhosts lines may name it).
	Cluster string
	// RootRex lets root's requests run as root (lsf.conf LSF_ROOT_REX,
	// as sbatchd and mbatchd read it); without it root is refused.
	RootRex bool
	// Lookup finds a user's account (shepherd.LookupAccount when nil).
	Lookup func(name string) (*account, error)
	// Env overrides variables of every task's environment (the local
	// cluster's BASALT_HOST: a task sees the host it runs on).
	Env []string
	// Cgroups, when set, puts each task in a control group of its own
	// (sbatchd's cgroup code): a process that leaves the task's session
	// (setsid, a daemonizing program) is still found and killed with it.
	Cgroups *cgroup.Manager
	// Log receives the tasks started and ended (LOG_INFO), refusals
	// and control requests (LOG_WARNING).
	Log *slog.Logger
	// DisableLsrun is lsf.conf's LSF_DISABLE_LSRUN: RES.Run refuses tasks
	// (lsrun, lsgrun) of users other than root and the cluster
	// administrators, except from RES's own host.
	DisableLsrun bool
	// Admin reports whether a user is a cluster administrator (lsf.cluster
	// ClusterAdmins): with root and RES's own account, the only callers of
	// RES.Control. Nil: none is.
	Admin func(user string) bool
	// Control carries out a RES.Control operation in two steps: the call
	// stops accepting connections, before the caller gets its reply; the
	// function it returns, called once the reply is sent, shuts RES down
	// (and starts it again for ResOpRestart). Nil: RES.Control is refused.
	Control func(op api.ResOp) (proceed func())
	// AcctDir is lsf.conf's LSF_RES_ACCTDIR, where the task log
	// lsf.acct.<host> is written ("": /tmp).
	AcctDir string
	// AcctCPU is lsf.conf's LSF_RES_ACCT: tasks of more than this many
	// milliseconds of CPU time are logged from the start (0: all); -1
	// (unset) logs none until lsadmin reslogon.
	AcctCPU int

	tasks taskLog
}

// Chunk is the largest piece of a file sent at once: a quarter of the rpc
// stream window (rpc.StreamWindow), so that four are in flight (a chunk of
// a whole window goes alone, stop-and-wait: 200 against 230 MB/s measured
// by BenchmarkLsrcp).
const Chunk = 64 << 10

// Register adds RES.Run, RES.Fetch, RES.Store and RES.Control to srv.
func (s *Server) Register(srv *rpc.Server) {
	srv.Handle(api.RESRun, s.run)
	rpc.HandleStream(srv, api.RESFetch, s.fetch)
	srv.Handle(api.RESStore, s.store)
	rpc.HandleStream(srv, api.RESControl, s.control)
}

func (s *Server) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// Refusals in LSF's words (ls_sysmsg: LSE_RES_ROOTSECURE, LSE_BADUSER,
// LSE_RES_DENIED); the details go to RES's log.
var (
	errRoot    = rpc.Errorf(rpc.PermissionDenied, "Root user rejected")
	errBadUser = rpc.Errorf(rpc.PermissionDenied, "Bad user ID")
)

// account resolves the identity to the local account the request runs
// as: the caller's, or the account as (user account mapping: that
// account's .lsfhosts on this host must accept the caller from its host;
// root is never mapped to). A daemon identity is refused (RES serves
// users); root only with RootRex; a RES not running as root serves only
// its own user.
func (s *Server) account(id auth.Identity, as string) (*account, error) {
	if as != "" && as != id.User {
		return s.mapped(id, as)
	}
	if id.Daemon != "" || id.User == "" {
		return nil, s.refuse(id, as, errDenied, "a daemon or no user")
	}
	if id.IsRoot() && !s.RootRex {
		return nil, s.refuse(id, as, errRoot, "root without LSF_ROOT_REX")
	}
	lookup := s.Lookup
	if lookup == nil {
		lookup = shepherd.LookupAccount
	}
	acct, err := lookup(id.User)
	if err != nil {
		return nil, s.refuse(id, as, errBadUser, "no such user on this host")
	}
	if me := os.Geteuid(); me != 0 && int(acct.UID) != me {
		return nil, s.refuse(id, as, errDenied, "RES does not run as root")
	}
	return acct, nil
}

// refuse logs why a request was refused and returns err.
func (s *Server) refuse(id auth.Identity, as string, err error, why string) error {
	s.log().Warn("request refused: "+why, "peer", describe(id), "uid", id.UID, "daemon", id.Daemon, "as", as, "addr", id.Addr)
	return err
}

// mapped is the account as, when its .lsfhosts accepts the caller.
func (s *Server) mapped(id auth.Identity, as string) (*account, error) {
	if id.Daemon != "" || id.User == "" {
		return nil, s.refuse(id, as, errDenied, "a daemon or no user")
	}
	lookup := s.Lookup
	if lookup == nil {
		lookup = shepherd.LookupAccount
	}
	acct, err := lookup(as)
	if err != nil {
		return nil, s.refuse(id, as, errBadUser, "no such user on this host")
	}
	if acct.UID == 0 {
		return nil, s.refuse(id, as, errDenied, "root is never mapped to")
	}
	if me := os.Geteuid(); me != 0 && int(acct.UID) != me {
		return nil, s.refuse(id, as, errDenied, "RES does not run as root")
	}
	es, err := lsfhosts.Load(acct.Home, int(acct.UID))
	if err != nil || !lsfhosts.Accepts(es, id.Host, s.Cluster, id.User) {
		if err != nil {
			s.log().Warn("account mapping: .lsfhosts unreadable", "as", as, "err", err)
		}
		return nil, s.refuse(id, as, errDenied, "the account's .lsfhosts does not accept the caller")
	}
	return acct, nil
}

// asUser is the account files are opened as: nil when RES already is
// that user.
func asUser(acct *account) *account {
	if int(acct.UID) == os.Geteuid() {
		return nil
	}
	return acct
}

// fetch sends a file's content to the client, read as the user: first a
// chunk with Mode and Size, then the data in chunks of at most Chunk.
func (s *Server) fetch(ctx context.Context, id auth.Identity, req *api.FileRequest, send func(*api.FileChunk) error) error {
	acct, err := s.fileAccount(id, req, "fetch")
	if err != nil {
		return err
	}
	f, err := openAs(req.Path, os.O_RDONLY|syscall.O_NONBLOCK, 0, asUser(acct))
	if err != nil {
		return fileErr(s.Host, req.Path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fileErr(s.Host, req.Path, err)
	}
	if !st.Mode().IsRegular() {
		return rpc.Errorf(rpc.InvalidArgument, "%s:%s: not a regular file", s.Host, req.Path)
	}
	first := &api.FileChunk{Mode: uint32(st.Mode().Perm()), Size: st.Size()}
	buf := make([]byte, Chunk)
	for {
		n, rerr := f.Read(buf)
		if n > 0 || first != nil {
			c := first
			if c == nil {
				c = &api.FileChunk{}
			}
			first = nil
			c.Data = buf[:n]
			if err := send(c); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fileErr(s.Host, req.Path, rerr)
		}
	}
}

// store writes what the client sends to a file, as the user: the first
// chunk's Request names it, the data follows until the client's end of
// stream. The file is created with Request.Mode (0644 when 0) minus the
// umask, truncated unless Append.
func (s *Server) store(ctx context.Context, st *rpc.ServerStream) error {
	var first api.FileChunk
	if err := st.Recv(&first); err != nil {
		if err == io.EOF {
			return rpc.Errorf(rpc.InvalidArgument, "RES.Store: no file request")
		}
		return err
	}
	if first.Request == nil || first.Request.Path == "" {
		return rpc.Errorf(rpc.InvalidArgument, "RES.Store: the first chunk names no file")
	}
	req := first.Request
	acct, err := s.fileAccount(st.Identity(), req, "store")
	if err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | syscall.O_NONBLOCK
	if req.Append {
		flags |= os.O_APPEND
	} else {
		flags |= os.O_TRUNC
	}
	mode := os.FileMode(req.Mode & 0o7777)
	if mode == 0 {
		mode = 0o644
	}
	f, err := openAs(req.Path, flags, mode, asUser(acct))
	if err != nil {
		return fileErr(s.Host, req.Path, err)
	}
	var written int64
	write := func(b []byte) error {
		n, err := f.Write(b)
		written += int64(n)
		if err != nil {
			return fileErr(s.Host, req.Path, err)
		}
		return nil
	}
	if err := write(first.Data); err != nil {
		f.Close()
		return err
	}
	for {
		var c api.FileChunk
		err := st.Recv(&c)
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return err
		}
		if err := write(c.Data); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return fileErr(s.Host, req.Path, err)
	}
	s.log().Info("file stored", "user", acct.User, "path", req.Path, "bytes", written, "from", st.Identity().Host)
	return st.Send(&api.FileReply{Written: written})
}

// fileErr maps a file error to an RPC error naming host:path.
func fileErr(host, path string, err error) error {
	code := rpc.Internal
	switch {
	case errors.Is(err, os.ErrNotExist):
		code = rpc.NotFound
	case errors.Is(err, os.ErrPermission):
		code = rpc.PermissionDenied
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return rpc.Errorf(code, "%s:%s: %s", host, path, strerror(err))
}

// String for logs.
func describe(id auth.Identity) string { return fmt.Sprintf("%s@%s", id.User, id.Host) }

package res

import (
	"os"
	"path/filepath"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

// bsub -f staging: who may ask RES.Fetch and RES.Store for a user's files.
//
// The copies of a job's -f files are made by the job's shepherd on the
// execution host, which dials the RES of the job's submission host with
// its sbatchd's credential (kind sbatchd, sealed with the cluster key, or
// under ident a root or daemon-user socket) and names the job's user in
// FileRequest.User. RES serves such a request as that user, the file
// opened with the user's identity (the kernel checks the permissions):
//
//   - only a daemon of kind sbatchd may act for a user, and only on files:
//     RES.Run refuses every daemon identity, and another kind (lim,
//     mbatchd, res) is refused here;
//   - the daemon is a host of the cluster: the authenticator checked the
//     credential's host against lsf.cluster.<name> and the connection's
//     source address against that host's (a machine outside the cluster
//     or a host claiming another's name is refused before this);
//   - the user must exist here, root only with LSF_ROOT_REX (as for
//     tasks), and a RES not running as root serves only its own user;
//   - the path must be absolute (the shepherd resolves the job's paths).
//
// A user cannot use this to read another user's files: a user's command
// gets credentials of kind user only (the signing agent seals kind user,
// eauth -c lets only a real root claim a daemon kind, ident trusts only
// root's and the daemons' sockets), and a user credential naming another
// account in FileRequest.User goes through account mapping (that
// account's .lsfhosts must accept the caller). Whoever holds the cluster
// key (root on a cluster host) is trusted, as LSF trusts its daemons; RES
// does not ask mbatchd whether such a job exists (the key already lets its
// holder seal any user's credential).

// fileAccount is the account a RES.Fetch or RES.Store of req runs as (op
// names it in the log): a user's through account, an sbatchd's acting for
// req.User as described above.
func (s *Server) fileAccount(id auth.Identity, req *api.FileRequest, op string) (*account, error) {
	if id.Daemon == "" {
		return s.account(id, req.User)
	}
	deny := func(why string) (*account, error) {
		s.log().Warn("file access refused", "op", op, "daemon", id.Daemon, "host", id.Host, "user", req.User, "path", req.Path, "why", why)
		return nil, rpc.Errorf(rpc.PermissionDenied, "User permission denied: %s", why)
	}
	if id.Daemon != auth.KindSbatchd {
		return deny("a " + id.Daemon + " does not copy users' files")
	}
	if req.User == "" {
		return deny("sbatchd of " + id.Host + " names no user")
	}
	if !filepath.IsAbs(req.Path) {
		return deny("a job's file path must be absolute")
	}
	lookup := s.Lookup
	if lookup == nil {
		lookup = shepherd.LookupAccount
	}
	acct, err := lookup(req.User)
	if err != nil {
		return nil, rpc.Errorf(rpc.PermissionDenied, "User <%s> is not known on host <%s>", req.User, s.Host)
	}
	if acct.UID == 0 && !s.RootRex {
		return nil, errRoot
	}
	if me := os.Geteuid(); me != 0 && int(acct.UID) != me {
		return deny("RES on " + s.Host + " does not run as root")
	}
	s.log().Info("job file access", "op", op, "user", acct.User, "path", req.Path, "by", "sbatchd@"+id.Host)
	return acct, nil
}

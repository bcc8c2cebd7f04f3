package authsetup

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
)

// Client returns the credentials of a process of kind on localHost (a
// command: auth.KindUser).
func Client(conf *lsfconf.Conf, envDir, localHost, kind string) *eauth.Client {
	return eauth.NewClient(conf.Get, conf.LIMPort(), envDir, localHost, kind)
}

// Daemon is a daemon's authentication: the Authenticator of its server,
// the credentials of its own connections, and (eauth) its keys.
type Daemon struct {
	Auth    auth.Authenticator
	Creds   *eauth.Client
	Keys    *eauth.Keyring // nil under ident or a site's eauth
	Scheme  string
	closers []func()
}

// Close releases the replay cache and a site's eauth -s.
func (d *Daemon) Close() {
	for _, c := range d.closers {
		c()
	}
	d.closers = nil
}

// Server sets up the authentication of the daemon kind on host: under
// LSF_AUTH=eauth it reads the key (a key file others could read, or a
// symbolic link, is an error naming it) and opens the replay cache in
// stateDir.
func Server(base *config.Base, host, kind, stateDir string, log *slog.Logger) (*Daemon, error) {
	scheme, err := eauth.SchemeOf(base.Conf.Get("LSF_AUTH"))
	if err != nil {
		return nil, err
	}
	d := &Daemon{Scheme: scheme, Creds: Client(base.Conf, base.EnvDir, host, kind)}
	d.Creds.Scheme = scheme
	d.Creds.NoSite = eauth.IsSelf(eauth.SiteEauth(base.Conf.ServerDir()))
	if scheme == eauth.SchemeIdent {
		d.Auth = &auth.Ident{}
		return d, nil
	}
	hosts := HostCheck(base)
	// A copy of this binary (Basalt's eauth installed setuid root) is
	// verified in-process like a link to it.
	if site := eauth.SiteEauth(base.Conf.ServerDir()); site != "" && !eauth.IsSelf(site) {
		s := &eauth.SiteServer{Path: site, Daemon: kind, Env: []string{"LSF_ENVDIR=" + base.EnvDir}}
		// LSF_EAUTH_USER runs eauth -s as another account (root only).
		if sud, err := eauth.ReadSudoers(eauth.SudoersPath(base.EnvDir)); err == nil && sud.User != "" && os.Geteuid() == 0 {
			u, err := user.Lookup(sud.User)
			if err != nil {
				return nil, fmt.Errorf("%s: LSF_EAUTH_USER=%s: %w", sud.Path, sud.User, err)
			}
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			s.Cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		}
		d.closers = append(d.closers, s.Close)
		d.Auth = &eauth.Authenticator{Site: s, Hosts: hosts, Log: log}
		return d, nil
	}
	keys, _, err := eauth.LoadKeyring(eauth.SudoersPath(base.EnvDir), time.Now())
	if err != nil {
		return nil, fmt.Errorf("LSF_AUTH=eauth: %w", err)
	}
	cache, err := eauth.OpenReplayCache(filepath.Join(stateDir, eauth.ReplayFile), time.Now())
	if err != nil {
		return nil, err
	}
	d.closers = append(d.closers, func() { cache.Close() })
	d.Keys = keys
	d.Creds.Keys = keys
	d.Auth = &eauth.Authenticator{Verifier: &eauth.Verifier{Keys: keys, Cache: cache, Daemon: kind, Host: host}, Hosts: hosts, Log: log}
	return d, nil
}

// HostCheck checks client hosts against lsf.cluster.<name> and their
// addresses against the hosts file, then the resolver.
func HostCheck(base *config.Base) *eauth.HostCheck {
	return HostCheckOf(func() *config.Base { return base })
}

// HostCheckOf is HostCheck of the configuration current returns (a
// daemon's that reconfigures).
func HostCheckOf(current func() *config.Base) *eauth.HostCheck {
	return &eauth.HostCheck{
		InCluster: func(host string) (string, bool) {
			if h := current().Cluster.Host(host); h != nil {
				return h.Name, true
			}
			return "", false
		},
		Addrs: func(ctx context.Context, host string) ([]netip.Addr, error) {
			if a, ok := current().HostsFile.Lookup(host); ok {
				return []netip.Addr{a}, nil
			}
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
	}
}

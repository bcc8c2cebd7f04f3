package eauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// Schemes of LSF_AUTH.
const (
	SchemeEauth = "eauth"
	SchemeIdent = "ident"
)

// SchemeOf returns the scheme LSF_AUTH selects: eauth when unset (LSF's
// default).
func SchemeOf(lsfAuth string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(lsfAuth)) {
	case "", SchemeEauth:
		return SchemeEauth, nil
	case SchemeIdent:
		return SchemeIdent, nil
	}
	return "", fmt.Errorf("LSF_AUTH=%s: Basalt knows eauth and ident", lsfAuth)
}

// Client makes the hellos of a process's connections to daemons
// (auth.Credentials).
type Client struct {
	Scheme    string // SchemeEauth or SchemeIdent
	Kind      string // "user", or the daemon kind of a daemon
	LocalHost string // the client's cluster host
	LIMPort   int    // names the host's signing agent
	ServerDir string // LSF_SERVERDIR: a site's eauth there is run
	EnvDir    string // LSF_ENVDIR: lsf.sudoers
	Version   string // hello Version
	// Keys, when set, seal directly (daemons load them at start).
	// Otherwise the key file is tried once, and the host's agent asked
	// when it cannot be read.
	Keys *Keyring
	// NoSite ignores LSF_SERVERDIR/eauth (it is this binary).
	NoSite bool
	Now    func() time.Time

	once    sync.Once
	keys    *Keyring
	keysErr error
	site    string
	name    string
}

// NewClient returns the client of a process on localHost of the cluster
// whose lsf.conf get reads (LSF_AUTH, LSF_SERVERDIR, LSF_LIM_PORT).
func NewClient(get func(string) string, limPort int, envDir, localHost, kind string) *Client {
	scheme, err := SchemeOf(get("LSF_AUTH"))
	if err != nil {
		scheme = SchemeEauth
	}
	return &Client{Scheme: scheme, Kind: kind, LocalHost: localHost, LIMPort: limPort, ServerDir: get("LSF_SERVERDIR"), EnvDir: envDir}
}

func (c *Client) init() {
	c.once.Do(func() {
		c.name = UserName(os.Getuid())
		if c.Kind == "" {
			c.Kind = "user"
		}
		if c.Scheme != SchemeEauth {
			return
		}
		if !c.NoSite {
			c.site = SiteEauth(c.ServerDir)
		}
		if c.site != "" {
			return
		}
		c.keys = c.Keys
		if c.keys == nil {
			c.keys, _, c.keysErr = LoadKeyring(SudoersPath(c.EnvDir), c.now())
		}
	})
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

var userNames sync.Map

// UserName names uid (its number when it has no passwd entry), once per
// process.
func UserName(uid int) string {
	if n, ok := userNames.Load(uid); ok {
		return n.(string)
	}
	name := strconv.Itoa(uid)
	if u, err := user.LookupId(name); err == nil {
		name = u.Username
	}
	userNames.Store(uid, name)
	return name
}

// Hello implements auth.Credentials: the hello of a new connection to the
// daemon kind on host, with a fresh credential under eauth.
func (c *Client) Hello(ctx context.Context, daemon, host string) (*api.ConnHello, error) {
	c.init()
	h := &api.ConnHello{Version: c.Version, User: c.name, Host: c.LocalHost, Scheme: c.Scheme, UID: int32(os.Getuid()), GID: int32(os.Getgid())}
	if c.Kind != "user" {
		h.Daemon = c.Kind
	}
	if c.Scheme != SchemeEauth {
		return h, nil
	}
	var err error
	switch {
	case c.site != "":
		h.Credential, err = RunClient(ctx, c.site, c.Kind, daemon, host)
	case c.keys != nil:
		h.Credential, err = SealFor(c.keys, os.Getuid(), os.Getgid(), c.name, c.LocalHost, c.Kind, daemon, host, c.now())
	case c.Kind != "user":
		err = fmt.Errorf("eauth: %s cannot read the cluster key: %w", c.Kind, c.keysErr)
	default:
		h.Credential, err = AskAgent(ctx, AgentAddr(c.LocalHost, c.LIMPort), daemon, host)
	}
	if err != nil {
		return nil, err
	}
	return h, nil
}

// SealFor seals a fresh credential.
func SealFor(keys *Keyring, uid, gid int, name, clientHost, kind, daemon, host string, now time.Time) ([]byte, error) {
	cr := Cred{UID: uint32(uid), GID: uint32(gid), User: name, ClientHost: clientHost, ClientKind: kind,
		ServerDaemon: daemon, ServerHost: host, Issued: now, TTL: DefaultTTL}
	if _, err := rand.Read(cr.Nonce[:]); err != nil {
		return nil, err
	}
	return Seal(keys.Current, cr)
}

// SiteEauth returns LSF_SERVERDIR/eauth when it is a site's own program,
// "" when it is absent or Basalt's (a link to basalt or basaltd, or this
// executable).
func SiteEauth(serverDir string) string {
	if serverDir == "" {
		return ""
	}
	p := filepath.Join(serverDir, "eauth")
	st, err := os.Lstat(p)
	if err != nil {
		return ""
	}
	if st.Mode()&os.ModeSymlink != 0 {
		if t, err := os.Readlink(p); err == nil {
			if b := filepath.Base(t); b == "basalt" || b == "basaltd" {
				return ""
			}
		}
		if st, err = os.Stat(p); err != nil {
			return ""
		}
	}
	if exe, err := os.Executable(); err == nil {
		if est, err := os.Stat(exe); err == nil && os.SameFile(st, est) {
			return ""
		}
		if dst, err := os.Stat(filepath.Join(filepath.Dir(exe), "basaltd")); err == nil && os.SameFile(st, dst) {
			return ""
		}
	}
	return p
}

// IsSelf reports whether the program at path is a copy of this
// executable (an eauth installed setuid root is a copy of basaltd, not a
// link): a daemon then verifies in-process instead of running it.
func IsSelf(path string) bool {
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	a, err := os.Open(path)
	if err != nil {
		return false
	}
	defer a.Close()
	b, err := os.Open(exe)
	if err != nil {
		return false
	}
	defer b.Close()
	sa, err1 := a.Stat()
	sb, err2 := b.Stat()
	if err1 != nil || err2 != nil || sa.Size() != sb.Size() {
		return false
	}
	if os.SameFile(sa, sb) {
		return true
	}
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(a, ba)
		nb, _ := io.ReadFull(b, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil {
			return true
		}
	}
}

// RunClient runs a site's eauth -c <host> as LSF does and returns what it
// prints.
func RunClient(ctx context.Context, path, kind, daemon, host string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, path, "-c", host)
	cmd.Env = append(os.Environ(), "LSF_EAUTH_CLIENT="+kind, "LSF_EAUTH_SERVER="+daemon)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s -c %s: %v: %s", path, host, err, strings.TrimSpace(errb.String()))
	}
	if out.Len() > MaxAuthData {
		return nil, fmt.Errorf("%s -c %s: %d bytes of output, at most %d", path, host, out.Len(), MaxAuthData)
	}
	return bytes.TrimRight(out.Bytes(), "\r\n"), nil
}

package daemon

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
)

func init() {
	// Not linked in the command directory: the cluster links it as
	// LSF_SERVERDIR/eauth.
	cli.Register(&cli.Command{Name: "eauth", Hidden: true, Summary: "LSF's external authentication program (eauth -c host, eauth -s)", Run: runEauth})
}

const eauthUsage = "Usage: eauth -c server_host | eauth -s"

// runEauth is Basalt's eauth. eauth -c <host> prints a credential for the
// daemon LSF_EAUTH_SERVER (default mbatchd) on host: sealed with the
// cluster key when the effective uid is root (installed setuid root on a
// host without a LIM, it signs for the real uid, and only root may claim a
// daemon's LSF_EAUTH_CLIENT), else by the host's signing agent. eauth -s
// answers LSF's requests on standard input, 1 or 0 per request.
func runEauth(ctx context.Context, env *cli.Env, args []string) int {
	switch {
	case len(args) == 2 && args[0] == "-c":
		return eauthClient(ctx, env, args[1])
	case len(args) == 1 && args[0] == "-s":
		return eauthServer(ctx, env)
	}
	env.Errorf("%s", eauthUsage)
	return cli.ExitUsage
}

// eauthConf reads lsf.conf and names the local host. A setuid eauth takes
// only LSF_ENVDIR from its caller's environment (the key file there must
// be root's, mode 600, else it is refused): the host is the system's
// name, never BASALT_HOST.
func eauthConf(env *cli.Env) (envDir string, conf *lsfconf.Conf, host string, err error) {
	getenv := env.Getenv
	if os.Getuid() != os.Geteuid() {
		getenv = func(k string) string {
			if k == "LSF_ENVDIR" {
				return env.Getenv(k)
			}
			return ""
		}
	}
	envDir = getenv("LSF_ENVDIR")
	if envDir == "" {
		envDir = config.DefaultEnvDir
	}
	conf, _, err = config.LoadConf(config.Options{EnvDir: envDir, Getenv: getenv})
	if err != nil {
		return "", nil, "", err
	}
	host, err = config.LocalHostName(conf, getenv, nil)
	if err != nil {
		return "", nil, "", err
	}
	return envDir, conf, host, nil
}

func eauthClient(ctx context.Context, env *cli.Env, server string) int {
	envDir, conf, host, err := eauthConf(env)
	if err != nil {
		env.Errorf("eauth: %v", err)
		return 1
	}
	daemon := env.Getenv("LSF_EAUTH_SERVER")
	if daemon == "" {
		daemon = "mbatchd"
	}
	var cred []byte
	if os.Geteuid() == 0 {
		keys, _, err := eauth.LoadKeyring(eauth.SudoersPath(envDir), time.Now())
		if err != nil {
			env.Errorf("eauth: %v", err)
			return 1
		}
		kind := "user"
		if c := env.Getenv("LSF_EAUTH_CLIENT"); c != "" && os.Getuid() == 0 {
			kind = c
		}
		uid, gid := os.Getuid(), os.Getgid()
		cred, err = eauth.SealFor(keys, uid, gid, eauth.UserName(uid), host, kind, daemon, server, time.Now())
		if err != nil {
			env.Errorf("eauth: %v", err)
			return 1
		}
	} else {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if cred, err = eauth.AskAgent(cctx, eauth.AgentAddr(host, conf.LIMPort()), daemon, server); err != nil {
			env.Errorf("%v", err)
			return 1
		}
	}
	fmt.Fprintf(env.Stdout, "%s\n", cred)
	return 0
}

func eauthServer(ctx context.Context, env *cli.Env) int {
	envDir, conf, host, err := eauthConf(env)
	if err != nil {
		env.Errorf("eauth: %v", err)
		return 1
	}
	daemon := env.Getenv("LSF_EAUTH_SERVER")
	if daemon == "" {
		daemon = "mbatchd"
	}
	keys, _, err := eauth.LoadKeyring(eauth.SudoersPath(envDir), time.Now())
	if err != nil {
		env.Errorf("eauth: %v", err)
		return 1
	}
	dir := stateDir(conf, host, "eauth")
	cache, err := eauth.OpenReplayCache(filepath.Join(dir, daemon+".replay"), time.Now())
	if err != nil {
		env.Errorf("eauth: %v", err)
		return 1
	}
	defer cache.Close()
	v := &eauth.Verifier{Keys: keys, Cache: cache, Daemon: daemon, Host: host}
	rr := eauth.NewRequestReader(env.Stdin)
	for ctx.Err() == nil {
		req, err := rr.Read()
		if err == io.EOF {
			return 0
		}
		if err != nil {
			// The stream is out of step: LSF restarts eauth -s.
			env.Errorf("eauth -s: %v", err)
			fmt.Fprintln(env.Stdout, "0")
			return 1
		}
		ok := "1"
		c, err := v.Verify(req.Data)
		switch {
		case err != nil:
		case int(c.UID) != req.UID || (req.User != "NULL" && c.User != req.User):
			err = fmt.Errorf("credential of uid %d (%s), request for uid %d (%s)", c.UID, c.User, req.UID, req.User)
		}
		if err != nil {
			env.Errorf("eauth -s: refused uid %d from %s: %v", req.UID, req.ClientAddr, err)
			ok = "0"
		}
		fmt.Fprintln(env.Stdout, ok)
	}
	return 0
}

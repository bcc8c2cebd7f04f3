package daemon

import (
	"context"
	"log/slog"
	"sync"

	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/logging"
)

// envDir is the daemon's LSF_ENVDIR: -d env_dir, else the environment's.
func envDir(env *cli.Env, res *lsfopt.Result) string {
	if d, ok := res.Last("d"); ok {
		return d
	}
	return env.Getenv("LSF_ENVDIR")
}

// batchDaemon is what a batch daemon starts from: its configuration
// directory, lsf.conf and the cluster's base files, its host name and its
// log.
type batchDaemon struct {
	envDir   string
	opts     config.Options
	base     *config.Base
	host     string
	log      *slog.Logger
	dlog     *logging.Log // log's file and level, for the debug subcommands
	closeLog func()
	// auth is the daemon's authentication (LSF_AUTH), its replay cache in
	// its state directory.
	auth *authsetup.Daemon
	once sync.Once // close
}

// startBatchDaemon loads the base configuration, names the local host,
// opens the daemon's log and sets up its authentication (name is its
// kind: auth.KindMbatchd, auth.KindSbatchd); an error is said on env's
// standard error as "<name>: <error>".
func startBatchDaemon(ctx context.Context, env *cli.Env, name string, res *lsfopt.Result) (*batchDaemon, bool) {
	d := &batchDaemon{envDir: envDir(env, res)}
	if d.envDir == "" {
		d.envDir = config.DefaultEnvDir
	}
	d.opts = config.Options{EnvDir: d.envDir, Getenv: env.Getenv}
	var err error
	if d.base, err = config.LoadBase(ctx, d.opts); err == nil {
		if d.host, err = config.LocalHostName(d.base.Conf, env.Getenv, nil); err == nil {
			if d.dlog, err = logging.OpenDaemon(ctx, d.base.Conf, name, d.host, env.Stderr); err == nil {
				d.log, d.closeLog = d.dlog.Logger, func() { d.dlog.Close() }
			}
		}
	}
	if err != nil {
		env.Errorf("%s: %v", name, err)
		return nil, false
	}
	if d.auth, err = authsetup.Server(d.base, d.host, name, stateDir(d.base.Conf, d.host, name), d.log); err != nil {
		d.log.Error(name+" cannot start", "err", err)
		env.Errorf("%s: %v", name, err)
		d.closeLog()
		return nil, false
	}
	return d, true
}

// close releases the daemon's authentication, then its log.
func (d *batchDaemon) close() {
	d.once.Do(func() {
		d.auth.Close()
		d.closeLog()
	})
}

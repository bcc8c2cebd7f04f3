package daemon

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/res"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

// jobFileRemote is the shepherd's Remote for the jobs of the sbatchd of p:
// the submission host's RES at LSF_RES_PORT, dialed from p.Host with a
// credential of kind sbatchd (the shepherd runs as sbatchd's user, who
// reads the cluster key), acting for the job's user (see res/staging.go).
// The configuration is read for each job that copies files, so that a
// long-lived shepherd host follows reconfigurations (a few milliseconds,
// for the rare jobs with -f).
func jobFileRemote(p *sbdwire.Params) (shepherd.Remote, error) {
	envDir := os.Getenv("LSF_ENVDIR")
	for _, kv := range p.ExtraEnv {
		if v, ok := strings.CutPrefix(kv, "LSF_ENVDIR="); ok {
			envDir = v
		}
	}
	if envDir == "" {
		envDir = config.DefaultEnvDir
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	base, err := config.LoadBase(ctx, config.Options{EnvDir: envDir, Getenv: os.Getenv})
	if err != nil {
		return nil, err
	}
	creds := authsetup.Client(base.Conf, envDir, p.Host, auth.KindSbatchd)
	creds.NoSite = eauth.IsSelf(eauth.SiteEauth(base.Conf.ServerDir()))
	port := strconv.Itoa(base.Conf.RESPort())
	resolver := base.Resolver()
	r := &res.FileClient{Dial: func(ctx context.Context, host string) (*rpc.Client, error) {
		a, err := resolver.Resolve(ctx, host)
		if err != nil {
			return nil, err
		}
		hello, err := creds.Hello(ctx, auth.KindRES, host)
		if err != nil {
			return nil, err
		}
		// A host that does not answer fails the copy in seconds, not
		// after TCP's retries.
		dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		return rpc.Dial(dctx, net.JoinHostPort(a.String(), port), hello)
	}}
	return r, nil
}

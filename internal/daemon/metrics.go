package daemon

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
	"github.com/basalt-lsf/basalt/internal/mbd"
	"github.com/basalt-lsf/basalt/internal/metrics"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd"
	"github.com/basalt-lsf/basalt/internal/web"
)

// metricsAddr is the address and port of a daemon's metrics on host:
// BASALT_HTTP_PORT + offset; port 0 when HTTP is off or cannot be served.
func metricsAddr(ctx context.Context, base *config.Base, host string, offset int, log *slog.Logger) (string, int) {
	port, err := metrics.Port(base.Conf.Get("BASALT_HTTP_PORT"), offset)
	if err != nil {
		log.Warn("metrics not served", "err", err)
		return "", 0
	}
	if port == 0 {
		return "", 0
	}
	a, err := base.Resolver().Resolve(ctx, host)
	if err != nil {
		log.Warn("metrics not served: address of "+host, "err", err)
		return "", 0
	}
	return a.String(), port
}

// mbatchdMetrics serves mbatchd's metrics and its dashboard (call before srv.Run: it installs
// the collector as srv's observer).
func mbatchdMetrics(ctx context.Context, base *config.Base, host string, srv *mbd.Server, log *slog.Logger) func() {
	addr, port := metricsAddr(ctx, base, host, metrics.MbatchdOffset, log)
	if port == 0 {
		return func() {}
	}
	c := metrics.NewMbdCollector(srv)
	srv.SetObserver(c)
	reg := metrics.NewRegistry()
	reg.MustRegister(c, metrics.NewRPCCollector(srv.RPCServer))
	var extra []metrics.Extra
	if tok, err := web.NewTokens(); err != nil {
		log.Warn("dashboard not served", "err", err)
	} else if h, err := web.New(web.Options{Source: srv.WebSource(), Tokens: tok, Log: log}); err != nil {
		log.Warn("dashboard not served", "err", err)
	} else {
		extra = append(extra, metrics.Extra{Root: h, ConnContext: web.ConnContext, OnShutdown: h.Close})
	}
	return serveUntil(ctx, addr, port, reg, log, extra...)
}

// sbatchdMetrics serves sbatchd's metrics.
func sbatchdMetrics(ctx context.Context, base *config.Base, host string, d *sbd.Daemon, srv *rpc.Server, log *slog.Logger) func() {
	addr, port := metricsAddr(ctx, base, host, metrics.SbatchdOffset, log)
	if port == 0 {
		return func() {}
	}
	reg := metrics.NewRegistry()
	reg.MustRegister(metrics.NewSbdCollector(d), metrics.NewRPCCollector(func() *rpc.Server { return srv }))
	return serveUntil(ctx, addr, port, reg, log)
}

// limMetrics serves the LIM's metrics: this host's status and load as the
// master LIM holds them. Errors go to the LIM's standard error log.
func limMetrics(ctx context.Context, envDir string, getenv func(string) string, log *slog.Logger) func() {
	base, err := config.LoadBase(ctx, config.Options{EnvDir: envDir, Getenv: getenv})
	if err != nil {
		return func() {}
	}
	host, err := config.LocalHostName(base.Conf, getenv, nil)
	if err != nil {
		return func() {}
	}
	addr, port := metricsAddr(ctx, base, host, metrics.LIMOffset, log)
	if port == 0 {
		return func() {}
	}
	c := limclient.New(base, limclient.Options{LocalHost: host})
	reg := metrics.NewRegistry()
	reg.MustRegister(metrics.NewLimCollector(host, metrics.ClusterHost(c, host)))
	stop := serveUntil(ctx, addr, port, reg, log)
	return func() { stop(); c.Close() }
}

// serveUntil serves reg until ctx ends or the returned function is called;
// that function returns once the server has shut down.
func serveUntil(ctx context.Context, addr string, port int, reg *prometheus.Registry, log *slog.Logger, extra ...metrics.Extra) func() {
	ctx, cancel := context.WithCancel(ctx)
	wait := metrics.ServeUntil(ctx, addr, port, reg, log, extra...)
	return func() { cancel(); wait() }
}

package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/basalt-lsf/basalt/internal/version"
)

// Offsets of the daemons' ports from BASALT_HTTP_PORT.
const (
	MbatchdOffset = 0
	SbatchdOffset = 1
	LIMOffset     = 2
)

// Port is the HTTP port of a daemon: BASALT_HTTP_PORT (value) plus its
// offset; 0 when HTTP is off (unset, 0 or not a port number).
func Port(value string, offset int) (int, error) {
	if value == "" {
		return 0, nil
	}
	p, err := strconv.Atoi(value)
	if err != nil || p < 0 || p+offset > 65535 {
		return 0, fmt.Errorf("BASALT_HTTP_PORT=%s: not a port number", value)
	}
	if p == 0 {
		return 0, nil
	}
	return p + offset, nil
}

// NewRegistry is a registry with the build info, Go runtime and process
// collectors.
func NewRegistry() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(BuildInfo(), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// BuildInfo is basalt_build_info{version=...} 1.
func BuildInfo() prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "basalt_build_info", Help: "Basalt's version; the value is 1.",
		ConstLabels: prometheus.Labels{"version": version.Version}})
	g.Set(1)
	return g
}

// Server is a daemon's HTTP server.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
}

// Extra is what a daemon serves beside /metrics: mbatchd's dashboard at
// "/", with the http.Server ConnContext it needs and what ends its
// long-lived requests at shutdown.
type Extra struct {
	Root        http.Handler
	ConnContext func(context.Context, net.Conn) context.Context
	OnShutdown  func()
}

// Listen listens on addr and serves /metrics from reg, and extra's
// handler at "/", until Shutdown.
func Listen(addr string, reg *prometheus.Registry, log *slog.Logger, extra ...Extra) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: errLog{log}}))
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln: ln, done: make(chan struct{})}
	for _, e := range extra {
		if e.Root != nil {
			mux.Handle("/", e.Root)
		}
		if e.ConnContext != nil {
			s.srv.ConnContext = e.ConnContext
		}
		if e.OnShutdown != nil {
			s.srv.RegisterOnShutdown(e.OnShutdown)
		}
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && log != nil {
			log.Warn("metrics server stopped", "err", err)
		}
	}()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Shutdown stops the server, waiting for requests in progress until ctx
// ends.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	<-s.done
	return err
}

// ServeUntil listens on addr and shuts the server down when ctx ends; the
// returned function waits for that shutdown. HTTP off (port 0) or a failure
// to listen (logged) returns a no-op.
func ServeUntil(ctx context.Context, host string, port int, reg *prometheus.Registry, log *slog.Logger, extra ...Extra) func() {
	if port == 0 {
		return func() {}
	}
	s, err := Listen(net.JoinHostPort(host, strconv.Itoa(port)), reg, log, extra...)
	if err != nil {
		if log != nil {
			log.Warn("metrics not served", "err", err)
		}
		return func() {}
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(sctx)
	}()
	return func() { <-stopped }
}

type errLog struct{ log *slog.Logger }

func (e errLog) Println(v ...any) {
	if e.log != nil {
		e.log.Warn("metrics: " + fmt.Sprint(v...))
	}
}

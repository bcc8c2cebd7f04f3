package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/basalt-lsf/basalt/internal/rpc"
)

var (
	descAcceptErrors = prometheus.NewDesc("basalt_rpc_accept_errors_total", "Failed accepts of the daemon's RPC listener (descriptors run out, ...), each retried.", nil, nil)
	descAccepting    = prometheus.NewDesc("basalt_rpc_accepting", "1 while the daemon's RPC listener takes connections, 0 while its accepts fail.", nil, nil)
)

// acceptWindow: a listener whose accept failed this recently is reported
// not accepting.
const acceptWindow = 5 * time.Second

// RPCCollector reports a daemon's RPC listener health.
type RPCCollector struct {
	srv func() *rpc.Server // nil result: not serving yet
}

// NewRPCCollector returns the collector of the server srv returns.
func NewRPCCollector(srv func() *rpc.Server) *RPCCollector { return &RPCCollector{srv: srv} }

// Describe implements prometheus.Collector.
func (c *RPCCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descAcceptErrors
	ch <- descAccepting
}

// Collect implements prometheus.Collector.
func (c *RPCCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.srv()
	if s == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(descAcceptErrors, prometheus.CounterValue, float64(s.AcceptErrors.Load()))
	up := 1.0
	if s.AcceptFailing(time.Now(), acceptWindow) {
		up = 0
	}
	ch <- prometheus.MustNewConstMetric(descAccepting, prometheus.GaugeValue, up)
}

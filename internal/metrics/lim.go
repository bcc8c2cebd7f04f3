package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
	"github.com/basalt-lsf/basalt/internal/lim/load"
)

// HostLoadSource returns this host's load record as the master LIM holds
// it (a limclient.Client's Cluster restricted to the host).
type HostLoadSource func(ctx context.Context) (*api.HostLoad, error)

// ClusterHost is the HostLoadSource of host through c.
func ClusterHost(c *limclient.Client, host string) HostLoadSource {
	return func(ctx context.Context) (*api.HostLoad, error) {
		cl, err := c.Cluster(ctx, host)
		if err != nil {
			return nil, err
		}
		return cl.Host(host), nil
	}
}

var (
	descLimUp     = prometheus.NewDesc("basalt_lim_master_reachable", "1 when the master LIM answered for this host at this scrape, else 0.", nil, nil)
	descLimStatus = prometheus.NewDesc("basalt_lim_host_status", "The host's status as lsload shows it (ok, busy, lockU, unavail...); the value is 1.", []string{"host", "status"}, nil)
	descLimLoad   = prometheus.NewDesc("basalt_lim_load", "The host's load indices as the master LIM holds them, in LSF's units (built-in indices raw as LIM reports them, then external ones).", []string{"host", "index"}, nil)
)

// LimCollector reports this host's status and load indices at each scrape.
type LimCollector struct {
	host string
	src  HostLoadSource
}

// NewLimCollector returns the collector of host's load through src.
func NewLimCollector(host string, src HostLoadSource) *LimCollector {
	return &LimCollector{host: host, src: src}
}

// Describe implements prometheus.Collector.
func (c *LimCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descLimUp
	ch <- descLimStatus
	ch <- descLimLoad
}

// Collect implements prometheus.Collector.
func (c *LimCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	h, err := c.src(ctx)
	if err != nil || h == nil {
		ch <- prometheus.MustNewConstMetric(descLimUp, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(descLimUp, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(descLimStatus, prometheus.GaugeValue, 1, c.host, limclient.StatusString(h.Status))
	seen := map[string]bool{}
	for i, v := range h.Load {
		if i < len(load.IndexNames) {
			seen[load.IndexNames[i]] = true
			ch <- prometheus.MustNewConstMetric(descLimLoad, prometheus.GaugeValue, v, c.host, load.IndexNames[i])
		}
	}
	for _, v := range h.Ext {
		if v == nil || v.Name == "" || seen[v.Name] {
			continue
		}
		seen[v.Name] = true
		ch <- prometheus.MustNewConstMetric(descLimLoad, prometheus.GaugeValue, v.Value, c.host, v.Name)
	}
}

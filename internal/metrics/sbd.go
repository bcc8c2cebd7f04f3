package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/basalt-lsf/basalt/internal/sbd"
)

// SbdSource is sbatchd as its collector reads it (*sbd.Daemon).
type SbdSource interface {
	Counters() *sbd.Counters
	Jobs(ctx context.Context) (int, bool)
}

var (
	descSbdStarted  = prometheus.NewDesc("basalt_sbatchd_job_starts_total", "Jobs whose shepherd this sbatchd started.", nil, nil)
	descSbdFailed   = prometheus.NewDesc("basalt_sbatchd_job_start_failures_total", "Job launches this sbatchd could not carry out.", nil, nil)
	descSbdShepherd = prometheus.NewDesc("basalt_sbatchd_shepherd_errors_total", "Shepherds not started or not reached, and jobs lost with their shepherd.", nil, nil)
	descSbdCgroup   = prometheus.NewDesc("basalt_sbatchd_cgroup_errors_total", "Job cgroups sbatchd could not remove.", nil, nil)
	descSbdJobs     = prometheus.NewDesc("basalt_sbatchd_jobs", "Jobs this sbatchd follows.", nil, nil)
)

// SbdCollector reads sbatchd's counters at each scrape.
type SbdCollector struct{ src SbdSource }

// NewSbdCollector returns the collector of src.
func NewSbdCollector(src SbdSource) *SbdCollector { return &SbdCollector{src: src} }

// Describe implements prometheus.Collector.
func (c *SbdCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSbdStarted, descSbdFailed, descSbdShepherd, descSbdCgroup, descSbdJobs} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *SbdCollector) Collect(ch chan<- prometheus.Metric) {
	k := c.src.Counters()
	for _, m := range []struct {
		d *prometheus.Desc
		v uint64
	}{{descSbdStarted, k.JobsStarted.Load()}, {descSbdFailed, k.JobStartFailures.Load()},
		{descSbdShepherd, k.ShepherdErrors.Load()}, {descSbdCgroup, k.CgroupErrors.Load()}} {
		ch <- prometheus.MustNewConstMetric(m.d, prometheus.CounterValue, float64(m.v))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if n, ok := c.src.Jobs(ctx); ok {
		ch <- prometheus.MustNewConstMetric(descSbdJobs, prometheus.GaugeValue, float64(n))
	}
}

package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/basalt-lsf/basalt/internal/mbd"
)

// StatsSource is mbatchd as its collector reads it (*mbd.Server).
type StatsSource interface{ Stats() *mbd.Stats }

var (
	descJobs        = prometheus.NewDesc("basalt_jobs", "Jobs in the system by state and queue.", []string{"state", "queue"}, nil)
	descPending     = prometheus.NewDesc("basalt_pending_jobs", "Pending jobs by queue and main pending reason (the last scheduling pass's first reason).", []string{"queue", "reason"}, nil)
	descSubmitted   = prometheus.NewDesc("basalt_queue_submitted_jobs_total", "Jobs (array elements each) submitted to the queue since mbatchd started.", []string{"queue"}, nil)
	descDispatched  = prometheus.NewDesc("basalt_queue_dispatched_jobs_total", "Jobs dispatched from the queue since mbatchd started.", []string{"queue"}, nil)
	descFinished    = prometheus.NewDesc("basalt_queue_finished_jobs_total", "Jobs of the queue that finished (DONE or EXIT) since mbatchd started.", []string{"queue"}, nil)
	descQSlotsUsed  = prometheus.NewDesc("basalt_queue_slots_used", "Slots held by the queue's started jobs.", []string{"queue"}, nil)
	descQSlotsFree  = prometheus.NewDesc("basalt_queue_slots_free", "Free slots of the hosts the queue may use, within QJOB_LIMIT.", []string{"queue"}, nil)
	descHSlotsUsed  = prometheus.NewDesc("basalt_host_slots_used", "Slots held by started jobs on the batch host.", []string{"host"}, nil)
	descHSlotsFree  = prometheus.NewDesc("basalt_host_slots_free", "Free slots of the batch host (absent when its slots are unlimited; 0 when it cannot take jobs).", []string{"host"}, nil)
	descHostStatus  = prometheus.NewDesc("basalt_batch_host_status", "The batch host's status as bhosts shows it; the value is 1.", []string{"host", "status"}, nil)
	descShare       = prometheus.NewDesc("basalt_fairshare_priority", "Dynamic priority of a top-level share account of a fairshare queue.", []string{"queue", "account"}, nil)
	descRaftLast    = prometheus.NewDesc("basalt_raft_last_index", "Index of the last entry of mbatchd's log.", nil, nil)
	descRaftEntries = prometheus.NewDesc("basalt_raft_log_entries", "Entries of mbatchd's log since its last snapshot.", nil, nil)
)

// MbdCollector reads mbatchd's Stats at each scrape and observes its
// scheduling passes and commits (it is mbatchd's Observer).
type MbdCollector struct {
	src      StatsSource
	pass     prometheus.Histogram
	examined prometheus.Histogram
	lastExam prometheus.Gauge
	commit   prometheus.Histogram
}

// NewMbdCollector returns the collector of src.
func NewMbdCollector(src StatsSource) *MbdCollector {
	return &MbdCollector{src: src,
		pass: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "basalt_scheduling_pass_duration_seconds",
			Help: "Duration of mbatchd's scheduling passes.", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}),
		examined: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "basalt_scheduling_pass_examined_jobs",
			Help: "Jobs a scheduling pass examined.", Buckets: prometheus.ExponentialBuckets(1, 10, 7)}),
		lastExam: prometheus.NewGauge(prometheus.GaugeOpts{Name: "basalt_scheduling_last_pass_examined_jobs",
			Help: "Jobs the last scheduling pass examined."}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "basalt_raft_commit_duration_seconds",
			Help: "Time from handing an entry to mbatchd's log to its commit.", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}),
	}
}

// SchedPass implements mbd.Observer.
func (c *MbdCollector) SchedPass(took time.Duration, examined int) {
	c.pass.Observe(took.Seconds())
	c.examined.Observe(float64(examined))
	c.lastExam.Set(float64(examined))
}

// Commit implements mbd.Observer.
func (c *MbdCollector) Commit(took time.Duration) { c.commit.Observe(took.Seconds()) }

// Describe implements prometheus.Collector.
func (c *MbdCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descJobs, descPending, descSubmitted, descDispatched, descFinished, descQSlotsUsed,
		descQSlotsFree, descHSlotsUsed, descHSlotsFree, descHostStatus, descShare, descRaftLast, descRaftEntries} {
		ch <- d
	}
	c.pass.Describe(ch)
	c.examined.Describe(ch)
	c.lastExam.Describe(ch)
	c.commit.Describe(ch)
}

// Collect implements prometheus.Collector.
func (c *MbdCollector) Collect(ch chan<- prometheus.Metric) {
	c.pass.Collect(ch)
	c.examined.Collect(ch)
	c.lastExam.Collect(ch)
	c.commit.Collect(ch)
	st := c.src.Stats()
	gauge := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
	}
	counter := func(d *prometheus.Desc, v uint64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), l...)
	}
	for _, j := range st.Jobs {
		gauge(descJobs, float64(j.N), j.State, j.Queue)
	}
	for _, p := range st.Pending {
		gauge(descPending, float64(p.N), p.Queue, p.Reason)
	}
	for _, q := range st.Queues {
		counter(descSubmitted, q.Submitted, q.Name)
		counter(descDispatched, q.Dispatched, q.Name)
		counter(descFinished, q.Finished, q.Name)
		gauge(descQSlotsUsed, float64(q.SlotsUsed), q.Name)
		gauge(descQSlotsFree, float64(q.SlotsFree), q.Name)
	}
	for _, h := range st.Hosts {
		gauge(descHSlotsUsed, float64(h.Used), h.Name)
		if h.Max >= 0 {
			free := 0
			if h.Status == "ok" {
				free = max(h.Max-h.Used, 0)
			}
			gauge(descHSlotsFree, float64(free), h.Name)
		}
		gauge(descHostStatus, 1, h.Name, h.Status)
	}
	seen := map[[2]string]bool{}
	for _, s := range st.Shares {
		k := [2]string{s.Queue, s.Account}
		if seen[k] {
			continue
		}
		seen[k] = true
		gauge(descShare, s.Priority, s.Queue, s.Account)
	}
	gauge(descRaftLast, float64(st.RaftLastIndex))
	entries := 0.0
	if st.RaftLastIndex > st.RaftSnapshotIndex {
		entries = float64(st.RaftLastIndex - st.RaftSnapshotIndex)
	}
	gauge(descRaftEntries, entries)
}

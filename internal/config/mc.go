package config

import (
	"math"
	"strconv"
	"strings"
)

// MultiCluster job forwarding: the queue parameters of LSF's job forwarding
// model (SNDJOBS_TO, RCVJOBS_FROM, MAX_RSCHED_TIME, IMPT_JOBBKLG) and the
// peers of the Cluster section of lsf.shared.

// QueueAtCluster is one queue_name@cluster_name of SNDJOBS_TO.
type QueueAtCluster struct {
	Queue   string
	Cluster string
	Pos     Pos
}

func (q QueueAtCluster) String() string { return q.Queue + "@" + q.Cluster }

// MCQueue is a queue's MultiCluster settings.
type MCQueue struct {
	// SndJobsTo are the remote receive-jobs queues this send-jobs queue
	// forwards to, in the order written.
	SndJobsTo []QueueAtCluster
	// RcvJobsFrom are the clusters this receive-jobs queue accepts jobs
	// from; "allclusters" accepts every cluster of lsf.shared.
	RcvJobsFrom []string
	// MaxRschedTime is MAX_RSCHED_TIME: a forwarded job still pending in
	// the execution cluster after MaxRschedTime x MBD_SLEEP_TIME is taken
	// back by the submission cluster and scheduled again. Default 20; -1 is
	// infinit (never).
	MaxRschedTime int
	// ImptJobBklg is IMPT_JOBBKLG: how many forwarded jobs may be pending
	// in this receive-jobs queue (default 50; -1 infinit).
	ImptJobBklg int
}

// Default values of the MultiCluster queue parameters (LSF's).
const (
	DefaultMaxRschedTime = 20
	DefaultImptJobBklg   = 50
)

// Sends reports whether the queue forwards jobs (SNDJOBS_TO).
func (q *Queue) Sends() bool { return len(q.MC.SndJobsTo) > 0 }

// Receives reports whether the queue accepts jobs from cluster.
func (q *Queue) Receives(cluster string) bool {
	for _, c := range q.MC.RcvJobsFrom {
		if c == cluster || strings.EqualFold(c, "allclusters") {
			return true
		}
	}
	return false
}

// setMC reads a MultiCluster parameter; false when v is none.
func (q *Queue) setMC(v val) bool {
	switch v.key {
	case "SNDJOBS_TO":
		q.MC.SndJobsTo = nil
		for _, w := range v.words() {
			name, cluster, ok := strings.Cut(w.Text, "@")
			if !ok || !nameOK(name) || !nameOK(cluster) {
				v.d.Warnf(w.Pos, "%s: SNDJOBS_TO: <%s> is not queue_name@cluster_name; ignored", v.where, w.Text)
				continue
			}
			q.MC.SndJobsTo = append(q.MC.SndJobsTo, QueueAtCluster{Queue: name, Cluster: cluster, Pos: w.Pos})
		}
	case "RCVJOBS_FROM":
		q.MC.RcvJobsFrom = nil
		for _, w := range v.words() {
			if !nameOK(w.Text) {
				v.d.Warnf(w.Pos, "%s: RCVJOBS_FROM: bad cluster name <%s>; ignored", v.where, w.Text)
				continue
			}
			q.MC.RcvJobsFrom = append(q.MC.RcvJobsFrom, w.Text)
		}
	case "MAX_RSCHED_TIME":
		q.MC.MaxRschedTime = infinitOr(v, q.MC.MaxRschedTime)
	case "IMPT_JOBBKLG":
		q.MC.ImptJobBklg = infinitOr(v, q.MC.ImptJobBklg)
	default:
		return false
	}
	return true
}

// infinitOr reads a positive integer or LSF's "infinit" (-1); a bad value
// keeps old.
func infinitOr(v val, old int) int {
	if strings.EqualFold(strings.TrimSpace(v.text), "infinit") {
		return -1
	}
	if n, ok := v.int(1, math.MaxInt32); ok {
		return n
	}
	return old
}

// mcQueues checks the MultiCluster parameters against lsf.shared: the
// clusters named must be in its Cluster section and not this cluster.
func (r *resolver) mcQueues() {
	c := r.c
	known := func(name string) bool {
		for _, e := range c.Shared.Clusters {
			if e.Name == name {
				return true
			}
		}
		return false
	}
	for _, q := range c.Queues {
		where := "Queue <" + q.Name + ">"
		var snd []QueueAtCluster
		for _, t := range q.MC.SndJobsTo {
			switch {
			case t.Cluster == c.ClusterName():
				r.d.Warnf(t.Pos, "%s: SNDJOBS_TO: <%s> names the local cluster; ignored", where, t)
			case !known(t.Cluster):
				r.d.Warnf(t.Pos, "%s: SNDJOBS_TO: cluster <%s> is not defined in lsf.shared; ignored", where, t.Cluster)
			default:
				snd = append(snd, t)
			}
		}
		q.MC.SndJobsTo = snd
		var rcv []string
		for _, n := range q.MC.RcvJobsFrom {
			switch {
			case strings.EqualFold(n, "allclusters"):
				rcv = append(rcv, "allclusters")
			case n == c.ClusterName():
				r.d.Warnf(q.KeyPos("RCVJOBS_FROM"), "%s: RCVJOBS_FROM: <%s> is the local cluster; ignored", where, n)
			case !known(n):
				r.d.Warnf(q.KeyPos("RCVJOBS_FROM"), "%s: RCVJOBS_FROM: cluster <%s> is not defined in lsf.shared; ignored", where, n)
			default:
				rcv = append(rcv, n)
			}
		}
		q.MC.RcvJobsFrom = rcv
	}
}

// Peers returns the other clusters of lsf.shared's Cluster section.
func (b *Base) Peers() []ClusterEntry {
	var out []ClusterEntry
	for _, e := range b.Shared.Clusters {
		if e.Name != b.ClusterName() {
			out = append(out, e)
		}
	}
	return out
}

// Peer returns the cluster of lsf.shared named name, other than this one.
func (b *Base) Peer(name string) (ClusterEntry, bool) {
	for _, e := range b.Peers() {
		if e.Name == name {
			return e, true
		}
	}
	return ClusterEntry{}, false
}

// ServerAddr splits a Servers word of the Cluster section: a master
// candidate's host name, and a port when written host:port (Basalt's
// extension for clusters that share a machine and so cannot share ports;
// 0 means the local cluster's LSB_MC_PORT, as LSF's clusters share their
// ports).
func ServerAddr(word string) (host string, port int) {
	h, p, ok := strings.Cut(word, ":")
	if !ok {
		return word, 0
	}
	n, err := strconv.Atoi(p)
	if err != nil || n <= 0 || n > 65535 {
		return word, 0
	}
	return h, n
}

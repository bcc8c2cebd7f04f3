// Package limclient is how commands and daemons talk to LIMs: find the
// master LIM, read the cluster's load and configuration picture, control a
// LIM, and watch master changes.
//
//	c := limclient.New(base, limclient.Options{})
//	host, addr, err := c.Master(ctx)
//	cl, err := c.Cluster(ctx)          // every host's status, load, resources
//	v, ok := cl.Value("usr_tmp", "host3")
//	for ev := range c.WatchMaster(ctx) { ... }  // mbatchd placement
//
// The master is found by asking the local host's LIM, then the master
// candidates in order (LSF_MASTER_LIST, or lsf.cluster's server hosts).
// Errors are LSF's: ErrLIMDown ("LIM is down; try later") when no LIM
// answers, ErrNoMaster ("Cannot locate master LIM now, try later") when
// LIMs answer but know no master.
package limclient

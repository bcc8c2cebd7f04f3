package api

// MultiCluster job forwarding (internal/mc, internal/mbd/mc*.go): the
// messages between the masters of clusters that know each other, on
// mbatchd's MultiCluster listener (LSB_MC_PORT), and the log's forwarding
// events. Field numbers of the MultiCluster additions to shared messages
// (JobSpec, JobRecord, Event, SnapJob) start at 90, away from the others'.

// MCHelloRequest opens a peer's periodic exchange with this cluster.
type MCHelloRequest struct {
	Cluster string `wire:"1"`
	Master  string `wire:"2"`
}

// MCHelloReply is what a cluster tells a peer of itself: lsclusters'
// fields and, for bclusters and the forwarding decision, the
// receive-jobs queues open to that peer.
type MCHelloReply struct {
	Cluster string         `wire:"1"`
	Master  string         `wire:"2"`
	Admin   string         `wire:"3"`
	Hosts   int32          `wire:"4"`
	Servers int32          `wire:"5"`
	Queues  []*MCQueueInfo `wire:"6"`
}

// MCQueueInfo is a receive-jobs queue as a peer sees it.
type MCQueueInfo struct {
	Name string `wire:"1"`
	// FreeSlots are the slots the queue's hosts have free by the last
	// scheduling pass; Pending the jobs forwarded by the asking cluster
	// pending in it; Backlog its IMPT_JOBBKLG (-1 infinit).
	FreeSlots int32 `wire:"2"`
	Pending   int32 `wire:"3"`
	Backlog   int32 `wire:"4"`
	// Open: the queue accepts jobs (Open:Active).
	Open bool `wire:"5"`
}

// MCSubmitRequest forwards a job. Key makes it idempotent: a retried
// forward (the answer lost, the master restarted) carries the same key
// and is answered with the job the first created.
type MCSubmitRequest struct {
	Key      string   `wire:"1"`
	JobID    int64    `wire:"2"` // the job's ID in the submission cluster
	Index    int32    `wire:"3"`
	Queue    string   `wire:"4"` // the receive-jobs queue
	Spec     *JobSpec `wire:"5"`
	User     string   `wire:"6"`
	UID      int32    `wire:"7"`
	JobName  string   `wire:"8"`
	NumProcs int32    `wire:"9"`
}

// MCSubmitReply answers with the job's ID in the execution cluster, or
// why it was refused.
type MCSubmitReply struct {
	JobID  int64   `wire:"1"`
	Status *Status `wire:"2"`
}

// MCJobsRequest asks for the state of forwarded jobs by their ID in the
// execution cluster.
type MCJobsRequest struct {
	Jobs []int64 `wire:"1"`
}

// MCJobsReply is the state of each job asked for, in order.
type MCJobsReply struct {
	Jobs []*MCJobState `wire:"1"`
}

// MCJobState is a forwarded job as its execution cluster knows it.
type MCJobState struct {
	JobID      int64    `wire:"1"`
	Found      bool     `wire:"2"`
	State      JobState `wire:"3"`
	ExecHosts  []string `wire:"4"`
	StartTime  int64    `wire:"5"`
	EndTime    int64    `wire:"6"`
	ExitStatus int32    `wire:"7"`
	PendReason string   `wire:"8"`
	Usage      *Usage   `wire:"9"`
	TermReason string   `wire:"10"`
}

// MCControl operations.
const (
	MCKill   int32 = 1
	MCStop   int32 = 2
	MCResume int32 = 3
	// MCRecall takes a forwarded job back: the execution cluster removes
	// it only while it is still pending there (Done false otherwise).
	MCRecall int32 = 4
)

// MCControlRequest controls a forwarded job in its execution cluster.
type MCControlRequest struct {
	JobID int64 `wire:"1"`
	Op    int32 `wire:"2"`
}

// MCControlReply says whether it was done.
type MCControlReply struct {
	Done    bool     `wire:"1"`
	State   JobState `wire:"2"`
	Message string   `wire:"3"`
}

// EvJobForward records that a pending job is being forwarded to a
// receive-jobs queue of another cluster (before the remote submission:
// the side effect is retried under Key until it is answered).
type EvJobForward struct {
	JobID   int64  `wire:"1"`
	Index   int32  `wire:"2"`
	Cluster string `wire:"3"`
	Queue   string `wire:"4"`
	Key     string `wire:"5"`
}

// EvJobFwdUpdate records what the execution cluster said of a forwarded
// job: its remote ID once accepted, then its state; Back returns the job
// to its queue here (refused, recalled after MAX_RSCHED_TIME, or the
// remote job lost).
type EvJobFwdUpdate struct {
	JobID      int64    `wire:"1"`
	Index      int32    `wire:"2"`
	Key        string   `wire:"3"` // the forward this is about
	RemoteID   int64    `wire:"4"`
	State      JobState `wire:"5"` // 0: unchanged
	ExecHosts  []string `wire:"6"`
	StartTime  int64    `wire:"7"`
	EndTime    int64    `wire:"8"`
	ExitStatus int32    `wire:"9"`
	Back       bool     `wire:"10"`
	Reason     string   `wire:"11"`
	Usage      *Usage   `wire:"12"`
	// Stale: the execution cluster did not answer (with Back: the job is
	// taken back; without: it is killed here), so the remote copy may
	// live on: it goes on the job's list of copies to kill
	// (state.StaleForward) until StaleDone.
	Stale bool `wire:"130"`
	// StaleDone: the remote copy of the earlier forward Key was killed
	// (or found gone): off the job's list.
	StaleDone bool `wire:"131"`
}

// ClustersRequest asks the master for the clusters it knows.
type ClustersRequest struct{}

// ClustersReply lists this cluster first, then its peers (lsf.shared's
// order), and the queues' forwarding relationships (bclusters).
type ClustersReply struct {
	Clusters []*ClusterInfo `wire:"1"`
	Links    []*MCLink      `wire:"2"`
}

// ClusterInfo is a line of lsclusters.
type ClusterInfo struct {
	Name    string `wire:"1"`
	Status  string `wire:"2"` // ok, unavail
	Master  string `wire:"3"`
	Admin   string `wire:"4"`
	Hosts   int32  `wire:"5"`
	Servers int32  `wire:"6"`
	// Reason says why a peer is unavail (bclusters, the master's log).
	Reason string `wire:"7"`
}

// MCLink is a line of bclusters' job forwarding information.
type MCLink struct {
	LocalQueue string `wire:"1"`
	Flow       string `wire:"2"` // send, recv
	Remote     string `wire:"3"` // the receive queue, "-" for recv
	Cluster    string `wire:"4"`
	Status     string `wire:"5"` // ok, disc, reject
}

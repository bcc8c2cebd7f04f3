package api

// LIM service messages: load reports from every LIM to the master LIM,
// master election probes, the cluster picture the ls* commands, mbatchd and
// sbatchd read, and lsadmin's LIM control. Methods: "LIM.Ping",
// "LIM.Report", "LIM.Cluster", "LIM.Control" and the stream "LIM.Watch".

// LimStatus is a host's LIM status as a bit set; 0 is ok.
type LimStatus int32

// LIM status bits (lsload's status column: ok, busy, lockU, lockW, unavail).
const (
	LimUnavail LimStatus = 1 << 0 // LIM down or not reporting
	LimBusy    LimStatus = 1 << 1 // a load index is beyond its threshold
	LimLockU   LimStatus = 1 << 2 // lsadmin limlock
	LimLockW   LimStatus = 1 << 3 // RUNWINDOW closed
)

// LimOp is an lsadmin operation on a LIM.
type LimOp int32

// LIM control operations.
const (
	LimOpLock     LimOp = 1 // limlock [-l seconds]
	LimOpUnlock   LimOp = 2 // limunlock
	LimOpShutdown LimOp = 3 // limshutdown
	LimOpRestart  LimOp = 4 // limrestart: reread the configuration, restart MELIM
	LimOpReconfig LimOp = 5 // reconfig: like restart
)

// IndexValue is the value of a named load index or shared resource.
type IndexValue struct {
	Name  string  `wire:"1"`
	Value float64 `wire:"2"`
}

// HostStatic holds the static resources a LIM detects on its host. Memory
// sizes are in MB.
type HostStatic struct {
	NCPUs    int32  `wire:"1"`
	NProcs   int32  `wire:"2"`
	NCores   int32  `wire:"3"`
	NThreads int32  `wire:"4"`
	NDisks   int32  `wire:"5"`
	MaxMem   int32  `wire:"6"`
	MaxSwp   int32  `wire:"7"`
	MaxTmp   int32  `wire:"8"`
	Type     string `wire:"9"`  // detected host type (used when lsf.cluster says '!')
	Model    string `wire:"10"` // detected host model
}

// LoadReport is what every LIM sends the master LIM each EXINTERVAL.
type LoadReport struct {
	Host string `wire:"1"`
	// Load holds the 11 built-in indices in LSF's order (r15s r1m r15m ut
	// pg io ls it tmp swp mem), run queue lengths raw, ut a fraction.
	Load      []float64     `wire:"2"`
	Ext       []*IndexValue `wire:"3"` // host-based external indices (elims)
	Shared    []*IndexValue `wire:"4"` // shared resources this host reports
	Static    *HostStatic   `wire:"5"`
	LockedU   bool          `wire:"6"`
	LockUntil int64         `wire:"7"` // unix seconds; 0: until limunlock
	Seq       uint64        `wire:"8"`
	BootTime  int64         `wire:"9"`
	Leaving   bool          `wire:"10"` // the LIM is shutting down
	// NotServing: the LIM cannot accept connections (descriptors run
	// out, ...); the master shows the host unavail until it can.
	NotServing bool `wire:"11"`
	// GPUs are the host's GPUs (nvidia-smi, or the configured fake
	// inventory BASALT_GPU_INVENTORY), in index order.
	GPUs []*GPUDevice `wire:"80"`
}

// GPUDevice is one GPU of a host as its LIM detected it.
type GPUDevice struct {
	Index    int32  `wire:"1"`
	Model    string `wire:"2"` // LSF's gpu_model: the name without blanks
	MemTotal int64  `wire:"3"` // MB
	Vendor   string `wire:"4"` // Nvidia, AMD
}

// ReportReply answers a LoadReport.
type ReportReply struct {
	Accepted bool   `wire:"1"` // false: the receiver is not the master
	Master   string `wire:"2"` // who the receiver believes is master
	// Resources are the dynamic resources the reporting host must report
	// (its LSF_RESOURCES); RunElims says whether its MELIM runs at all.
	Resources []string `wire:"3"`
	RunElims  bool     `wire:"4"`
}

// PingRequest probes a LIM (master election, lsid, limclient).
type PingRequest struct {
	From string `wire:"1"`
	// Master is a LIM's master ("" while it knows none), sent by the LIM
	// From in its probes and when it becomes or stops being master; the
	// receiver looks again at once when From's claim about itself
	// disagrees with its own view (only LIMs are heard; commands leave it
	// empty).
	Master string `wire:"2"`
}

// PingReply is a LIM's view of the cluster's master.
type PingReply struct {
	Host     string `wire:"1"`
	Cluster  string `wire:"2"`
	Master   string `wire:"3"` // "" while unknown
	IsMaster bool   `wire:"4"`
	// MasterAddr is the master LIM's address (host:port).
	MasterAddr string `wire:"5"`
	Epoch      uint64 `wire:"6"` // increases at every master change seen
	// Ineligible: this candidate may not be master now (with mbatchd
	// replicated, a candidate whose mbatchd does not lead); probers
	// pass over it as if it were down.
	Ineligible bool `wire:"7"`
}

// ClusterRequest asks the master LIM for the cluster picture.
type ClusterRequest struct {
	Hosts []string `wire:"1"` // empty: every host
}

// LoadThresholdValue is a host's busy threshold for one index.
type LoadThresholdValue struct {
	Index string  `wire:"1"`
	Value float64 `wire:"2"`
}

// HostLoad is one host's configuration, static resources, load and status.
type HostLoad struct {
	Name   string    `wire:"1"`
	Status LimStatus `wire:"2"`
	// Busy names the indices beyond their threshold (marked '*' by lsload).
	Busy       []string              `wire:"3"`
	Load       []float64             `wire:"4"` // built-in indices, raw (see LoadReport)
	Ext        []*IndexValue         `wire:"5"` // host-based external indices
	Static     *HostStatic           `wire:"6"`
	Type       string                `wire:"7"` // configured, else detected
	Model      string                `wire:"8"`
	CPUF       float64               `wire:"9"`
	Server     bool                  `wire:"10"`
	RExPri     int32                 `wire:"11"`
	Resources  []string              `wire:"12"` // RESOURCES ("!name" exclusive, name=value)
	RunWindow  string                `wire:"13"` // "" always open
	Thresholds []*LoadThresholdValue `wire:"14"`
	LastReport int64                 `wire:"15"` // unix seconds
	ND         int32                 `wire:"16"` // configured nd
	GPUs       []*GPUDevice          `wire:"80"` // detected GPUs (LoadReport.GPUs)
}

// SharedInstance is one instance of a shared resource: its value and the
// hosts that share it.
type SharedInstance struct {
	Value    string   `wire:"1"` // "-" while no value is known
	Hosts    []string `wire:"2"`
	Reporter string   `wire:"3"` // host whose elim reports it (dynamic)
}

// SharedResource is a ResourceMap entry with its instances.
type SharedResource struct {
	Name      string            `wire:"1"`
	Instances []*SharedInstance `wire:"2"`
	Dynamic   bool              `wire:"3"`
	Numeric   bool              `wire:"4"`
}

// ResourceInfo describes one lsf.shared resource (lsinfo).
type ResourceInfo struct {
	Name        string `wire:"1"`
	Type        string `wire:"2"` // Numeric, Boolean, String
	Interval    int32  `wire:"3"`
	Increasing  bool   `wire:"4"`
	Release     bool   `wire:"5"`
	Consumable  bool   `wire:"6"`
	Description string `wire:"7"`
	Shared      bool   `wire:"8"`
}

// ModelInfo is a HostModel row.
type ModelInfo struct {
	Name      string   `wire:"1"`
	CPUFactor float64  `wire:"2"`
	Arch      []string `wire:"3"`
}

// ClusterReply is the master LIM's picture of the cluster.
type ClusterReply struct {
	Cluster   string            `wire:"1"`
	Master    string            `wire:"2"`
	Admins    []string          `wire:"3"`
	Hosts     []*HostLoad       `wire:"4"` // in lsf.cluster Host section order
	Resources []*ResourceInfo   `wire:"5"`
	Types     []string          `wire:"6"`
	Models    []*ModelInfo      `wire:"7"`
	Shared    []*SharedResource `wire:"8"`
	NotFound  []string          `wire:"9"`
	Time      int64             `wire:"10"`
}

// LimControlRequest asks one LIM to act (lsadmin).
type LimControlRequest struct {
	Op          LimOp `wire:"1"`
	LockSeconds int64 `wire:"2"` // limlock -l; 0: until limunlock
}

// LimControlReply answers a LimControlRequest.
type LimControlReply struct {
	Host    string `wire:"1"`
	Message string `wire:"2"`
}

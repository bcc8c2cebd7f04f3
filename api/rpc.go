package api

// ConnHello opens every RPC connection: who the client says it is and the
// credential that proves it (empty for the local identity check).
type ConnHello struct {
	Version    string `wire:"1"`
	User       string `wire:"2"`
	Host       string `wire:"3"` // client's cluster host name
	Credential []byte `wire:"4"` // eauth -c output, when LSF_AUTH=eauth
	Scheme     string `wire:"5"` // "ident" (local uid check) or "eauth"
	Proto      int32  `wire:"6"` // internal/rpc framing version (0: 1)
	// The client's real uid and gid and, for a daemon, its kind ("lim",
	// "sbatchd", "mbatchd", "res"; empty for a user's command): the
	// request fields of a site's eauth -s. Basalt's own eauth takes them
	// from the credential, never from here.
	UID    int32  `wire:"7"`
	GID    int32  `wire:"8"`
	Daemon string `wire:"9"`
	// Upgrade, when set, asks the server to hand the connection, once
	// authenticated, to its handler of that name as a raw byte stream
	// ("raft": mbatchd replicas' raft transport). The server answers with
	// a ServerHello whose Upgraded is set, or an end frame with the
	// reason, and closes.
	Upgrade string `wire:"10"`
}

// ConnHello.Proto and ServerHello.Proto are internal/rpc's framing version
// (0 from a peer that predates versioning: version 1).

// ServerHello answers a ConnHello whose Proto is 2 or more, on the
// connection's stream 0, before any other frame: the server's framing
// version. A version-1 client ignores it.
type ServerHello struct {
	Proto    int32 `wire:"1"`
	Upgraded bool  `wire:"2"` // the connection is now the Upgrade handler's
}

// The service description: every RPC method, its name on the wire and its
// message types. Composite literals, so they cost no package
// initialisation. Add a method here, then use the identifier; Methods lists
// them all (a test checks the names are unique and well formed).

// MBatchd: mbatchd's service, for commands and sbatchd.
var (
	MBatchdSubmit          = Unary[SubmitRequest, SubmitReply]{Method{"MBatchd.Submit", KindUnary}}
	MBatchdJobs            = ServerStream[JobsRequest, JobsReply]{Method{"MBatchd.Jobs", KindServerStream}}
	MBatchdControl         = Unary[ControlRequest, ControlReply]{Method{"MBatchd.Control", KindUnary}}
	MBatchdModify          = Unary[ModifyRequest, ControlReply]{Method{"MBatchd.Modify", KindUnary}}
	MBatchdWaitJob         = ServerStream[JobRef, JobRecord]{Method{"MBatchd.WaitJob", KindServerStream}}
	MBatchdQueues          = Unary[QueuesRequest, QueuesReply]{Method{"MBatchd.Queues", KindUnary}}
	MBatchdHosts           = Unary[HostsRequest, HostsReply]{Method{"MBatchd.Hosts", KindUnary}}
	MBatchdSharedResources = Unary[SharedResourcesRequest, SharedResourcesReply]{Method{"MBatchd.SharedResources", KindUnary}}
	MBatchdPartitions      = Unary[PartitionsRequest, PartitionsReply]{Method{"MBatchd.Partitions", KindUnary}}
	MBatchdApplications    = Unary[ApplicationsRequest, ApplicationsReply]{Method{"MBatchd.Applications", KindUnary}}
	MBatchdUsers           = Unary[UsersRequest, UsersReply]{Method{"MBatchd.Users", KindUnary}}
	MBatchdGroups          = Unary[GroupsRequest, GroupsReply]{Method{"MBatchd.Groups", KindUnary}}
	MBatchdParams          = Unary[ParamsRequest, ParamsReply]{Method{"MBatchd.Params", KindUnary}}
	MBatchdInfo            = Unary[InfoRequest, InfoReply]{Method{"MBatchd.Info", KindUnary}}
	MBatchdAdmin           = Unary[AdminRequest, AdminReply]{Method{"MBatchd.Admin", KindUnary}}
	MBatchdHistory         = ServerStream[JobsRequest, HistoryReply]{Method{"MBatchd.History", KindServerStream}}
	MBatchdAcct            = ServerStream[JobsRequest, JobsReply]{Method{"MBatchd.Acct", KindServerStream}}
	// MBatchdLeader is answered by every mbatchd replica, leader or not:
	// who leads the master's raft group (commands and LIMs find the
	// master through it).
	MBatchdLeader = Unary[LeaderRequest, LeaderReply]{Method{"MBatchd.Leader", KindUnary}}
	// MBatchdLimits: lsb.resources limits and their usage (blimits).
	MBatchdLimits = Unary[LimitsRequest, LimitsReply]{Method{"MBatchd.Limits", KindUnary}}
	// MBatchdJobGroup is bgadd, bgmod and bgdel; MBatchdJobGroups is
	// bjgroup.
	MBatchdJobGroup  = Unary[JobGroupRequest, Status]{Method{"MBatchd.JobGroup", KindUnary}}
	MBatchdJobGroups = Unary[JobGroupsRequest, JobGroupsReply]{Method{"MBatchd.JobGroups", KindUnary}}
	// MBatchdSysHistory is badmin hist, mbdhist, qhist and hhist.
	MBatchdSysHistory = Unary[SysHistoryRequest, SysHistoryReply]{Method{"MBatchd.SysHistory", KindUnary}}
	// MBatchdRsv is brsvadd, brsvmod and brsvdel; MBatchdRsvs is brsvs.
	MBatchdRsv  = Unary[RsvRequest, RsvReply]{Method{"MBatchd.Rsv", KindUnary}}
	MBatchdRsvs = Unary[RsvsRequest, RsvsReply]{Method{"MBatchd.Rsvs", KindUnary}}
	// MBatchdResize is bresize (api/resize.go).
	MBatchdResize = Unary[ResizeRequest, ControlReply]{Method{"MBatchd.Resize", KindUnary}}
	// MBatchdSbdSession is sbatchd's session: SbdMessage up, MbdMessage down.
	MBatchdSbdSession = Bidi[SbdMessage, MbdMessage]{Method{"MBatchd.SbdSession", KindBidi}}
)

// MBatchdMC: mbatchd's MultiCluster service, on its own listener
// (LSB_MC_PORT) for the masters of peer clusters only (api/mc.go).
var (
	MBatchdMCHello   = Unary[MCHelloRequest, MCHelloReply]{Method{"MBatchd.MCHello", KindUnary}}
	MBatchdMCSubmit  = Unary[MCSubmitRequest, MCSubmitReply]{Method{"MBatchd.MCSubmit", KindUnary}}
	MBatchdMCJobs    = Unary[MCJobsRequest, MCJobsReply]{Method{"MBatchd.MCJobs", KindUnary}}
	MBatchdMCControl = Unary[MCControlRequest, MCControlReply]{Method{"MBatchd.MCControl", KindUnary}}
	// MBatchdClusters answers lsclusters and bclusters (on the ordinary
	// port): the peer clusters as this master last saw them.
	MBatchdClusters = Unary[ClustersRequest, ClustersReply]{Method{"MBatchd.Clusters", KindUnary}}
	// MBatchdDebug: badmin mbddebug, mbdtime, schddebug, schdtime.
	MBatchdDebug = Unary[DebugRequest, DebugReply]{Method{"MBatchd.Debug", KindUnary}}
	// MBatchdShowStatus: badmin showstatus.
	MBatchdShowStatus = Unary[ShowStatusRequest, ShowStatusReply]{Method{"MBatchd.ShowStatus", KindUnary}}
)

// SBatchd: sbatchd's service.
var (
	SBatchdPeek = ServerStream[PeekRequest, PeekChunk]{Method{"SBatchd.Peek", KindServerStream}}
	// SBatchdAttach joins an interactive batch job's terminal or pipes
	// (bsub -I, -Ip, -Is): TaskInput up (the Spec naming the job first),
	// TaskOutput down.
	SBatchdAttach = Bidi[TaskInput, TaskOutput]{Method{"SBatchd.Attach", KindBidi}}
	// SBatchdDebug: badmin sbddebug, sbdtime.
	SBatchdDebug = Unary[DebugRequest, DebugReply]{Method{"SBatchd.Debug", KindUnary}}
)

// RES: the remote execution server's service (lsrun, lsgrun, lsrcp, bsub -f).
var (
	RESRun   = Bidi[TaskInput, TaskOutput]{Method{"RES.Run", KindBidi}}
	RESFetch = ServerStream[FileRequest, FileChunk]{Method{"RES.Fetch", KindServerStream}}
	RESStore = Bidi[FileChunk, FileReply]{Method{"RES.Store", KindBidi}}
	// RESControl: lsadmin resshutdown/resrestart. One reply, written
	// before the RES stops accepting; then the RES goes.
	RESControl = ServerStream[ResControlRequest, ResControlReply]{Method{"RES.Control", KindServerStream}}
	// RESDebug: lsadmin resdebug, restime.
	RESDebug = Unary[DebugRequest, DebugReply]{Method{"RES.Debug", KindUnary}}
)

// LIM: the load information manager's service.
var (
	LIMPing    = Unary[PingRequest, PingReply]{Method{"LIM.Ping", KindUnary}}
	LIMReport  = Unary[LoadReport, ReportReply]{Method{"LIM.Report", KindUnary}}
	LIMCluster = Unary[ClusterRequest, ClusterReply]{Method{"LIM.Cluster", KindUnary}}
	LIMControl = Unary[LimControlRequest, LimControlReply]{Method{"LIM.Control", KindUnary}}
	LIMWatch   = ServerStream[PingRequest, PingReply]{Method{"LIM.Watch", KindServerStream}}
	// LIMDebug: lsadmin limdebug, limtime.
	LIMDebug = Unary[DebugRequest, DebugReply]{Method{"LIM.Debug", KindUnary}}
)

// Methods returns every method of the service description.
func Methods() []Method {
	return []Method{
		MBatchdSubmit.Method, MBatchdJobs.Method, MBatchdControl.Method, MBatchdModify.Method,
		MBatchdWaitJob.Method, MBatchdQueues.Method, MBatchdHosts.Method, MBatchdSharedResources.Method,
		MBatchdPartitions.Method, MBatchdApplications.Method, MBatchdUsers.Method, MBatchdGroups.Method,
		MBatchdParams.Method, MBatchdInfo.Method, MBatchdAdmin.Method, MBatchdHistory.Method,
		MBatchdAcct.Method, MBatchdSbdSession.Method, MBatchdLeader.Method,
		MBatchdLimits.Method, MBatchdJobGroup.Method, MBatchdJobGroups.Method, MBatchdSysHistory.Method,
		MBatchdMCHello.Method, MBatchdMCSubmit.Method, MBatchdMCJobs.Method, MBatchdMCControl.Method, MBatchdClusters.Method,
		MBatchdRsv.Method, MBatchdRsvs.Method, MBatchdDebug.Method, MBatchdResize.Method, MBatchdShowStatus.Method,
		SBatchdPeek.Method, SBatchdAttach.Method, SBatchdDebug.Method,
		RESRun.Method, RESFetch.Method, RESStore.Method, RESControl.Method, RESDebug.Method,
		LIMPing.Method, LIMReport.Method, LIMCluster.Method, LIMControl.Method, LIMWatch.Method, LIMDebug.Method,
	}
}

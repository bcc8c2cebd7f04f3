package api

// ShowStatusRequest is badmin showstatus: anyone may ask.
type ShowStatusRequest struct{}

// ShowStatusCounts is a figure now and the most seen since the master started.
type ShowStatusCounts struct {
	Current int32 `wire:"1"`
	Peak    int32 `wire:"2"`
}

// ShowStatusReply is the master mbatchd's runtime summary, as LSF's badmin
// showstatus prints it. Times are Unix seconds.
type ShowStatusReply struct {
	// Available local hosts: client-only hosts, batch server hosts in
	// service and their CPUs, cores and job slots.
	Clients *ShowStatusCounts `wire:"1"`
	Servers *ShowStatusCounts `wire:"2"`
	CPUs    *ShowStatusCounts `wire:"3"`
	Cores   *ShowStatusCounts `wire:"4"`
	Slots   *ShowStatusCounts `wire:"5"`
	// Batch server hosts by bhosts status: Closed is any closed_*.
	NumServers  int32 `wire:"6"`
	Ok          int32 `wire:"7"`
	Closed      int32 `wire:"8"`
	Unreachable int32 `wire:"9"`
	Unavailable int32 `wire:"10"`
	// Jobs held, by state: Suspended is PSUSP, USUSP and SSUSP; Finished
	// DONE and EXIT.
	NumJobs   int32 `wire:"11"`
	Running   int32 `wire:"12"`
	Suspended int32 `wire:"13"`
	Pending   int32 `wire:"14"`
	Finished  int32 `wire:"15"`
	// Users with jobs held, lsb.users' user groups, users with running
	// jobs.
	NumUsers      int32 `wire:"16"`
	NumUserGroups int32 `wire:"17"`
	ActiveUsers   int32 `wire:"18"`
	// Start is when this master recorded its start (MBD_START), PID its
	// process, Reconfig the last badmin reconfig or mbdrestart (Start when
	// none since).
	Start    int64 `wire:"19"`
	PID      int32 `wire:"20"`
	Reconfig int64 `wire:"21"`
}

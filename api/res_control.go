package api

// RES.Control: lsadmin resshutdown, resrestart, reslogon and reslogoff on
// any host's RES.

// ResOp is an lsadmin operation on a RES.
type ResOp int32

// RES operations.
const (
	ResOpShutdown ResOp = 1 // resshutdown: stop accepting, end the tasks, exit
	ResOpRestart  ResOp = 2 // resrestart: the same, then run again (same process id)
	ResOpLogOn    ResOp = 3 // reslogon: log each finished task to lsf.acct.<host>
	ResOpLogOff   ResOp = 4 // reslogoff: stop logging tasks
)

// ResControlRequest asks a RES to shut down, restart, or log its tasks. Only root and the
// cluster administrators may (and the account RES runs as).
type ResControlRequest struct {
	Op ResOp `wire:"1"`
	// CPUTime is reslogon -c: only tasks that used more CPU time than
	// this many milliseconds are logged (0: every task).
	CPUTime int32 `wire:"110"`
}

// ResControlReply is the RES's acknowledgement, sent before it stops
// accepting connections.
type ResControlReply struct {
	Host string `wire:"1"`
}

package api

// RES.Control: lsadmin resshutdown and resrestart on any host's RES.

// ResOp is an lsadmin operation on a RES.
type ResOp int32

// RES operations.
const (
	ResOpShutdown ResOp = 1 // resshutdown: stop accepting, end the tasks, exit
	ResOpRestart  ResOp = 2 // resrestart: the same, then run again (same process id)
)

// ResControlRequest asks a RES to shut down or restart. Only root and the
// cluster administrators may (and the account RES runs as).
type ResControlRequest struct {
	Op ResOp `wire:"1"`
}

// ResControlReply is the RES's acknowledgement, sent before it stops
// accepting connections.
type ResControlReply struct {
	Host string `wire:"1"`
}

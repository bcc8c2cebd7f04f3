package api

// LIM.Debug, RES.Debug, MBatchd.Debug, SBatchd.Debug: lsadmin limdebug,
// limtime, resdebug, restime and badmin mbddebug, mbdtime, schddebug,
// schdtime, sbddebug, sbdtime change a running daemon's log until it
// restarts or -o resets it. Only root and the cluster administrators may.

// DebugOp is what a debug request changes.
type DebugOp int32

// Debug operations.
const (
	DebugOpLog    DebugOp = 1 // *debug: the message log level, classes and file
	DebugOpTiming DebugOp = 2 // *time: the timing level and the file
)

// DebugRequest is one debug subcommand's options.
type DebugRequest struct {
	Op DebugOp `wire:"1"`
	// Level is -l: 0-3 (LOG_DEBUG .. LOG_DEBUG3) for DebugOpLog, 1-5 for
	// DebugOpTiming, 0 there meaning no timing.
	Level int32 `wire:"2"`
	// Classes are -c's log classes (LC_TRACE ...).
	Classes []string `wire:"3"`
	// LogFile is -f: the log is written to
	// <LogFile>.<daemon>.log.<host> (in LSF_LOGDIR when it has no path).
	LogFile string `wire:"4"`
	// Reset is -o: back to lsf.conf's level, classes, timing and file.
	Reset bool `wire:"5"`
	// Daemon is the daemon the subcommand names (mbatchd, mbschd,
	// sbatchd, lim, res); mbatchd serves mbschd's (its scheduler's).
	Daemon string `wire:"6"`
}

// DebugReply is the daemon's acknowledgement.
type DebugReply struct {
	Host string `wire:"1"`
	// Path is the file the log is written to now ("" for standard error).
	Path string `wire:"2"`
}

package api

// The remote execution server's messages (RES, on every server host at
// LSF_RES_PORT), and the interactive stream of a batch job (sbatchd's
// SBatchd.Attach) which uses the same ones. Methods: "RES.Run",
// "RES.Fetch", "RES.Store", "SBatchd.Attach".

// TaskSpec describes a task RES runs as the authenticated user (after
// account mapping), or the interactive job an attach names.
type TaskSpec struct {
	Argv []string `wire:"1"` // run directly (lsrun runs "/bin/sh -c cmd" itself when it needs a shell)
	Env  []string `wire:"2"` // the user's environment, as the client had it
	Cwd  string   `wire:"3"` // working directory; "" or missing: the user's home, then /tmp
	// Pty runs the task on a pseudo-terminal of Rows x Cols whose
	// TERM is Term (lsrun -P, bsub -Ip/-Is); without it stdin, stdout and
	// stderr are pipes.
	Pty  bool   `wire:"4"`
	Rows uint32 `wire:"5"`
	Cols uint32 `wire:"6"`
	Term string `wire:"7"`
	// JobID and JobIndex name the batch job an SBatchd.Attach joins.
	JobID    int64 `wire:"8"`
	JobIndex int32 `wire:"9"`
	// Stdin: false when the client has no input to send (lsrun -n): the
	// task's stdin is /dev/null.
	NoStdin bool `wire:"10"`
	// User is the account to run as when it is not the caller's own: the
	// send line of the caller's .lsfhosts for RES's host (user account
	// mapping). That account's .lsfhosts on RES's host must accept the
	// caller from the caller's host, else the request is refused.
	User string `wire:"11"`
	// Session re-attaches SBatchd.Attach to the terminal session it names
	// (TaskStarted.Session of the first attach): after an sbatchd restart
	// bsub joins its job again. Only the job's owner may.
	Session []byte `wire:"12"`
	// Tee (bsub -tty) shows on the terminal as well the output and error
	// that -o and -e send to files (SBatchd.Attach).
	Tee bool `wire:"13"`
}

// TaskInput is what a client sends on RES.Run or SBatchd.Attach: the
// TaskSpec first, then any number of the others.
type TaskInput struct {
	Spec  *TaskSpec `wire:"1"`
	Stdin []byte    `wire:"2"`
	// StdinEOF closes the task's stdin (a terminal's end of input is a
	// ^D in Stdin instead).
	StdinEOF bool `wire:"3"`
	// Signal delivers a signal (Linux number) to the task's process
	// group: SIGINT for Ctrl-C, SIGTSTP, SIGTERM...
	Signal int32 `wire:"4"`
	// Resize changes the pseudo-terminal's size.
	Resize *WindowSize `wire:"5"`
}

// WindowSize is a terminal's size.
type WindowSize struct {
	Rows uint32 `wire:"1"`
	Cols uint32 `wire:"2"`
}

// TaskOutput is what RES (or sbatchd) sends back: Started once, output as
// it comes, and Exit last.
type TaskOutput struct {
	Started *TaskStarted `wire:"1"`
	Stdout  []byte       `wire:"2"` // with a pty: everything the terminal shows
	Stderr  []byte       `wire:"3"`
	Exit    *TaskExit    `wire:"4"`
	// InputDone (SBatchd.Attach) counts the input this stream has handed
	// to the job's terminal so far: the bytes of Stdin, and 1 for
	// StdinEOF. After a re-attach the client sends again what was not
	// counted.
	InputDone uint64 `wire:"5"`
}

// TaskStarted says the task runs.
type TaskStarted struct {
	PID  int32  `wire:"1"`
	Host string `wire:"2"`
	// Session names an interactive job's terminal session for a re-attach
	// (TaskSpec.Session); SBatchd.Attach only.
	Session []byte `wire:"3"`
}

// TaskExit is how the task ended: its exit code, or the signal that
// killed it (ExitCode then 128+Signal, as a shell reports it).
type TaskExit struct {
	ExitCode int32  `wire:"1"`
	Signal   int32  `wire:"2"`
	CoreDump bool   `wire:"3"`
	Message  string `wire:"4"` // why it could not run, LSF's words where LSF has them
}

// FileRequest names a file on RES's host (lsrcp, bsub -f), read or
// written as the authenticated user.
type FileRequest struct {
	Path string `wire:"1"`
	// Append adds to the file instead of replacing it (bsub -f >>, <<).
	Append bool `wire:"2"`
	// Mode of a file RES creates (0 : 0644 minus the umask).
	Mode uint32 `wire:"3"`
	// User is the account the file is read or written as (lsrcp's
	// user@host:file, or the .lsfhosts mapping), with TaskSpec.User's
	// rule; "": the caller's.
	User string `wire:"4"`
}

// FileChunk is a piece of a file. On RES.Fetch the first chunk carries
// Mode and Size; on RES.Store the client's first message is a chunk with
// Request set and the data follows, ended by the client's end of stream.
type FileChunk struct {
	Request *FileRequest `wire:"1"`
	Data    []byte       `wire:"2"`
	Mode    uint32       `wire:"3"`
	Size    int64        `wire:"4"`
}

// FileReply ends a RES.Store: the bytes written.
type FileReply struct {
	Written int64 `wire:"1"`
}

package web

import (
	"context"
	"net"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
)

// Source is what the dashboard reads and acts through: mbatchd's own
// query and control paths (internal/mbd implements it in-process).
type Source interface {
	// Leader reports whether this mbatchd is the master, and the master's
	// host when it is known.
	Leader() (leading bool, leader string)
	// Version changes whenever the state does (raft's applied index).
	Version() uint64
	// Hosts and Queues answer as bhosts -l and bqueues -l do.
	Hosts(ctx context.Context, viewer auth.Identity) (*api.HostsReply, error)
	Queues(ctx context.Context, viewer auth.Identity) (*api.QueuesReply, error)
	// Counts is the number of jobs in each state (every user's).
	Counts(ctx context.Context) map[api.JobState]int
	// Jobs is one page of the jobs q selects, in bjobs order, with the
	// number selected.
	Jobs(ctx context.Context, viewer auth.Identity, q JobQuery) (JobPage, error)
	// Job is a job as bjobs -l shows it to viewer (nil: no such job), its
	// history as bhist -l shows it (nil when none was found).
	Job(ctx context.Context, viewer auth.Identity, ref *api.JobRef) (*api.JobRecord, error)
	History(ctx context.Context, viewer auth.Identity, ref *api.JobRef) (*api.JobHistory, error)
	// Output is a started job's output as bpeek shows it (its end), for a
	// viewer who may control the job; nil when the job has not started.
	Output(ctx context.Context, viewer auth.Identity, ref *api.JobRef) (*api.PeekChunk, error)
	// Control acts on a job as bkill, bstop, bresume and brequeue do for id.
	Control(ctx context.Context, id auth.Identity, req *api.ControlRequest) (*api.ControlReply, error)
	// Authenticate identifies the peer of conn from its hello as mbatchd
	// identifies a command's connection.
	Authenticate(ctx context.Context, conn net.Conn, hello *api.ConnHello) (auth.Identity, error)
}

// JobQuery selects jobs for the jobs table.
type JobQuery struct {
	User, Queue, Name, Host string
	// State is a job state name (PEND, RUN, ...), "" for unfinished jobs,
	// "all" for every job.
	State         string
	Offset, Limit int
}

// JobPage is one page of the jobs table.
type JobPage struct {
	Jobs  []*api.JobRecord
	Total int
}

// Anonymous is the viewer without a token: no user, not root.
var Anonymous = auth.Identity{UID: -1, GID: -1}

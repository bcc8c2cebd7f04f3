package sbd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// MasterFinder tells sbatchd where mbatchd is ("host:port").
type MasterFinder interface {
	Master(ctx context.Context) (string, error)
}

// MasterFunc adapts a function to MasterFinder.
type MasterFunc func(ctx context.Context) (string, error)

// Master implements MasterFinder.
func (f MasterFunc) Master(ctx context.Context) (string, error) { return f(ctx) }

// LoadSource gives the host's current load (effective run queue lengths),
// by resource table index, as the local LIM reports it.
type LoadSource interface {
	Load(ctx context.Context) (*resreq.Host, error)
}

// Config is sbatchd's configuration.
type Config struct {
	// Host is this host's cluster name; Cluster the cluster's.
	Host    string
	Cluster string
	// StateDir is $BASALT_STATEDIR/<host>/sbatchd: the jobs' spool
	// directories and the report sequence.
	StateDir string
	// Master finds mbatchd; Dial connects to it (default: rpc.Dial as the
	// daemon's user from Host).
	Master MasterFinder
	Dial   func(ctx context.Context, addr string) (*rpc.Client, error)
	Clock  clock.Clock
	// Log receives the daemon's log lines (discarded if nil).
	Log *slog.Logger
	// ShepherdPath is the program that runs a job's shepherd (default:
	// this executable), ShepherdArgv its arguments before the spool
	// directory, argv[0] included (default: "basaltd", "job-shepherd").
	ShepherdPath string
	ShepherdArgv []string
	// ShepherdIdle is how long the host's shepherd process stays without
	// jobs and without sbatchd before it exits (default 30s).
	ShepherdIdle time.Duration
	// Cgroups enables one cgroup per job (needs root and writable
	// cgroupfs); without, jobs are tracked by descent from their shepherd.
	Cgroups bool

	// lsb.params.
	SleepTime         time.Duration // SBD_SLEEP_TIME, 30s
	TerminateInterval time.Duration // JOB_TERMINATE_INTERVAL, 10s
	PGSuspIT          time.Duration // PG_SUSP_IT, 180s
	// SampleInterval is how often shepherds measure their jobs (LSF's PIM,
	// LSF_PIM_SLEEPTIME), 10s.
	SampleInterval time.Duration

	// Loads is the local LIM; nil disables load-based suspension (run
	// windows still apply, and jobs resumed with bresume resume at once).
	Loads LoadSource
	// HostThresholds are lsb.hosts' loadSched/loadStop for this host.
	HostThresholds []*api.Threshold
	// Table is the cluster's resource table (STOP_COND, RESUME_COND).
	Table *resreq.Table

	// Job execution.
	ServerDir       string   // LSF_SERVERDIR (eexec)
	ExtraEnv        []string // LSF_ENVDIR=..., LSF_SERVERDIR=... set for every job
	Admin           string   // the primary LSF administrator, the job reports' sender
	JobCPULimit     int32    // LSB_JOB_CPULIMIT: 0 unset, 1 y, 2 n
	MemLimitEnforce bool     // LSB_RESOURCE_ENFORCE="memory": cgroup hard memory limit
	// GPUDevicesMount is the v1 devices hierarchy when LSB_RESOURCE_ENFORCE
	// has "gpu" ("" otherwise, or without that controller).
	GPUDevicesMount string
	// Job mail: MailProg is LSB_MAILPROG ("": no mail is sent), MailTo
	// LSB_MAILTO ("": "!U"), MailSizeLimit LSB_MAILSIZE_LIMIT in KB (0:
	// none).
	MailProg      string
	MailTo        string
	MailSizeLimit int64
	// MayPeek reports whether user may see the output of a job of owner in
	// queue (bpeek) besides the owner and root: the cluster's, the
	// queue's and the owner's group's administrators (nil: nobody else).
	MayPeek func(user, owner, queue string) bool

	// Reconnection backoff (default 1s to 30s).
	RetryMin, RetryMax time.Duration
	Version            string
}

func (c *Config) fill() error {
	if c.Host == "" {
		return errors.New("sbatchd: no host name")
	}
	if c.StateDir == "" {
		return errors.New("sbatchd: no state directory")
	}
	if c.Master == nil {
		return errors.New("sbatchd: no way to find mbatchd")
	}
	if c.Clock == nil {
		c.Clock = clock.Real()
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.ShepherdPath == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("sbatchd: %w", err)
		}
		c.ShepherdPath = exe
	}
	if len(c.ShepherdArgv) == 0 {
		c.ShepherdArgv = []string{"basaltd", "job-shepherd"}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.SleepTime, 30*time.Second)
	def(&c.TerminateInterval, 10*time.Second)
	def(&c.PGSuspIT, 180*time.Second)
	def(&c.SampleInterval, 10*time.Second)
	def(&c.RetryMin, time.Second)
	def(&c.RetryMax, 30*time.Second)
	if c.Table == nil {
		c.Table = resreq.BuiltinTable()
	}
	if c.Cluster == "" {
		c.Cluster = "cluster"
	}
	if c.Admin == "" {
		c.Admin = "lsfadmin"
	}
	if c.Dial == nil {
		c.Dial = func(ctx context.Context, addr string) (*rpc.Client, error) {
			return rpc.Dial(ctx, addr, &api.ConnHello{Version: c.Version, User: selfUser(), Host: c.Host, Daemon: "sbatchd",
				UID: int32(os.Getuid()), GID: int32(os.Getgid()), Scheme: "ident"})
		}
	}
	c.StateDir = filepath.Clean(c.StateDir)
	return nil
}

// CgroupParent is where the jobs' cgroups of this host live (see
// config.JobCgroupParent): the hosts of a local cluster, and two clusters
// of one name, never collide.
func (c *Config) CgroupParent() string { return config.JobCgroupParent(c.Cluster, c.Host, c.StateDir) }

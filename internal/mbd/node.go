package mbd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/logging"
)

// raftNode is the replicated log under mbatchd's state.
type raftNode struct {
	r      *raft.Raft
	closer io.Closer
	trans  raft.Transport
	space  spaceGuard // the log store, when it watches its file system
}

// storeOpener opens the durable log and stable stores in dir. It is a
// variable so the storage implementation is chosen in one place.
var storeOpener = openStores

// Raft's log compaction: a snapshot is taken once snapshotThreshold
// entries followed the last one, and the trailingLogs entries before it are
// kept (a follower that far behind catches up from the log, not from the
// snapshot). Variables only so that tests can make compaction happen at
// small sizes; set them before a node opens.
var (
	snapshotThreshold uint64 = 4096
	trailingLogs      uint64 = 1024
)

// replicaSet is how a replicated mbatchd reaches its peers: its own ID
// (its host), the voters of a first start, and the transport.
type replicaSet struct {
	self    raft.ServerID
	servers []raft.Server
	streams raft.StreamLayer
	// joining, asked when this replica has no log, reports whether the
	// others already have a configuration: then it waits to be added
	// instead of bootstrapping.
	joining func() bool
}

// openRaft opens the node's stores in dir and starts raft: a single node
// over an in-memory transport with ID id when rs is nil, else a replica
// over the network.
func openRaft(ctx context.Context, dir, id string, f raft.FSM, log *slog.Logger, rs *replicaSet) (*raftNode, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("raft directory: %w", err)
	}
	logs, stable, closer, err := storeOpener(ctx, filepath.Join(dir, "log"), log)
	if err != nil {
		return nil, err
	}
	hl := logging.HCLog(log.Handler(), "raft")
	snaps, err := raft.NewFileSnapshotStoreWithLogger(filepath.Join(dir, "snapshots"), 2, hl)
	if err != nil {
		closer.Close()
		return nil, fmt.Errorf("snapshot store: %w", err)
	}
	conf := raft.DefaultConfig()
	conf.LocalID = raft.ServerID(id)
	conf.Logger = hl
	// A single node elects itself after ElectionTimeout: keep restarts fast.
	conf.HeartbeatTimeout = 100 * time.Millisecond
	conf.ElectionTimeout = 100 * time.Millisecond
	conf.LeaderLeaseTimeout = 50 * time.Millisecond
	conf.CommitTimeout = 5 * time.Millisecond
	conf.MaxAppendEntries = 512
	conf.BatchApplyCh = true
	conf.SnapshotThreshold = snapshotThreshold
	conf.SnapshotInterval = 30 * time.Second
	conf.TrailingLogs = trailingLogs
	var trans raft.Transport
	servers := []raft.Server{{ID: conf.LocalID}}
	if rs == nil {
		servers[0].Address, trans = raft.NewInmemTransport(raft.ServerAddress(id))
	} else {
		// Replicas over a network: raft's default timings (1 s without
		// a leader's heartbeat starts an election), which a loaded host
		// does not miss by accident; a failover takes about 2 s.
		def := raft.DefaultConfig()
		conf.LocalID = rs.self
		conf.HeartbeatTimeout, conf.ElectionTimeout, conf.LeaderLeaseTimeout = def.HeartbeatTimeout, def.ElectionTimeout, def.LeaderLeaseTimeout
		servers = rs.servers
		trans = replicaTransport(rs.streams, hl)
	}
	bootstrapped, err := isBootstrapped(logs, stable, snaps, rs != nil)
	if err != nil {
		closer.Close()
		return nil, fmt.Errorf("raft state: %w", err)
	}
	if !bootstrapped && rs != nil && rs.joining != nil && rs.joining() {
		log.Warn("this replica's log is empty and the other replicas have a configuration: waiting to be added by the master")
		bootstrapped = true
	}
	if !bootstrapped {
		cfg := raft.Configuration{Servers: servers}
		if err := raft.BootstrapCluster(conf, logs, stable, snaps, trans, cfg); err != nil {
			closer.Close()
			return nil, fmt.Errorf("bootstrapping raft: %w", err)
		}
	}
	r, err := raft.NewRaft(conf, f, logs, stable, snaps, trans)
	if err != nil {
		closer.Close()
		return nil, fmt.Errorf("starting raft: %w", err)
	}
	n := &raftNode{r: r, closer: closer, trans: trans}
	n.space, _ = logs.(spaceGuard)
	return n, nil
}

// isBootstrapped reports whether the node has a log (or snapshot) holding
// its configuration. raft.BootstrapCluster stores the current term before
// the configuration entry: a crash between the two leaves a term and no
// configuration, and such a node would never elect itself. It is treated as
// not bootstrapped, its term reset so that BootstrapCluster accepts it.
// A replica whose term went past bootstrap's (1) has taken part in
// elections: if its log is empty it lost it (a damaged log cut back to
// nothing), and it keeps its term and vote (resetting them would let it
// vote twice in a term) and learns the log and configuration from the
// leader, as a follower, instead of being bootstrapped again.
func isBootstrapped(logs raft.LogStore, stable raft.StableStore, snaps raft.SnapshotStore, replica bool) (bool, error) {
	last, err := logs.LastIndex()
	if err != nil {
		return false, err
	}
	list, err := snaps.List()
	if err != nil {
		return false, err
	}
	if last > 0 || len(list) > 0 {
		return true, nil
	}
	if replica {
		term, err := stable.GetUint64([]byte("CurrentTerm"))
		if err != nil {
			return false, err
		}
		if term > 1 {
			return true, nil
		}
	}
	for _, k := range []string{"CurrentTerm", "LastVoteTerm"} {
		if err := stable.SetUint64([]byte(k), 0); err != nil {
			return false, err
		}
	}
	if err := stable.Set([]byte("LastVoteCand"), nil); err != nil {
		return false, err
	}
	return false, nil
}

// waitLeader waits until this node leads, ctx ends, or timeout passes on
// clk. It waits on raft's state observations, not by polling.
func (n *raftNode) waitLeader(ctx context.Context, clk clock.Clock, timeout time.Duration) error {
	obs := make(chan raft.Observation, 1)
	o := raft.NewObserver(obs, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.RaftState) // sent once the state is set
		return ok
	})
	n.r.RegisterObserver(o)
	defer n.r.DeregisterObserver(o)
	t := clk.NewTimer(timeout)
	defer t.Stop()
	for n.r.State() != raft.Leader {
		select {
		case <-obs:
		case <-ctx.Done():
			return fmt.Errorf("waiting to be elected master: %w", ctx.Err())
		case <-t.C():
			return fmt.Errorf("not elected master within %v (raft state %s)", timeout, n.r.State())
		}
	}
	return n.r.Barrier(timeout).Error()
}

func (n *raftNode) shutdown() error {
	err := n.r.Shutdown().Error()
	if c, ok := n.trans.(io.Closer); ok {
		c.Close()
	}
	if cerr := n.closer.Close(); err == nil {
		err = cerr
	}
	return err
}

// replicaTransport is the replicas' raft transport over streams. Pipelined
// replication is off (MaxRPCsInFlight 1): in hashicorp/raft, when a
// follower answers an append with Success=false, the pipeline's decoder
// returns while the sender can block for ever on a full in-flight queue;
// heartbeats go on, so no election heals it and that follower never gets
// another entry (hashicorp/raft#612). Synchronous appends still carry up
// to MaxAppendEntries entries each.
func replicaTransport(streams raft.StreamLayer, hl hclog.Logger) *raft.NetworkTransport {
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{Stream: streams, MaxPool: 4,
		Timeout: 10 * time.Second, Logger: hl, MaxRPCsInFlight: 1})
}

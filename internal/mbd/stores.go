package mbd

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/internal/mbd/raftlog"
)

// openStores opens raft's durable log and stable stores in dir. The store's
// lock is LSF's "one mbatchd per cluster" rule (raftlog.ErrLocked says so).
func openStores(ctx context.Context, dir string, log *slog.Logger) (raft.LogStore, raft.StableStore, io.Closer, error) {
	st, err := raftlog.Open(ctx, dir, raftlog.Options{})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("opening the raft log: %w", err)
	}
	if r := st.Repaired(); r != nil {
		log.Warn("raft log had a torn tail from a crash; cut it (those entries were never acknowledged)",
			"file", r.File, "offset", r.Offset, "dropped", r.Dropped, "reason", r.Reason)
	}
	return st, st, st, nil
}

package mbd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/internal/mbd/raftlog"
)

// openStores opens raft's durable log and stable stores in dir. The store's
// lock is LSF's "one mbatchd per cluster" rule.
func openStores(dir string) (raft.LogStore, raft.StableStore, io.Closer, error) {
	st, err := raftlog.Open(context.Background(), dir, raftlog.Options{})
	if err != nil {
		if errors.Is(err, raftlog.ErrLocked) {
			return nil, nil, nil, fmt.Errorf("another mbatchd is running on this cluster: %w", err)
		}
		return nil, nil, nil, fmt.Errorf("opening the event log: %w", err)
	}
	return st, st, st, nil
}

package mbd

import (
	"io"

	"github.com/hashicorp/raft"
)

// openStores opens raft's log and stable stores in dir.
//
// TODO(raftlog): the durable WAL (internal/mbd/raftlog) replaces this
// in-memory store as soon as it lands; until then mbatchd state does not
// survive a restart.
func openStores(dir string) (raft.LogStore, raft.StableStore, io.Closer, error) {
	s := raft.NewInmemStore()
	return s, s, io.NopCloser(nil), nil
}

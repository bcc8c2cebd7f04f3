package mbd

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// The replicas' transport never pipelines appends: hashicorp/raft's
// pipeline can stop replicating to a follower for good (see
// replicaTransport).
func TestReplicaTransportDoesNotPipeline(t *testing.T) {
	refuse := func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no network in this test")
	}
	streams := newRaftStreams("host1:1", func(string) bool { return true }, refuse)
	trans := replicaTransport(streams, hclog.NewNullLogger())
	defer trans.Close()
	p, err := trans.AppendEntriesPipeline("host2", "host2:1")
	if !errors.Is(err, raft.ErrPipelineReplicationNotSupported) {
		if p != nil {
			p.Close()
		}
		t.Fatalf("AppendEntriesPipeline: %v, want %v", err, raft.ErrPipelineReplicationNotSupported)
	}
}

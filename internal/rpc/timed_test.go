package rpc

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// TestTimed: Server.Timed hears of every call, failed ones too, with its
// method and how long its handler ran.
func TestTimed(t *testing.T) {
	s := testServer()
	var mu sync.Mutex
	got := map[string]time.Duration{}
	s.Timed = func(method string, took time.Duration) {
		mu.Lock()
		got[method] = took
		mu.Unlock()
	}
	c := dial(t, startServer(t, s))
	var resp api.Status
	if err := c.Call(context.Background(), tEcho, &api.JobRef{JobID: 1}, &resp); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(context.Background(), tFail, &api.JobRef{}, &resp); err == nil {
		t.Fatal("tFail succeeded")
	}
	// Timed runs once the handler returned, maybe after the reply arrived.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		_, echo := got[tEcho.Name()]
		_, fail := got[tFail.Name()]
		mu.Unlock()
		if echo && fail && n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed calls: %v", got)
		}
		time.Sleep(time.Millisecond)
	}
}

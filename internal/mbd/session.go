package mbd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// sessions holds the connected sbatchds, one per host.
type sessions struct {
	mu     sync.Mutex
	byHost map[string]*session
	lostAt map[string]time.Time // when a host's session ended
}

func newSessions() *sessions {
	return &sessions{byHost: map[string]*session{}, lostAt: map[string]time.Time{}}
}

type session struct {
	host  string
	st    *rpc.ServerStream
	ncpus int
	// notServing: the sbatchd cannot take connections (api.SbdHealth);
	// its host shows unreach.
	notServing atomic.Bool
	sendMu     sync.Mutex
	mu         sync.Mutex
	seq        uint64
	acks       map[uint64]chan *api.Ack
	done       chan struct{}
	// welcomed is closed once the welcome is sent: requests (call) wait
	// for it, so the sbatchd reads its welcome first (only the
	// acknowledgements of its hello's reports may come before).
	welcomed chan struct{}
}

func (ss *sessions) add(s *session) (old *session) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	old = ss.byHost[s.host]
	ss.byHost[s.host] = s
	delete(ss.lostAt, s.host)
	return old
}

// remove ends s (at time at) unless a newer session replaced it.
func (ss *sessions) remove(s *session, at time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.byHost[s.host] == s {
		delete(ss.byHost, s.host)
		ss.lostAt[s.host] = at
	}
}

// lostSince reports since when host has had no session: the end of its
// last one, or since (mbatchd's start) if it never had one; ok is false
// while it is connected.
func (ss *sessions) lostSince(host string, since time.Time) (t time.Time, ok bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.byHost[host] != nil {
		return time.Time{}, false
	}
	if t, ok := ss.lostAt[host]; ok {
		return t, true
	}
	return since, true
}

func (ss *sessions) get(host string) *session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.byHost[host]
}

func (ss *sessions) connected(host string) bool { return ss.get(host) != nil }

// serving reports whether host's sbatchd is connected and can take
// connections.
func (ss *sessions) serving(host string) bool {
	s := ss.get(host)
	return s != nil && !s.notServing.Load()
}

func (ss *sessions) ncpus(host string) int {
	if s := ss.get(host); s != nil {
		return s.ncpus
	}
	return 0
}

var errSessionGone = errors.New("sbatchd session closed")

// send sends a message without waiting for an acknowledgement.
func (s *session) send(m *api.MbdMessage) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	return s.st.Send(m)
}

// call sends a message, after the welcome, and waits for its
// acknowledgement.
func (s *session) call(ctx context.Context, m *api.MbdMessage) (*api.Ack, error) {
	select {
	case <-s.welcomed:
	case <-s.done:
		return nil, errSessionGone
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ch := make(chan *api.Ack, 1)
	s.mu.Lock()
	s.seq++
	m.Seq = s.seq
	if s.acks == nil {
		s.acks = map[uint64]chan *api.Ack{}
	}
	s.acks[m.Seq] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.acks, m.Seq)
		s.mu.Unlock()
	}()
	if err := s.send(m); err != nil {
		return nil, err
	}
	select {
	case a := <-ch:
		return a, nil
	case <-s.done:
		// The acknowledgement may have come just before the session
		// ended (a shutdown's own): select picks among ready cases at
		// random, so look again.
		select {
		case a := <-ch:
			return a, nil
		default:
			return nil, errSessionGone
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *session) acked(a *api.Ack) {
	s.mu.Lock()
	ch := s.acks[a.Seq]
	s.mu.Unlock()
	if ch != nil {
		ch <- a
	}
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func ackErr(a *api.Ack) error {
	if a == nil || a.Status == nil || a.Status.Code == 0 {
		return nil
	}
	return fmt.Errorf("sbatchd: %s", a.Status.Message)
}

var _ = time.Second

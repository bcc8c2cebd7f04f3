package mbd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/clock"
)

// ErrNotLeader is returned when this mbatchd is not (or no longer) the master.
var ErrNotLeader = errors.New("mbatchd is not the master")

// proposer turns concurrent requests into log entries: whatever is waiting
// when the log is ready goes into one entry (group commit), so one fsync
// acknowledges many submissions.
type proposer struct {
	r      applier
	clock  clock.Clock
	in     chan *proposal
	maxEvs int
}

type proposal struct {
	events []*api.Event
	done   chan proposalResult
}

type proposalResult struct {
	errs  []error // per event
	err   error   // the whole proposal failed (not leader, I/O)
	index uint64
}

// applier appends an entry to the replicated log (*raft.Raft).
type applier interface {
	Apply(cmd []byte, timeout time.Duration) raft.ApplyFuture
}

func newProposer(r applier, c clock.Clock) *proposer {
	return &proposer{r: r, clock: c, in: make(chan *proposal, 4096), maxEvs: 4096}
}

// Propose appends events to the log and waits until they are applied. It
// returns one error per event (nil where the event applied).
func (p *proposer) Propose(ctx context.Context, events ...*api.Event) ([]error, error) {
	pr := &proposal{events: events, done: make(chan proposalResult, 1)}
	select {
	case p.in <- pr:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case res := <-pr.done:
		return res.errs, res.err
	case <-ctx.Done():
		// The proposal may still commit; the caller reports a timeout and
		// the state tells the truth later.
		return nil, ctx.Err()
	}
}

// Propose1 proposes one event and returns its error.
func (p *proposer) Propose1(ctx context.Context, ev *api.Event) error {
	errs, err := p.Propose(ctx, ev)
	if err != nil {
		return err
	}
	return errs[0]
}

// run batches proposals until ctx ends. Up to maxInflight entries are in
// raft at once; raft itself writes concurrent entries in one batch. A batch
// is gathered once an entry may go: what arrived while the pipeline was
// full goes into that one entry, so a full pipeline makes larger entries,
// not a longer queue.
func (p *proposer) run(ctx context.Context) {
	const maxInflight = 8
	sem := make(chan struct{}, maxInflight)
	for {
		var first *proposal
		select {
		case first = <-p.in:
		case <-ctx.Done():
			p.drain(ErrNotLeader)
			return
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			first.done <- proposalResult{err: ErrNotLeader}
			p.drain(ErrNotLeader)
			return
		}
		batch := []*proposal{first}
		n := len(first.events)
	gather:
		for n < p.maxEvs {
			select {
			case pr := <-p.in:
				batch = append(batch, pr)
				n += len(pr.events)
			default:
				break gather
			}
		}
		go func() {
			defer func() { <-sem }()
			p.commit(batch)
		}()
	}
}

func (p *proposer) drain(err error) {
	for {
		select {
		case pr := <-p.in:
			pr.done <- proposalResult{err: err}
		default:
			return
		}
	}
}

func (p *proposer) commit(batch []*proposal) {
	now := p.clock.Now().UnixNano()
	entry := &api.LogEntry{}
	for _, pr := range batch {
		for _, ev := range pr.events {
			if ev.Time == 0 {
				ev.Time = now
			}
			entry.Events = append(entry.Events, ev)
		}
	}
	fut := p.r.Apply(wire.Marshal(entry), 30*time.Second)
	fail := func(err error) {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) || errors.Is(err, raft.ErrRaftShutdown) {
			err = fmt.Errorf("%w: %v", ErrNotLeader, err)
		}
		for _, pr := range batch {
			pr.done <- proposalResult{err: err}
		}
	}
	if err := fut.Error(); err != nil {
		fail(err)
		return
	}
	res, _ := fut.Response().(applyResult)
	if res.err != nil {
		fail(res.err)
		return
	}
	off := 0
	for _, pr := range batch {
		n := len(pr.events)
		var errs []error
		if off+n <= len(res.errs) {
			errs = res.errs[off : off+n]
		} else {
			errs = make([]error, n)
		}
		pr.done <- proposalResult{errs: errs, index: fut.Index()}
		off += n
	}
}

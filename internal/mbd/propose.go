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

// errNotRecorded marks an ErrNotLeader whose entry never reached the log
// (raft refused it: another replica leads, or the leadership is moving):
// the request may be sent to the master as it is.
var errNotRecorded = errors.New("nothing was recorded")

// ErrNoSpace is returned for proposals refused because the log's file
// system is full: the master keeps answering queries and takes requests
// again by itself once a look at the disk finds space.
var ErrNoSpace = errors.New("no space left on device for the master's log")

// spaceGuard is the log store's view of its file system (*raftlog.Store).
type spaceGuard interface {
	NoSpace() bool
	Recover() bool
}

// spaceRecheck is how often a full log looks for space again.
const spaceRecheck = time.Second

// proposer turns concurrent requests into log entries: whatever is waiting
// when the log is ready goes into one entry (group commit), so one fsync
// acknowledges many submissions.
type proposer struct {
	r      applier
	clock  clock.Clock
	in     chan *proposal
	maxEvs int

	// space, when set, refuses proposals while the log's file system is
	// full (owned by run's goroutine, as is spaceChecked); spaceDir names
	// that directory in the refusal.
	space        spaceGuard
	spaceDir     string
	spaceChecked time.Time
	// commitObs, when set, is told how long each entry took from its
	// hand-over to raft to its commit (metrics).
	commitObs func(time.Duration)
}

type proposal struct {
	events []*api.Event
	// prepare, when set, runs on the proposer's goroutine just before the
	// events go into an entry, in the order entries reach the log; it
	// returns one error per event (nil keeps the event, an error leaves it
	// out of the entry and is that event's result). Job IDs are allocated
	// there, so that they reach the log in the order they were handed out.
	prepare func() []error
	// left holds the prepare errors (nil when there were none) and logged
	// the number of events that went into the entry.
	left   []error
	logged int
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
	return p.ProposePrepared(ctx, nil, events...)
}

// ProposePrepared is Propose with a prepare function (see proposal.prepare),
// called once, on the proposer's goroutine, before the events are logged.
func (p *proposer) ProposePrepared(ctx context.Context, prepare func() []error, events ...*api.Event) ([]error, error) {
	pr := &proposal{events: events, prepare: prepare, done: make(chan proposalResult, 1)}
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
		if err := p.noSpace(); err != nil {
			for _, pr := range batch {
				pr.done <- proposalResult{err: err}
			}
			<-sem
			continue
		}
		// The entry is built and handed to raft here, on this goroutine,
		// so that entries reach the log in the order their proposals were
		// prepared (raft's apply channel is buffered: Apply does not wait
		// for the disk); only the wait for the commit runs concurrently.
		began := p.clock.Now()
		fut := p.submit(batch)
		if fut == nil {
			<-sem
			continue
		}
		go func() {
			defer func() { <-sem }()
			p.finish(batch, fut)
			if p.commitObs != nil {
				p.commitObs(p.clock.Now().Sub(began))
			}
		}()
	}
}

// noSpace refuses the next entry while the log's file system is full,
// looking for space again at most every spaceRecheck. Raft itself still
// writes (its term, a new leader's first entry) with the store's reserve.
func (p *proposer) noSpace() error {
	if p.space == nil || !p.space.NoSpace() {
		return nil
	}
	if now := p.clock.Now(); now.Sub(p.spaceChecked) >= spaceRecheck {
		p.spaceChecked = now
		if p.space.Recover() {
			return nil
		}
	}
	return fmt.Errorf("%w in %s", ErrNoSpace, p.spaceDir)
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

// submit prepares the batch's proposals in order, builds their entry and
// hands it to the log. It returns nil when no event is left to log (every
// proposal has then been answered).
func (p *proposer) submit(batch []*proposal) raft.ApplyFuture {
	now := p.clock.Now().UnixNano()
	entry := &api.LogEntry{}
	for _, pr := range batch {
		if pr.prepare != nil {
			pr.left = pr.prepare()
		}
		for k, ev := range pr.events {
			if pr.left != nil && pr.left[k] != nil {
				continue
			}
			if ev.Time == 0 {
				ev.Time = now
			}
			entry.Events = append(entry.Events, ev)
			pr.logged++
		}
	}
	if len(entry.Events) == 0 {
		for _, pr := range batch {
			pr.done <- proposalResult{errs: pr.results(nil)}
		}
		return nil
	}
	return p.r.Apply(wire.Marshal(entry), 30*time.Second)
}

// finish waits for the entry's commit and answers every proposal of the
// batch.
func (p *proposer) finish(batch []*proposal, fut raft.ApplyFuture) {
	fail := func(err error) {
		switch {
		case p.space != nil && p.space.NoSpace():
			// Raft steps down when its log cannot be written.
			err = fmt.Errorf("%w in %s", ErrNoSpace, p.spaceDir)
		case errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipTransferInProgress):
			// Refused before it reached the log: nothing was recorded.
			err = fmt.Errorf("%w: %w: %v", ErrNotLeader, errNotRecorded, err)
		case errors.Is(err, raft.ErrLeadershipLost) || errors.Is(err, raft.ErrRaftShutdown):
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
		var logged []error
		if off+pr.logged <= len(res.errs) {
			logged = res.errs[off : off+pr.logged]
		}
		pr.done <- proposalResult{errs: pr.results(logged), index: fut.Index()}
		off += pr.logged
	}
}

// results gives one error per event of the proposal: the prepare error of
// an event left out, else the logged events' errors in order (nil when
// the entry's result had none).
func (pr *proposal) results(logged []error) []error {
	if pr.left == nil && len(logged) == len(pr.events) {
		return logged
	}
	out := make([]error, len(pr.events))
	j := 0
	for k := range out {
		if pr.left != nil && pr.left[k] != nil {
			out[k] = pr.left[k]
			continue
		}
		if j < len(logged) {
			out[k] = logged[j]
		}
		j++
	}
	return out
}

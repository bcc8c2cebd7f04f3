package mbdkeeper

import (
	"context"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
)

// Follower watches, for the mbatchd of Host, whether Host is still the
// master.
type Follower struct {
	Host  string
	Clock clock.Clock
	// Master are the master host as this host's LIM sees it (Master ""
	// while it does not answer).
	Master <-chan limclient.MasterEvent
	// Ask names the master as any LIM sees it; it is used while this
	// host's LIM does not answer (a master host whose LIM died). An error
	// or "" means unknown.
	Ask func(ctx context.Context) (string, error)
	// Grace is how long another host must stay master before Run returns
	// (default 2 s); Poll is the interval of Ask (default 2 s).
	Grace, Poll time.Duration
}

func (f *Follower) self(h string) bool { return strings.EqualFold(h, f.Host) }

// Run returns the other master's name once another host has been master
// for Grace, or "" and ctx's error when ctx ends. While no LIM answers at
// all (a cluster run without LIMs) it never returns on its own.
func (f *Follower) Run(ctx context.Context) (string, error) {
	grace, poll := orDefault(f.Grace, 2*time.Second), orDefault(f.Poll, 2*time.Second)
	var (
		other  string
		leave  clock.Timer
		ticker clock.Ticker
	)
	defer func() {
		if leave != nil {
			leave.Stop()
		}
		if ticker != nil {
			ticker.Stop()
		}
	}()
	seen := func(m string) {
		switch {
		case m == "":
		case f.self(m):
			other = ""
			if leave != nil {
				leave.Stop()
				leave = nil
			}
		case other == "" || !strings.EqualFold(other, m):
			other = m
			if leave != nil {
				leave.Stop()
			}
			leave = f.Clock.NewTimer(grace)
		}
	}
	events := f.Master
	for {
		var leaveC, tickC <-chan time.Time
		if leave != nil {
			leaveC = leave.C()
		}
		if ticker != nil {
			tickC = ticker.C()
		}
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Master == "" {
				if ticker == nil && f.Ask != nil {
					ticker = f.Clock.NewTicker(poll)
				}
				continue
			}
			if ticker != nil {
				ticker.Stop()
				ticker = nil
			}
			seen(ev.Master)
		case <-tickC:
			if m, err := f.Ask(ctx); err == nil {
				seen(m)
			}
		case <-leaveC:
			return other, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

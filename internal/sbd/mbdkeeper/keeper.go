package mbdkeeper

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
)

// Process is an mbatchd the keeper started.
type Process interface {
	// Stop asks it to exit (SIGTERM).
	Stop()
	// Done is closed when it has exited.
	Done() <-chan struct{}
	// Failed, once Done is closed, reports whether it exited with a
	// non-zero status of its own (it could not start: another mbatchd
	// holds the cluster, a bad configuration) rather than by a signal or
	// a clean exit.
	Failed() bool
}

// Keeper runs mbatchd on Host while the master events name Host.
type Keeper struct {
	Host  string
	Clock clock.Clock
	// Master are the master host as this host's LIM sees it, at every
	// change; Master "" while no LIM answers (nothing is changed then).
	Master <-chan limclient.MasterEvent
	// Alive reports whether an mbatchd answers on this host (one started
	// by an administrator, or by an earlier sbatchd).
	Alive func(ctx context.Context) bool
	// Start starts mbatchd on this host.
	Start func() (Process, error)
	// Log receives the keeper's lines (discarded if nil).
	Log *slog.Logger
	// Grace is how long this host must stay master before mbatchd is
	// started (default 2 s; not waited for when the first event already
	// names this host: sbatchd starting on the master). Retry is the
	// interval of the checks while it is master (default 2 s). An
	// mbatchd that exits is started again at once (LSF's sbatchd restarts
	// a killed mbatchd), or after Retry if it failed.
	Grace, Retry time.Duration
	// StopWait bounds the wait for the mbatchd it stops on return
	// (default 10 s).
	StopWait time.Duration
}

func (k *Keeper) self(h string) bool { return h != "" && strings.EqualFold(h, k.Host) }

func (k *Keeper) log() *slog.Logger {
	if k.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return k.Log
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Run keeps mbatchd placed until ctx ends; then it stops the mbatchd it
// started, if any, and waits for it (at most StopWait).
func (k *Keeper) Run(ctx context.Context) {
	grace, retry := orDefault(k.Grace, 2*time.Second), orDefault(k.Retry, 2*time.Second)
	var (
		master    string
		first     = true
		child     Process
		childDone <-chan struct{}
		check     clock.Timer
	)
	arm := func(d time.Duration) {
		if check != nil {
			check.Stop()
		}
		check = k.Clock.NewTimer(d)
	}
	disarm := func() {
		if check != nil {
			check.Stop()
			check = nil
		}
	}
	events := k.Master
	for {
		var checkC <-chan time.Time
		if check != nil {
			checkC = check.C()
		}
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			prev := master
			wasFirst := first
			first = first && ev.Master == ""
			master = ev.Master
			switch {
			case k.self(ev.Master):
				switch {
				case wasFirst:
					arm(0)
				case !k.self(prev):
					k.log().Warn(fmt.Sprintf("this host is the master: mbatchd is started here unless one answers within %v", grace))
					arm(grace)
				}
			case ev.Master != "":
				disarm()
				if child != nil {
					k.log().Warn("the master is now "+ev.Master+": stopping the mbatchd of this host", "master", ev.Master)
					child.Stop()
				}
			default:
				// This host's LIM does not answer: whether it is still
				// the master is unknown. A running mbatchd is left to
				// decide (it asks the other LIMs); none is started.
				disarm()
			}
		case <-checkC:
			check = nil
			if !k.self(master) {
				continue
			}
			if child == nil && !k.Alive(ctx) {
				p, err := k.Start()
				if err != nil {
					k.log().Error("cannot start mbatchd", "err", err)
				} else {
					k.log().Warn("mbatchd started on the master host")
					child, childDone = p, p.Done()
				}
			}
			arm(retry)
		case <-childDone:
			failed := child.Failed()
			child, childDone = nil, nil
			if failed {
				k.log().Error("mbatchd failed")
			} else {
				k.log().Warn("mbatchd exited")
				if k.self(master) {
					arm(0)
				}
			}
		case <-ctx.Done():
			disarm()
			if child != nil {
				child.Stop()
				t := k.Clock.NewTimer(orDefault(k.StopWait, 10*time.Second))
				select {
				case <-childDone:
				case <-t.C():
					k.log().Error("mbatchd did not exit in time", "wait", orDefault(k.StopWait, 10*time.Second))
				}
				t.Stop()
			}
			return
		}
	}
}

package mbd

import (
	"fmt"
	"io"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/eventlog"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// fsm adapts the state to raft: it decodes log entries and applies them.
// raft calls it from one goroutine, which makes it the state's only writer.
type fsm struct {
	st *state.State
	// applied, when set, is told about every applied entry (after the state
	// changed).
	applied func(idx uint64, e *api.LogEntry, errs []error)
	// events renders committed entries as lsb.events and lsb.acct; owned by
	// this goroutine. nil until opened.
	events *eventlog.Writer
	log    interface{ Warn(string, ...any) }
	// unknown, when set, counts the fields and event kinds of applied
	// entries that this version does not know.
	unknown *unknownLog
}

// applyResult is what Apply returns for one log entry.
type applyResult struct {
	errs []error
	err  error // the entry could not be decoded
}

func (f *fsm) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return applyResult{}
	}
	var e api.LogEntry
	if err := e.UnmarshalWire(l.Data); err != nil {
		// A committed entry that does not decode is a bug or corruption; it
		// changes nothing and the proposer reports it.
		return applyResult{err: fmt.Errorf("log entry %d: %w", l.Index, err)}
	}
	if f.unknown != nil {
		f.unknown.scan(l.Index, l.Data, f.log)
	}
	errs := f.st.Apply(l.Index, &e)
	if f.events != nil && l.Index > f.events.LastIndex() {
		if err := f.events.Append(l.Index, &e, errs); err != nil && f.log != nil {
			f.log.Warn("writing lsb.events", "index", l.Index, "err", err)
		}
	}
	if f.applied != nil {
		f.applied(l.Index, &e, errs)
	}
	return applyResult{errs: errs}
}

func (f *fsm) ApplyBatch(logs []*raft.Log) []any {
	out := make([]any, len(logs))
	for i, l := range logs {
		out[i] = f.Apply(l)
	}
	return out
}

func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	// The event files must be durable up to the snapshot: entries before it
	// are compacted away and could not be rendered again.
	if f.events != nil {
		if err := f.events.Sync(); err != nil {
			// lsb.events stopped at an entry it could not write (a full
			// disk): keep the log from there, so that the next mbatchd
			// start renders what is missing.
			return nil, fmt.Errorf("lsb.events cannot be written, so the log is kept until it can: %w", err)
		}
	}
	// A view of the state as of this entry; raft's snapshot goroutine
	// encodes it (Persist) while entries go on applying.
	return viewSnapshot{f.st.Latest()}, nil
}

func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	if err := f.st.Restore(rc, 0); err != nil {
		return err
	}
	// A snapshot from the master can take this replica past entries
	// lsb.events never saw (the snapshot says how far it goes).
	if f.events != nil {
		f.events.Skip(f.st.Latest().Applied())
	}
	return nil
}

type viewSnapshot struct{ v *state.View }

func (s viewSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s.v.Encode()); err != nil {
		sink.Cancel()
		return fmt.Errorf("writing snapshot: %w", err)
	}
	return sink.Close()
}

func (viewSnapshot) Release() {}

var (
	_ raft.BatchingFSM = (*fsm)(nil)
	_ raft.FSMSnapshot = viewSnapshot{}
)

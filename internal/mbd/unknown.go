package mbd

import (
	"fmt"
	"maps"
	"sync"

	"github.com/basalt-lsf/basalt/api"
)

// unknownLog counts what applied log entries hold that this version does
// not know: a newer mbatchd's event kinds and fields, which the codecs skip
// and the state cannot apply (an event of an unknown kind fails with
// state.ErrNoEvent). Each distinct one is logged once, at warn; the counts
// are for metrics. The FSM's goroutine writes; anyone reads.
type unknownLog struct {
	mu     sync.Mutex
	counts map[string]uint64 // "Event.30", "JobSpec.90": occurrences
}

// eventKindFrom is the first of api.Event's field numbers that are event
// kinds (below it: time and user).
const eventKindFrom = 10

// scan counts the unknown fields of the encoded api.LogEntry data.
func (u *unknownLog) scan(idx uint64, data []byte, log interface{ Warn(string, ...any) }) {
	_ = api.UnknownFields("LogEntry", data, func(msg string, num int) {
		key := fmt.Sprintf("%s.%d", msg, num)
		u.mu.Lock()
		if u.counts == nil {
			u.counts = map[string]uint64{}
		}
		n := u.counts[key]
		u.counts[key] = n + 1
		u.mu.Unlock()
		if n > 0 || log == nil {
			return
		}
		if msg == "Event" && num >= eventKindFrom {
			log.Warn("the log holds an event kind this version does not know (a newer mbatchd wrote it); such events are not applied",
				"kind", num, "index", idx)
			return
		}
		log.Warn("the log holds a field this version does not know (a newer mbatchd wrote it); it is ignored",
			"message", msg, "field", num, "index", idx)
	})
}

// Counts returns a copy of the counts.
func (u *unknownLog) Counts() map[string]uint64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return maps.Clone(u.counts)
}

// UnknownLogFields returns how many times applied log entries held each
// field or event kind ("Message.number") this version does not know.
func (s *Server) UnknownLogFields() map[string]uint64 { return s.unknown.Counts() }

package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
)

// SysKind is which of badmin's history subcommands reads the event log.
type SysKind int32

const (
	SysAll   SysKind = 1 // badmin hist: every one of the kinds below
	SysMbd   SysKind = 2 // badmin mbdhist: mbatchd starts and ends, log switches
	SysQueue SysKind = 3 // badmin qhist: queue controls
	SysHost  SysKind = 4 // badmin hhist: host controls
)

// SysQuery selects the records badmin hist prints: a kind, names (queues
// or hosts for qhist and hhist; none: all) and a time window in Unix
// seconds (To 0: no window).
type SysQuery struct {
	Kind     SysKind
	Names    []string
	From, To int64
}

// SysLine is one line of badmin hist: the record's time and the text that
// follows it ("Queue <normal> closed by user or administrator <root>.").
type SysLine struct {
	Time int64
	Text string
}

// SysText is what badmin hist prints after a record's time, as LSF's
// displayEvent prints it; "" when q does not select the record.
func (q *SysQuery) SysText(rec *Record) string {
	if q.To != 0 && q.From < q.To && (rec.Time < q.From || rec.Time > q.To) {
		return ""
	}
	mbd := q.Kind == SysAll || q.Kind == SysMbd
	named := func(kind SysKind, name string) bool {
		return q.Kind == SysAll || q.Kind == kind && (len(q.Names) == 0 || slices.Contains(q.Names, name))
	}
	switch l := rec.Log.(type) {
	case *LogSwitch:
		if mbd {
			return fmt.Sprintf("event file is switched; last JobId <%d>", l.LastJobID)
		}
	case *MbdStart:
		if mbd {
			return fmt.Sprintf("mbatchd started on host <%s>; cluster name <%s>, %d server hosts, %d queues.", l.Master, l.Cluster, l.NumHosts, l.NumQueues)
		}
	case *MbdDie:
		if mbd {
			why := map[int64]string{0: "master resigned.", 1: "reconfiguration initiated.", 2: "fatal errors.", 3: "fatal memory errors.", 4: "bad configuration file."}[l.ExitCode]
			if why == "" {
				why = fmt.Sprintf("killed by signal <%d>.", l.ExitCode)
			}
			return fmt.Sprintf("mbatchd on host <%s> died: %s", l.Master, why)
		}
	case *QueueCtrl:
		if named(SysQueue, l.Queue) {
			op := map[int64]string{1: "opened", 2: "closed", 3: "activated", 4: "inactivated"}[l.OpCode]
			if op == "" {
				op = fmt.Sprintf("unknown operation code <%d>", l.OpCode)
			}
			return fmt.Sprintf("Queue <%s> %s%s", l.Queue, op, by(" by user or administrator <%s>.", l.UserName))
		}
	case *HostCtrl:
		if named(SysHost, l.Host) {
			op := map[int64]string{1: "opened", 2: "closed", 3: "rebooted", 4: "shutdown"}[l.OpCode]
			if op == "" {
				op = fmt.Sprintf("unknown operation code <%d>", l.OpCode)
			}
			return fmt.Sprintf("Host <%s> %s%s", l.Host, op, by(" by administrator <%s>.", l.UserName))
		}
	}
	return ""
}

func by(format, user string) string {
	if user == "" {
		return "."
	}
	return fmt.Sprintf(format, user)
}

// ReadSysHistory reads an event file's records and returns the lines q
// selects, in file order. A record that does not parse is skipped (LSF
// prints it on standard error and goes on): bad counts them.
func ReadSysHistory(ctx context.Context, r io.Reader, name string, q *SysQuery) (lines []SysLine, bad int, err error) {
	rd := NewReader(r, name)
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, bad, err
			}
		}
		rec, err := rd.Next()
		if err == io.EOF {
			return lines, bad, nil
		}
		if err != nil {
			if errors.Is(err, ErrFormat) {
				bad++
				continue
			}
			return nil, bad, err
		}
		if t := q.SysText(rec); t != "" {
			lines = append(lines, SysLine{Time: rec.Time, Text: t})
		}
	}
}

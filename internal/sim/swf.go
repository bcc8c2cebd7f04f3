package sim

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// SWF field numbers (1-based, as the format's definition numbers them).
const (
	fJob = iota + 1
	fSubmit
	fWait
	fRun
	fAlloc
	fCPU
	fMem
	fProcs
	fReqTime
	fReqMem
	fStatus
	fUser
	fGroup
	fExe
	fQueue
	fPartition
	fPreceding
	fThink
	numFields = fThink
)

// Job is one job of a workload.
type Job struct {
	Line   int   // line of the trace (1-based), 0 when not read from one
	ID     int64 // the trace's job number
	Submit int64 // seconds from the start of the trace
	Wait   int64 // recorded wait, -1 unknown
	Run    int64 // recorded run time (s)
	Procs  int   // slots asked (requested processors, else allocated)
	// ReqTime is the requested time (s), the job's run limit; -1 none.
	ReqTime int64
	Status  int // 1 completed, 0 failed, 5 cancelled, -1 unknown
	User    string
	Group   string
	Queue   int // the trace's queue number, -1 unknown
	// QueueName is the queue the job ran in (lsb.acct), "" unknown: it
	// is the job's queue when the configuration has it.
	QueueName string
	// Raw is the trace's line as read (WriteSWF writes its fields back
	// with the simulated wait and run time).
	Raw string
}

// Workload is a parsed trace.
type Workload struct {
	Header []string // the ';' lines, without the ';'
	// UnixStart is the header's UnixStartTime (0 when absent).
	UnixStart int64
	// MaxNodes and MaxProcs are the header's (0 when absent).
	MaxNodes, MaxProcs int
	Jobs               []*Job // in submit order (stable)
	// Problems are the lines that could not be read, each naming its line;
	// those jobs are not in Jobs.
	Problems []error
}

// LineError is a problem with one line of a trace.
type LineError struct {
	Line  int
	Field int // 1-based SWF field, 0 for the whole line
	Msg   string
}

func (e *LineError) Error() string {
	if e.Field > 0 {
		return fmt.Sprintf("line %d: field %d (%s): %s", e.Line, e.Field, fieldNames[e.Field], e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

var fieldNames = [numFields + 1]string{"", "job number", "submit time", "wait time", "run time", "allocated processors",
	"average CPU time", "used memory", "requested processors", "requested time", "requested memory", "status", "user",
	"group", "executable", "queue", "partition", "preceding job", "think time"}

// maxLine bounds one line of a trace.
const maxLine = 64 << 10

// ReadSWF reads a trace in the Standard Workload Format, gzip-compressed or
// plain. Lines that cannot be replayed (a field missing or not a number, a
// negative submit time, an unknown run time, no processor count) are
// reported in Workload.Problems and left out; an error is returned only
// when the input itself cannot be read.
func ReadSWF(r io.Reader) (*Workload, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("swf: %w", err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 256<<10)
	}
	w := &Workload{}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if text[0] == ';' {
			w.header(string(bytes.TrimSpace(text[1:])))
			continue
		}
		j, err := parseJob(line, string(text))
		if err != nil {
			w.Problems = append(w.Problems, err)
			continue
		}
		w.Jobs = append(w.Jobs, j)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("swf: line %d: longer than %d bytes", line+1, maxLine)
		}
		return nil, fmt.Errorf("swf: line %d: %w", line+1, err)
	}
	sort.SliceStable(w.Jobs, func(a, b int) bool { return w.Jobs[a].Submit < w.Jobs[b].Submit })
	return w, nil
}

func (w *Workload) header(h string) {
	w.Header = append(w.Header, h)
	name, value, ok := strings.Cut(h, ":")
	if !ok {
		return
	}
	value = strings.TrimSpace(value)
	switch strings.TrimSpace(name) {
	case "UnixStartTime":
		if v, err := strconv.ParseInt(value, 10, 64); err == nil && v > 0 {
			w.UnixStart = v
		}
	case "MaxNodes":
		if v, err := strconv.Atoi(value); err == nil && v > 0 {
			w.MaxNodes = v
		}
	case "MaxProcs":
		if v, err := strconv.Atoi(value); err == nil && v > 0 {
			w.MaxProcs = v
		}
	}
}

// parseJob reads one job line.
func parseJob(line int, text string) (*Job, error) {
	f := strings.Fields(text)
	if len(f) != numFields {
		return nil, &LineError{Line: line, Msg: fmt.Sprintf("%d fields, want %d", len(f), numFields)}
	}
	var v [numFields + 1]float64
	for i, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(x) || math.IsInf(x, 0) && err == nil {
			return nil, &LineError{Line: line, Field: i + 1, Msg: fmt.Sprintf("%q is not a number", s)}
		}
		if math.Abs(x) > 1<<53 {
			return nil, &LineError{Line: line, Field: i + 1, Msg: fmt.Sprintf("%s is out of range", s)}
		}
		if x < -1 {
			return nil, &LineError{Line: line, Field: i + 1, Msg: fmt.Sprintf("negative value %s (only -1, unknown, may be negative)", s)}
		}
		v[i+1] = x
	}
	j := &Job{Line: line, ID: int64(v[fJob]), Submit: round(v[fSubmit]), Wait: round(v[fWait]), Run: round(v[fRun]),
		ReqTime: round(v[fReqTime]), Status: int(v[fStatus]), Queue: int(v[fQueue])}
	j.Raw = text
	switch {
	case v[fSubmit] < 0:
		return nil, &LineError{Line: line, Field: fSubmit, Msg: "unknown (-1): the job cannot be replayed"}
	case v[fRun] < 0:
		return nil, &LineError{Line: line, Field: fRun, Msg: "unknown (-1): the job cannot be replayed"}
	}
	switch {
	case v[fProcs] > 0:
		j.Procs = int(v[fProcs])
	case v[fAlloc] > 0:
		j.Procs = int(v[fAlloc])
	default:
		return nil, &LineError{Line: line, Field: fProcs, Msg: "no processor count (requested and allocated processors unknown)"}
	}
	if j.Procs > 1<<24 {
		return nil, &LineError{Line: line, Field: fProcs, Msg: fmt.Sprintf("%d processors is not a plausible job", j.Procs)}
	}
	if j.ReqTime == 0 {
		j.ReqTime = -1
	}
	j.User = idName("u", v[fUser])
	j.Group = idName("g", v[fGroup])
	return j, nil
}

func round(x float64) int64 {
	if x < 0 {
		return -1
	}
	return int64(math.Round(x))
}

// idName names a trace's user or group number ("u12"); unknown is "u0".
func idName(prefix string, x float64) string {
	if x < 0 {
		return prefix + "0"
	}
	return prefix + strconv.FormatInt(int64(x), 10)
}

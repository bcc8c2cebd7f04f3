package eventlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxLineLen bounds a record line. LSF's own limit is far lower (commands
// of 4094 bytes); job scripts logged as commands are the long ones.
const MaxLineLen = 16 << 20

// Reader reads the records of one lsb.events or lsb.acct file. Lines that
// start with '#' (the header) and blank lines are not records. A line that
// does not parse is reported by Next, and the next call goes on with the
// following line, so one damaged record never hides the rest of a file.
type Reader struct {
	name    string
	br      *bufio.Reader
	line    int   // number of the last line read
	off     int64 // offset of the next line
	recOff  int64 // offset of the last record returned
	header  int64
	hasHead bool
	buf     []byte
	// keepJob, when set, skips records about other jobs without parsing
	// them (see SkipJobs).
	keepJob func(id int64) bool
}

// SkipJobs makes Next skip, without parsing them, the records that are
// not about a job keep accepts and those not about any job (QUEUE_CTRL,
// unknown types), as LSF's lsbGetNextJobEvent does for bhist with job IDs.
// Lines whose job ID cannot be found cheaply are parsed as usual.
func (r *Reader) SkipJobs(keep func(id int64) bool) { r.keepJob = keep }

// NewReader reads records from r; name is the file name in errors.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, br: bufio.NewReaderSize(r, 64<<10)}
}

// Header returns the number on the file's first line, "# <n>": the history
// seek position in lsb.events, the time of the last event in an archived
// lsb.events.N. ok is false until that line has been read, and for files
// without one (lsb.acct, old-format event files).
func (r *Reader) Header() (n int64, ok bool) { return r.header, r.hasHead }

// Offset returns the byte offset of the line of the last record Next
// returned.
func (r *Reader) Offset() int64 { return r.recOff }

// Line returns the number of the last line read.
func (r *Reader) Line() int { return r.line }

// Next returns the next record, or io.EOF after the last one. Parse errors
// are *ParseError (wrapping ErrFormat) positioned at the file and line;
// read errors are returned wrapped.
func (r *Reader) Next() (*Record, error) {
	for {
		line, start, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if r.line == 1 && len(line) > 0 && line[0] == '#' {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(line[1:])), 10, 64); err == nil {
				r.header, r.hasHead = n, true
			}
			continue
		}
		t := bytes.TrimLeft(line, " \t")
		if len(bytes.TrimSpace(t)) == 0 || t[0] == '#' {
			continue
		}
		if r.keepJob != nil {
			if id, isJob, ok := peekJobID(t); ok && (!isJob || !r.keepJob(id)) {
				continue
			}
		}
		r.recOff = start
		rec, err := ParseRecord(string(line))
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				pe.File, pe.Line = r.name, r.line
			}
			return nil, err
		}
		return rec, nil
	}
}

// readLine returns the next line without its newline, and its offset.
func (r *Reader) readLine() ([]byte, int64, error) {
	r.buf = r.buf[:0]
	start := r.off
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.off += int64(len(chunk))
		if !tooLong {
			if len(r.buf)+len(chunk) > MaxLineLen {
				tooLong = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if len(chunk) == 0 && len(r.buf) == 0 && !tooLong {
				return nil, start, io.EOF
			}
		case err != nil:
			return nil, start, fmt.Errorf("reading %s: %w", r.name, err)
		}
		r.line++
		if tooLong {
			return nil, start, &ParseError{File: r.name, Line: r.line, Field: 1, Col: 1,
				Msg: fmt.Sprintf("line longer than %d bytes", MaxLineLen)}
		}
		return bytes.TrimSuffix(r.buf, []byte{'\n'}), start, nil
	}
}

// peekJobID finds the job ID of a record line without parsing it: ok is
// false when the line does not look like a record; isJob is false for
// records not about a job.
func peekJobID(line []byte) (id int64, isJob, ok bool) {
	tok := func() ([]byte, bool) {
		for len(line) > 0 && isBlank(line[0]) {
			line = line[1:]
		}
		if len(line) == 0 {
			return nil, false
		}
		if line[0] == '"' {
			i := bytes.IndexByte(line[1:], '"')
			if i < 0 || i+2 < len(line) && line[i+2] == '"' {
				return nil, false // unterminated, or a doubled quote: parse it
			}
			t := line[1 : i+1]
			line = line[i+2:]
			return t, true
		}
		i := bytes.IndexFunc(line, func(c rune) bool { return c < 0x80 && isBlank(byte(c)) })
		if i < 0 {
			i = len(line)
		}
		t := line[:i]
		line = line[i:]
		return t, true
	}
	typ, ok1 := tok()
	_, ok2 := tok() // version
	_, ok3 := tok() // time
	if !ok1 || !ok2 || !ok3 {
		return 0, false, false
	}
	switch string(typ) {
	case TypeJobNew, TypeJobStart, TypeJobStartAccept, TypeJobExecute, TypeJobStatus,
		TypeJobSignal, TypeJobRequeue, TypeJobClean, TypeJobForce, TypeJobFinish, TypeJobForward,
		TypeJobSigAct, TypeChkpnt, TypeMig, TypeJobResizeNotifyStart, TypeJobResizeRelease, TypeJobResizeCancel:
	case TypeJobSwitch, TypeJobMove:
		if _, ok := tok(); !ok { // userId
			return 0, false, false
		}
	case TypeJobModify2:
		t, ok := tok()
		if !ok {
			return 0, false, false
		}
		if i := bytes.IndexByte(t, '['); i >= 0 {
			t = t[:i]
		}
		n, err := strconv.ParseInt(string(t), 10, 64)
		return n, true, err == nil
	default:
		return 0, false, true
	}
	t, ok := tok()
	if !ok {
		return 0, false, false
	}
	n, err := strconv.ParseInt(string(t), 10, 64)
	return n, true, err == nil
}

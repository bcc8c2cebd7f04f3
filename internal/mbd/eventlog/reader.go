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
}

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

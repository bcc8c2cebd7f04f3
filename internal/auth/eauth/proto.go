package eauth

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Request is what a daemon writes to eauth -s for one connection, in LSF's
// order: uid gid user_name client_addr client_port user_auth_data_len
// eauth_client eauth_server aux_data_file aux_data_status user_auth_data.
type Request struct {
	UID, GID      int
	User          string
	ClientAddr    string
	ClientPort    int
	EauthClient   string // the client's kind: "user", "lim", "sbatchd"...
	EauthServer   string // the daemon that asks
	AuxDataFile   string // "NULL": Basalt has no auxiliary data
	AuxDataStatus string // "NULL"
	Data          []byte
}

// Limits of eauth -s requests.
const (
	maxToken    = 256
	MaxAuthData = 64 << 10
)

// Append appends the request line.
func (r *Request) Append(b []byte) []byte {
	tok := func(s string) string {
		if s == "" {
			return "NULL"
		}
		return s
	}
	b = fmt.Appendf(b, "%d %d %s %s %d %d %s %s %s %s ", r.UID, r.GID, tok(r.User), tok(r.ClientAddr), r.ClientPort, len(r.Data),
		tok(r.EauthClient), tok(r.EauthServer), tok(r.AuxDataFile), tok(r.AuxDataStatus))
	b = append(b, r.Data...)
	return append(b, '\n')
}

// ProtoError is a malformed eauth -s request: Off is its byte offset in
// the stream of requests.
type ProtoError struct {
	Off   int64
	Field string
	Msg   string
}

func (e *ProtoError) Error() string {
	return fmt.Sprintf("eauth request: offset %d: %s: %s", e.Off, e.Field, e.Msg)
}

// RequestReader reads the requests a daemon writes to eauth -s.
type RequestReader struct {
	r   *bufio.Reader
	off int64
}

// NewRequestReader reads requests from r.
func NewRequestReader(r io.Reader) *RequestReader {
	return &RequestReader{r: bufio.NewReaderSize(r, 4096)}
}

var fieldNames = [10]string{"uid", "gid", "user_name", "client_addr", "client_port", "user_auth_data_len", "eauth_client", "eauth_server", "aux_data_file", "aux_data_status"}

// Read reads one request; io.EOF at a clean end of the stream.
func (rr *RequestReader) Read() (*Request, error) {
	var tok [10]string
	var starts [10]int64
	for i := range tok {
		start := rr.off
		t, err := rr.token(i == 0)
		starts[i] = rr.off - int64(len(t)) - 1
		if err != nil {
			if err == io.EOF && i == 0 && t == "" {
				return nil, io.EOF
			}
			if err == io.EOF {
				return nil, &ProtoError{rr.off, fieldNames[i], "unexpected end of input"}
			}
			if pe, ok := err.(*ProtoError); ok {
				pe.Field = fieldNames[i]
				return nil, pe
			}
			return nil, err
		}
		if t == "" {
			return nil, &ProtoError{start, fieldNames[i], "empty"}
		}
		tok[i] = t
	}
	num := func(i int, max int64) (int, error) {
		v, err := strconv.ParseInt(tok[i], 10, 64)
		if err != nil || v < 0 || v > max {
			return 0, &ProtoError{starts[i], fieldNames[i], fmt.Sprintf("%.20q is not a number in 0..%d", tok[i], max)}
		}
		return int(v), nil
	}
	r := &Request{User: tok[2], ClientAddr: tok[3], EauthClient: tok[6], EauthServer: tok[7], AuxDataFile: tok[8], AuxDataStatus: tok[9]}
	var err error
	if r.UID, err = num(0, 1<<32-1); err != nil {
		return nil, err
	}
	if r.GID, err = num(1, 1<<32-1); err != nil {
		return nil, err
	}
	if r.ClientPort, err = num(4, 65535); err != nil {
		return nil, err
	}
	n, err := num(5, MaxAuthData)
	if err != nil {
		return nil, err
	}
	r.Data = make([]byte, n)
	got, err := io.ReadFull(rr.r, r.Data)
	rr.off += int64(got)
	if err != nil {
		return nil, &ProtoError{rr.off, "user_auth_data", fmt.Sprintf("%d of %d bytes", got, n)}
	}
	// The line's end (LSF writes one; a missing one at the end of the
	// stream is tolerated).
	if b, err := rr.r.ReadByte(); err == nil {
		rr.off++
		if b != '\n' {
			return nil, &ProtoError{rr.off - 1, "user_auth_data", fmt.Sprintf("%d bytes, then %q instead of the line's end", n, b)}
		}
	}
	return r, nil
}

// token reads a field up to one space (the last field of the fixed part
// included).
func (rr *RequestReader) token(first bool) (string, error) {
	var sb strings.Builder
	for {
		b, err := rr.r.ReadByte()
		if err != nil {
			return sb.String(), err
		}
		rr.off++
		switch {
		case b == ' ':
			if sb.Len() == 0 {
				continue
			}
			return sb.String(), nil
		case b == '\n' && first && sb.Len() == 0:
			continue // blank line between requests
		case b < ' ' || b == 0x7f:
			return "", &ProtoError{rr.off - 1, "", fmt.Sprintf("control byte %#x", b)}
		}
		if sb.Len() >= maxToken {
			return "", &ProtoError{rr.off - 1, "", fmt.Sprintf("longer than %d bytes", maxToken)}
		}
		sb.WriteByte(b)
	}
}

package rpc

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/basalt-lsf/basalt/api/wire"
)

// Frame types.
const (
	frameHello   byte = 1 // client: opens the connection (payload api.ConnHello)
	frameRequest byte = 2 // client: opens a stream (method, deadline, payload)
	frameData    byte = 3 // either side: one message on a stream
	frameEnd     byte = 4 // server: stream done (payload api.Status); client: done sending
	frameCancel  byte = 5 // client: abandon a stream
	frameWindow  byte = 6 // either side, protocol 2: grant the peer more bytes on a stream
)

// Protocol versions, carried in the hellos (api.ConnHello.Proto,
// api.ServerHello.Proto). A peer of version 1 sends no version, never sends
// window frames and ignores a server hello; version 2 adds per-stream flow
// control (window frames). A version-2 side uses them only with a peer that
// announced version 2.
const (
	protoV1      = 1
	protoV2      = 2
	protoVersion = protoV2
)

// maxWindowGrant bounds one window frame's grant.
const maxWindowGrant = 1 << 31

// MaxFrameSize bounds a frame so a bad peer cannot make us allocate without
// limit.
const MaxFrameSize = 64 << 20

// maxMethodLen bounds method names.
const maxMethodLen = 128

type frame struct {
	typ      byte
	stream   uint64
	method   string // frameRequest only
	deadline int64  // frameRequest only: Unix nanoseconds, 0 = none
	grant    int64  // frameWindow only: bytes granted (in the payload)
	payload  []byte
}

// FrameError is a malformed frame; Offset is the byte offset within the frame
// body (after the length prefix) where decoding failed.
type FrameError struct {
	Offset int
	Msg    string
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("rpc: bad frame at byte %d: %s", e.Offset, e.Msg)
}

func appendFrame(b []byte, f *frame) []byte {
	start := len(b)
	b = append(b, 0, 0, 0, 0, f.typ)
	b = wire.AppendVarint(b, f.stream)
	if f.typ == frameRequest {
		b = wire.AppendString(b, f.method)
		b = wire.AppendVarint(b, uint64(f.deadline))
	}
	if f.typ == frameWindow {
		b = wire.AppendVarint(b, uint64(f.grant))
	} else {
		b = append(b, f.payload...)
	}
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// parseFrame decodes a frame body (everything after the length prefix).
// The payload aliases body.
func parseFrame(body []byte) (*frame, error) {
	if len(body) < 1 {
		return nil, &FrameError{0, "empty frame"}
	}
	f := &frame{typ: body[0]}
	if f.typ < frameHello || f.typ > frameWindow {
		return nil, &FrameError{0, fmt.Sprintf("unknown frame type %d", f.typ)}
	}
	off := 1
	id, n := wire.ConsumeVarint(body[off:])
	if n < 0 {
		return nil, &FrameError{off, "bad stream id"}
	}
	f.stream = id
	off += n
	if f.typ == frameRequest {
		m, n := wire.ConsumeBytes(body[off:])
		if n < 0 {
			return nil, &FrameError{off, "bad method name"}
		}
		if len(m) == 0 || len(m) > maxMethodLen {
			return nil, &FrameError{off, fmt.Sprintf("method name of %d bytes", len(m))}
		}
		f.method = string(m)
		off += n
		d, n := wire.ConsumeVarint(body[off:])
		if n < 0 {
			return nil, &FrameError{off, "bad deadline"}
		}
		f.deadline = int64(d)
		off += n
	}
	if f.typ == frameHello && f.stream != 0 {
		return nil, &FrameError{1, "hello frame on a stream"}
	}
	if f.typ != frameHello && f.stream == 0 {
		return nil, &FrameError{1, "stream id 0"}
	}
	if f.typ == frameWindow {
		g, n := wire.ConsumeVarint(body[off:])
		if n < 0 {
			return nil, &FrameError{off, "bad window grant"}
		}
		if g == 0 || g > maxWindowGrant {
			return nil, &FrameError{off, fmt.Sprintf("window grant of %d bytes", g)}
		}
		if off+n != len(body) {
			return nil, &FrameError{off + n, "trailing bytes after window grant"}
		}
		f.grant = int64(g)
		return f, nil
	}
	f.payload = body[off:]
	return f, nil
}

var errFrameTooLarge = errors.New("rpc: frame exceeds the size limit")

// readFrame reads one frame of at most MaxFrameSize. The returned payload
// is a fresh allocation.
func readFrame(r *bufio.Reader) (*frame, error) { return readFrameMax(r, MaxFrameSize) }

// frameChunk is what a frame's body may cost before its bytes arrive: a
// length prefix alone never makes the reader allocate more, so a peer that
// announces 64 MiB and sends nothing costs 64 KiB, and memory grows with
// what is actually received.
const frameChunk = 64 << 10

// readFrameMax reads one frame of at most max bytes.
func readFrameMax(r *bufio.Reader, max uint32) (*frame, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > max {
		return nil, errFrameTooLarge
	}
	body := make([]byte, 0, min(n, frameChunk))
	for uint32(len(body)) < n {
		if len(body) == cap(body) {
			body = slices.Grow(body, min(int(n)-len(body), len(body)))
		}
		k, err := io.ReadFull(r, body[len(body):min(cap(body), int(n))])
		body = body[:len(body)+k]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return parseFrame(body)
}

package resio

import (
	"errors"
	"io"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// Chunk is the largest piece of a file sent at once (a quarter of the rpc
// stream window: four in flight).
const Chunk = 64 << 10

// Store sends req, then r's content, on a RES.Store stream, and returns
// RES's answer: nil once the file is written, else RES's reason.
func Store(st *rpc.ClientStream, req *api.FileRequest, r io.Reader) error {
	if err := st.Send(&api.FileChunk{Request: req}); err != nil {
		return serverReason(st, err)
	}
	buf := make([]byte, Chunk)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			if err := st.Send(&api.FileChunk{Data: buf[:n]}); err != nil {
				return serverReason(st, err)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			st.Cancel()
			return rerr
		}
	}
	if err := st.CloseSend(); err != nil {
		return serverReason(st, err)
	}
	var reply api.FileReply
	return st.Recv(&reply)
}

// serverReason is RES's reason when a send failed because it ended the
// stream (a file it could not open, a refusal).
func serverReason(st *rpc.ClientStream, err error) error {
	var reply api.FileReply
	if rerr := st.Recv(&reply); rerr != nil && !errors.Is(rerr, io.EOF) {
		return rerr
	}
	return err
}

// Reader reads a RES.Fetch stream's data after its first chunk, which the
// caller has received (it carries the file's mode).
type Reader struct {
	st  *rpc.ClientStream
	buf []byte
}

// NewReader reads st's data, first being the first chunk's.
func NewReader(st *rpc.ClientStream, first []byte) *Reader { return &Reader{st: st, buf: first} }

func (f *Reader) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		var c api.FileChunk
		if err := f.st.Recv(&c); err != nil {
			return 0, err
		}
		f.buf = c.Data
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

package res

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// FileClient reads and writes files on other hosts through their RES
// (RES.Fetch, RES.Store) as a named user: the execution side of bsub -f,
// where a host's shepherd, dialing with its sbatchd credential, copies a
// job's files from and to the job's submission host (see staging.go for
// what RES checks). It is the shepherd's Remote.
type FileClient struct {
	// Dial connects to host's RES.
	Dial func(ctx context.Context, host string) (*rpc.Client, error)
}

// Fetch opens path on host, read as user: its permission bits and its
// content, until the reader is closed.
func (c *FileClient) Fetch(ctx context.Context, host, user, path string) (os.FileMode, io.ReadCloser, error) {
	ctx, cancel := context.WithCancel(ctx)
	cl, err := c.Dial(ctx, host)
	if err != nil {
		cancel()
		return 0, nil, err
	}
	st, err := cl.Stream(ctx, api.RESFetch, &api.FileRequest{Path: path, User: user})
	if err == nil {
		var first api.FileChunk
		if err = st.Recv(&first); err == nil {
			return os.FileMode(first.Mode & 0o777), &fetched{st: st, buf: first.Data, done: func() { cancel(); cl.Close() }}, nil
		}
		if errors.Is(err, io.EOF) {
			err = errors.New(host + ":" + path + ": no data")
		}
	}
	cancel()
	cl.Close()
	return 0, nil, err
}

// fetched reads a RES.Fetch stream's data.
type fetched struct {
	st   *rpc.ClientStream
	buf  []byte
	done func()
}

func (f *fetched) Read(p []byte) (int, error) {
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

func (f *fetched) Close() error {
	f.done()
	return nil
}

// Store writes r's content to path on host as user: created with mode
// (minus RES's umask), truncated, or appended to when appendTo.
func (c *FileClient) Store(ctx context.Context, host, user, path string, appendTo bool, mode os.FileMode, r io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cl, err := c.Dial(ctx, host)
	if err != nil {
		return err
	}
	defer cl.Close()
	st, err := cl.Bidi(ctx, api.RESStore, nil)
	if err != nil {
		return err
	}
	if err := st.Send(&api.FileChunk{Request: &api.FileRequest{Path: path, Append: appendTo, Mode: uint32(mode.Perm()), User: user}}); err != nil {
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

package res

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/res/resio"
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
			return os.FileMode(first.Mode & 0o777), &fetched{Reader: resio.NewReader(st, first.Data), done: func() { cancel(); cl.Close() }}, nil
		}
		if errors.Is(err, io.EOF) {
			err = errors.New(host + ":" + path + ": no data")
		}
	}
	cancel()
	cl.Close()
	return 0, nil, err
}

// fetched reads a RES.Fetch stream's data; Close ends the stream.
type fetched struct {
	*resio.Reader
	done func()
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
	return resio.Store(st, &api.FileRequest{Path: path, Append: appendTo, Mode: uint32(mode.Perm()), User: user}, r)
}

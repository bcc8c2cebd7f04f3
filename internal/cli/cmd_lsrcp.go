package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/res/resio"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

var lsrcpSpec = lsfopt.New("h|V|a")

func init() {
	Register(&Command{Name: "lsrcp", Summary: "copy a file between hosts through their RES", Run: runLsrcp})
}

func lsrcpUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: lsrcp [-h] [-V] [-a] [[user@]host:]source_file [[user@]host:]target_file")
}

// runLsrcp copies a file in any direction between this host and the RES of
// another (or between two hosts' RES, streamed through this one), as the
// invoking user, in pieces: memory stays bounded whatever the file's size.
// -a appends to the target. user@ names the account on that host (its
// .lsfhosts there must accept the caller); without it the caller's
// ~/.lsfhosts mapping applies, else the caller's own account.
func runLsrcp(ctx context.Context, env *Env, args []string) int {
	res, err := lsrcpSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsrcp: %v\n", err)
		lsrcpUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		lsrcpUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if len(res.Operands) != 2 {
		lsrcpUsage(env)
		return ExitUsage
	}
	var ends [2]rcpArg
	for i, o := range res.Operands {
		if ends[i], err = parseRcpArg(o); err != nil {
			fmt.Fprintf(env.Stderr, "lsrcp: %v\n", err)
			return ExitUsage
		}
		if ends[i].User != "" && !ends[i].remote() {
			fmt.Fprintf(env.Stderr, "lsrcp: %s: a local file has no user\n", o)
			return ExitUsage
		}
		if ends[i].remote() {
			h, err := clusterHost(ctx, env, ends[i].Host)
			if err != nil {
				fmt.Fprintf(env.Stderr, "lsrcp: %v\n", firstLine(err))
				return ExitUsage
			}
			ends[i].Host = h
			if ends[i].User == "" {
				ends[i].User = mappedUser(h)
			}
		}
	}
	cc, err := loadClientConf(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsrcp: %v\n", err)
		return ExitUsage
	}
	if sameFile(env, cc, ends[0], ends[1]) {
		// LSF's lsrcp refuses to copy a file onto itself (which would
		// truncate it).
		fmt.Fprintf(env.Stderr, "%s and %s are identical\n", ends[0].Path, ends[1].Path)
		return ExitUsage
	}
	if err := rcp(ctx, env, cc, ends[0], ends[1], res.Has("a")); err != nil {
		if cmd := strings.TrimSpace(cc.conf.Get("LSF_REMOTE_COPY_CMD")); cmd != "" && !res.Has("a") {
			return remoteCopyCmd(ctx, env, cmd, res.Operands, err)
		}
		fmt.Fprintf(env.Stderr, "lsrcp: %s\n", remoteMessage(err))
		return ExitUsage
	}
	return 0
}

// sameFile reports whether src and dst name one file: the same path on the
// same host (this host's name or no host for a local file).
func sameFile(env *Env, cc *clientConf, src, dst rcpArg) bool {
	local, _ := config.LocalHostName(cc.conf, env.Getenv, nil)
	abs := func(a rcpArg) (string, string) {
		host, p := a.Host, a.Path
		if host == "" {
			host = local
			if !filepath.IsAbs(p) && env.Getwd != nil {
				if wd, err := env.Getwd(); err == nil {
					p = filepath.Join(wd, p)
				}
			}
		}
		return strings.ToLower(host), filepath.Clean(p)
	}
	sh, sp := abs(src)
	dh, dp := abs(dst)
	return sh == dh && sp == dp && (src.User == dst.User || src.User == "" || dst.User == "")
}

// remoteCopyCmd runs lsf.conf's LSF_REMOTE_COPY_CMD with the source and
// target as lsrcp got them, as LSF does when RES cannot copy the file:
// LSF_LSRCP_ERRNO holds the failure's system error number. Its status is
// lsrcp's. lsrcp itself is never run (a loop).
func remoteCopyCmd(ctx context.Context, env *Env, cmd string, operands []string, cause error) int {
	if f := strings.Fields(cmd); filepath.Base(f[0]) == "lsrcp" {
		fmt.Fprintf(env.Stderr, "lsrcp: %s\n", remoteMessage(cause))
		fmt.Fprintln(env.Stderr, "lsrcp: LSF_REMOTE_COPY_CMD must not be lsrcp")
		return ExitUsage
	}
	c := exec.CommandContext(ctx, "/bin/sh", "-c", cmd+` "$@"`, "sh", operands[0], operands[1])
	c.Env = append(env.Environ(), fmt.Sprintf("LSF_LSRCP_ERRNO=%d", copyErrno(cause)))
	c.Stdin, c.Stdout, c.Stderr = env.Stdin, env.Stdout, env.Stderr
	if err := c.Run(); err != nil {
		if c.ProcessState != nil {
			return c.ProcessState.ExitCode()
		}
		fmt.Fprintf(env.Stderr, "lsrcp: %v\n", err)
		return ExitUsage
	}
	return 0
}

// copyErrno is the system error number of a failed copy.
func copyErrno(err error) int {
	var en syscall.Errno
	if errors.As(err, &en) {
		return int(en)
	}
	var rerr *rpc.Error
	if errors.As(err, &rerr) {
		switch {
		case rerr.Code == rpc.NotFound:
			return int(syscall.ENOENT)
		case rerr.Code == rpc.PermissionDenied, rerr.Code == rpc.Unauthenticated:
			return int(syscall.EACCES)
		case strings.Contains(rerr.Msg, "connection refused"):
			return int(syscall.ECONNREFUSED)
		case strings.Contains(rerr.Msg, "i/o timeout"):
			return int(syscall.ETIMEDOUT)
		}
	}
	return int(syscall.EIO)
}

// rcpSource is an open source file: its mode and a reader of its data.
type rcpSource struct {
	mode uint32
	r    io.Reader
	done func() error
}

// rcp copies src to dst.
func rcp(ctx context.Context, env *Env, cc *clientConf, src, dst rcpArg, appendTo bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var s rcpSource
	if !src.remote() {
		f, err := os.Open(src.Path)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", src.Path)
		}
		s = rcpSource{mode: uint32(st.Mode().Perm()), r: f, done: func() error { return nil }}
	} else {
		c, err := dialRES(ctx, env, cc, src.Host)
		if err != nil {
			return err
		}
		defer c.Close()
		st, err := c.Stream(ctx, api.RESFetch, &api.FileRequest{Path: src.Path, User: src.User})
		if err != nil {
			return err
		}
		var first api.FileChunk
		if err := st.Recv(&first); err != nil {
			if err == io.EOF {
				return fmt.Errorf("%s: no data", src)
			}
			return err
		}
		s = rcpSource{mode: first.Mode, r: resio.NewReader(st, first.Data), done: func() error { return nil }}
	}
	if !dst.remote() {
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if appendTo {
			flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		mode := os.FileMode(s.mode)
		if mode == 0 {
			mode = 0o644
		}
		f, err := os.OpenFile(dst.Path, flags, mode)
		if err != nil {
			return err
		}
		if _, err := io.CopyBuffer(f, s.r, make([]byte, resio.Chunk)); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	c, err := dialRES(ctx, env, cc, dst.Host)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := c.Bidi(ctx, api.RESStore, nil)
	if err != nil {
		return err
	}
	return resio.Store(st, &api.FileRequest{Path: dst.Path, Append: appendTo, Mode: s.mode, User: dst.User}, s.r)
}

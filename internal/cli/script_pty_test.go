package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands for programs that need a terminal (bsub -Is):
//
//	pty [--on HOST] start COMMAND [ARG...]
//	                      start COMMAND (once the previous one has exited) (found on the script's PATH, in its
//	                      environment and directory) on a new 24x80
//	                      pseudo-terminal; --on runs it in HOST's network
//	                      namespace with BASALT_HOST=HOST
//	pty send TEXT         type TEXT (Go escapes: \r is Enter, \x03 Ctrl-C)
//	pty expect REGEXP [SECONDS]
//	                      wait until the terminal's output after the last
//	                      match matches REGEXP (10 s by default)
//	pty resize ROWS COLS  change the terminal's size (the command gets
//	                      SIGWINCH from the kernel)
//	pty wait STATUS       wait for the command's exit with STATUS (30 s);
//	                      its whole output is then the script's stdout
func init() {
	scriptCmds["pty"] = scriptPty
}

// ptySession is a script's command on a terminal.
type ptySession struct {
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	out    bytes.Buffer // everything read
	seen   int          // where the next expect starts
	done   chan struct{}
	err    error
}

var ptySessions sync.Map // $WORK -> *ptySession

func scriptPty(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: pty start|send|expect|resize|wait ...")
	}
	work := ts.Getenv("WORK")
	if args[0] == "start" || args[0] == "--on" {
		host := ""
		if args[0] == "--on" {
			if len(args) < 3 {
				ts.Fatalf("usage: pty --on HOST start COMMAND [ARG...]")
			}
			host, args = args[1], args[2:]
		}
		if len(args) < 2 || args[0] != "start" {
			ts.Fatalf("usage: pty [--on HOST] start COMMAND [ARG...]")
		}
		if v, ok := ptySessions.Load(work); ok {
			select {
			case <-v.(*ptySession).done:
			default:
				ts.Fatalf("pty: the command started before still runs")
			}
		}
		s := ptyStart(ts, host, args[1], args[2:])
		ptySessions.Store(work, s)
		ts.Defer(func() {
			if s.cmd.ProcessState == nil {
				s.cmd.Process.Kill()
				<-s.done
			}
			s.master.Close()
			ptySessions.CompareAndDelete(work, s)
		})
		return
	}
	v, ok := ptySessions.Load(work)
	if !ok {
		ts.Fatalf("pty: no command started")
	}
	s := v.(*ptySession)
	switch args[0] {
	case "send":
		if len(args) != 2 {
			ts.Fatalf("usage: pty send TEXT")
		}
		text, err := strconv.Unquote(`"` + strings.ReplaceAll(args[1], `"`, `\"`) + `"`)
		ts.Check(err)
		_, err = s.master.Write([]byte(text))
		ts.Check(err)
	case "expect":
		if len(args) < 2 || len(args) > 3 {
			ts.Fatalf("usage: pty expect REGEXP [SECONDS]")
		}
		re, err := regexp.Compile(args[1])
		ts.Check(err)
		timeout := 10 * time.Second
		if len(args) == 3 {
			n, err := strconv.Atoi(args[2])
			ts.Check(err)
			timeout = time.Duration(n) * time.Second
		}
		deadline := time.Now().Add(timeout)
		for {
			s.mu.Lock()
			rest := s.out.Bytes()[s.seen:]
			if loc := re.FindIndex(rest); loc != nil {
				s.seen += loc[1]
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
			select {
			case <-s.done:
				s.mu.Lock()
				rest = s.out.Bytes()[s.seen:]
				s.mu.Unlock()
				if re.Match(rest) {
					return
				}
				ts.Fatalf("pty expect %q: the command exited (%v); output since the last match:\n%q", args[1], s.err, rest)
			case <-time.After(10 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				ts.Fatalf("pty expect %q: not seen after %v; output since the last match:\n%q", args[1], timeout, rest)
			}
		}
	case "resize":
		if len(args) != 3 {
			ts.Fatalf("usage: pty resize ROWS COLS")
		}
		rows, err1 := strconv.Atoi(args[1])
		cols, err2 := strconv.Atoi(args[2])
		if err1 != nil || err2 != nil {
			ts.Fatalf("pty resize: bad size")
		}
		ts.Check(pty.Setsize(s.master, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}))
	case "wait":
		if len(args) != 2 {
			ts.Fatalf("usage: pty wait STATUS")
		}
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			ts.Fatalf("pty wait: the command has not exited after 30s")
		}
		s.mu.Lock()
		fmt.Fprintf(ts.Stdout(), "%s", s.out.Bytes())
		s.mu.Unlock()
		if got := s.cmd.ProcessState.ExitCode(); got != want {
			ts.Fatalf("pty wait: exit status %d, want %d", got, want)
		}
	default:
		ts.Fatalf("pty: unknown subcommand %q", args[0])
	}
}

func ptyStart(ts *testscript.TestScript, host, name string, args []string) *ptySession {
	path, err := exec.LookPath(name)
	if err != nil {
		// The script's PATH, not the test process's.
		for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
			if st, e := os.Stat(dir + "/" + name); e == nil && !st.IsDir() {
				path, err = dir+"/"+name, nil
				break
			}
		}
	}
	ts.Check(err)
	cmd := exec.Command(path, args...)
	cmd.Dir = ts.MkAbs(".")
	env := append(os.Environ(), "PWD="+cmd.Dir)
	for _, k := range []string{"PATH", "LSF_ENVDIR", "BASALT_HOST", "HOME", "WORK", "TMPDIR"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	if host != "" {
		env = append(env, "BASALT_HOST="+host)
	}
	env = append(env, "TERM=xterm", "PS1=PROMPT$ ")
	cmd.Env = env
	s := &ptySession{cmd: cmd, done: make(chan struct{})}
	start := func() error {
		m, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
		s.master = m
		return err
	}
	if host != "" {
		err = inHost(ts, host, start)
	} else {
		err = start()
	}
	ts.Check(err)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := s.master.Read(buf)
			if n > 0 {
				s.mu.Lock()
				s.out.Write(buf[:n])
				s.mu.Unlock()
			}
			if err != nil {
				break
			}
		}
		s.err = cmd.Wait()
		close(s.done)
	}()
	return s
}

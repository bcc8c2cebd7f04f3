package shepherd

import (
	"fmt"
	"os"
	"syscall"

	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// childKind says what a child of the shepherd is.
type childKind int

const (
	kindQueuePre childKind = iota + 1
	kindJobPre
	kindJob
	kindJobPost
	kindQueuePost
	kindEexecEnd
	kindControl   // a JOB_CONTROLS command
	kindMailBegin // the mail program sending the -B notice
	kindMailEnd   // the mail program sending the job report
	kindChkpnt    // echkpnt
	kindResize    // a resize notification command (resize.go)
)

func (k childKind) String() string {
	return [...]string{"?", "queue pre-exec", "job pre-exec", "job", "job post-exec", "queue post-exec",
		"eexec END", "job control command", "start notice mail", "job report mail", "echkpnt",
		"resize notification command"}[k]
}

// child is a process the shepherd started through the exec helper.
type child struct {
	pid     int
	kind    childKind
	res     *sbdwire.ExecResult // nil until the helper's result pipe closed
	resDone bool
	exited  bool
	ws      syscall.WaitStatus
	ru      syscall.Rusage
}

type exitEvent struct {
	pid int
	ws  syscall.WaitStatus
	ru  syscall.Rusage
}

type resultEvent struct {
	pid int
	res *sbdwire.ExecResult
}

// spawn starts the exec helper with spec; stdin, when not nil, becomes the
// helper's standard input. The helper's own diagnostics go to LogFile, or
// the spool's shepherd.log.
func (s *Shepherd) spawn(kind childKind, spec *sbdwire.ExecSpec, stdin *os.File) (*child, error) {
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return nil, err
	}
	in := s.devnull
	if stdin != nil {
		in = stdin
	}
	argv := append(append([]string(nil), s.p.ExecArgv...), "-exec")
	path := s.p.ExecPath
	if path == "" {
		path = argv[0]
	}
	if s.logFile == nil {
		f, err := os.OpenFile(s.dir.Log(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			specR.Close()
			specW.Close()
			resR.Close()
			resW.Close()
			return nil, fmt.Errorf("starting %s: %w", kind, err)
		}
		s.logFile, s.ownLog = f, true
	}
	attr := &syscall.ProcAttr{
		Files: []uintptr{in.Fd(), s.devnull.Fd(), s.logFile.Fd(), specR.Fd(), resW.Fd()},
	}
	if t := s.tty; t != nil && kind == kindJob {
		// An interactive job's terminal or pipes (tty.go): the helper
		// keeps them where no -i, -o or -e names a file; with a pty it
		// leads a session whose controlling terminal that is.
		attr.Files[0], attr.Files[1], attr.Files[2] = uintptr(t.in), uintptr(t.out), uintptr(t.errf)
		if t.pty {
			attr.Sys = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			spec.Setpgid = false // a session leader leads its group already
		}
	}
	pid, err := s.host.forkExec(s, path, argv, attr)
	specR.Close()
	resW.Close()
	if err != nil {
		specW.Close()
		resR.Close()
		return nil, fmt.Errorf("starting %s: %w", kind, err)
	}
	payload := wire.Marshal(spec)
	go func() {
		specW.Write(payload)
		specW.Close()
	}()
	go func() {
		res := readResults(resR)
		resR.Close()
		select {
		case s.results <- resultEvent{pid: pid, res: res}:
		case <-s.finished:
		}
	}()
	c := &child{pid: pid, kind: kind}
	s.children[pid] = c
	return c, nil
}

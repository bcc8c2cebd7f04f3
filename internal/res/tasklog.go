package res

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/mbd/eventlog"
)

// RES's task log (lsadmin reslogon, reslogoff; lsf.conf LSF_RES_ACCT turns
// it on from the start): a record per finished task appended to
// lsf.acct.<host> in LSF_RES_ACCTDIR (/tmp when unset or unusable), in
// LSF's lsf.acct format: pid "user" status dispatch_time end_time
// "from_host" "exec_host" "cwd" "command line" and the 19 lsfRusage
// numbers (utime and stime in seconds "%1.6f", the rest "%1.0f", -1 where
// Linux has none).

// taskLog is whether tasks are logged and above which CPU time.
type taskLog struct {
	mu    sync.Mutex
	init  bool
	on    bool
	cpuMs int64
}

// taskRecord is a finished task as lsf.acct records it.
type taskRecord struct {
	pid        int
	user       string
	status     int // the wait status
	disp, term time.Time
	from       string
	cwd        string
	argv       []string
	ru         *syscall.Rusage // nil: unknown (-1s)
}

// setTaskLog turns the task log on (logging tasks of more than cpuMs
// milliseconds of CPU time) or off.
func (s *Server) setTaskLog(on bool, cpuMs int64) {
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	s.tasks.init, s.tasks.on, s.tasks.cpuMs = true, on, cpuMs
}

// logTask appends r to the task log when it is on and the task used more
// CPU time than its threshold.
func (s *Server) logTask(r *taskRecord) {
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	if !s.tasks.init {
		s.tasks.init = true
		s.tasks.on, s.tasks.cpuMs = s.AcctCPU >= 0, int64(max(s.AcctCPU, 0))
	}
	if !s.tasks.on {
		return
	}
	if s.tasks.cpuMs > 0 {
		if r.ru == nil {
			return
		}
		cpu := time.Duration(r.ru.Utime.Nano()+r.ru.Stime.Nano()) / time.Millisecond
		if int64(cpu) <= s.tasks.cpuMs {
			return
		}
	}
	line := r.format(s.Host)
	name := "lsf.acct." + s.Host
	dir := s.AcctDir
	if dir == "" {
		dir = "/tmp"
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil && dir != "/tmp" {
		s.log().Warn("LSF_RES_ACCTDIR unusable: the task log goes to /tmp", "dir", dir, "err", err)
		f, err = os.OpenFile(filepath.Join("/tmp", name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	}
	if err != nil {
		s.log().Error("cannot write the task log", "err", err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		s.log().Error("cannot write the task log", "file", f.Name(), "err", err)
	}
}

// format is the record's lsf.acct line.
func (r *taskRecord) format(host string) string {
	b := make([]byte, 0, 256)
	b = strconv.AppendInt(b, int64(r.pid), 10)
	b = appendQuoted(b, r.user)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(r.status), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, r.disp.Unix(), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, r.term.Unix(), 10)
	b = appendQuoted(b, r.from)
	b = appendQuoted(b, host)
	b = appendQuoted(b, r.cwd)
	b = appendQuoted(b, strings.Join(r.argv, " "))
	ru := [19]float64{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	if u := r.ru; u != nil {
		ru = [19]float64{
			float64(u.Utime.Nano()) / 1e9, float64(u.Stime.Nano()) / 1e9, float64(u.Maxrss), float64(u.Ixrss), -1,
			float64(u.Idrss), float64(u.Isrss), float64(u.Minflt), float64(u.Majflt), float64(u.Nswap),
			float64(u.Inblock), float64(u.Oublock), -1, float64(u.Msgsnd), float64(u.Msgrcv),
			float64(u.Nsignals), float64(u.Nvcsw), float64(u.Nivcsw), -1,
		}
	}
	for i, v := range ru {
		b = append(b, ' ')
		if i < 2 {
			b = strconv.AppendFloat(b, v, 'f', 6, 64)
		} else {
			b = strconv.AppendFloat(b, v, 'f', 0, 64)
		}
	}
	return string(append(b, '\n'))
}

// appendQuoted appends ` "s"`, quoted as LSF's log files quote strings.
func appendQuoted(b []byte, s string) []byte {
	return eventlog.AppendQuoted(append(b, ' '), s)
}

// taskRecordOf is the record of t, finished.
func taskRecordOf(t *task, user, from string, argv []string, disp time.Time) *taskRecord {
	r := &taskRecord{pid: t.cmd.Process.Pid, user: user, disp: disp, term: time.Now(), from: from, cwd: t.cmd.Dir, argv: argv}
	if ps := t.cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
			r.status = int(ws)
		}
		r.ru, _ = ps.SysUsage().(*syscall.Rusage)
	}
	return r
}

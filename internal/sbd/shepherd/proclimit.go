package shepherd

import (
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
)

// The process limit (bsub -p, PROCESSLIMIT) is LSF's: the job ends with
// TERM_PROCESSLIMIT once it has more processes than allowed. The cgroup's
// pids.max cannot be that limit, since it counts tasks (a process's threads
// too: a Java job under -p 4 could not start its threads). So a job with a
// process limit and a cgroup gets two guards:
//   - pids.max at tasksPerProcess tasks per allowed process (or -T, if
//     lower): the kernel refuses a fork bomb's forks past that ceiling at
//     once, however fast it forks;
//   - a watch every procWatchInterval that reads the cgroup's task count
//     and, only when it is above the limit, counts the processes: a job past
//     its limit ends within that interval instead of at the next usage
//     sample (SBD_SLEEP_TIME-like, 10 s by default).
const (
	tasksPerProcess   = 64
	procWatchInterval = 100 * time.Millisecond
)

// pidsCeiling is the job cgroup's pids.max (0: none): THREADLIMIT (-T) is
// what pids.max counts, and a process limit bounds the tasks at
// tasksPerProcess per process.
func pidsCeiling(l *api.Limits) int64 {
	n := l.Thread
	if p := l.Process; p > 0 && p <= 1<<40/tasksPerProcess {
		if c := p * tasksPerProcess; n <= 0 || c < n {
			n = c
		}
	}
	return n
}

// armProcWatch starts the process limit's watch for a job that has a
// process limit and a cgroup to count in.
func (s *Shepherd) armProcWatch() {
	if s.procWatch != nil || s.cg == nil || s.l.Limits == nil || s.l.Limits.Process <= 0 || s.ended {
		return
	}
	s.procWatch = s.clk.NewTicker(procWatchInterval)
}

// watchProcs ends the job once it holds more processes than its limit. The
// task count is one small read; processes are listed only when there are
// more tasks than the limit allows processes.
func (s *Shepherd) watchProcs() {
	l := s.l.Limits
	if s.cg == nil || l == nil || l.Process <= 0 || s.ended || s.term != nil {
		return
	}
	tasks, err := s.cg.Tasks()
	if err != nil || tasks <= l.Process {
		return
	}
	pids, err := s.cg.PIDs()
	if err != nil || int64(len(pids)) <= l.Process {
		return
	}
	s.maxProcs = max(s.maxProcs, len(pids))
	s.limitExceeded("TERM_PROCESSLIMIT")
}

func tickerC(t clock.Ticker) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C()
}

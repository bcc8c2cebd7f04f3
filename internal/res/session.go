package res

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// killSession kills, with SIGKILL, every process whose session is sid
// (from /proc/<pid>/stat), a few rounds while new ones appear (a fork
// racing the first round).
func killSession(sid int) {
	for range 4 {
		pids := sessionPIDs("/proc", sid)
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// sessionPIDs lists the processes of session sid.
func sessionPIDs(proc string, sid int) []int {
	d, err := os.Open(proc)
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var out []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(proc + "/" + n + "/stat")
		if err != nil {
			continue
		}
		if s, ok := statSession(string(b)); ok && s == sid {
			out = append(out, pid)
		}
	}
	return out
}

// statSession reads the session field of a /proc/<pid>/stat line (the
// sixth field; the command name in parentheses may hold spaces); zombies
// are skipped.
func statSession(stat string) (int, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 4 || f[0] == "Z" {
		return 0, false
	}
	sid, err := strconv.Atoi(f[3])
	return sid, err == nil
}

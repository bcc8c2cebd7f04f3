package res

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestTaskLog: nothing is logged until reslogon (LSF_RES_ACCT unset);
// then each task as an lsf.acct line; -c keeps only tasks of more CPU
// time; reslogoff stops it.
func TestTaskLog(t *testing.T) {
	dir := t.TempDir()
	s := &Server{Host: "h1", AcctDir: dir, AcctCPU: -1}
	ru := &syscall.Rusage{Utime: syscall.Timeval{Sec: 0, Usec: 40000}, Stime: syscall.Timeval{Usec: 20000}, Maxrss: 2048, Minflt: 7, Nvcsw: 3}
	rec := &taskRecord{pid: 42, user: "alice", status: 5 << 8, disp: time.Unix(1000, 0), term: time.Unix(1003, 0),
		from: "h2", cwd: "/home/alice", argv: []string{"sh", "-c", `echo "hi"`}, ru: ru}
	path := filepath.Join(dir, "lsf.acct.h1")
	s.logTask(rec)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("task logged before reslogon: %v", err)
	}
	s.setTaskLog(true, 0)
	s.logTask(rec)
	s.setTaskLog(true, 60) // 60 ms: this task used exactly 60, not more
	s.logTask(rec)
	s.setTaskLog(true, 59)
	rec.pid = 43
	s.logTask(rec)
	s.setTaskLog(false, 0)
	rec.pid = 44
	s.logTask(rec)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const line = ` "alice" 1280 1000 1003 "h2" "h1" "/home/alice" "sh -c echo ""hi""" 0.040000 0.020000 2048 0 -1 0 0 7 0 0 0 0 -1 0 0 0 3 0 -1` + "\n"
	if want := "42" + line + "43" + line; string(b) != want {
		t.Errorf("task log:\n%s\nwant:\n%s", b, want)
	}
}

// TestTaskLogFromConf: LSF_RES_ACCT=0 logs every task from the start, a
// task of unknown usage too.
func TestTaskLogFromConf(t *testing.T) {
	dir := t.TempDir()
	s := &Server{Host: "h1", AcctDir: dir, AcctCPU: 0}
	s.logTask(&taskRecord{pid: 1, user: "u"})
	b, err := os.ReadFile(filepath.Join(dir, "lsf.acct.h1"))
	if err != nil || len(b) == 0 || b[0] != '1' {
		t.Fatalf("%q, %v", b, err)
	}
}

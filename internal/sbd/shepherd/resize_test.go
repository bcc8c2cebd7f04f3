package shepherd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// Resize notification commands run one at a time, in order, with the
// variables they are given over the job's environment; a preemption's
// suspension sent while one runs reaches the job only when it has ended.
func TestResizeNotification(t *testing.T) {
	j := newJob(t, "sleep 300")
	sub := j.launch.Spec.SubCwd
	out := filepath.Join(sub, "notify")
	r := j.start(t)
	r.running()
	cmd := "echo start $LSB_RESIZE_EVENT $LSB_MCPU_HOSTS $FROM_SUBMITTER >> " + out + "; sleep 1; echo end >> " + out
	r.send(&sbdwire.Command{Op: sbdwire.OpResize, ResizeCmd: cmd,
		ResizeEnv: []string{"LSB_RESIZE_EVENT=grow", "LSB_MCPU_HOSTS=hostA 2 "}})
	r.send(&sbdwire.Command{Op: sbdwire.OpResize, ResizeCmd: cmd,
		ResizeEnv: []string{"LSB_RESIZE_EVENT=shrink", "LSB_MCPU_HOSTS=hostA 1 "}})
	r.send(&sbdwire.Command{Op: sbdwire.OpSuspend, SuspReasons: suspReschedPreempt})
	r.until("SSUSP", func(st *api.JobStatusReport) bool { return st.State == api.StateSSusp })
	// Suspended after the first command ended (and the second may have
	// started since).
	if got := readFile(t, out); !strings.HasPrefix(got, "start grow hostA 2 yes\nend\n") {
		t.Fatalf("notification output when the job was suspended:\n%s", got)
	}
	waitFor(t, "the second notification", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == "start grow hostA 2 yes\nend\nstart shrink hostA 1 yes\nend\n"
	})
	r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER"})
	if st := r.final(); st.State != api.StateExit {
		t.Errorf("final %+v", st)
	}
}

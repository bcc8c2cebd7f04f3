package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

func TestWriteForwarded(t *testing.T) {
	at := time.Date(2026, 11, 29, 14, 8, 0, 0, time.Local).Unix()
	jobs := forwardedOnly([]*api.JobRecord{
		{JobID: 122, User: "lsfuser", State: api.StateRun, Queue: "queue1", JobName: "local"},
		{JobID: 123, User: "lsfuser", State: api.StateRun, Queue: "queue1", JobName: "sleep 1234",
			ExecHosts: []*api.ExecHost{{Host: "hostC@cluster3", Slots: 1}}, FwdCluster: "cluster3", FwdTime: at},
	})
	var b strings.Builder
	if err := writeForwarded(&b, jobs, &output.Options{Now: time.Unix(at, 0)}); err != nil {
		t.Fatal(err)
	}
	want := "JOBID   USER    STAT  QUEUE      EXEC_HOST   JOB_NAME   CLUSTER    FORWARD_TIME\n" +
		"123     lsfuser RUN   queue1     hostC@clust sleep 1234 cluster3   Nov 29 14:08\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

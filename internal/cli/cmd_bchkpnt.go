package cli

import (
	"fmt"
	"strconv"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

// bchkpnt checkpoints jobs: bchkpnt [-f] [-k] [-p minutes | -p 0]
// [job_ID ...], or with -u/-q/-m/-J and job ID 0; one of the job control
// commands (cmd_jobctl.go).
var bchkpntCtl = &jobCtl{name: "bchkpnt", op: api.OpChkpnt, spec: lsfopt.New("f|k|p:|u:|q:|m:|J:|app:|h|V"),
	usage: "bchkpnt [-f] [-k] [-p minutes | -p 0] [-app application_profile] [-J job_name] [-m host_name] [-q queue_name] [-u user_name | -u all] [0] [job_ID ... | \"job_ID[index_list]\" ...]",
	done: func(ref string, req *api.ControlRequest, r *api.ControlResult) string {
		return fmt.Sprintf("Job <%s> is being checkpointed", ref)
	},
	extra: func(env *Env, res *lsfopt.Result, req *api.ControlRequest) ([]string, error) {
		req.ChkpntKill, req.ChkpntForce = res.Has("k"), res.Has("f")
		if p, ok := res.Last("p"); ok {
			m, err := strconv.Atoi(p)
			if err != nil || m < 0 {
				env.Errorf("%s: Bad checkpoint period value", p)
				return nil, errReported
			}
			req.ChkpntPeriod, req.SetChkpntPeriod = int64(m)*60, true
		}
		return res.Operands, nil
	}}

func init() {
	Register(&Command{Name: "bchkpnt", Summary: "checkpoint jobs", Run: bchkpntCtl.run})
}

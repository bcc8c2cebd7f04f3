package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/chkpnt"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

// brestart resubmits a checkpointed job to restart from its checkpoint:
// brestart [-f] [-q queue ...] [-m "host ..."] [-R res_req] [-W run_limit]
// checkpoint_dir job_ID. The job gets a new ID (LSF's); mbatchd fills in
// the rest of the submission from the checkpointed job (internal/mbd,
// restart.go) or, when it no longer knows the job, takes the submission
// the checkpoint saved (chkpnt.SubmissionFile, the caller's own), and the
// job runs erestart in its place.
var brestartSpec = lsfopt.New("f|q:|m:|R:|W:|h|V")

const brestartUsage = `brestart [-f] [-q "queue_name ..."] [-m "host_name ..."] [-R "res_req"] [-W [hour:]minute] checkpoint_dir job_ID | "job_ID[index]"`

func init() {
	Register(&Command{Name: "brestart", Summary: "restart checkpointed jobs", Run: runBrestart})
}

func runBrestart(ctx context.Context, env *Env, args []string) int {
	res, err := brestartSpec.Parse(args)
	if err != nil || len(res.Operands) != 2 && !res.Has("h") && !res.Has("V") {
		if err != nil {
			env.Errorf("brestart: %v", err)
		}
		env.Errorf("Usage: %s", brestartUsage)
		return ExitUsage
	}
	if res.Has("h") {
		env.Errorf("Usage: %s", brestartUsage)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	refs, err := parseJobIDs(res.Operands[1:])
	if err != nil || len(refs) != 1 {
		env.Errorf("%s: Bad job ID", res.Operands[1])
		return ExitUsage
	}
	dir := res.Operands[0]
	if !filepath.IsAbs(dir) {
		wd, err := env.Getwd()
		if err != nil {
			return notSubmitted(env, "%v", err)
		}
		dir = filepath.Join(wd, dir)
	}
	jd := chkpnt.JobDir(dir, refs[0].JobID, refs[0].Index)
	if st, err := os.Stat(jd); err != nil || !st.IsDir() {
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return notSubmitted(env, "%s: No such checkpoint directory", jd)
		}
		return notSubmitted(env, "%s: %v", jd, errors.Unwrap(err))
	}
	if !chkpnt.Checkpointed(jd) {
		return notSubmitted(env, "%s: The job has not been checkpointed", jd)
	}
	saved, err := savedSubmission(jd)
	if err != nil {
		return notSubmitted(env, "%v", err)
	}
	spec := &api.JobSpec{RestartDir: jd, RestartForce: res.Has("f"), UID: int32(os.Getuid()), GID: int32(os.Getgid()), RestartSub: saved}
	if q, ok := res.Last("q"); ok {
		spec.Queues = strings.Fields(q)
	}
	if m, ok := res.Last("m"); ok {
		spec.AskedHosts = strings.Fields(m)
	}
	spec.ResReq = res.All("R")
	if w, ok := res.Last("W"); ok {
		secs, _, err := parseMinutes(w, "run limit")
		if err != nil {
			return notSubmitted(env, "%v", err)
		}
		spec.Limits = &api.Limits{Run: secs}
	}
	cc, err := loadClientConf(env)
	if err != nil {
		return notSubmitted(env, "%v", err)
	}
	return bsubSubmit(ctx, env, cc, []*api.JobSpec{spec}, false)
}

// savedSubmission reads the submission a checkpoint saved in jd, when
// there is one (nil otherwise). It must be the caller's: the restarted job
// is the caller's own submission.
func savedSubmission(jd string) ([]byte, error) {
	p := filepath.Join(jd, chkpnt.SubmissionFile)
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, errors.Unwrap(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || !st.Mode().IsRegular() || int(sys.Uid) != os.Getuid() {
		return nil, fmt.Errorf("%s: the saved submission is not yours", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSavedSubmission+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(b) > maxSavedSubmission {
		return nil, fmt.Errorf("%s: the saved submission is too large", p)
	}
	var spec api.JobSpec
	if err := spec.UnmarshalWire(b); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return b, nil
}

// maxSavedSubmission bounds a saved submission (mbatchd refuses a job
// larger than its own bound anyway).
const maxSavedSubmission = 64 << 20

package esub

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// Apply changes spec as an esub's LSB_SUB_MODIFY_FILE asks: each
// LSB_SUB_* parameter sets its option (SUB_RESET clears it). It returns a
// warning for each assignment it could not apply (unknown name, bad
// number); they do not stop the submission.
func Apply(spec *api.JobSpec, as []Assignment) []string {
	var warns []string
	for _, a := range as {
		if err := apply(spec, a.Name, a.Value); err != nil {
			warns = append(warns, fmt.Sprintf("line %d: %s: %v", a.Line, a.Name, err))
		}
	}
	return warns
}

func limits(spec *api.JobSpec) *api.Limits {
	if spec.Limits == nil {
		spec.Limits = &api.Limits{}
	}
	return spec.Limits
}

func apply(spec *api.JobSpec, name, v string) error {
	reset := v == Reset
	str := func(dst *string) error {
		if reset {
			*dst = ""
		} else {
			*dst = v
		}
		return nil
	}
	list := func(dst *[]string) error {
		if reset {
			*dst = nil
		} else {
			*dst = strings.Fields(v)
		}
		return nil
	}
	flag := func(dst *bool) error {
		switch {
		case reset:
			*dst = false
		case strings.EqualFold(v, "Y"):
			*dst = true
		case strings.EqualFold(v, "N"):
			*dst = false
		default:
			return fmt.Errorf("%q is not Y or N", v)
		}
		return nil
	}
	i64 := func(dst *int64) error {
		if reset {
			*dst = 0
			return nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a number", v)
		}
		*dst = n
		return nil
	}
	i32 := func(dst *int32) error {
		var n int64
		if err := i64(&n); err != nil {
			return err
		}
		if n > 1<<31-1 {
			return fmt.Errorf("%q is too large", v)
		}
		*dst = int32(n)
		return nil
	}
	switch name {
	case "LSB_SUB_JOB_NAME":
		return str(&spec.JobName)
	case "LSB_SUB_QUEUE":
		return list(&spec.Queues)
	case "LSB_SUB_IN_FILE":
		return str(&spec.InFile)
	case "LSB_SUB_OUT_FILE":
		return str(&spec.OutFile)
	case "LSB_SUB_ERR_FILE":
		return str(&spec.ErrFile)
	case "LSB_SUB_EXCLUSIVE":
		return flag(&spec.Exclusive)
	case "LSB_SUB_NOTIFY_END":
		return flag(&spec.NotifyEnd)
	case "LSB_SUB_NOTIFY_BEGIN":
		return flag(&spec.NotifyBegin)
	case "LSB_SUB_USER_GROUP":
		return str(&spec.UserGroup)
	case "LSB_SUB_CHKPNT_PERIOD":
		return i64(&spec.ChkpntPeriod)
	case "LSB_SUB_CHKPNT_DIR":
		return str(&spec.ChkpntDir)
	case "LSB_SUB_RERUNNABLE":
		return flag(&spec.Rerunnable)
	case "LSB_SUB_DEPEND_COND":
		return str(&spec.Dependency)
	case "LSB_SUB_RES_REQ":
		if reset {
			spec.ResReq = nil
		} else {
			spec.ResReq = []string{v}
		}
		return nil
	case "LSB_SUB_PRE_EXEC":
		return str(&spec.PreExec)
	case "LSB_SUB_POST_EXEC":
		return str(&spec.PostExec)
	case "LSB_SUB_LOGIN_SHELL":
		return str(&spec.LoginShell)
	case "LSB_SUB_MAIL_USER":
		return str(&spec.MailUser)
	case "LSB_SUB_PROJECT_NAME":
		return str(&spec.Project)
	case "LSB_SUB_INTERACTIVE":
		return flag(&spec.Interactive)
	case "LSB_SUB_HOSTS":
		return list(&spec.AskedHosts)
	case "LSB_SUB_NUM_PROCESSORS":
		return i32(&spec.MinProcs)
	case "LSB_SUB_MAX_NUM_PROCESSORS":
		return i32(&spec.MaxProcs)
	case "LSB_SUB_BEGIN_TIME":
		return i64(&spec.BeginTime)
	case "LSB_SUB_TERM_TIME":
		return i64(&spec.TermTime)
	case "LSB_SUB_ADDITIONAL":
		return str(&spec.EsubParams)
	case "LSB_SUB_RLIMIT_CPU":
		return i64(&limits(spec).CPU)
	case "LSB_SUB_RLIMIT_FSIZE":
		return i64(&limits(spec).File)
	case "LSB_SUB_RLIMIT_DATA":
		return i64(&limits(spec).Data)
	case "LSB_SUB_RLIMIT_STACK":
		return i64(&limits(spec).Stack)
	case "LSB_SUB_RLIMIT_CORE":
		return i64(&limits(spec).Core)
	case "LSB_SUB_RLIMIT_RSS":
		return i64(&limits(spec).Mem)
	case "LSB_SUB_RLIMIT_RUN":
		return i64(&limits(spec).Run)
	case "LSB_SUB_RLIMIT_SWAP":
		return i64(&limits(spec).Swap)
	case "LSB_SUB_RLIMIT_PROCESS":
		return i64(&limits(spec).Process)
	case "LSB_SUB_COMMAND_LINE":
		return str(&spec.Command)
	case "LSB_SUB_JOB_DESCRIPTION":
		return str(&spec.Description)
	case "LSB_SUB2_JOB_PRIORITY":
		return i32(&spec.UserPriority)
	case "LSB_SUB_HOLD":
		return flag(&spec.Hold)
	case "LSB_SUB_OTHER_FILES":
		if reset {
			spec.Files = nil
		}
		return nil
	}
	if idx, ok := strings.CutPrefix(name, "LSB_SUB_OTHER_FILES_"); ok {
		n, err := strconv.Atoi(idx)
		if err != nil || n < 0 || n > 1<<16 {
			return fmt.Errorf("bad file index")
		}
		f := strings.Fields(v)
		if len(f) != 3 {
			return fmt.Errorf("%q is not \"local op remote\"", v)
		}
		for len(spec.Files) <= n {
			spec.Files = append(spec.Files, &api.FileTransfer{})
		}
		spec.Files[n] = &api.FileTransfer{Local: f[0], Op: f[1], Remote: f[2]}
		return nil
	}
	return fmt.Errorf("not a parameter esub can change")
}

// ApplyEnv sets the job environment variables an esub wrote to
// LSB_SUB_MODIFY_ENVFILE (SUB_RESET removes one).
func ApplyEnv(env []string, as []Assignment) []string {
	idx := map[string]int{}
	out := append([]string(nil), env...)
	for i, kv := range out {
		if k, _, ok := strings.Cut(kv, "="); ok {
			idx[k] = i
		}
	}
	for _, a := range as {
		if a.Value == Reset {
			if i, ok := idx[a.Name]; ok {
				out[i] = ""
				delete(idx, a.Name)
			}
			continue
		}
		if i, ok := idx[a.Name]; ok {
			out[i] = a.Name + "=" + a.Value
			continue
		}
		idx[a.Name] = len(out)
		out = append(out, a.Name+"="+a.Value)
	}
	clean := out[:0]
	for _, kv := range out {
		if kv != "" {
			clean = append(clean, kv)
		}
	}
	return clean
}

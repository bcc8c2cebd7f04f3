package esub

import (
	"sort"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// AbortValue is LSB_SUB_ABORT_VALUE: an esub exiting with it rejects the
// submission.
const AbortValue = 97

// Reset is the value of a parameter bmod deletes.
const Reset = "SUB_RESET"

// Param is one line of the parameter file.
type Param struct {
	Name  string
	Value string
	// Kind says how the value is written: a quoted string, a bare number,
	// or Y.
	Kind Kind
}

// Kind is how a parameter's value is written.
type Kind int

// Kinds of values.
const (
	String Kind = iota
	Number
	Flag
)

// Params lists the parameters of spec as LSF writes them, in name order.
func Params(spec *api.JobSpec) []Param {
	var out []Param
	str := func(n, v string) {
		if v != "" {
			out = append(out, Param{Name: n, Value: v, Kind: String})
		}
	}
	num := func(n string, v int64) {
		if v != 0 {
			out = append(out, Param{Name: n, Value: strconv.FormatInt(v, 10), Kind: Number})
		}
	}
	flag := func(n string, v bool) {
		if v {
			out = append(out, Param{Name: n, Value: "Y", Kind: Flag})
		}
	}
	str("LSB_SUB_JOB_NAME", spec.JobName)
	str("LSB_SUB_QUEUE", strings.Join(spec.Queues, " "))
	str("LSB_SUB_IN_FILE", spec.InFile)
	str("LSB_SUB_OUT_FILE", spec.OutFile)
	str("LSB_SUB_ERR_FILE", spec.ErrFile)
	flag("LSB_SUB_EXCLUSIVE", spec.Exclusive)
	flag("LSB_SUB_NOTIFY_END", spec.NotifyEnd)
	flag("LSB_SUB_NOTIFY_BEGIN", spec.NotifyBegin)
	str("LSB_SUB_USER_GROUP", spec.UserGroup)
	num("LSB_SUB_CHKPNT_PERIOD", spec.ChkpntPeriod)
	str("LSB_SUB_CHKPNT_DIR", spec.ChkpntDir)
	flag("LSB_SUB_RERUNNABLE", spec.Rerunnable)
	str("LSB_SUB_DEPEND_COND", spec.Dependency)
	str("LSB_SUB_RES_REQ", strings.Join(spec.ResReq, " "))
	str("LSB_SUB_PRE_EXEC", spec.PreExec)
	str("LSB_SUB_POST_EXEC", spec.PostExec)
	str("LSB_SUB_LOGIN_SHELL", spec.LoginShell)
	str("LSB_SUB_MAIL_USER", spec.MailUser)
	str("LSB_SUB_PROJECT_NAME", spec.Project)
	flag("LSB_SUB_INTERACTIVE", spec.Interactive)
	str("LSB_SUB_HOSTS", strings.Join(spec.AskedHosts, " "))
	num("LSB_SUB_NUM_PROCESSORS", int64(spec.MinProcs))
	num("LSB_SUB_MAX_NUM_PROCESSORS", int64(spec.MaxProcs))
	num("LSB_SUB_BEGIN_TIME", spec.BeginTime)
	num("LSB_SUB_TERM_TIME", spec.TermTime)
	if n := len(spec.Files); n > 0 {
		num("LSB_SUB_OTHER_FILES", int64(n))
		for i, f := range spec.Files {
			str("LSB_SUB_OTHER_FILES_"+strconv.Itoa(i), f.Local+" "+f.Op+" "+f.Remote)
		}
	}
	str("LSB_SUB_ADDITIONAL", spec.EsubParams)
	if l := spec.Limits; l != nil {
		num("LSB_SUB_RLIMIT_CPU", l.CPU)
		num("LSB_SUB_RLIMIT_FSIZE", l.File)
		num("LSB_SUB_RLIMIT_DATA", l.Data)
		num("LSB_SUB_RLIMIT_STACK", l.Stack)
		num("LSB_SUB_RLIMIT_CORE", l.Core)
		if l.CoreZero {
			out = append(out, Param{Name: "LSB_SUB_RLIMIT_CORE", Value: "0", Kind: Number})
		}
		num("LSB_SUB_RLIMIT_RSS", l.Mem)
		num("LSB_SUB_RLIMIT_RUN", l.Run)
		num("LSB_SUB_RLIMIT_SWAP", l.Swap)
		num("LSB_SUB_RLIMIT_PROCESS", l.Process)
	}
	str("LSB_SUB_COMMAND_LINE", spec.Command)
	str("LSB_SUB_JOB_DESCRIPTION", spec.Description)
	num("LSB_SUB2_JOB_PRIORITY", int64(spec.UserPriority))
	flag("LSB_SUB_HOLD", spec.Hold)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ParamFile is the content of LSB_SUB_PARM_FILE: one NAME=value line per
// parameter, sourceable by the Bourne shell.
func ParamFile(ps []Param) []byte {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Name)
		b.WriteByte('=')
		if p.Kind == String && p.Value != Reset {
			b.WriteString(Quote(p.Value))
		} else {
			b.WriteString(p.Value)
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// Quote double-quotes s for the shell: ", \, $ and ` are escaped.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '$', '`':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

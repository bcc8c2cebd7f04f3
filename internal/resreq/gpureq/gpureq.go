package gpureq

import (
	"fmt"
	"strconv"
	"strings"
)

// Mode is the GPU compute mode a job runs in.
type Mode int8

// Modes.
const (
	ModeUnset Mode = iota
	ModeShared
	ModeExclusiveProcess
)

func (m Mode) String() string {
	switch m {
	case ModeShared:
		return "shared"
	case ModeExclusiveProcess:
		return "exclusive_process"
	}
	return ""
}

// Tri is an option that may be unset.
type Tri int8

// Tri values.
const (
	Unset Tri = iota
	Yes
	No
)

func (t Tri) String() string {
	switch t {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return ""
}

// Req is a GPU requirement; zero fields are unset.
type Req struct {
	Num     int  // GPUs per host (or per task with PerTask)
	PerTask bool // num=N/task
	Mode    Mode
	// MPS is "", "no", "yes", "per_socket" or "per_gpu"; MPSShare and
	// MPSNoCVD are its ",shared" and ",nocvd" flags.
	MPS        string
	MPSShare   bool
	MPSNoCVD   bool
	JExclusive Tri
	GModel     string
}

// Error is a syntax error at a byte offset of the requirement.
type Error struct {
	Pos int
	Msg string
}

func (e *Error) Error() string {
	return fmt.Sprintf("GPU requirement: %s at position %d", e.Msg, e.Pos)
}

// MaxNum bounds num= (no host has more GPUs).
const MaxNum = 1024

// unsupported are LSF 10.1 options Basalt refuses.
var unsupported = map[string]bool{"aff": true, "block": true, "gpack": true, "glink": true, "gvendor": true,
	"gtile": true, "gmem": true, "nvlink": true, "mig": true}

// Parse reads a requirement. "-" and "" are the empty requirement (every
// option from the default).
func Parse(s string) (Req, error) {
	var r Req
	t := strings.TrimSpace(s)
	if t == "" || t == "-" {
		return r, nil
	}
	seen := map[string]bool{}
	pos := 0
	for pos <= len(s) {
		end := strings.IndexByte(s[pos:], ':')
		if end < 0 {
			end = len(s)
		} else {
			end += pos
		}
		item := s[pos:end]
		lead := len(item) - len(strings.TrimLeft(item, " \t"))
		item = strings.TrimSpace(item)
		ipos := pos + lead
		if item == "" {
			return Req{}, &Error{ipos, "empty option"}
		}
		eq := strings.IndexByte(item, '=')
		if eq < 0 {
			return Req{}, &Error{ipos, fmt.Sprintf("option %q has no value", item)}
		}
		key, val := strings.TrimSpace(item[:eq]), strings.TrimSpace(item[eq+1:])
		vpos := ipos + eq + 1 + (len(item[eq+1:]) - len(strings.TrimLeft(item[eq+1:], " \t")))
		if seen[key] {
			return Req{}, &Error{ipos, fmt.Sprintf("option %s given twice", key)}
		}
		seen[key] = true
		if val == "" {
			return Req{}, &Error{vpos, fmt.Sprintf("option %s has no value", key)}
		}
		if err := r.set(key, val, ipos, vpos); err != nil {
			return Req{}, err
		}
		pos = end + 1
	}
	return r, nil
}

func (r *Req) set(key, val string, kpos, vpos int) error {
	switch key {
	case "num":
		n, unit, _ := strings.Cut(val, "/")
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 || v > MaxNum {
			return &Error{vpos, fmt.Sprintf("num must be a number of GPUs from 1 to %d, not %q", MaxNum, n)}
		}
		r.Num = v
		switch unit {
		case "", "host":
		case "task":
			return &Error{vpos + len(n) + 1, "num=N/task is not supported"}
		default:
			return &Error{vpos + len(n) + 1, fmt.Sprintf("num takes /task or /host, not /%s", unit)}
		}
	case "mode":
		switch val {
		case "shared":
			r.Mode = ModeShared
		case "exclusive_process":
			r.Mode = ModeExclusiveProcess
		default:
			return &Error{vpos, fmt.Sprintf("mode must be shared or exclusive_process, not %q", val)}
		}
	case "mps":
		parts := strings.Split(val, ",")
		switch parts[0] {
		case "yes", "per_socket", "per_gpu":
		case "no":
			if len(parts) > 1 {
				return &Error{vpos + 3, "mps=no takes no flags"}
			}
		default:
			return &Error{vpos, fmt.Sprintf("mps must be yes, no, per_socket or per_gpu, not %q", parts[0])}
		}
		r.MPS = parts[0]
		off := vpos + len(parts[0]) + 1
		for _, f := range parts[1:] {
			switch f {
			case "shared", "share":
				r.MPSShare = true
			case "nocvd":
				r.MPSNoCVD = true
			default:
				return &Error{off, fmt.Sprintf("unknown mps flag %q (shared, nocvd)", f)}
			}
			off += len(f) + 1
		}
	case "j_exclusive":
		switch val {
		case "yes":
			r.JExclusive = Yes
		case "no":
			r.JExclusive = No
		default:
			return &Error{vpos, fmt.Sprintf("j_exclusive must be yes or no, not %q", val)}
		}
	case "gmodel":
		if strings.ContainsAny(val, " \t") {
			return &Error{vpos, "gmodel takes one model name"}
		}
		r.GModel = val
	default:
		if unsupported[key] {
			return &Error{kpos, fmt.Sprintf("option %s is not supported", key)}
		}
		return &Error{kpos, fmt.Sprintf("unknown option %q", key)}
	}
	return nil
}

// Merge lays over's set options over r's.
func (r Req) Merge(over Req) Req {
	if over.Num != 0 {
		r.Num, r.PerTask = over.Num, over.PerTask
	}
	if over.Mode != ModeUnset {
		r.Mode = over.Mode
	}
	if over.MPS != "" {
		r.MPS, r.MPSShare, r.MPSNoCVD = over.MPS, over.MPSShare, over.MPSNoCVD
	}
	if over.JExclusive != Unset {
		r.JExclusive = over.JExclusive
	}
	if over.GModel != "" {
		r.GModel = over.GModel
	}
	return r
}

// Effective fills unset options with LSF's defaults.
func (r Req) Effective() Req {
	if r.Num == 0 {
		r.Num = 1
	}
	if r.Mode == ModeUnset {
		r.Mode = ModeShared
	}
	if r.MPS == "" {
		r.MPS = "no"
	}
	if r.JExclusive == Unset {
		r.JExclusive = No
		if r.Mode == ModeExclusiveProcess {
			r.JExclusive = Yes
		}
	}
	return r
}

// Exclusive reports whether no other job may share the GPUs.
func (r Req) Exclusive() bool { return r.JExclusive == Yes || r.Mode == ModeExclusiveProcess }

// String prints the set options in LSF's order, ":"-separated.
func (r Req) String() string {
	var parts []string
	if r.Num != 0 {
		n := "num=" + strconv.Itoa(r.Num)
		if r.PerTask {
			n += "/task"
		}
		parts = append(parts, n)
	}
	if r.Mode != ModeUnset {
		parts = append(parts, "mode="+r.Mode.String())
	}
	if r.MPS != "" {
		m := "mps=" + r.MPS
		if r.MPSShare {
			m += ",shared"
		}
		if r.MPSNoCVD {
			m += ",nocvd"
		}
		parts = append(parts, m)
	}
	if r.JExclusive != Unset {
		parts = append(parts, "j_exclusive="+r.JExclusive.String())
	}
	if r.GModel != "" {
		parts = append(parts, "gmodel="+r.GModel)
	}
	return strings.Join(parts, ":")
}

// Resolve is a job's effective requirement: its -gpu (empty: none, ok
// false) over the cluster default (LSB_GPU_REQ; an invalid default is
// ignored as LSF ignores a bad parameter).
func Resolve(job, def string) (Req, bool, error) {
	return Levels{Job: job, Cluster: def}.Resolve()
}

// Levels are the GPU requirements a job's is merged from: its -gpu, its
// application profile's and its queue's GPU_REQ, and lsf.conf's
// LSB_GPU_REQ.
type Levels struct {
	Job, App, Queue, Cluster string
}

// Resolve merges the levels option by option as LSF 10.1 documents it
// (job over application profile over queue over cluster default), LSF's
// defaults filling the rest. A job asks for GPUs (ok) when it has -gpu
// ("-" included) or its profile or queue has a GPU_REQ; LSB_GPU_REQ alone
// asks for none. Only the job's requirement is an error: an invalid
// configured one is ignored (the configuration check reported it).
func (l Levels) Resolve() (Req, bool, error) {
	var j Req
	ok := strings.TrimSpace(l.Job) != ""
	if ok {
		var err error
		if j, err = Parse(l.Job); err != nil {
			return Req{}, false, err
		}
	}
	var r Req
	for _, s := range []string{l.Cluster, l.Queue, l.App} {
		c, err := Parse(s)
		if err != nil {
			continue
		}
		if s != l.Cluster && strings.TrimSpace(s) != "" {
			ok = true
		}
		r = r.Merge(c)
	}
	if !ok {
		return Req{}, false, nil
	}
	return r.Merge(j).Effective(), true, nil
}

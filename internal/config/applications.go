package config

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/lex"
)

// Application is an lsb.applications application profile (bsub -app): a
// named set of parameters for jobs of one kind. Job-level options override
// the profile's, and the profile's override the queue's (its limits
// override the queue's soft limits; a queue's hard limits still apply).
type Application struct {
	Name        string
	Pos         Pos
	Description string
	ResReq      ResReqText
	// GPUReq is GPU_REQ, as the queue's (Queue.GPUReq); the profile's
	// options override the queue's, the job's -gpu the profile's.
	GPUReq string
	Limits ResourceLimits
	// PreExec runs after the queue's PRE_EXEC; bsub -E replaces it.
	// PostExec runs before the queue's POST_EXEC; bsub -Ep replaces it.
	PreExec  string
	PostExec string
	// JobStarter, RequeueExitValues, MaxJobPreempt, Nice, Rerunnable and
	// the job controls override the queue's when set.
	JobStarter        string
	RequeueExitValues *RequeueExitValues
	SuccessExitValues []int
	MaxJobPreempt     int // 0: the queue's or lsb.params' value
	Nice              *int
	Rerunnable        *bool
	JobControls       JobControls
	// Env are ENV_VARS: NAME=value pairs added to the job's environment.
	Env []string
	Raw []KV
}

// Application returns the application profile named name, or nil.
func (c *Config) Application(name string) *Application {
	for _, a := range c.Applications {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// parseApplications reads lsb.applications (an optional file).
func parseApplications(f *lex.File, unit string, d *Diagnostics) []*Application {
	return parseNamed(f, "Application", "lsb.applications", d,
		func(sec *lex.Section) *Application { return parseApplication(sec, unit, d) },
		func(a *Application) string { return a.Name })
}

func parseApplication(sec *lex.Section, unit string, d *Diagnostics) *Application {
	kvs := sec.KeyValues(d)
	a := &Application{Pos: sec.Pos, Name: sectionName(sec, kvs, "Application", "NAME", "profile", d)}
	if a.Name == "" {
		return nil
	}
	a.Raw = setValues(kvs, "Application <"+a.Name+">", d, func(v val) { a.set(v, unit) })
	sort.Strings(a.Env)
	return a
}

func (a *Application) set(v val, unit string) {
	switch v.key {
	case "NAME":
	case "DESCRIPTION":
		a.Description = v.text
		if len(a.Description) > 512 {
			v.warnf("DESCRIPTION is longer than 512 characters; truncated")
			a.Description = a.Description[:512]
		}
	case "RES_REQ":
		a.ResReq = ResReqText{Text: v.text, Pos: v.pos}
	case "GPU_REQ":
		a.GPUReq = v.gpuReq()
	case "PRE_EXEC":
		a.PreExec = v.text
	case "POST_EXEC":
		a.PostExec = v.text
	case "JOB_STARTER":
		a.JobStarter = v.text
	case "REQUEUE_EXIT_VALUES":
		r := v.requeueExitValues()
		a.RequeueExitValues = &r
	case "SUCCESS_EXIT_VALUES":
		for _, w := range v.names() {
			n, err := strconv.Atoi(w)
			if err != nil || n < 0 || n > 255 {
				v.bad("has an exit value outside 0-255: " + w)
				continue
			}
			a.SuccessExitValues = append(a.SuccessExitValues, n)
		}
	case "MAX_JOB_PREEMPT":
		if n, ok := v.int(1, math.MaxInt32-1); ok {
			a.MaxJobPreempt = n
		}
	case "NICE":
		if n, ok := v.int(-20, 20); ok {
			a.Nice = &n
		}
	case "RERUNNABLE":
		if b, ok := v.yesNo(); ok {
			a.Rerunnable = &b
		}
	case "SUSPEND_CONTROL", "RESUME_CONTROL", "TERMINATE_CONTROL":
		if strings.TrimSpace(v.text) == "" {
			v.bad("is empty")
			return
		}
		act := parseAction(strings.TrimSpace(v.text))
		switch v.key {
		case "SUSPEND_CONTROL":
			a.JobControls.Suspend = act
		case "RESUME_CONTROL":
			a.JobControls.Resume = act
		default:
			a.JobControls.Terminate = act
		}
	case "ENV_VARS":
		for _, pair := range splitEnvVars(v.text) {
			name, _, ok := strings.Cut(pair, "=")
			if !ok || !nameOK(name) {
				v.bad("is not \"NAME=value[,NAME=value]...\": " + pair)
				continue
			}
			a.Env = append(a.Env, pair)
		}
	default:
		if a.Limits.set(v, unit) {
			return
		}
		v.d.Warnf(v.keyPos, "%s: parameter %s is not supported by Basalt; ignored", v.where, v.key)
	}
}

// splitEnvVars splits ENV_VARS' comma-separated NAME=value pairs (quotes
// around the whole list or a value are removed).
func splitEnvVars(s string) []string {
	s = strings.Trim(strings.TrimSpace(s), `"`)
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if name, value, ok := strings.Cut(p, "="); ok {
			p = strings.TrimSpace(name) + "=" + strings.Trim(strings.TrimSpace(value), `"'`)
		}
		out = append(out, p)
	}
	return out
}

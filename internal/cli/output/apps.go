package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

const appsHeader = "APPLICATION_NAME     NJOBS     PEND      RUN     SUSP"

// WriteApplications writes bapp's default listing: each profile's name
// (cut to 20 characters unless o.Wide) and the slots of its unfinished
// jobs, suspended ones counted together.
func WriteApplications(w io.Writer, as []*api.ApplicationInfo, o *Options) error {
	var b strings.Builder
	if len(as) > 0 && !(o != nil && o.NoHeader) {
		b.WriteString(appsHeader + "\n")
	}
	for _, a := range as {
		if a == nil {
			continue
		}
		name := cut(a.Name, 20)
		if o != nil && o.Wide {
			name = pad(a.Name, 20)
		}
		fmt.Fprintf(&b, "%s %5d %8d %8d %8d\n", name, a.NJobs, a.Pend, a.Run, a.SSusp+a.USusp)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteApplicationsLong writes bapp -l: each profile's description, job
// statistics and parameters, in bqueues -l's style.
func WriteApplicationsLong(w io.Writer, as []*api.ApplicationInfo) error {
	var b strings.Builder
	for _, a := range as {
		if a == nil {
			continue
		}
		fmt.Fprintf(&b, "\nAPPLICATION NAME: %s\n", a.Name)
		if a.Description != "" {
			fmt.Fprintf(&b, " -- %s\n", a.Description)
		}
		b.WriteString("\nSTATISTICS:\n")
		b.WriteString("   NJOBS     PEND      RUN    SSUSP    USUSP      RSV\n")
		fmt.Fprintf(&b, "%8d %8d %8d %8d %8d %8d\n", a.NJobs, a.Pend, a.Run, a.SSusp, a.USusp, a.Rsv)
		b.WriteString("\nPARAMETERS:\n")
		b.WriteString(limitsBlock(a.Limits))
		if a.TaskLimit != "" {
			fmt.Fprintf(&b, "\n TASKLIMIT\n %s\n", a.TaskLimit)
		}
		b.WriteByte('\n')
		for _, kv := range []struct{ k, v string }{
			{"RES_REQ", a.ResReq}, {"GPU_REQ", a.GPUReq}, {"PRE_EXEC", a.PreExec}, {"POST_EXEC", a.PostExec},
			{"JOB_STARTER", a.JobStarter}, {"REQUEUE_EXIT_VALUES", a.RequeueExitValues},
			{"SUCCESS_EXIT_VALUES", a.SuccessExitValues}, {"RERUNNABLE", a.Rerunnable},
			{"ENV_VARS", a.EnvVars}, {"JOB_CONTROLS", a.JobControls},
		} {
			if kv.v != "" {
				fmt.Fprintf(&b, "%s: %s\n", kv.k, kv.v)
			}
		}
		if a.MaxJobPreempt > 0 {
			fmt.Fprintf(&b, "MAX_JOB_PREEMPT: %d\n", a.MaxJobPreempt)
		}
		if a.HasNice {
			fmt.Fprintf(&b, "NICE: %d\n", a.Nice)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

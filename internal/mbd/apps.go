package mbd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// applications answers bapp: each application profile of lsb.applications
// with the slots of its unfinished jobs by state.
func (s *Server) applications(ctx context.Context, id auth.Identity, req *api.ApplicationsRequest) (*api.ApplicationsReply, error) {
	cfg := s.cfg.Current()
	reply := &api.ApplicationsReply{}
	want := map[string]bool{}
	for _, n := range req.Names {
		want[n] = true
		if cfg.Application(n) == nil {
			reply.NotFound = append(reply.NotFound, n)
		}
	}
	per := map[string]*counts{}
	s.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			if j.Spec.App == "" || job.Finished(j.State) {
				return true
			}
			c := per[j.Spec.App]
			if c == nil {
				c = &counts{}
				per[j.Spec.App] = c
			}
			c.add(j)
			return true
		})
	})
	for _, a := range cfg.Applications {
		if len(want) > 0 && !want[a.Name] {
			continue
		}
		c := per[a.Name]
		if c == nil {
			c = &counts{}
		}
		reply.Applications = append(reply.Applications, applicationInfo(a, c))
	}
	return reply, nil
}

func applicationInfo(a *config.Application, c *counts) *api.ApplicationInfo {
	ai := &api.ApplicationInfo{
		Name: a.Name, Description: a.Description, NJobs: c.njobs(), Pend: c.pend, Run: c.run, SSusp: c.ssusp,
		USusp: c.ususp, Rsv: c.rsv, ResReq: a.ResReq.Text, GPUReq: a.GPUReq, PreExec: a.PreExec, PostExec: a.PostExec,
		JobStarter: a.JobStarter, MaxJobPreempt: int32(a.MaxJobPreempt), EnvVars: strings.Join(a.Env, ","),
	}
	// A profile's limit is one value: the default if given, else the maximum.
	def, max := limitsInfo(a.Limits)
	ai.Limits = max
	pick := func(m *int64, d int64) {
		if *m == 0 {
			*m = d
		}
	}
	pick(&ai.Limits.Run, def.Run)
	pick(&ai.Limits.CPU, def.CPU)
	pick(&ai.Limits.Mem, def.Mem)
	if p := a.Limits.Proc; p.Max > 0 {
		ai.TaskLimit = fmt.Sprintf("%d %d %d", max1(p.Min), max1(p.Default), p.Max)
	}
	if r := a.RequeueExitValues; r != nil {
		var w []string
		for _, c := range r.Codes {
			w = append(w, strconv.Itoa(c))
		}
		for _, c := range r.Exclude {
			w = append(w, "EXCLUDE("+strconv.Itoa(c)+")")
		}
		ai.RequeueExitValues = strings.Join(w, " ")
	}
	var w []string
	for _, c := range a.SuccessExitValues {
		w = append(w, strconv.Itoa(c))
	}
	ai.SuccessExitValues = strings.Join(w, " ")
	if a.Nice != nil {
		ai.Nice, ai.HasNice = int32(*a.Nice), true
	}
	if a.Rerunnable != nil {
		ai.Rerunnable = "no"
		if *a.Rerunnable {
			ai.Rerunnable = "yes"
		}
	}
	var ctl []string
	for _, x := range []struct {
		name string
		act  config.JobAction
	}{{"SUSPEND", a.JobControls.Suspend}, {"RESUME", a.JobControls.Resume}, {"TERMINATE", a.JobControls.Terminate}} {
		if t := actionText(x.act); t != "" {
			ctl = append(ctl, x.name+": ["+t+"]")
		}
	}
	ai.JobControls = strings.Join(ctl, " ")
	return ai
}

func max1(n int) int { return max(n, 1) }

package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

var bslotsSpec = lsfopt.New("l|h|V|n:|R:|W:")

func init() {
	Register(&Command{Name: "bslots", Summary: "display slots available for backfill jobs", Run: runBslots})
}

func bslotsUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: bslots [-h] [-V] [-l] [-n slots] [-R "res_req"] [-W [hour:]minutes]`)
}

// runBslots shows the slots a backfill job could use now and for how long
// (LSF's backfill windows): the free slots of the hosts that take jobs
// (status ok, the -R requirement met), whose window has no end (UNLIMITED).
// Slots held by a slot reservation are not offered: a window ending at the
// reserved job's predicted start is not computed, so bslots never promises
// slots a backfill job could not have. -n keeps windows of at least that
// many slots, -W those at least that long. The DataDog LSF check reads the
// two columns of the default output.
func runBslots(ctx context.Context, env *Env, args []string) int {
	res, err := bslotsSpec.Parse(args)
	if err != nil || len(res.Operands) > 0 {
		if err != nil {
			env.Errorf("bslots: %v", err)
		}
		bslotsUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bslotsUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	minSlots := int64(1)
	if v, ok := res.Last("n"); ok {
		if minSlots, err = parseCount(v, "-n"); err != nil {
			env.Errorf("%v", err)
			return ExitUsage
		}
	}
	if v, ok := res.Last("W"); ok {
		// Every window shown is unlimited: any run time fits.
		if _, _, err := parseMinutes(v, "run time"); err != nil || strings.Contains(v, "/") {
			env.Errorf("%s: Bad run time specification", v)
			return ExitUsage
		}
	}
	req := &api.HostsRequest{}
	req.ResReq, _ = res.Last("R")
	reply, ok := batchHosts(ctx, env, req)
	if !ok {
		return ExitUsage
	}
	var total int64
	var hosts []string
	for _, h := range reply.Hosts {
		if h == nil || h.Status != "ok" || h.Max <= 0 {
			continue
		}
		if free := h.Max - h.NJobs; free > 0 {
			total += int64(free)
			hosts = append(hosts, strconv.Itoa(int(free))+"*"+h.Name)
		}
	}
	if total == 0 || total < minSlots {
		fmt.Fprintln(env.Stdout, "No backfill window exists at this time")
		return 0
	}
	if res.Has("l") {
		fmt.Fprintf(env.Stdout, "SLOTS: %d\n  RUNTIME: UNLIMITED\n  HOSTS: %s\n", total, strings.Join(hosts, " "))
		return 0
	}
	fmt.Fprintf(env.Stdout, "SLOTS          RUNTIME\n%-15d%s\n", total, "UNLIMITED")
	return 0
}

package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

// Job groups (LSF 10.1): bgadd, bgmod and bgdel change them through
// mbatchd, bjgroup lists them with their job counts.
var (
	bgaddSpec   = lsfopt.New("h|V|L:|sla:")
	bgmodSpec   = lsfopt.New("h|V|Ln|L:|u:")
	bgdelSpec   = lsfopt.New("h|V|c|u:")
	bjgroupSpec = lsfopt.New("h|V|N|s::")
)

func init() {
	Register(&Command{Name: "bgadd", Summary: "create job groups", Run: runBgadd})
	Register(&Command{Name: "bgmod", Summary: "modify job groups", Run: runBgmod})
	Register(&Command{Name: "bgdel", Summary: "delete job groups", Run: runBgdel})
	Register(&Command{Name: "bjgroup", Summary: "display information about job groups", Run: runBjgroup})
}

// groupCommand parses a job group command's options and its one operand,
// printing usage and refusing what Basalt does not implement.
func groupCommand(env *Env, name, usage string, spec *lsfopt.Spec, unsupported string, args []string) (*lsfopt.Result, string, int, bool) {
	res, err := spec.Parse(args)
	if err != nil {
		env.Errorf("%s: %v", name, err)
		env.Errorf("%s", usage)
		return nil, "", ExitUsage, false
	}
	if res.Has("h") {
		env.Errorf("%s", usage)
		return nil, "", 0, false
	}
	if res.Has("V") {
		return nil, "", PrintVersion(env), false
	}
	if unsupported != "" && refuseUnsupported(env, name, res, unsupported) {
		return nil, "", ExitUsage, false
	}
	if len(res.Operands) != 1 {
		env.Errorf("%s", usage)
		return nil, "", ExitUsage, false
	}
	return res, res.Operands[0], 0, true
}

// groupLimit reads -L's value: 0 to 2147483647.
func groupLimit(env *Env, v string) (int32, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil || n < 0 {
		env.Errorf("%s: The job group limit must be an integer between 0 and 2147483647", v)
		return 0, false
	}
	return int32(n), true
}

// groupCall sends a job group change; false (with mbatchd's reason
// printed) when it was refused.
func groupCall(ctx context.Context, env *Env, req *api.JobGroupRequest) bool {
	var st api.Status
	if !batchCall(ctx, env, api.MBatchdJobGroup, req, &st) {
		return false
	}
	if st.Code != 0 {
		env.Errorf("%s", st.Message)
		return false
	}
	return true
}

func runBgadd(ctx context.Context, env *Env, args []string) int {
	res, path, code, ok := groupCommand(env, "bgadd", "Usage: bgadd [-h] [-V] [-L limit] job_group_name", bgaddSpec, "sla", args)
	if !ok {
		return code
	}
	req := &api.JobGroupRequest{Op: api.JobGroupAdd, Path: path}
	if v, ok := res.Last("L"); ok {
		if req.Limit, ok = groupLimit(env, v); !ok {
			return ExitUsage
		}
		req.HasLimit = true
	}
	if !groupCall(ctx, env, req) {
		return ExitUsage
	}
	fmt.Fprintf(env.Stdout, "Job group <%s> was added.\n", path)
	return 0
}

func runBgmod(ctx context.Context, env *Env, args []string) int {
	res, path, code, ok := groupCommand(env, "bgmod", "Usage: bgmod [-h] [-V] [-L limit | -Ln] [-u job_group_owner] job_group_name", bgmodSpec, "", args)
	if !ok {
		return code
	}
	req := &api.JobGroupRequest{Op: api.JobGroupModify, Path: path, ClearLimit: res.Has("Ln")}
	if v, ok := res.Last("L"); ok {
		if req.ClearLimit {
			env.Errorf("Usage: bgmod [-h] [-V] [-L limit | -Ln] [-u job_group_owner] job_group_name")
			return ExitUsage
		}
		if req.Limit, ok = groupLimit(env, v); !ok {
			return ExitUsage
		}
		req.HasLimit = true
	}
	req.Owner, _ = res.Last("u")
	if !req.HasLimit && !req.ClearLimit && req.Owner == "" {
		env.Errorf("Usage: bgmod [-h] [-V] [-L limit | -Ln] [-u job_group_owner] job_group_name")
		return ExitUsage
	}
	if !groupCall(ctx, env, req) {
		return ExitUsage
	}
	fmt.Fprintf(env.Stdout, "Job group %s is modified.\n", path)
	return 0
}

func runBgdel(ctx context.Context, env *Env, args []string) int {
	_, path, code, ok := groupCommand(env, "bgdel", "Usage: bgdel [-h] [-V] job_group_name", bgdelSpec, "c|u:", args)
	if !ok {
		return code
	}
	if !groupCall(ctx, env, &api.JobGroupRequest{Op: api.JobGroupDelete, Path: path}) {
		return ExitUsage
	}
	fmt.Fprintf(env.Stdout, "Job group %s is deleted.\n", path)
	return 0
}

// runBjgroup lists job groups: by level (every group of a level before
// the next), or with -s in hierarchy order, optionally from one group (with
// a trailing slash, that group alone).
func runBjgroup(ctx context.Context, env *Env, args []string) int {
	const usage = "Usage: bjgroup [-h] [-V] [-s [job_group_name]]"
	res, err := bjgroupSpec.Parse(args)
	if err != nil || len(res.Operands) > 0 && !res.Has("s") {
		if err != nil {
			env.Errorf("bjgroup: %v", err)
		}
		env.Errorf("%s", usage)
		return ExitUsage
	}
	if res.Has("h") {
		env.Errorf("%s", usage)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "bjgroup", res, "N") {
		return ExitUsage
	}
	req := &api.JobGroupsRequest{}
	hier := res.Has("s")
	if v, _ := res.Last("s"); v != "" {
		req.Path = v
	} else if len(res.Operands) == 1 {
		req.Path = res.Operands[0]
	}
	var reply api.JobGroupsReply
	if !batchCall(ctx, env, api.MBatchdJobGroups, req, &reply) {
		return ExitUsage
	}
	if len(reply.Groups) == 0 {
		env.Errorf("No job group found")
		return ExitUsage
	}
	gs := reply.Groups // path order: the hierarchy
	if !hier {
		gs = byLevel(gs)
	}
	writeJobGroups(env.Stdout, gs)
	return 0
}

// byLevel orders groups as bjgroup does without -s: the top-level groups,
// then the next level, each level in path order.
func byLevel(gs []*api.JobGroupInfo) []*api.JobGroupInfo {
	out := make([]*api.JobGroupInfo, 0, len(gs))
	for depth := 1; len(out) < len(gs); depth++ {
		for _, g := range gs {
			if strings.Count(g.Path, "/") == depth {
				out = append(out, g)
			}
		}
	}
	return out
}

// writeJobGroups prints bjgroup's table in LSF 10.1's layout.
func writeJobGroups(w io.Writer, gs []*api.JobGroupInfo) {
	fmt.Fprintln(w, "GROUP_NAME         NJOBS   PEND    RUN    SSUSP  USUSP  FINISH  SLA   JLIMIT  OWNER")
	for _, g := range gs {
		limit := "-"
		if g.HasLimit {
			limit = strconv.Itoa(int(g.Limit))
		}
		jl := fmt.Sprintf("%d/%s", g.Started, limit)
		fmt.Fprintf(w, "%-18s %-7d %-7d %-6d %-6d %-6d %-7d ()%10s  %s\n",
			g.Path, g.NJobs, g.Pend, g.Run, g.SSusp, g.USusp, g.Finish, jl, g.Owner)
	}
}

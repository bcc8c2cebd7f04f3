package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

// lsadmin reslogon and reslogoff: RES's task log (lsf.acct.<host> in
// LSF_RES_ACCTDIR, else /tmp) on or off on hosts' RES, through RES.Control
// (root and the cluster administrators only). Messages as LSF's lsadmin:
// "Turn on RES log on <host> ...... done", and with -c the threshold.

func init() {
	LsadminSubs.Add(
		&Subcommand{Name: "reslogon", Usage: "reslogon [-c cpu_time] [host_name ... | all]", Summary: "Log tasks executed by RES", Run: runResLogOn},
		&Subcommand{Name: "reslogoff", Usage: "reslogoff [host_name ... | all]", Summary: "RES log off", Run: runResLogOff},
	)
}

var (
	resLogOnSpec  = lsfopt.New("c:")
	resLogOffSpec = lsfopt.New("")
)

func runResLogOn(ctx context.Context, env *Env, args []string) int {
	res, ok := subcommandOptions(env, "lsadmin reslogon", lsadminUsage("reslogon"), resLogOnSpec, "", args)
	if !ok {
		return ExitUsage
	}
	cpu := int64(0)
	if v, ok := res.Last("c"); ok {
		n, err := parseCPUTime(v)
		if err != nil {
			fmt.Fprintln(env.Stderr, err.Error())
			return ExitUsage
		}
		cpu = n
	}
	return resLog(ctx, env, res.Operands, &api.ResControlRequest{Op: api.ResOpLogOn, CPUTime: int32(cpu)}, "Turn on")
}

func runResLogOff(ctx context.Context, env *Env, args []string) int {
	res, ok := subcommandOptions(env, "lsadmin reslogoff", lsadminUsage("reslogoff"), resLogOffSpec, "", args)
	if !ok {
		return ExitUsage
	}
	return resLog(ctx, env, res.Operands, &api.ResControlRequest{Op: api.ResOpLogOff}, "Turn off")
}

// parseCPUTime reads reslogon -c: decimal digits, at most 2^31-1
// milliseconds; an error is positioned at the first byte that is no digit
// (0 for an empty or too large value).
func parseCPUTime(s string) (int64, error) {
	msg := fmt.Sprintf("CPU time <%s> should be a non-negative integer", s)
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, &debugValueError{Opt: "c", Pos: i, Msg: msg}
		}
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, &debugValueError{Opt: "c", Pos: 0, Msg: msg}
	}
	return n, nil
}

func resLog(ctx context.Context, env *Env, operands []string, req *api.ResControlRequest, verb string) int {
	b, err := lsBase(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsadmin: %v\n", firstLine(err))
		return ExitUsage
	}
	hosts, ok := limTargets(env, b, operands)
	if !ok {
		return ExitUsage
	}
	cc, err := loadClientConf(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsadmin: %v\n", err)
		return ExitUsage
	}
	status := 0
	for _, h := range hosts {
		fmt.Fprintf(env.Stdout, "%s RES log on <%s> ...... ", verb, h)
		if err := resControlHost(ctx, env, cc, h, req); err != nil {
			fmt.Fprintf(env.Stdout, "failed: %s\n", remoteMessage(err))
			status = ExitUsage
			continue
		}
		fmt.Fprintln(env.Stdout, "done")
		if req.Op == api.ResOpLogOn && req.CPUTime > 0 {
			fmt.Fprintf(env.Stdout, "Logging tasks used more than %d msec of cpu time.\n", req.CPUTime)
		}
	}
	return status
}

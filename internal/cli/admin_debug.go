package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// The debug subcommands: lsadmin limdebug, limtime, resdebug, restime and
// badmin mbddebug, mbdtime, schddebug, schdtime, sbddebug, sbdtime. Each
// asks running daemons over the wire (LIM.Debug, RES.Debug, MBatchd.Debug,
// SBatchd.Debug) to change their log until they restart or -o resets it:
// -l the level (LOG_DEBUG + n; a timing level 1-5 for the *time ones),
// -c the log classes, -f the file. Only root and the cluster
// administrators may (the daemons check; lsadmin says so first, as LSF's
// does). Messages as LSF's lsadmin and badmin print them.

func init() {
	const (
		dbg = "[-c class_name ...] [-l debug_level] [-f logfile_name] [-o]"
		tim = "[-l timing_level] [-f logfile_name] [-o]"
	)
	for _, s := range []*debugSub{
		{tool: "lsadmin", name: "limdebug", daemon: "lim", usage: "limdebug " + dbg + " [host_name ...]", summary: "Debug LIM"},
		{tool: "lsadmin", name: "limtime", daemon: "lim", timing: true, usage: "limtime " + tim + " [host_name ...]", summary: "Debug LIM timing message"},
		{tool: "lsadmin", name: "resdebug", daemon: "res", usage: "resdebug [-c class_name] [-l debug_level] [-f logfile_name] [-o] [host_name ...]", summary: "Debug RES"},
		{tool: "lsadmin", name: "restime", daemon: "res", timing: true, usage: "restime " + tim + " [host_name ...]", summary: "Debug RES timing message"},
	} {
		LsadminSubs.Add(&Subcommand{Name: s.name, Usage: s.usage, Summary: s.summary, Run: s.run})
	}
	for _, s := range []*debugSub{
		{tool: "badmin", name: "mbddebug", daemon: "mbatchd", usage: "mbddebug " + dbg + " [-s log_queue_size]", summary: "Debug mbatchd"},
		{tool: "badmin", name: "mbdtime", daemon: "mbatchd", timing: true, usage: "mbdtime " + tim, summary: "Debug mbatchd timing message"},
		{tool: "badmin", name: "schddebug", daemon: "mbschd", usage: "schddebug " + dbg + " [-s log_queue_size]", summary: "Debug mbschd"},
		{tool: "badmin", name: "schdtime", daemon: "mbschd", timing: true, usage: "schdtime " + tim, summary: "Debug mbschd timing message"},
		{tool: "badmin", name: "sbddebug", daemon: "sbatchd", usage: "sbddebug " + dbg + " [host_name ...]", summary: "Debug sbatchd"},
		{tool: "badmin", name: "sbdtime", daemon: "sbatchd", timing: true, usage: "sbdtime " + tim + " [host_name ...]", summary: "Debug sbatchd timing message"},
	} {
		BadminSubs.Add(&Subcommand{Name: s.name, Usage: s.usage, Summary: s.summary, Run: s.run})
	}
}

// Option tables: LSF 10.1's, -s (the log queue size of mbatchd's and
// mbschd's threaded logging) parsed and refused by name.
var (
	debugSpec               = lsfopt.New("c:|l:|f:|o")
	timingSpec              = lsfopt.New("l:|f:|o")
	debugQueueSpec          = lsfopt.New("c:|l:|f:|o|s:")
	unsupportedDebugOptions = "s:"
)

// debugSub is one debug subcommand.
type debugSub struct {
	tool    debugTool
	name    string
	daemon  string // lim, res, mbatchd, mbschd, sbatchd
	timing  bool
	usage   string
	summary string
}

func (s *debugSub) spec() (*lsfopt.Spec, string) {
	switch {
	case s.timing:
		return timingSpec, ""
	case s.daemon == "mbatchd" || s.daemon == "mbschd":
		return debugQueueSpec, unsupportedDebugOptions
	}
	return debugSpec, ""
}

// request reads the options into the request; false once an error was
// printed.
func (s *debugSub) request(env *Env, res *lsfopt.Result) (*api.DebugRequest, bool) {
	opt := func(name string) *string {
		if v, ok := res.Last(name); ok {
			return &v
		}
		return nil
	}
	d, err := debugOptionValues(s.tool, s.timing, opt("l"), opt("c"), opt("f"), res.Has("o"))
	if err != nil {
		fmt.Fprintln(env.Stderr, err.Error())
		return nil, false
	}
	op := api.DebugOpLog
	if s.timing {
		op = api.DebugOpTiming
	}
	return &api.DebugRequest{Op: op, Level: d.level, Classes: d.classes, LogFile: d.file, Reset: d.reset, Daemon: s.daemon}, true
}

func (s *debugSub) run(ctx context.Context, env *Env, args []string) int {
	spec, unsupported := s.spec()
	res, ok := subcommandOptions(env, string(s.tool)+" "+s.name, s.usage, spec, unsupported, args)
	if !ok {
		return ExitUsage
	}
	req, ok := s.request(env, res)
	if !ok {
		return ExitUsage
	}
	switch s.daemon {
	case "lim", "res":
		return s.runLsadmin(ctx, env, req, res.Operands)
	case "sbatchd":
		return s.runSbd(ctx, env, req, res.Operands)
	}
	return s.runMbd(ctx, env, req, res.Operands)
}

// runLsadmin sends req to the LIM or RES of each host (none: this host;
// "all": every server host): "Host <h> set LIM debug done", or "... failed:
// <reason>" and status 255.
func (s *debugSub) runLsadmin(ctx context.Context, env *Env, req *api.DebugRequest, operands []string) int {
	c, b, ok := lsConnect(ctx, env, "lsadmin")
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	name := "LIM"
	if s.daemon == "res" {
		name = "RES"
	}
	if !debugAdmin(b) {
		fmt.Fprintf(env.Stderr, "Operation permission denied by %s\n", name)
		return ExitUsage
	}
	hosts, ok := limTargets(env, b, operands)
	if !ok {
		return ExitUsage
	}
	var cc *clientConf
	if s.daemon == "res" {
		var err error
		if cc, err = loadClientConf(env); err != nil {
			fmt.Fprintf(env.Stderr, "lsadmin: %v\n", err)
			return ExitUsage
		}
	}
	status := 0
	for _, h := range hosts {
		var err error
		if s.daemon == "lim" {
			_, err = c.Debug(ctx, h, req)
		} else {
			err = resDebug(ctx, env, cc, h, req)
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "Host %s set %s debug failed: %s\n", h, name, debugFailure(s.daemon, err))
			status = ExitUsage
			continue
		}
		fmt.Fprintf(env.Stdout, "Host %s set %s debug done\n", h, name)
	}
	return status
}

// debugAdmin reports whether the invoking user may use the debug
// subcommands: root or a cluster administrator (lsf.cluster's
// ClusterAdmins).
func debugAdmin(b *config.Base) bool {
	return os.Getuid() == 0 || slices.Contains(b.Cluster.Admins, userName())
}

func resDebug(ctx context.Context, env *Env, cc *clientConf, host string, req *api.DebugRequest) error {
	return withRES(ctx, env, cc, host, func(ctx context.Context, c *rpc.Client) error {
		var reply api.DebugReply
		return c.Call(ctx, api.RESDebug, req, &reply)
	})
}

// debugFailure is a failed request's reason as LSF prints it.
func debugFailure(daemon string, err error) string {
	switch rpc.CodeOf(err) {
	case rpc.PermissionDenied, rpc.Unauthenticated:
		return "User permission denied"
	}
	if daemon == "lim" {
		if msg := limFailure(err); msg == "failed: "+limclient.ErrLIMDown.Error() {
			return limclient.ErrLIMDown.Error()
		}
		return firstLine(err)
	}
	return remoteMessage(err)
}

// runMbd sends req to mbatchd (whose scheduler mbschd's subcommands
// reach too); LSF's badmin prints nothing when it is done.
func (s *debugSub) runMbd(ctx context.Context, env *Env, req *api.DebugRequest, operands []string) int {
	if len(operands) > 0 {
		fmt.Fprintln(env.Stderr, "Host name does not need to be specified, set debug to the host which runs MBD")
	}
	c, ok := batchConnect(ctx, env)
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	var reply api.DebugReply
	if err := c.Call(ctx, api.MBatchdDebug, req, &reply); err != nil {
		fmt.Fprintf(env.Stderr, "Operation denied by MBD: %s\n", debugFailure(s.daemon, err))
		return ExitUsage
	}
	return 0
}

// runSbd sends req to the sbatchd of each host (none: this host; "all":
// every server host); a failure is "Operation denied by SBD on <h>:
// <reason>" and status 255, success silent as in LSF's badmin.
func (s *debugSub) runSbd(ctx context.Context, env *Env, req *api.DebugRequest, operands []string) int {
	b, err := lsBase(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "badmin: %v\n", firstLine(err))
		return ExitUsage
	}
	var hosts []string
	switch {
	case len(operands) == 0:
		local, err := config.LocalHostName(b.Conf, env.Getenv, nil)
		if err != nil {
			fmt.Fprintf(env.Stderr, "badmin: %v\n", err)
			return ExitUsage
		}
		hosts = []string{local}
	case lsContains(operands, "all"):
		hosts = b.Cluster.ServerHosts()
	default:
		for _, o := range operands {
			h := b.Cluster.Host(o)
			if h == nil {
				fmt.Fprintf(env.Stderr, "%s: Bad host name, host group name or cluster name\n", o)
				return ExitUsage
			}
			hosts = append(hosts, h.Name)
		}
	}
	cc, err := loadClientConf(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "badmin: %v\n", err)
		return ExitUsage
	}
	status := 0
	for _, h := range hosts {
		if err := sbdDebug(ctx, env, cc, h, req); err != nil {
			fmt.Fprintf(env.Stderr, "Operation denied by SBD on <%s>: %s\n", h, debugFailure(s.daemon, err))
			status = ExitUsage
		}
	}
	return status
}

func sbdDebug(ctx context.Context, env *Env, cc *clientConf, host string, req *api.DebugRequest) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	addr, err := cc.addr(cctx, host, cc.conf.SBDPort())
	if err != nil {
		return err
	}
	hello, err := cc.hello(cctx, cc.creds(env), auth.KindSbatchd, host)
	if err != nil {
		return err
	}
	c, err := rpc.Dial(cctx, addr, hello)
	if err != nil {
		return err
	}
	defer c.Close()
	var reply api.DebugReply
	return c.Call(cctx, api.SBatchdDebug, req, &reply)
}

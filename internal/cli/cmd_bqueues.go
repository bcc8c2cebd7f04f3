package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var bqueuesSpec = lsfopt.New("w|l|r|h|V|noheader|json|m:|u:|o:|" + unsupportedBqueuesOptions)

func init() {
	Register(&Command{Name: "bqueues", Summary: "display information about queues", Run: runBqueues})
}

func bqueuesUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: bqueues [-h] [-V] [-w | -l | -r | -o "field[:[-][width]] ... [delimiter='c']" [-json]] [-noheader]
               [-m host_name | -m host_group | -m all] [-u user_name | -u user_group | -u all] [queue_name ...]`)
}

func runBqueues(ctx context.Context, env *Env, args []string) int {
	res, err := bqueuesSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "bqueues: %v\n", err)
		bqueuesUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bqueuesUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "bqueues", res, unsupportedBqueuesOptions) {
		return ExitUsage
	}
	long := res.Has("l") || res.Has("r")
	_, hasFormat := res.Last("o")
	if long && res.Has("w") || hasFormat && (long || res.Has("w")) {
		bqueuesUsage(env)
		return ExitUsage
	}
	f, ok := listFormat(env, "bqueues", res, "LSB_BQUEUES_FORMAT", long || res.Has("w"), output.QueueFields, bqueuesUsage)
	if !ok {
		return ExitUsage
	}
	req := &api.QueuesRequest{Queues: res.Operands}
	req.Host, _ = res.Last("m")
	req.User, _ = res.Last("u")
	var reply api.QueuesReply
	if !batchCall(ctx, env, api.MBatchdQueues, req, &reply) {
		return ExitUsage
	}
	rc := 0
	for _, q := range reply.NotFound {
		env.Errorf("%s: No such queue", q)
		rc = ExitUsage
	}
	if len(reply.Queues) == 0 {
		if len(reply.NotFound) == 0 {
			env.Errorf("No such queue")
		}
		return ExitUsage
	}
	o := outputOptions(env)
	o.Wide, o.NoHeader = res.Has("w"), res.Has("noheader")
	switch {
	case res.Has("json"):
		err = output.WriteQueuesJSON(env.Stdout, reply.Queues, f)
	case f != nil:
		err = output.WriteQueuesCustom(env.Stdout, reply.Queues, f, o)
	case long:
		err = output.WriteQueuesLong(env.Stdout, reply.Queues, o)
	default:
		err = output.WriteQueues(env.Stdout, reply.Queues, o)
	}
	if err != nil {
		env.Errorf("bqueues: %v", err)
		return ExitUsage
	}
	return rc
}

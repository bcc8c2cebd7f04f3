package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

// bmodResets are bmod's -Xn options: each resets bsub option X.
var bmodResets = []string{"Rn", "qn", "Wn", "cn", "Mn", "mn", "wn", "En", "Epn", "bn", "tn", "Pn", "Gn", "Jn", "Jdn", "un",
	"Bn", "Nn", "on", "en", "in", "xn", "spn", "Ln", "cwdn", "appn", "Cn", "Dn", "Fn", "Sn", "vn", "pn", "Tn", "nn",
	"arn", "rncn"}

var bmodSpec = func() *lsfopt.Spec {
	s := lsfopt.New("" +
		"ar|B|H|N|r|rn|x|h|V|" + strings.Join(bmodResets, "|") + "|" +
		"a:|app:|b:|C:|c:|cwd:|D:|E:|Ep:|e:|eo:|F:|f:|G:|g:|i:|is:|J:|Jd:|k:|L:|M:|m:|n:|" +
		"o:|oo:|P:|p:|Q:|q:|R:|rnc:|S:|sla:|sp:|T:|t:|u:|v:|W:|We:|w:|wa:|wt:|" +
		// bsub's options Basalt does not implement, refused by name as bsub
		// refuses them (bmod -outdir d 1 would otherwise be -o utdir).
		unsupportedBsubOptions + "|" + bmodUnsupported)
	return s
}()

// bmodUnsupported are bmod's own LSF 10.1 options Basalt does not
// implement (changing a spooled command file, or the command).
const bmodUnsupported = "Zs|Zsn|gpun|Z:|gpu:"

func init() {
	Register(&Command{Name: "bmod", Summary: "modify job submission options", Run: runBmod})
}

func runBmod(ctx context.Context, env *Env, args []string) int {
	res, err := bmodSpec.Parse(args)
	if err != nil {
		env.Errorf("bmod: %v", err)
		env.Errorf("Usage: bmod [bsub options] [-Xn ...] job_ID | \"job_ID[index]\"")
		return ExitUsage
	}
	if res.Has("h") {
		env.Errorf("Usage: bmod [bsub options] [-Xn ...] job_ID | \"job_ID[index]\"")
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	name := unsupportedBsubOption(res)
	if name == "" {
		name = res.FirstOf(bmodUnsupported)
	}
	if name == "" && res.Has("Q") {
		name = "Q" // bsub's, not yet bmod's
	}
	if name != "" {
		env.Errorf("-%s: Option not supported. Job not modified.", name)
		return ExitUsage
	}
	if len(res.Operands) != 1 {
		env.Errorf("bmod: one job ID is expected")
		return ExitUsage
	}
	refs, err := parseJobIDs(res.Operands)
	if err != nil || len(refs) != 1 {
		env.Errorf("%s: Illegal job ID.", res.Operands[0])
		return ExitUsage
	}
	req := &api.ModifyRequest{Job: refs[0], Spec: &api.JobSpec{}}
	resets := map[string]bool{}
	for _, r := range bmodResets {
		resets[r] = true
	}
	setOpts := &lsfopt.Result{}
	for _, o := range res.Opts {
		switch {
		case resets[o.Name]:
			req.Reset = append(req.Reset, o.Name)
		case o.Name == "rn": // -rn resets -r
			req.Reset = append(req.Reset, "rn")
		case o.Name == "H":
		default:
			setOpts.Opts = append(setOpts.Opts, o)
			name := o.Name
			if name == "is" {
				name = "i"
			}
			if !contains(req.Set, name) {
				req.Set = append(req.Set, name)
			}
		}
	}
	cc, err := loadClientConf(env)
	if err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	if err := applyBsubOptions(env, cc, req.Spec, setOpts); err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	req.Spec.Env = nil
	var reply api.ControlReply
	if !batchCall(ctx, env, api.MBatchdModify, req, &reply) {
		return ExitUsage
	}
	ref := output.LongJobRef(refs[0].JobID, refs[0].Index)
	for _, r := range reply.Results {
		if r.Status != nil && r.Status.Code != 0 {
			env.Errorf("Job <%s>: %s", ref, r.Status.Message)
			return ExitUsage
		}
	}
	fmt.Fprintf(env.Stdout, "Parameters of job <%s> are being changed\n", ref)
	return 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

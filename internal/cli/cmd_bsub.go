package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

// bsubSpec is bsub's option table (LSF 10 synopsis, options this release
// reaches). Options come first; the first operand starts the job's command.
var bsubSpec = func() *lsfopt.Spec {
	s := lsfopt.New("" +
		// flags
		"B|H|I|Ip|Is|K|N|r|rn|x|h|V|Zs|tty|" +
		// value options
		"a:|app:|b:|C:|c:|cwd:|D:|E:|Ep:|e:|eo:|env:|F:|f:|G:|g:|i:|is:|J:|Jd:|k:|L:|M:|m:|n:|" +
		"o:|oo:|P:|p:|pack:|q:|R:|S:|sla:|sp:|T:|t:|U:|u:|v:|W:|We:|w:|wa:|wt:")
	s.StopAtOperand = true
	return s
}()

func init() {
	Register(&Command{Name: "bsub", Summary: "submit a batch job", Run: runBsub})
}

func runBsub(ctx context.Context, env *Env, args []string) int {
	res, err := bsubSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "bsub: %v\n", err)
		bsubUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bsubUsage(env)
		return 0
	}
	if res.Has("V") {
		return runVersion(ctx, env, nil)
	}
	// BSUB_CHK_RESREQ set to any value: check the resource requirement's
	// select section and stop, without contacting any daemon.
	if _, ok := env.LookupEnv("BSUB_CHK_RESREQ"); ok {
		return bsubCheckResReq(env, res.All("R"))
	}
	fmt.Fprintln(env.Stderr, "Cannot connect to LSF. Please wait ... batch daemons are not available in this build. Job not submitted.")
	return ExitUsage
}

func bsubUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: bsub [-h] [-V] [-H] [-x] [-r | -rn] [-N] [-B] [-K] [-I | -Ip | -Is]
            [-q "queue_name ..."] [-m "host_name[+[pref_level]] | host_group[+[pref_level]] ..."]
            [-n min_proc[,max_proc]] [-R "res_req"] [-J job_name | -J "name[index_list]%job_limit"]
            [-b [[month:]day:]hour:minute] [-t [[month:]day:]hour:minute] [-w 'dependency_expression']
            [-i input_file | -is input_file] [-o output_file | -oo output_file] [-e error_file | -eo error_file]
            [-cwd "dir"] [-env "none" | "all" | "[all,]var_name[=var_value][,var_name[=var_value] ...]"]
            [-E "pre_exec_command [args ...]"] [-Ep "post_exec_command [args ...]"] [-L login_shell]
            [-P project_name] [-G user_group] [-app application_profile] [-sp priority] [-u mail_user]
            [-W [hour:]minute[/host_name | /host_model]] [-c [hour:]minute[/host_name | /host_model]]
            [-M mem_limit] [-C core_limit] [-D data_limit] [-F file_limit] [-S stack_limit] [-v swap_limit]
            [-p process_limit] [-T thread_limit] [-Jd "job_description"] [-pack job_submission_file]
            [command [argument ...]]`)
}

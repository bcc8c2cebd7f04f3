package cli

import (
	"fmt"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

// IBM LSF 10.1's options of each query command that Basalt does not
// implement. They are in the command's option table so that they parse as
// themselves and are refused by name: otherwise "bhosts -rconly" would
// read as -R conly, "bhist -Jd x" as -J d with an operand x, "bhist -n 0"
// as a job operand and "lsload -gpuload" as an illegal letter.
const (
	unsupportedBqueuesOptions = "alloc"
	unsupportedBhostsOptions  = "a|aff|alloc|attr|cname|e|loc|rc|rconly|sl|x"
	unsupportedBhistOptions   = "aff|cname|data|e|gpu|hostfile|t|x|app:|f:|G:|Jd:|Lp:|n:|N:|T:"
	unsupportedBacctOptions   = "aff|cname|E|gpu|x|app:|f:|Lp:|M:|N:|rcacct:|rcalloc:|sla:|U:"
	unsupportedBusersOptions  = "alloc"
	unsupportedLsloadOptions  = "a|cname|gpu|gpuload|loc"
	unsupportedLshostsOptions = "a|cname|gpu|loc|mig|sl|T"
	unsupportedBhpartOptions  = "r"
	unsupportedBmgroupOptions = "cu"
	unsupportedBappOptions    = "alloc"
)

// refuseUnsupported prints "cmd: -opt: Option not supported" for the first
// option of res in desc (one of the lists above) and reports whether there
// was one; the command then exits with ExitUsage, as bjobs and bsub do.
func refuseUnsupported(env *Env, cmd string, res *lsfopt.Result, desc string) bool {
	name := res.FirstOf(desc)
	if name == "" {
		return false
	}
	env.Errorf("%s: -%s: Option not supported", cmd, name)
	return true
}

// subcommandOptions parses the arguments of an admin subcommand (cmd is
// "badmin hclose", "lsadmin limrestart") by its IBM LSF 10.1 option table:
// spec holds every option of the table, unsupported (lsfopt syntax) those
// Basalt does not implement. A word that is no option of the table prints
// the parse error and the subcommand's usage; an unsupported option is
// refused by name. ok is false once either was printed: the subcommand
// exits ExitUsage.
func subcommandOptions(env *Env, cmd, usage string, spec *lsfopt.Spec, unsupported string, args []string) (*lsfopt.Result, bool) {
	res, err := spec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %v\nUsage: %s\n", cmd, err, usage)
		return nil, false
	}
	if unsupported != "" && refuseUnsupported(env, cmd, res, unsupported) {
		return nil, false
	}
	return res, true
}

// IBM LSF 10.1's badmin and lsadmin subcommands Basalt does not implement
// (a subcommand registered later by its own file wins over this list).
var (
	unsupportedBadminSubcommands = []string{
		"diagnose", "gpddebug", "gpdrestart", "gpdtime", "hghostadd", "hghostdel",
		"hpower", "perfmon", "rc", "security",
	}
	unsupportedLsadminSubcommands = []string{
		"expire",
	}
)

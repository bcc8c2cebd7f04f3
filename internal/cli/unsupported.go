package cli

import "github.com/basalt-lsf/basalt/internal/cli/lsfopt"

// IBM LSF 10.1's options of each query command that Basalt does not
// implement. They are in the command's option table so that they parse as
// themselves and are refused by name: otherwise "bhosts -rconly" would
// read as -R conly, "bhist -Jd x" as -J d with an operand x, "bhist -n 0"
// as a job operand and "lsload -gpuload" as an illegal letter.
const (
	unsupportedBqueuesOptions = "alloc"
	unsupportedBhostsOptions  = "a|aff|alloc|cname|e|rc|rconly|x"
	unsupportedBhistOptions   = "aff|cname|data|e|gpu|hostfile|t|x|app:|f:|G:|Jd:|Lp:|n:|N:|T:"
	unsupportedBacctOptions   = "aff|cname|E|gpu|x|app:|f:|Lp:|M:|N:|rcacct:|rcalloc:|sla:|U:"
	unsupportedBusersOptions  = "alloc"
	unsupportedLsloadOptions  = "a|cname|gpu|gpuload"
	unsupportedLshostsOptions = "a|cname|gpu|T"
	unsupportedBhpartOptions  = "r"
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

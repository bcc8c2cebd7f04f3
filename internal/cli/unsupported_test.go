package cli

import (
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

// TestQueryCommandsRefuseOtherLSFOptions: every IBM LSF 10.1 option a query
// command does not implement is refused by name with exit 255, before
// anything is asked of the cluster (a value option takes its value), and
// none of them shadows an option the command implements.
func TestQueryCommandsRefuseOtherLSFOptions(t *testing.T) {
	tests := []struct {
		cmd         string
		spec        *lsfopt.Spec
		unsupported string
	}{
		{"bqueues", bqueuesSpec, unsupportedBqueuesOptions},
		{"bhosts", bhostsSpec, unsupportedBhostsOptions},
		{"bhist", bhistSpec, unsupportedBhistOptions},
		{"bacct", bacctSpec, unsupportedBacctOptions},
		{"busers", busersSpec, unsupportedBusersOptions},
		{"lsload", lsloadSpec, unsupportedLsloadOptions},
		{"lshosts", lshostsSpec, unsupportedLshostsOptions},
		{"bhpart", bhpartSpec, unsupportedBhpartOptions},
	}
	for _, tt := range tests {
		c, ok := Lookup(tt.cmd)
		if !ok {
			t.Fatalf("%s is not registered", tt.cmd)
		}
		for _, f := range strings.Split(tt.unsupported, "|") {
			name := strings.TrimSuffix(f, ":")
			args := []string{"-" + name}
			if name != f {
				args = append(args, "0")
			}
			res, err := tt.spec.Parse(args)
			if err != nil || len(res.Opts) != 1 || res.Opts[0].Name != name || len(res.Operands) != 0 {
				t.Errorf("%s %q parses as %+v, %v", tt.cmd, args, res, err)
				continue
			}
			_, stderr, rc := runBatch(t, &fakeBatch{}, nil, c.Run, args...)
			want := tt.cmd + ": -" + name + ": Option not supported\n"
			if rc != ExitUsage || stderr != want {
				t.Errorf("%s %q: exit %d, stderr %q; want %d, %q", tt.cmd, args, rc, stderr, ExitUsage, want)
			}
		}
	}
}

// TestUnsupportedOptionsParseAsThemselves: the words that used to be read
// as other options are now the options they are.
func TestUnsupportedOptionsParseAsThemselves(t *testing.T) {
	tests := []struct {
		spec *lsfopt.Spec
		args []string
		want string
	}{
		{bhostsSpec, []string{"-alloc"}, "alloc"},   // was an illegal combination of letters
		{bhostsSpec, []string{"-rconly"}, "rconly"}, // was -R conly
		{bhistSpec, []string{"-n", "0"}, "n"},       // was an operand "0"
		{bhistSpec, []string{"-Jd", "x"}, "Jd"},     // was -J d, then the operand x
		{bacctSpec, []string{"-sla", "gold"}, "sla"},
		{lsloadSpec, []string{"-gpuload"}, "gpuload"},
		{lshostsSpec, []string{"-T"}, "T"},
		{busersSpec, []string{"-alloc"}, "alloc"},
	}
	for _, tt := range tests {
		res, err := tt.spec.Parse(tt.args)
		if err != nil || len(res.Opts) == 0 || res.Opts[0].Name != tt.want {
			t.Errorf("%q parses as %+v, %v; want -%s", tt.args, res, err, tt.want)
		}
	}
}

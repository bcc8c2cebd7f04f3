package cli

import (
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
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
		{"bmgroup", bmgroupSpec, unsupportedBmgroupOptions},
		{"bapp", bappSpec, unsupportedBappOptions},
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
		{bhostsSpec, []string{"-sl"}, "sl"},     // was -s then an illegal l
		{bhostsSpec, []string{"-loc"}, "loc"},   // was -l then illegal letters
		{bhostsSpec, []string{"-attr"}, "attr"}, // was an illegal combination of letters
		{bmgroupSpec, []string{"-cu"}, "cu"},
		{lshostsSpec, []string{"-sl"}, "sl"},    // was -s -l
		{lsloadSpec, []string{"-loc"}, "loc"},   // was -l then illegal letters
		{lsplaceSpec, []string{"-w", "2"}, "w"}, // was a flag, then an operand "2"
		{badminHostSpec, []string{"-i", "lock1"}, "i"},
		{badminMbdrestartSpec, []string{"-p"}, "p"},
	}
	for _, tt := range tests {
		res, err := tt.spec.Parse(tt.args)
		if err != nil || len(res.Opts) == 0 || res.Opts[0].Name != tt.want {
			t.Errorf("%q parses as %+v, %v; want -%s", tt.args, res, err, tt.want)
		}
	}
}

// TestAdminSubcommandOptions: badmin's and lsadmin's subcommands parse
// their IBM LSF 10.1 option tables. An option of the table Basalt does not
// implement is refused by name, a word that is in no table prints the
// error and LSF's usage of the subcommand; both exit 255 before anything
// is asked of a daemon.
func TestAdminSubcommandOptions(t *testing.T) {
	tests := []struct {
		cmd    string
		args   []string
		stderr string
	}{
		{"badmin", []string{"hclose", "-i", "lock1", "host1"}, "badmin hclose: -i: Option not supported\n"},
		{"badmin", []string{"hopen", "-i", "all"}, "badmin hopen: -i: Option not supported\n"},
		{"badmin", []string{"hopen", "-ilock1"}, "badmin hopen: -i: Option not supported\n"},
		{"badmin", []string{"mbdrestart", "-p"}, "badmin mbdrestart: -p: Option not supported\n"},
		{"badmin", []string{"mbdrestart", "-C", "x", "-s"}, "badmin mbdrestart: -s: Option not supported\n"},
		{"badmin", []string{"hclose", "-x"},
			"badmin hclose: illegal option -- x\nUsage: hclose [-C comment] [-i \"lock_id\"] [host_name ... | host_group ... | compute_unit ... | all]\n"},
		{"badmin", []string{"qclose", "-C"},
			"badmin qclose: option requires an argument -- C\nUsage: qclose [-C comment] [queue_name ... | all]\n"},
		{"badmin", []string{"qopen", "-f"},
			"badmin qopen: illegal option -- f\nUsage: qopen [-C comment] [queue_name ... | all]\n"},
		{"badmin", []string{"reconfig", "-C", "x"},
			"badmin reconfig: illegal option -- C\nUsage: reconfig [-v] [-f]\n"},
		{"badmin", []string{"reconfig", "normal"},
			"badmin reconfig: normal: unexpected operand\nUsage: reconfig [-v] [-f]\n"},
		{"badmin", []string{"mbdrestart", "-x"},
			"badmin mbdrestart: illegal option -- x\nUsage: mbdrestart [-C comment] [-v] [-f] [-p | -s]\n"},
		{"lsadmin", []string{"limshutdown", "-v"},
			"lsadmin limshutdown: illegal option -- v\nUsage: limshutdown [-f] [host_name ... | all]\n"},
		{"lsadmin", []string{"limstartup", "-v", "all"},
			"lsadmin limstartup: illegal option -- v\nUsage: limstartup [-f] [host_name ... | all]\n"},
		{"lsadmin", []string{"limrestart", "-x"},
			"lsadmin limrestart: illegal option -- x\nUsage: limrestart [-v] [-f] [host_name ... | all]\n"},
		{"lsadmin", []string{"reconfig", "-x"},
			"lsadmin reconfig: illegal option -- x\nUsage: reconfig [-f] [-v]\n"},
		{"lsadmin", []string{"reconfig", "host1"},
			"lsadmin reconfig: host1: unexpected operand\nUsage: reconfig [-f] [-v]\n"},
	}
	for _, tt := range tests {
		c, ok := Lookup(tt.cmd)
		if !ok {
			t.Fatalf("%s is not registered", tt.cmd)
		}
		fake := &fakeBatch{}
		_, stderr, rc := runBatch(t, fake, nil, c.Run, tt.args...)
		if rc != ExitUsage || stderr != tt.stderr {
			t.Errorf("%s %q: exit %d, stderr %q; want %d, %q", tt.cmd, tt.args, rc, stderr, ExitUsage, tt.stderr)
		}
		if len(fake.reqs) != 0 {
			t.Errorf("%s %q asked mbatchd: %v", tt.cmd, tt.args, fake.reqs)
		}
	}
}

// TestBadminComment: -C's comment, attached or not, goes with the request
// and is not read as a target.
func TestBadminComment(t *testing.T) {
	for _, args := range [][]string{{"hclose", "-C", "disk swap", "host1"}, {"hclose", "-Cdisk swap", "host1"}, {"hclose", "host1", "-C", "disk swap"}} {
		fake := &fakeBatch{replies: map[string][]wire.Message{"MBatchd.Admin": {&api.AdminReply{Results: []*api.AdminResult{{Target: "host1"}}}}}}
		c, _ := Lookup("badmin")
		_, stderr, rc := runBatch(t, fake, nil, c.Run, args...)
		req, _ := fake.reqs["MBatchd.Admin"].(*api.AdminRequest)
		if rc != 0 || req == nil || req.Message != "disk swap" || len(req.Targets) != 1 || req.Targets[0] != "host1" {
			t.Errorf("badmin %q: exit %d (%s), request %+v", args, rc, stderr, req)
		}
	}
}

// TestUnsupportedSubcommands: LSF 10.1's badmin and lsadmin subcommands
// Basalt does not have are refused by name; a word that is no LSF
// subcommand stays LSF's "Invalid command"; none of the list shadows a
// subcommand Basalt implements.
func TestUnsupportedSubcommands(t *testing.T) {
	for _, tt := range []struct {
		table *SubcommandTable
		names []string
	}{{BadminSubs, unsupportedBadminSubcommands}, {LsadminSubs, unsupportedLsadminSubcommands}} {
		c, _ := Lookup(tt.table.cmd)
		for _, n := range tt.names {
			if _, dup := tt.table.subs[n]; dup {
				t.Errorf("%s %s is implemented and listed as unsupported", tt.table.cmd, n)
			}
			_, stderr, rc := runBatch(t, &fakeBatch{}, nil, c.Run, n, "-x")
			if want := tt.table.cmd + " " + n + ": Subcommand not supported\n"; rc != ExitUsage || stderr != want {
				t.Errorf("%s %s: exit %d, %q; want %q", tt.table.cmd, n, rc, stderr, want)
			}
		}
		_, stderr, rc := runBatch(t, &fakeBatch{}, nil, c.Run, "frobnicate")
		if rc != ExitUsage || stderr != "Invalid command <frobnicate>. Try help.\n" {
			t.Errorf("%s frobnicate: exit %d, %q", tt.table.cmd, rc, stderr)
		}
	}
}

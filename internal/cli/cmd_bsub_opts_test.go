package cli

import "testing"

// TestBsubOtherLSFOptions: IBM LSF 10.1's bsub options that Basalt does not
// implement parse as themselves and are refused by name, instead of being
// read as an option with an attached value (-outdir as -o utdir, -eptl as
// -e ptl, -clusters as -c lusters); the options Basalt implements parse as
// before, attached values included.
func TestBsubOtherLSFOptions(t *testing.T) {
	tests := []struct {
		args        []string
		unsupported string
		first       string // name of the first option parsed
		value       string
	}{
		{[]string{"-outdir", "/tmp", "true"}, "outdir", "outdir", "/tmp"},
		{[]string{"-eptl", "10", "true"}, "eptl", "eptl", "10"},
		{[]string{"-clusters", "all", "true"}, "", "clusters", "all"}, // implemented (MultiCluster), parsed as itself
		{[]string{"-gpu", "num=1", "true"}, "", "gpu", "num=1"},       // gpu_jobs.txtar
		{[]string{"-hl", "true"}, "hl", "hl", ""},
		{[]string{"-notify", "true"}, "notify", "notify", "true"},
		{[]string{"-notify", "-q", "normal", "true"}, "notify", "notify", ""},
		{[]string{"-ul", "true"}, "ul", "ul", ""},
		{[]string{"-Zs", "./job.sh"}, "", "Zs", ""}, // spooled (spool.go)
		{[]string{"-zs", "./job.sh"}, "zs", "zs", ""},
		{[]string{"-Q", "3", "true"}, "", "Q", "3"},
		{[]string{"-o", "out", "true"}, "", "o", "out"},
		{[]string{"-oo", "out", "true"}, "", "oo", "out"},
		{[]string{"-n4", "true"}, "", "n", "4"},
		{[]string{"-sp", "10", "true"}, "", "sp", "10"},
		{[]string{"-sla", "gold", "true"}, "", "sla", "gold"},
		{[]string{"-eo", "err", "true"}, "", "eo", "err"},
		{[]string{"-Ep", "/bin/post", "true"}, "", "Ep", "/bin/post"},
		{[]string{"-Lp", "proj", "true"}, "Lp", "Lp", "proj"},
		{[]string{"-L", "/bin/sh", "true"}, "", "L", "/bin/sh"},
	}
	for _, tt := range tests {
		res, err := bsubSpec.Parse(tt.args)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if len(res.Opts) == 0 || res.Opts[0].Name != tt.first || res.Opts[0].Value != tt.value {
			t.Errorf("%q parsed as %+v, want -%s %q", tt.args, res.Opts, tt.first, tt.value)
		}
		if got := unsupportedBsubOption(res); got != tt.unsupported {
			t.Errorf("%q: unsupported option %q, want %q", tt.args, got, tt.unsupported)
		}
	}
}

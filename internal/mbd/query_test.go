package mbd

import (
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// TestNameMatch: bjobs/bkill -J patterns (LSF: '*' anywhere, but not in an
// array index).
func TestNameMatch(t *testing.T) {
	tests := []struct {
		pattern, name, display string
		want                   bool
	}{
		{"sim", "sim", "sim", true},
		{"sim", "sim2", "sim2", false},
		{"sim*", "sim2", "sim2", true},
		{"*aaaa*", "Snakemake_rule_a:s=x___(1b2c-aaaa)", "Snakemake_rule_a:s=x___(1b2c-aaaa)", true},
		{"*aaaa)", "rule___(1b2c-aaaa)", "rule___(1b2c-aaaa)", true},
		{"*bbbb*", "rule___(1b2c-aaaa)", "rule___(1b2c-aaaa)", false},
		{"job*", "jobarray", "jobarray[1]", true},
		{"*AAA*[1]", "xAAAy", "xAAAy[1]", true},
		{"*AAA*[1]", "xAAAy", "xAAAy[2]", false},
		{"arr[2]", "arr", "arr[2]", true},
		{"job1[*]", "job1", "job1[3]", false},
		{"job1[1*]", "job1", "job1[12]", false},
	}
	for _, tt := range tests {
		if got := nameMatch(tt.pattern, tt.name, tt.display); got != tt.want {
			t.Errorf("nameMatch(%q, %q, %q) = %v, want %v", tt.pattern, tt.name, tt.display, got, tt.want)
		}
	}
}

// TestPendingOnly: which bmod requests hold an option a running job may
// not have changed (the state refuses those for a job started since).
func TestPendingOnly(t *testing.T) {
	tests := []struct {
		set, reset []string
		want       bool
	}{
		{[]string{"W", "M"}, nil, false},
		{[]string{"q"}, nil, true},
		{nil, []string{"Wn", "on"}, false},
		{nil, []string{"Rn"}, true},
		{[]string{"c"}, []string{"Jn"}, true},
	}
	for _, tt := range tests {
		if got := pendingOnly(&api.ModifyRequest{Set: tt.set, Reset: tt.reset}); got != tt.want {
			t.Errorf("bmod set %v reset %v: pendingOnly %v, want %v", tt.set, tt.reset, got, tt.want)
		}
	}
}

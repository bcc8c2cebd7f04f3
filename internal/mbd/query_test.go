package mbd

import "testing"

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

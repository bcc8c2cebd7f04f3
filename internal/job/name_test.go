package job

import "testing"

func TestNameMatch(t *testing.T) {
	tests := []struct {
		p, s string
		want bool
	}{
		{"abc", "abc", true}, {"abc", "abd", false}, {"a*", "abc", true}, {"*c", "abc", true},
		{"a*c", "abbbc", true}, {"a*c", "ab", false}, {"*", "", true}, {"", "", true}, {"", "a", false},
		{"arr[1-3]", "arr[1-3]", true}, {"arr[*]", "arr[1-3]", true}, {"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false}, {"**", "x", true},
		// Snakemake polls with -J '*<uuid>*'.
		{"*1b2c*", "Snakemake_rule_a:s=x___(1b2c3d)", true}, {"*3d)", "rule___(1b2c3d)", true},
		{"*zz*", "rule___(1b2c3d)", false},
	}
	for _, tt := range tests {
		if got := NameMatch(tt.p, tt.s); got != tt.want {
			t.Errorf("NameMatch(%q, %q) = %v", tt.p, tt.s, got)
		}
	}
}

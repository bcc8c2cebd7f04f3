package resreq

import "testing"

// TestEffective: the effective requirement writes out the type rule and the
// default order, and rusage values with two decimals (IBM 10.1:
// "rusage[mem=49152.00]"); what the job gave stays in canonical form.
func TestEffective(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "select[type == local] order[r15s:pg]"},
		{"select[mem>100] rusage[mem=200] span[hosts=1]", "select[(mem > 100) && (type == local)] order[r15s:pg] rusage[mem=200.00] span[hosts=1]"},
		{"rusage[mem=49152:swp=1.5:duration=10, tmp=2GB]", "select[type == local] order[r15s:pg] rusage[mem=49152.00:swp=1.50:duration=10, tmp=2GB]"},
		{"select[type==any]", "select[type == any] order[r15s:pg]"},
		{"select[mem>1 || swp>1] order[-ut]", "select[((mem > 1) || (swp > 1)) && (type == local)] order[-ut]"},
		{"order[ut] same[type]", "select[type == local] order[ut] same[type]"},
		{"{select[mem>1]} || {select[swp>1]}", "{select[mem > 1]} || {select[swp > 1]}"},
	}
	tab := BuiltinTable()
	for _, tt := range tests {
		r, err := ParseMulti([]string{tt.in}, Options{Context: CtxBsub, Table: tab})
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		c, err := r.Compile(tab, Local{Type: "LINUX64", Model: "m"})
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if got := r.Effective(c.TypeRule); got != tt.want {
			t.Errorf("Effective(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if tt.want != "" && r.Kind == KindSimple {
			// The effective form is itself a requirement that means the same.
			if _, err := Parse(r.Effective(c.TypeRule), Options{Context: CtxBsub, Table: tab}); err != nil {
				t.Errorf("Effective(%q) does not parse: %v", tt.in, err)
			}
		}
	}
	if got := (*ResReq)(nil).Effective(TypeLocal); got != "" {
		t.Errorf("nil requirement: %q", got)
	}
}

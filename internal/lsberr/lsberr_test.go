package lsberr

import "testing"

func TestTexts(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{New(BadQueue), "No such queue"},
		{New(NoJob), "No matching job found"},
		{New(BadResReq), "Bad resource requirement syntax"},
		{Errorf(BadQueue, "%s: No such queue", "nosuch"), "nosuch: No such queue"},
		{New(Code(999)), "Unknown batch system error number 999"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

package cluster

import "testing"

func TestIsShepherdHost(t *testing.T) {
	state := "/tmp/c/state/"
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"basalt", "job-shepherd", "-host", "/tmp/c/state/host1/sbatchd", ""}, true},
		{[]string{"job-shepherd", "-host", "/tmp/c/state/host2/sbatchd", "-idle", "30s"}, true},
		{[]string{"basalt", "job-shepherd", "-host", "/tmp/c2/state/host1/sbatchd"}, false}, // another cluster
		{[]string{"basalt", "job-shepherd", "/tmp/c/state/host1/sbatchd/jobs/1"}, false},    // a job's shepherd
		{[]string{"vi", "-host", "/tmp/c/state/x"}, false},
		{[]string{"basalt", "job-shepherd", "-host"}, false},
		{nil, false},
	} {
		if got := isShepherdHost(tc.args, state); got != tc.want {
			t.Errorf("isShepherdHost(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

package sbd

import (
	"testing"

	"github.com/basalt-lsf/basalt/internal/sbd/report"
)

// TestReportPrefix: bpeek holds back the end of what it read when it may
// begin the job report, and only that.
func TestReportPrefix(t *testing.T) {
	tests := []struct {
		data string
		want int
	}{
		{"line\n", 1},
		{"line", 0},
		{"line\n-----", 6},
		{"line\n---x", 0},
		{"x" + report.Start[:len(report.Start)-1], len(report.Start) - 1},
		{"", 0},
	}
	for _, tt := range tests {
		if got := reportPrefix([]byte(tt.data)); got != tt.want {
			t.Errorf("reportPrefix(%q) = %d, want %d", tt.data, got, tt.want)
		}
	}
}

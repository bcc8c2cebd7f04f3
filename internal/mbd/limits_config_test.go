package mbd

import (
	"testing"

	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
)

// TestLimitSection: bresources renders each Limit section as lsb.resources
// text: consumers with their exclusions, windowed and percent values,
// named resources, an unnamed limit as NONAME<index>.
func TestLimitSection(t *testing.T) {
	day, err := timewin.Parse("8:00-18:00")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		l    *config.Limit
		idx  int
		want string
	}{
		{&config.Limit{Name: "a", PerUser: config.Consumer{Set: true, All: true, Except: []string{"root"}},
			Slots: config.LimitValue{Set: true, Value: 4}},
			0, "Begin Limit\nNAME = a\nPER_USER = all ~root\nSLOTS = 4\nEnd Limit\n"},
		{&config.Limit{Queues: config.Consumer{Set: true, Names: []string{"normal", "short"}},
			PerHost: config.Consumer{Set: true, All: true},
			Mem:     config.LimitValue{Set: true, Value: 10, Percent: true},
			Jobs:    config.LimitValue{Windows: []config.WindowedValue{{Value: 2, Window: day}}}},
			3, "Begin Limit\nNAME = NONAME003\nQUEUES = normal short\nPER_HOST = all\nJOBS = [2 8:00-18:00]\nMEM = 10%\nEnd Limit\n"},
		{&config.Limit{Name: "lic", Projects: config.Consumer{Set: true, Names: []string{"p1"}},
			Resources: []config.NamedLimit{{Name: "verilog", Value: 2.5}}},
			1, "Begin Limit\nNAME = lic\nPROJECTS = p1\nRESOURCE = [verilog,2.5]\nEnd Limit\n"},
	}
	for _, tt := range tests {
		if got := limitSection(tt.l, tt.idx); got != tt.want {
			t.Errorf("limitSection(%s):\n%s\nwant:\n%s", tt.l.Name, got, tt.want)
		}
	}
}

package eventlog

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestSysHistory: badmin hist's lines for each record kind, as LSF's
// displayEvent prints them, and the selection of each subcommand.
func TestSysHistory(t *testing.T) {
	file := strings.Join([]string{
		`"MBD_START" "10.1" 1700000000 "host1" "c1" 3 2`,
		`"QUEUE_CTRL" "10.1" 1700000010 2 "normal" 0 "root" ""`,
		`"QUEUE_CTRL" "10.1" 1700000020 1 "short" 0 "" ""`,
		`"HOST_CTRL" "10.1" 1700000030 2 "host2" 0 "admin" "disk"`,
		`"JOB_SWITCH" "10.1" 1700000035 0 5 "short" 0 "alice"`,
		`not a record`,
		`"LOG_SWITCH" "10.1" 1700000040 17`,
		`"MBD_DIE" "10.1" 1700000050 "host1" 0 1`,
	}, "\n") + "\n"
	all := []SysLine{
		{1700000000, "mbatchd started on host <host1>; cluster name <c1>, 3 server hosts, 2 queues."},
		{1700000010, "Queue <normal> closed by user or administrator <root>."},
		{1700000020, "Queue <short> opened."},
		{1700000030, "Host <host2> closed by administrator <admin>."},
		{1700000040, "event file is switched; last JobId <17>"},
		{1700000050, "mbatchd on host <host1> died: reconfiguration initiated."},
	}
	tests := []struct {
		name string
		q    SysQuery
		want []SysLine
	}{
		{"hist", SysQuery{Kind: SysAll}, all},
		{"mbdhist", SysQuery{Kind: SysMbd}, []SysLine{all[0], all[4], all[5]}},
		{"qhist", SysQuery{Kind: SysQueue}, []SysLine{all[1], all[2]}},
		{"qhist short", SysQuery{Kind: SysQueue, Names: []string{"short"}}, []SysLine{all[2]}},
		{"hhist", SysQuery{Kind: SysHost}, []SysLine{all[3]}},
		{"hhist other host", SysQuery{Kind: SysHost, Names: []string{"host9"}}, nil},
		{"hist -t", SysQuery{Kind: SysAll, From: 1700000015, To: 1700000045}, []SysLine{all[2], all[3], all[4]}},
	}
	for _, tt := range tests {
		got, bad, err := ReadSysHistory(context.Background(), strings.NewReader(file), "lsb.events", &tt.q)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if bad != 1 {
			t.Errorf("%s: %d bad records, want 1", tt.name, bad)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

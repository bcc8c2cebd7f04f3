package eventlog

import (
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// Resize events become JOB_RESIZE_* lines (lsbatch.h's field order), read
// back with bhist's lines and the allocation each leaves.
func TestResizeRecords(t *testing.T) {
	alloc := []*api.ExecHost{{Host: "h1", Slots: 1}}
	for _, tt := range []struct {
		ev    *api.EvJobResize
		lines []string
		text  string
		alloc string
	}{
		{&api.EvJobResize{JobID: 9, Action: api.ResizeOpGrow, Hosts: []*api.ExecHost{{Host: "h1", Slots: 1}, {Host: "h2", Slots: 2}}},
			[]string{`"JOB_RESIZE_NOTIFY_START" "10.1" 1700000000 9 0 0 3 "h1" "h2" "h2" 0`},
			"Additional allocation on <h1> <2*h2>;", "h1:2 h2:2"},
		{&api.EvJobResize{JobID: 9, Action: api.ResizeOpRelease, CancelPending: true, NotifyCmd: "n", Hosts: []*api.ExecHost{{Host: "h2", Slots: 2}}},
			[]string{`"JOB_RESIZE_CANCEL" "10.1" 1700000000 9 0 1002 "bob"`,
				`"JOB_RESIZE_RELEASE" "10.1" 1700000000 9 0 0 0 1002 "bob" "n" 2 "h2" "h2"`},
			"Release allocation on <2*h2> by user or administrator <bob>;", "h1:2"},
		{&api.EvJobResize{JobID: 9, Index: 3, Action: api.ResizeOpCancel},
			[]string{`"JOB_RESIZE_CANCEL" "10.1" 1700000000 9 3 1002 "bob"`},
			"Cancel pending allocation request by user or administrator <bob>;", "h1:2"},
		{&api.EvJobResize{JobID: 9, Action: api.ResizeOpRequest, Min: 1, Max: 2}, nil, "", "h1:2"},
	} {
		evs, _ := Render(&api.Event{Time: t0 * 1e9, User: "bob", UID: 1002, JobResize: tt.ev}, nil)
		if len(evs) != len(tt.lines) {
			t.Fatalf("%+v: %d records, want %d", tt.ev, len(evs), len(tt.lines))
		}
		for i, r := range evs {
			line := strings.TrimSuffix(r.Format(), "\n")
			if line != tt.lines[i] {
				t.Errorf("record %d:\n got %s\nwant %s", i, line, tt.lines[i])
			}
			back, err := ParseRecord(line)
			if err != nil {
				t.Fatalf("ParseRecord(%s): %v", line, err)
			}
			if id, idx, ok := back.JobID(); !ok || id != 9 || idx != tt.ev.Index {
				t.Errorf("JobID of %s = %d %d %v", line, id, idx, ok)
			}
			if id, isJob, ok := peekJobID([]byte(line)); !ok || !isJob || id != 9 {
				t.Errorf("peekJobID(%s) = %d %v %v", line, id, isJob, ok)
			}
		}
		if len(evs) == 0 {
			continue
		}
		text, after := resizeText(evs[len(evs)-1].Log, alloc)
		if text != tt.text {
			t.Errorf("bhist text %q, want %q", text, tt.text)
		}
		var got []string
		for _, h := range after {
			got = append(got, h.Host+":"+string(rune('0'+h.Slots)))
		}
		if strings.Join(got, " ") != tt.alloc {
			t.Errorf("allocation after %s: %v, want %s", evs[len(evs)-1].Type, got, tt.alloc)
		}
		alloc = after
	}
}

package lim

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/limtest"
)

func testModel(t *testing.T, o limtest.Options) *model {
	t.Helper()
	o.Dir = t.TempDir()
	l, err := limtest.Write(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := config.LoadBase(context.Background(), config.Options{EnvDir: l.EnvDir, LocalHost: "host1"})
	if err != nil {
		t.Fatal(err)
	}
	return newModel(b)
}

func TestElimAssignment(t *testing.T) {
	m := testModel(t, limtest.Options{Hosts: 6,
		Resources:   []string{"usr_tmp Numeric 15 N (u)", "lic Numeric 15 N (l)", "glob Numeric 15 N (g)", "rest Numeric 15 N (r)", "stat Numeric () N (s)"},
		ResourceMap: []string{"lic ([host1 host2] [host3 host4])", "glob ([all ~host1])", "rest ([host5] [others])", "stat (3@[all])"},
	})
	tb := newTable(m)
	now := time.Unix(1700000000, 0)
	up := func(hosts ...string) {
		for _, h := range hosts {
			tb.apply(&api.LoadReport{Host: h}, now)
		}
	}
	up("host1", "host2", "host3", "host4", "host5", "host6")
	type want struct {
		res []string
		run bool
	}
	check := func(step, master string, w map[string]want) {
		t.Helper()
		for h, x := range w {
			res, run := tb.elimAssignment(h, master, now)
			if !reflect.DeepEqual(res, x.res) || run != x.run {
				t.Errorf("%s: %s gets %v, %v; want %v, %v", step, h, res, run, x.res, x.run)
			}
		}
	}
	check("all up", "host1", map[string]want{
		// host1: first of [host1 host2], first of [others] (host1-4, host6),
		// and [all] resources run on the master.
		"host1": {[]string{"lic", "glob", "rest"}, true},
		"host2": {nil, false},
		"host3": {[]string{"lic"}, true},
		"host4": {nil, false},
		"host5": {[]string{"rest"}, true},
		"host6": {nil, false},
	})
	// host1 leaves: host2 takes its sets over and becomes master.
	tb.apply(&api.LoadReport{Host: "host1", Leaving: true}, now)
	check("host1 down", "host2", map[string]want{
		"host1": {nil, false},
		"host2": {[]string{"lic", "glob", "rest"}, true},
		"host3": {[]string{"lic"}, true},
	})
	// host1 silent for longer than HOST_INACTIVITY_LIMIT x EXINTERVAL is
	// unavailable too; when it reports again it gets its sets back.
	tb.apply(&api.LoadReport{Host: "host1"}, now)
	later := now.Add(tb.inactivity() + time.Second)
	tb.apply(&api.LoadReport{Host: "host2"}, later)
	if res, _ := tb.elimAssignment("host2", "host2", later); !reflect.DeepEqual(res, []string{"lic", "glob", "rest"}) {
		t.Errorf("inactive host1: host2 gets %v", res)
	}
	tb.apply(&api.LoadReport{Host: "host1"}, later)
	if res, _ := tb.elimAssignment("host1", "host1", later); !reflect.DeepEqual(res, []string{"lic", "glob", "rest"}) {
		t.Errorf("host1 back: gets %v", res)
	}

	// A [default] resource runs every elim on every host.
	md := testModel(t, limtest.Options{Hosts: 2, Resources: []string{"usr_tmp Numeric 15 N (u)", "lic Numeric 15 N (l)"},
		ResourceMap: []string{"usr_tmp [default]", "lic ([host1])"}})
	td := newTable(md)
	td.apply(&api.LoadReport{Host: "host1"}, now)
	td.apply(&api.LoadReport{Host: "host2"}, now)
	if res, run := td.elimAssignment("host2", "host1", now); !reflect.DeepEqual(res, []string{"usr_tmp"}) || !run {
		t.Errorf("default: host2 gets %v, %v", res, run)
	}
	if res, _ := td.elimAssignment("host1", "host1", now); !reflect.DeepEqual(res, []string{"usr_tmp", "lic"}) {
		t.Errorf("default: host1 gets %v", res)
	}
}

func TestStatus(t *testing.T) {
	m := testModel(t, limtest.Options{Hosts: 4, Resources: []string{"scratch Numeric 15 N (s)", "jobs Numeric 15 Y (j)"},
		ResourceMap: []string{"scratch [default]", "jobs [default]"},
		HostColumns: "HOSTNAME model type server r15s ut mem scratch jobs RUNWINDOW RESOURCES",
		HostRows: []string{
			"host1 ! ! 1 0.5 0.8 500 10 () () ()",
			"host2 ! ! 1 () 90 () () 3 () ()",
			"host3 ! ! 1 () () () () () (1:0:00-1:8:00) ()",
			"host4 ! ! 1 () () () () () () ()",
		}})
	tb := newTable(m)
	monday3am := time.Date(2026, 11, 23, 3, 0, 0, 0, time.Local)
	rep := func(host string, r15s, ut, mem float64, ncpus int32, ext ...*api.IndexValue) *api.LoadReport {
		return &api.LoadReport{Host: host, Load: []float64{r15s, 0, 0, ut, 0, 0, 0, 0, 0, 0, mem},
			Static: &api.HostStatic{NCPUs: ncpus}, Ext: ext}
	}
	tests := []struct {
		name   string
		r      *api.LoadReport
		status api.LimStatus
		busy   []string
	}{
		{"under every threshold", rep("host1", 0.4, 0.5, 800, 1, &api.IndexValue{Name: "scratch", Value: 50}), 0, nil},
		// r15s compares the effective value: 2 on 4 CPUs is 0.125.
		{"effective run queue", rep("host1", 2, 0.5, 800, 4), 0, nil},
		{"raw run queue on 1 CPU", rep("host1", 2, 0.5, 800, 1), api.LimBusy, []string{"r15s"}},
		{"decreasing index below", rep("host1", 0, 0.9, 100, 1, &api.IndexValue{Name: "scratch", Value: 5}), api.LimBusy, []string{"ut", "mem", "scratch"}},
		{"ut threshold as a percentage", rep("host2", 0, 0.95, 0, 1), api.LimBusy, []string{"ut"}},
		{"increasing external index", rep("host2", 0, 0.5, 0, 1, &api.IndexValue{Name: "jobs", Value: 4}), api.LimBusy, []string{"jobs"}},
		{"run window open (Monday 0:00-8:00)", rep("host3", 0, 0, 0, 1), 0, nil},
		{"locked", &api.LoadReport{Host: "host4", LockedU: true}, api.LimLockU, nil},
		{"lock expired", &api.LoadReport{Host: "host4", LockedU: true, LockUntil: monday3am.Unix() - 1}, 0, nil},
		{"leaving", &api.LoadReport{Host: "host4", Leaving: true}, api.LimUnavail, nil},
		{"not serving", &api.LoadReport{Host: "host4", NotServing: true}, api.LimUnavail, nil},
		{"serving again", &api.LoadReport{Host: "host4"}, 0, nil},
	}
	for _, tt := range tests {
		tb.apply(tt.r, monday3am)
		hs := tb.index[tt.r.Host]
		st, busy := tb.status(hs, monday3am)
		if st != tt.status || !reflect.DeepEqual(busy, tt.busy) {
			t.Errorf("%s: status %v busy %v, want %v %v", tt.name, st, busy, tt.status, tt.busy)
		}
	}
	// Five hours later the LIM has not reported for longer than the
	// inactivity limit: unavail; once it reports, the window (closed at
	// 8:00) locks it.
	at801 := monday3am.Add(5*time.Hour + time.Minute)
	if st, _ := tb.status(tb.index["host3"], at801); st != api.LimUnavail {
		t.Errorf("status long after the last report = %v, want unavail", st)
	}
	tb.apply(rep("host3", 0, 0, 0, 1), at801)
	if st, _ := tb.status(tb.index["host3"], at801); st != api.LimLockW {
		t.Errorf("status after the window = %v, want lockW", st)
	}
	// Never reported: unavail.
	if st, _ := newTable(m).status(newTable(m).index["host1"], monday3am); st != api.LimUnavail {
		t.Errorf("never reported: %v", st)
	}
}

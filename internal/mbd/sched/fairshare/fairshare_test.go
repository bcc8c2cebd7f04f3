package fairshare

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/config"
)

var defaults = Factors{CPUTime: 0.7, RunTime: 0.7, RunJob: 3, HistHours: 5}

func TestPriorityFormula(t *testing.T) {
	for _, tt := range []struct {
		shares int
		u      Usage
		f      Factors
		want   float64
	}{
		{10, Usage{}, defaults, 10.0 / 3},
		{6, Usage{Slots: 1}, defaults, 1},
		// One hour of CPU and two of run time: 0.7 + 1.4 + 3 = 5.1.
		{51, Usage{CPU: 3600, Run: 3600, HistRun: 3600}, defaults, 10},
		// Static fairshare: all factors 0, the denominator is 0.01.
		{4, Usage{Slots: 7, CPU: 99}, Factors{}, 400},
	} {
		if got := Priority(tt.shares, tt.u, tt.f); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Priority(%d, %+v) = %v, want %v", tt.shares, tt.u, got, tt.want)
		}
	}
}

func TestHistoryDecay(t *testing.T) {
	var h History
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h.Add("normal", "alice", 3600, 7200, t0, 5)
	// 1 h of CPU decays to 0.1 h after HIST_HOURS hours.
	cpu, run := h.Get("normal", "alice", t0.Add(5*time.Hour), 5)
	if math.Abs(cpu-360) > 1e-6 || math.Abs(run-720) > 1e-6 {
		t.Fatalf("after 5 h: cpu %v run %v, want 360 720", cpu, run)
	}
	// HIST_HOURS=0: no decay.
	if cpu, _ := h.Get("normal", "alice", t0.Add(500*time.Hour), 0); cpu != 3600 {
		t.Fatalf("HIST_HOURS=0 decayed: %v", cpu)
	}
	// A second run adds to the decayed first one.
	h.Add("normal", "alice", 100, 0, t0.Add(5*time.Hour), 5)
	if cpu, _ := h.Get("normal", "alice", t0.Add(5*time.Hour), 5); math.Abs(cpu-460) > 1e-6 {
		t.Fatalf("after a second run: %v", cpu)
	}
	if cpu, _ := h.Get("other", "alice", t0, 5); cpu != 0 {
		t.Fatalf("scopes are separate: %v", cpu)
	}
	h.Prune(t0.Add(1000*time.Hour), 5)
	if len(h.recs) != 0 {
		t.Fatalf("prune kept %d records", len(h.recs))
	}
}

// order offers each user's jobs (user:count ...) and returns the order Next
// gives them, charging one slot per job as it starts.
func order(t *Tree, offers string) string {
	var users []string
	for _, o := range strings.Fields(offers) {
		users = append(users, o)
	}
	for i, u := range users {
		t.Offer(u, i)
	}
	t.Start()
	var out []string
	for {
		h, n := t.Next()
		if h < 0 {
			break
		}
		out = append(out, users[h])
		t.Started(n, 1)
	}
	return strings.Join(out, " ")
}

func TestNextByPriority(t *testing.T) {
	// [alice, 3] [bob, 1]: priorities 3/(3(1+slots)) and 1/(3(1+slots));
	// equal priorities go to the account configured first.
	tr := Build([]*config.ShareNode{{Name: "alice", Kind: config.ShareUser, Shares: 3}, {Name: "bob", Kind: config.ShareUser, Shares: 1}}, defaults)
	got := order(tr, "bob bob bob bob alice alice alice alice alice alice alice alice")
	if want := "alice alice alice bob alice alice alice bob alice alice bob bob"; got != want {
		t.Fatalf("order %s\nwant  %s", got, want)
	}
}

func TestDefaultAndOthers(t *testing.T) {
	tr := Build([]*config.ShareNode{{Name: "alice", Kind: config.ShareUser, Shares: 10}, {Name: "default", Kind: config.ShareDefault, Shares: 4}}, defaults)
	if tr.Account("carol") == tr.Account("dave") || tr.Account("carol").Shares != 4 {
		t.Fatal("default gives each user an account of its own")
	}
	tr = Build([]*config.ShareNode{{Name: "alice", Kind: config.ShareUser, Shares: 10}, {Name: "others", Kind: config.ShareOthers, Shares: 8}}, defaults)
	if tr.Account("carol") != tr.Account("dave") || tr.Account("carol").Name != "others" {
		t.Fatal("others is one account for every other user")
	}
	tr = Build([]*config.ShareNode{{Name: "alice", Kind: config.ShareUser, Shares: 10}}, defaults)
	if tr.Account("carol") != nil || tr.Offer("carol", 1) {
		t.Fatal("a user without a share has no account")
	}
}

func TestHierarchy(t *testing.T) {
	// groupA (share tree: a1 3, a2 1) 1 share; bob 1 share. groupA's usage
	// is its members'.
	nodes := []*config.ShareNode{
		{Name: "groupA", Kind: config.ShareGroup, Shares: 1, Children: []*config.ShareNode{
			{Name: "a1", Kind: config.ShareUser, Shares: 3}, {Name: "a2", Kind: config.ShareUser, Shares: 1}}},
		{Name: "bob", Kind: config.ShareUser, Shares: 1},
		{Name: "grpB", Kind: config.ShareGroup, Shares: 1, Members: []string{"b1", "b2"}},
	}
	tr := Build(nodes, defaults)
	// a1: 2 h of CPU and 2 slots: 3 / (2×0.7 + 3×3) = 0.288.
	tr.Charge("a1", Usage{Slots: 2, CPU: 7200})
	tr.Compute()
	acc := tr.Accounts()
	var lines []string
	for _, a := range acc {
		lines = append(lines, fmt.Sprintf("%s %d %.3f %d", a.Name, a.Shares, a.Priority, a.Started))
	}
	want := "groupA/ 1 0.096 2|a1 3 0.288 2|a2 1 0.333 0|bob 1 0.333 0|grpB/ 1 0.333 0"
	if got := strings.Join(lines, "|"); got != want {
		t.Fatalf("accounts %s\nwant     %s", got, want)
	}
	// b1 and b2 share grpB's account: first come, first served inside it.
	tr = Build(nodes, defaults)
	got := order(tr, "b2 b1 b2 a2 a1 bob")
	if want := "a1 bob b2 a2 b1 b2"; got != want {
		t.Fatalf("order %s, want %s", got, want)
	}
}

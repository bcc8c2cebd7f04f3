package job

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestTransitionTable pins every state/input pair: the expected next state,
// or "-" for an illegal move.
func TestTransitionTable(t *testing.T) {
	// Columns follow Inputs(): dispatch ustop ssusp uresume sresume finish fail killpend requeue reqhold hostlost hostback zombie
	want := map[State]string{
		Pend:  "RUN PSUSP - - - DONE EXIT EXIT PEND PSUSP - - -",
		PSusp: "- PSUSP - PEND - - - EXIT PEND PSUSP - - -",
		Run:   "- USUSP SSUSP - RUN DONE EXIT - PEND PSUSP UNKWN - ZOMBI",
		USusp: "- USUSP USUSP SSUSP - DONE EXIT - PEND PSUSP UNKWN - ZOMBI",
		SSusp: "- USUSP SSUSP SSUSP RUN DONE EXIT - PEND PSUSP UNKWN - ZOMBI",
		Unkwn: "- - - - - DONE EXIT - PEND - - RUN ZOMBI",
		Zombi: "- - - - - DONE EXIT - PEND - - - -",
		Done:  "- - - - - - - - - - - - -",
		Exit:  "- - - - - - - - - - - - -",
	}
	for _, s := range States() {
		var got []string
		for _, in := range Inputs() {
			n, err := Next(s, in, Run) // before=RUN for HostBack
			if err != nil {
				if !errors.Is(err, ErrIllegalTransition) {
					t.Fatalf("%s/%s: error %v is not ErrIllegalTransition", Name(s), in, err)
				}
				if n != s {
					t.Fatalf("%s/%s: illegal move changed state to %s", Name(s), in, Name(n))
				}
				got = append(got, "-")
				continue
			}
			got = append(got, Name(n))
		}
		if g := strings.Join(got, " "); g != want[s] {
			t.Errorf("%-5s got  %s\n      want %s", Name(s), g, want[s])
		}
	}
}

func TestHostBackRestoresPreviousState(t *testing.T) {
	for _, before := range []State{Run, USusp, SSusp} {
		n, err := Next(Unkwn, HostBack, before)
		if err != nil || n != before {
			t.Errorf("HostBack before=%s: %s, %v", Name(before), Name(n), err)
		}
	}
	if _, err := Next(Unkwn, HostBack, Pend); err == nil {
		t.Error("HostBack to a pending state accepted")
	}
}

func TestPredicates(t *testing.T) {
	for _, s := range States() {
		desc := fmt.Sprintf("%s fin=%v pend=%v started=%v susp=%v", Name(s), Finished(s), Pending(s), Started(s), Suspended(s))
		exclusive := 0
		for _, b := range []bool{Finished(s), Pending(s), Started(s)} {
			if b {
				exclusive++
			}
		}
		if exclusive != 1 {
			t.Errorf("%s: a state must be exactly one of finished, pending, started", desc)
		}
	}
	if Name(State(12345)) != "STATE(12345)" {
		t.Error("unknown state name")
	}
}

package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCommandBinaryIsLean: the command binary links none of the daemons'
// code or libraries (every bsub and bjobs pays the package initialisation
// of what it links). The daemon binary, cmd/basaltd, holds them.
func TestCommandBinaryIsLean(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	const mod = "github.com/basalt-lsf/basalt/"
	allowed := map[string]bool{
		// Clients and pure parts of daemon areas that commands use.
		mod + "internal/lim/limclient": true, mod + "internal/lim/lsfmt": true,
		mod + "internal/lim/load": true, mod + "internal/lim/hosttype": true,
		mod + "internal/sbd/procfs": true, mod + "internal/sbd/rawfile": true, // basalt cluster down
		// basalt sim: mbatchd's scheduler and state machine, pure (no raft,
		// no metrics, no network); 4 package inits, 0.01 ms.
		mod + "internal/mbd/sched": true, mod + "internal/mbd/sched/fairshare": true, mod + "internal/mbd/sched/pool": true,
		mod + "internal/mbd/state": true, mod + "internal/mbd/depend": true,
		mod + "internal/mbd/eventlog": true, // basalt sim reads lsb.acct
		mod + "internal/res/resio":    true, // lsrcp: RES's file streams, client side only
	}
	denied := []string{
		"github.com/hashicorp/",  // raft and its dependencies
		"github.com/prometheus/", // client_golang: the daemons' metrics
		"github.com/creack/",     // pty: RES's and sbatchd's pseudo-terminals
		mod + "internal/res",
		mod + "internal/metrics",
		mod + "internal/daemon", mod + "internal/mbd", mod + "internal/sbd", mod + "internal/lim",
		mod + "internal/timerslack", mod + "internal/logging",
	}
	for _, pkg := range strings.Fields(string(out)) {
		if allowed[pkg] {
			continue
		}
		for _, d := range denied {
			if pkg == d || strings.HasPrefix(pkg, d+"/") || strings.HasSuffix(d, "/") && strings.HasPrefix(pkg, d) {
				t.Errorf("the command binary links %s", pkg)
			}
		}
	}
}

package cli_test

import (
	"context"
	"flag"
	"fmt"
	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cluster"
	_ "github.com/basalt-lsf/basalt/internal/daemon"
	"os"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var updateScripts = flag.Bool("update", false, "rewrite the golden sections of script tests with actual output")

// TestMain makes the test binary behave as the basalt binary when invoked
// under a command name, so script tests run the real commands as processes.
func TestMain(m *testing.M) {
	cmds := map[string]func(){}
	run := func() { os.Exit(cli.Main(context.Background(), os.Args, cli.OSEnv)) }
	cmds["basalt"] = run
	cmds["basaltd"] = run // the shepherd host and exec helper sbatchd starts
	for _, c := range cli.Commands() {
		cmds[c.Name] = run
	}
	testscript.Main(m, cmds)
}

// TestScripts runs testdata/script/*.txtar. Each script's commands are the
// real Basalt commands; scripts that need daemons start a local cluster.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, "testdata/script"))
}

func scriptParams(t *testing.T, dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		UpdateScripts:       *updateScripts,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(e *testscript.Env) error {
			// Scripts never see the developer's own LSF installation.
			e.Setenv("LSF_ENVDIR", e.WorkDir+"/no-lsf-envdir")
			// Deferred checks (a cluster's race reports) fail the test
			// through it: ts.Fatalf works only inside a command.
			e.Values[scriptTKey{}] = e.T()
			return nil
		},
		Cmds: scriptCmds,
		// [root]: the test runs as root (it starts daemons as test users).
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Getuid() == 0, nil
			}
			if cond == "netns" {
				// Namespace clusters: root, iproute2 and a kernel that
				// creates network namespaces, veths and bridges.
				return netnsSupport() == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	}
}

// netnsSupport is cluster.NetnsSupport, tried once per test process; the
// reason namespace clusters cannot run is printed once, beside the
// scripts' skip.
var netnsSupport = sync.OnceValue(func() error {
	err := cluster.NetnsSupport(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "script tests: [netns] is false: %v\n", err)
	}
	return err
})

// scriptTKey keys the script's testscript.T in its Env.Values.
type scriptTKey struct{}

// scriptCmds are extra script commands (cluster control) shared by scripts.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){}

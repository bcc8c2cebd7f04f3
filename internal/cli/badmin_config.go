package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
)

// badmin ckconfig and showconf: the batch side of configuration checking
// (lsf.conf, lsf.shared, lsf.cluster.<name> and the lsb.* files), run from
// the files, before any daemon exists.

func init() {
	BadminSubs.Add(
		&Subcommand{Name: "ckconfig", Usage: "ckconfig [-v]", Summary: "Check configuration files", Run: runBadminCkconfig},
		&Subcommand{Name: "showconf", Usage: "showconf mbd | sbd [host_name ... | all]", Summary: "Display the effective mbatchd or sbatchd configuration", Run: runBadminShowconf},
	)
}

// runBadminCkconfig is badmin ckconfig [-v]. As LSF's badmin, it prints the
// result to stderr, offers the details when there are problems, and exits 0
// whatever it found (only a usage error exits otherwise).
func runBadminCkconfig(ctx context.Context, env *Env, args []string) int {
	verbose := false
	switch {
	case len(args) == 1 && args[0] == "-v":
		verbose = true
	case len(args) != 0:
		fmt.Fprintln(env.Stderr, "Usage: ckconfig [-v]")
		return ExitUsage
	}
	d := diagnosticsFor(ctx, env, true)
	if verbose {
		verboseCheck(env.Stderr, env, d)
		return 0
	}
	fmt.Fprint(env.Stderr, "\nChecking configuration files ...\n\n")
	switch statusOf(d) {
	case checkOK:
		fmt.Fprint(env.Stderr, "No errors found.\n\n")
		return 0
	case checkFatal:
		fmt.Fprint(env.Stderr, "There are fatal errors.\n\n")
	default:
		fmt.Fprint(env.Stderr, "There are warning errors.\n\n")
	}
	if confirm(env, bufio.NewReader(env.Stdin), "Do you want to see detailed messages? [y/n] ") {
		var b bytes.Buffer
		verboseCheck(&b, env, d)
		// badmin prints the captured report line by line, without blank
		// lines.
		for _, line := range bytes.Split(b.Bytes(), []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				fmt.Fprintf(env.Stderr, "%s\n", line)
			}
		}
	}
	return 0
}

// mbdDefaults are the effective values of mbatchd's lsf.conf parameters
// left undefined.
func mbdDefaults(c *lsfconf.Conf) map[string]string {
	m := limDefaults(c)
	m["LSB_MBD_PORT"] = fmt.Sprint(c.MBDPort())
	m["LSB_SBD_PORT"] = fmt.Sprint(c.SBDPort())
	m["LSB_CONFDIR"] = c.LSBConfDir()
	m["LSB_SHAREDIR"] = c.ShareDir()
	m["LSB_MAILTO"] = c.MailTo()
	return m
}

// runBadminShowconf is badmin showconf mbd | sbd [host_name ... | all]: the
// lsf.conf parameters of the batch daemons, as KEY = VALUE lines.
func runBadminShowconf(ctx context.Context, env *Env, args []string) int {
	usage := func() int {
		fmt.Fprintln(env.Stderr, "Usage: showconf mbd | sbd [host_name ... | all]")
		return ExitUsage
	}
	if len(args) == 0 || (args[0] != "mbd" && args[0] != "sbd") || (args[0] == "mbd" && len(args) > 1) {
		return usage()
	}
	c, _, err := config.LoadConf(loadOptions(env))
	if err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	params := effectiveParams(env, c, mbdDefaults(c))
	if args[0] == "mbd" {
		printConf(env, "MBD configuration", params)
		return 0
	}
	hosts, ok := showconfHosts(ctx, env, args[1:])
	if !ok {
		return ExitUsage
	}
	if len(hosts) == 0 {
		local, err := config.LocalHostName(c, env.Getenv, nil)
		if err != nil {
			env.Errorf("%v", err)
			return ExitUsage
		}
		hosts = []string{local}
	}
	for _, h := range hosts {
		printConf(env, "SBD configuration for host <"+h+">", params)
	}
	return 0
}

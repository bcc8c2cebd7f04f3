package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/version"
)

// lsadmin ckconfig and showconf lim: the LIM side of configuration checking
// (lsf.conf, lsf.shared, lsf.cluster.<name>). badmin's versions, which add the
// lsb.* files, are in badmin_config.go; both share the code below.

func init() {
	LsadminSubs.Add(
		&Subcommand{Name: "ckconfig", Usage: "ckconfig [-v]", Summary: "Check configuration files", Run: runLsadminCkconfig},
		&Subcommand{Name: "showconf", Usage: "showconf lim [host_name ... | all]", Summary: "Display the effective LIM configuration", Run: runLsadminShowconf},
	)
}

// checkStatus is the outcome of a configuration check.
type checkStatus int

const (
	checkOK checkStatus = iota
	checkWarnings
	checkFatal
)

func statusOf(d config.Diagnostics) checkStatus {
	switch {
	case d.HasErrors():
		return checkFatal
	case len(d) > 0:
		return checkWarnings
	}
	return checkOK
}

// envDir is the command's LSF_ENVDIR (default /etc).
func envDir(env *Env) string {
	if d := env.Getenv("LSF_ENVDIR"); d != "" {
		return d
	}
	return config.DefaultEnvDir
}

func loadOptions(env *Env) config.Options {
	return config.Options{EnvDir: envDir(env), Clock: env.Clock, Getenv: env.Getenv}
}

// verboseCheck writes the detailed check report, as LIM -C and mbatchd -C
// do under ckconfig -v: the file read, every diagnostic, a rule, and the
// result.
func verboseCheck(w io.Writer, env *Env, d config.Diagnostics) {
	fmt.Fprint(w, "\nChecking configuration files ...\n")
	fmt.Fprintf(w, "%s\n", version.Banner())
	fmt.Fprintf(w, "Reading configuration from %s\n", config.LSFConfPath(envDir(env)))
	for _, x := range d {
		fmt.Fprintln(w, x.String())
	}
	fmt.Fprintln(w, "---------------------------------------------------------")
	fmt.Fprint(w, statusText(statusOf(d)))
}

// statusText is LSF's summary of a check (lsadmin's wording).
func statusText(s checkStatus) string {
	switch s {
	case checkFatal:
		return "There are fatal errors.\n\n"
	case checkWarnings:
		return "No fatal errors found.\n\n" +
			"Warning: Some configuration parameters may be incorrect.\n" +
			"         They are either ignored or replaced by default values.\n\n"
	}
	return "No errors found.\n\n"
}

// confirm asks a y/n question on stdout and reads the answer from stdin as
// LSF's getConfirm does: it asks again until the answer is y or n; end of
// input means no.
func confirm(env *Env, in *bufio.Reader, question string) bool {
	for {
		fmt.Fprint(env.Stdout, question)
		line, err := in.ReadString('\n')
		answer := strings.TrimLeft(strings.TrimSuffix(line, "\n"), " ")
		switch answer {
		case "y", "Y":
			return true
		case "n", "N":
			return false
		}
		if err != nil {
			fmt.Fprintln(env.Stdout)
			return false
		}
	}
}

func diagnosticsFor(ctx context.Context, env *Env, batch bool) config.Diagnostics {
	d := config.Check(ctx, loadOptions(env), batch)
	d.Sort()
	return d
}

// runLsadminCkconfig is lsadmin ckconfig [-v]: it checks lsf.conf,
// lsf.shared and lsf.cluster.<name>. Without -v only the result is shown,
// and the details are offered when there are problems. The exit status is
// 0 without problems and 255 with errors or warnings, as lsadmin's.
func runLsadminCkconfig(ctx context.Context, env *Env, args []string) int {
	verbose := false
	switch {
	case len(args) == 1 && args[0] == "-v":
		verbose = true
	case len(args) != 0:
		fmt.Fprintln(env.Stderr, "Usage: ckconfig [-v]")
		return ExitUsage
	}
	d := diagnosticsFor(ctx, env, false)
	st := statusOf(d)
	if verbose {
		verboseCheck(env.Stderr, env, d)
	} else {
		fmt.Fprint(env.Stderr, "\nChecking configuration files ...\n")
		fmt.Fprint(env.Stderr, statusText(st))
		if st != checkOK && confirm(env, bufio.NewReader(env.Stdin), "Do you want to see detailed messages? [y/n] ") {
			verboseCheck(env.Stderr, env, d)
		}
	}
	if st != checkOK {
		return ExitUsage
	}
	return 0
}

// showParam is one line of showconf.
type showParam struct{ name, value string }

// effectiveParams returns lsf.conf's parameters as showconf prints them:
// every parameter of the file (unknown ones included) with a value, plus
// LSF_ENVDIR and the effective value of the known parameters the file
// leaves out. Sorted by name.
func effectiveParams(env *Env, c *lsfconf.Conf, defaults map[string]string) []showParam {
	seen := map[string]bool{}
	var out []showParam
	add := func(name, value string) {
		if seen[name] || value == "" {
			return
		}
		seen[name] = true
		out = append(out, showParam{name, value})
	}
	for _, p := range c.Params() {
		add(p.Name, p.Value)
	}
	add("LSF_ENVDIR", envDir(env))
	for name, v := range defaults {
		add(name, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// limDefaults are the effective values of LIM parameters left undefined.
func limDefaults(c *lsfconf.Conf) map[string]string {
	return map[string]string{
		"LSF_LIM_PORT":        fmt.Sprint(c.LIMPort()),
		"LSF_RES_PORT":        fmt.Sprint(c.RESPort()),
		"LSF_LOG_MASK":        c.LogMask(),
		"LSF_UNIT_FOR_LIMITS": c.UnitForLimits(),
		"LSF_STRICT_RESREQ":   yn(c.StrictResReq()),
	}
}

func yn(b bool) string {
	if b {
		return "Y"
	}
	return "N"
}

// printConf prints one showconf block: a header line, then one
// "KEY = VALUE" line per parameter (what Snakemake's and Toil's LSF support
// parse).
func printConf(env *Env, header string, params []showParam) {
	fmt.Fprintf(env.Stdout, "%s at %s\n", header, env.Clock.Now().Format("Mon Jan _2 15:04:05 2006"))
	for _, p := range params {
		fmt.Fprintf(env.Stdout, "    %s = %s\n", p.name, p.value)
	}
}

// showconfHosts resolves the host arguments of showconf: none, names or
// all. It needs the cluster file only when hosts are named.
func showconfHosts(ctx context.Context, env *Env, args []string) ([]string, bool) {
	if len(args) == 0 {
		return nil, true
	}
	b, err := config.LoadBase(ctx, loadOptions(env))
	if err != nil {
		env.Errorf("%v", err)
		return nil, false
	}
	if len(args) == 1 && args[0] == "all" {
		return b.Cluster.ServerHosts(), true
	}
	var out []string
	for _, a := range args {
		h := b.Cluster.Host(a)
		if h == nil {
			env.Errorf("%s: Unknown host name", a)
			return nil, false
		}
		out = append(out, h.Name)
	}
	return out, true
}

// runLsadminShowconf is lsadmin showconf lim [host_name ... | all].
func runLsadminShowconf(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] != "lim" {
		fmt.Fprintln(env.Stderr, "Usage: showconf lim [host_name ... | all]")
		return ExitUsage
	}
	c, _, err := config.LoadConf(loadOptions(env))
	if err != nil {
		env.Errorf("%v", err)
		return ExitUsage
	}
	hosts, ok := showconfHosts(ctx, env, args[1:])
	if !ok {
		return ExitUsage
	}
	params := effectiveParams(env, c, limDefaults(c))
	if len(hosts) == 0 {
		printConf(env, "LIM configuration", params)
		return 0
	}
	for _, h := range hosts {
		printConf(env, "LIM configuration for host <"+h+">", params)
	}
	return 0
}

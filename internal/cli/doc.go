// Package cli holds every Basalt command: the LSF user and administrator
// commands (bsub, bjobs, lsload, badmin...), the daemons (lim, mbatchd,
// sbatchd...) and basalt's own subcommands (cluster, dev, config).
//
// Each command is a function of an *Env, which carries its standard streams,
// environment, clock and working directory, so tests run commands in-process
// and compare their output exactly. Commands never touch os.Stdout or
// os.Getenv directly. The registry in commands.go maps every name to its
// function; cmd/basalt dispatches on argv[0] or on the first argument.
package cli

package jobenv

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// Markers of the job file around the user's input; the job report copies
// what lies between them ("Your job looked like").
const (
	MarkUserInput = "# LSBATCH: User input"
	MarkEndInput  = "# LSBATCH: End user input"
)

// UserCommand is the command line the job file runs: the job's command, or
// the invocation of its script file, with the queue's job starter applied
// (JOB_STARTER's %USRCMD replaced by it, or the command appended).
func UserCommand(l *api.JobLaunch, f Files) string {
	cmd := ""
	if l.Spec != nil {
		cmd = l.Spec.Command
		switch {
		case l.Spec.FromScript:
			cmd = ScriptInvocation(l.Spec, f.Script)
		case l.Spec.CmdSpoolName != "" && f.CmdSpool != "":
			// -Zs: the spooled copy of the command file runs, with the
			// command's other words.
			if rest, ok := strings.CutPrefix(strings.TrimLeft(cmd, " \t"), l.Spec.CmdSpoolName); ok {
				cmd = Quote(f.CmdSpool) + rest
			}
		}
	}
	if l.Queue != nil && strings.TrimSpace(l.Queue.JobStarter) != "" {
		cmd = ApplyStarter(l.Queue.JobStarter, cmd)
	}
	return cmd
}

// ScriptInvocation runs a script file: directly when it starts with "#!"
// (the kernel runs its interpreter), else with the shell bsub recorded, else
// /bin/sh.
func ScriptInvocation(spec *api.JobSpec, path string) string {
	if strings.HasPrefix(spec.Command, "#!") {
		return Quote(path)
	}
	sh := spec.Shell
	if sh == "" {
		sh = "/bin/sh"
	}
	return sh + " " + Quote(path)
}

// ApplyStarter puts cmd into a JOB_STARTER: every %USRCMD is replaced by
// it, or, without one, cmd follows the starter after a blank.
func ApplyStarter(starter, cmd string) string {
	starter = strings.TrimSpace(starter)
	if strings.Contains(starter, "%USRCMD") {
		return strings.ReplaceAll(starter, "%USRCMD", cmd)
	}
	return starter + " " + cmd
}

// Argv is how the job file is executed: by /bin/sh, or through the login
// shell of bsub -L, which initialises the environment first.
func Argv(l *api.JobLaunch, f Files) []string {
	if l.Spec != nil && l.Spec.LoginShell != "" {
		return []string{l.Spec.LoginShell, "-l", "-c", "exec /bin/sh " + Quote(f.JobFile)}
	}
	return []string{"/bin/sh", f.JobFile}
}

// JobFile is the content of the job file (LSB_JOBFILENAME), a /bin/sh
// script: the user's command between LSF's markers, then a wait for what it
// left in the background, exiting with the command's status.
func JobFile(l *api.JobLaunch, f Files) []byte { return jobFile(l, f, "") }

// GateFD is the descriptor on which a gated job file waits for its
// release.
const GateFD = 3

// GatedJobFile is JobFile for a job the shepherd starts itself: before the
// user's input, the job file waits at a gate (a line on descriptor GateFD)
// that the shepherd opens only once the process is in the job's cgroups
// and under its limits; anything but "go" (the shepherd died or gave up)
// ends it with status 125 before any user command runs. It then sets the
// job's umask and LS_JOBPID/LSB_JOBPIDS (its own PID, the job's).
func GatedJobFile(l *api.JobLaunch, f Files, umask uint32) []byte {
	fd := strconv.Itoa(GateFD)
	return jobFile(l, f, "IFS= read -r LSB_GATE <&"+fd+"; exec "+fd+"<&-\n"+
		"case $LSB_GATE in go) unset LSB_GATE ;; *) exit 125 ;; esac\n"+
		fmt.Sprintf("umask %04o\n", umask&0o777)+
		"LS_JOBPID=$$; LSB_JOBPIDS=$$; export LS_JOBPID LSB_JOBPIDS\n")
}

func jobFile(l *api.JobLaunch, f Files, prologue string) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString(prologue)
	b.WriteString(MarkUserInput + "\n")
	b.WriteString(UserCommand(l, f))
	b.WriteString("\nExitStat=$?\nwait\n")
	b.WriteString(MarkEndInput + "\n")
	b.WriteString("exit $ExitStat\n")
	return []byte(b.String())
}

// Quote quotes s for the shell with single quotes.
func Quote(s string) string {
	if literal(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PlainCommand returns the words of cmd when the shell would run it as a
// plain command: one line of blank-separated words made only of
// characters the shell takes literally (those Quote leaves alone), the
// first of which names a program, not an assignment, a reserved word or a
// builtin of /bin/sh. Such a command can be executed without the shell
// with the same effect (see package jobgate).
func PlainCommand(cmd string) ([]string, bool) {
	words := strings.FieldsFunc(cmd, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(words) == 0 {
		return nil, false
	}
	for _, w := range words {
		if !literal(w) {
			return nil, false
		}
	}
	first := words[0]
	if strings.Contains(first, "=") || (!strings.Contains(first, "/") && shellWord(first)) {
		return nil, false
	}
	return words, true
}

// literal says whether the shell takes s as it is: only characters that
// are neither special nor quoted.
func literal(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._-+=:,@%", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// shellWords are the reserved words and the builtins of the shells that
// serve as /bin/sh (dash, bash, busybox ash), blank-separated: a command
// named so is not a program the shell would execute. (A string, not a
// map: no initialisation at every command's start.)
const shellWords = `! { } [[ ]] case do done elif else esac fi for function if in select then time until while
. : [ alias bg bind break builtin caller cd chdir command compgen complete compopt continue
declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history
jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set
shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait`

func shellWord(w string) bool {
	for f := range strings.FieldsSeq(shellWords) {
		if f == w {
			return true
		}
	}
	return false
}

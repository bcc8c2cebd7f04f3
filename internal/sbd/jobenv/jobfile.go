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
		if l.Spec.FromScript {
			cmd = ScriptInvocation(l.Spec, f.Script)
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
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

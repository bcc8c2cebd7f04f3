package jobenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func launch() *api.JobLaunch {
	return &api.JobLaunch{
		JobID: 1234, User: "alice",
		Spec: &api.JobSpec{
			Command: "sleep 10", SubCwd: "/home/alice/work", SubHome: "/home/alice", FromHost: "subhost",
			OutFile: "out.%J.%I", ErrFile: "/logs/err.%J", Project: "proj",
			Env: []string{"PATH=/usr/local/bin:/bin", "HOME=/home/alice", "FOO=bar", "LSB_JOBID=stale"},
		},
		ExecHosts: []*api.ExecHost{{Host: "hostA", Slots: 2}, {Host: "hostB", Slots: 1}},
		Queue:     &api.QueueExec{Name: "normal", RequeueExitValues: []int32{7, 31}, ExcludeExitValues: []int32{20}},
		JobName:   "myjob", EffectiveResReq: "select[type == any] order[r15s:pg]", RunCount: 1,
	}
}

func envMap(list []string) map[string]string {
	m := map[string]string{}
	for _, kv := range list {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func TestEnv(t *testing.T) {
	l := launch()
	env := Env(l, Host{ExecUser: "alice", ExecHome: "/export/home/alice", Extra: []string{"LSF_ENVDIR=/etc/lsf", "LSF_SERVERDIR=/opt/lsf/etc"}},
		Files{JobFile: "/spool/1234/job/jobfile", HostFile: "/spool/1234/job/hostfile"})
	m := envMap(env)
	want := map[string]string{
		"PATH": "/usr/local/bin:/bin", "HOME": "/export/home/alice", "USER": "alice", "LOGNAME": "alice", "FOO": "bar",
		"LSF_ENVDIR": "/etc/lsf", "LSF_SERVERDIR": "/opt/lsf/etc",
		"LSB_JOBID": "1234", "LSB_JOBINDEX": "0", "LSB_JOBNAME": "myjob", "LSB_QUEUE": "normal",
		"LSB_HOSTS": "hostA hostA hostB", "LSB_MCPU_HOSTS": "hostA 2 hostB 1 ", "LSB_EXECHOSTS": "hostA hostB",
		"LSB_DJOB_NUMPROC": "3", "LSB_DJOB_HOSTFILE": "/spool/1234/job/hostfile",
		"LSB_JOBFILENAME": "/spool/1234/job/jobfile", "LSB_CHKFILENAME": "/spool/1234/job/jobfile",
		"LSB_OUTPUTFILE": "out.1234.0", "LSB_ERRORFILE": "/logs/err.1234",
		"LS_SUBCWD": "/home/alice/work", "LSB_SUB_HOST": "subhost", "LSB_PROJECT_NAME": "proj",
		"LSB_EXIT_REQUEUE": "7 31 EXCLUDE(20)", "LSB_EFFECTIVE_RSRCREQ": "select[type == any] order[r15s:pg]",
	}
	if !reflect.DeepEqual(m, want) {
		for k, v := range want {
			if m[k] != v {
				t.Errorf("%s = %q, want %q", k, m[k], v)
			}
		}
		for k, v := range m {
			if _, ok := want[k]; !ok {
				t.Errorf("unexpected %s=%q", k, v)
			}
		}
	}
	// The submitter's variables keep their order, first.
	if !strings.HasPrefix(strings.Join(env, "\n"), "PATH=/usr/local/bin:/bin\nHOME=/export/home/alice\nFOO=bar\nLSB_JOBID=1234\n") {
		t.Errorf("order: %q", env[:4])
	}
}

func TestEnvVariants(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*api.JobLaunch)
		want   map[string]string // "" value: must be unset
	}{
		{"array element", func(l *api.JobLaunch) { l.Index, l.ArrayEnd, l.ArrayStep = 3, 10, 0 },
			map[string]string{"LSB_JOBINDEX": "3", "LSB_JOBINDEX_END": "10", "LSB_JOBINDEX_STEP": "1", "LSB_OUTPUTFILE": "out.1234.3"}},
		{"not an array", func(l *api.JobLaunch) {}, map[string]string{"LSB_JOBINDEX": "0", "LSB_JOBINDEX_END": ""}},
		{"default project", func(l *api.JobLaunch) { l.Spec.Project = "" }, map[string]string{"LSB_PROJECT_NAME": "default"}},
		{"no requeue values", func(l *api.JobLaunch) { l.Queue.RequeueExitValues, l.Queue.ExcludeExitValues = nil, nil },
			map[string]string{"LSB_EXIT_REQUEUE": ""}},
		{"rerun after host failure", func(l *api.JobLaunch) { l.Spec.Rerunnable, l.RunCount = true, 2 }, map[string]string{"LSB_RESTART": "Y"}},
		{"first run of rerunnable job", func(l *api.JobLaunch) { l.Spec.Rerunnable = true }, map[string]string{"LSB_RESTART": ""}},
		{"name from -J", func(l *api.JobLaunch) { l.JobName, l.Spec.JobName = "", "fromJ" }, map[string]string{"LSB_JOBNAME": "fromJ"}},
		{"name from command", func(l *api.JobLaunch) { l.JobName = "" }, map[string]string{"LSB_JOBNAME": "sleep 10"}},
		{"name from script", func(l *api.JobLaunch) {
			l.JobName, l.Spec.Command, l.Spec.FromScript = "", "#!/bin/sh\n#BSUB -q x\necho hi\n", true
		},
			map[string]string{"LSB_JOBNAME": "#!/bin/sh;#BSUB -q x;echo hi"}},
		{"no PATH", func(l *api.JobLaunch) { l.Spec.Env = nil }, map[string]string{"PATH": "/bin:/usr/bin"}},
		{"checkpoint", func(l *api.JobLaunch) { l.Spec.ChkpntDir, l.Spec.ChkpntPeriod = "/ck", 600 },
			map[string]string{"LSB_CHKPNT_DIR": "/ck/1234", "LSB_CHKPNT_PERIOD": "600"}},
		{"job starter", func(l *api.JobLaunch) { l.Queue.JobStarter = "xterm -e" }, map[string]string{"LSB_JOB_STARTER": "xterm -e"}},
		{"many slots", func(l *api.JobLaunch) { l.ExecHosts = []*api.ExecHost{{Host: "h", Slots: MaxHostsVar + 1}} },
			map[string]string{"LSB_HOSTS": "", "LSB_DJOB_NUMPROC": "2049", "LSB_MCPU_HOSTS": "h 2049 "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := launch()
			tt.modify(l)
			m := envMap(Env(l, Host{}, Files{}))
			for k, v := range tt.want {
				got, set := m[k]
				if v == "" && set {
					t.Errorf("%s set to %q, want unset", k, got)
				} else if v != "" && got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestPrePostEnv(t *testing.T) {
	env := PostEnv(PrePostEnv([]string{"PATH=/x", "A=1"}), PostInfo{WaitStatus: 256, Info: "SIGNAL -14 SIG_TERM_USER", Pending: true})
	want := []string{"PATH=/bin:/usr/bin:/sbin:/usr/sbin", "A=1", "LSB_JOBEXIT_STAT=256", "LSB_JOBEXIT_INFO=SIGNAL -14 SIG_TERM_USER", "LSB_JOBPEND=Y"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("got %q\nwant %q", env, want)
	}
	if got := PostEnv(nil, PostInfo{}); !reflect.DeepEqual(got, []string{"LSB_JOBEXIT_STAT=0"}) {
		t.Errorf("PostEnv(nil) = %q", got)
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		in   string
		id   int64
		idx  int32
		want string
	}{
		{"out", 1, 0, "out"},
		{"%J.out", 77, 0, "77.out"},
		{"o.%J.%I", 77, 5, "o.77.5"},
		{"o.%I", 77, 0, "o.0"},
		{"100%", 7, 0, "100%"},
		{"%J%J", 7, 0, "77"},
	}
	for _, tt := range tests {
		if got := Expand(tt.in, tt.id, tt.idx); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDirs(t *testing.T) {
	tests := []struct {
		name          string
		subCwd, home  string
		cwd, execHome string
		want          []string
	}{
		{"submission dir under home", "/home/a/w", "/home/a", "", "/exp/a", []string{"/home/a/w", "/exp/a/w", "/tmp"}},
		{"same home", "/home/a/w", "/home/a", "", "/home/a", []string{"/home/a/w", "/tmp"}},
		{"outside home", "/data/w", "/home/a", "", "/exp/a", []string{"/data/w", "/tmp"}},
		{"home prefix is not home", "/home/ab/w", "/home/a", "", "/exp/a", []string{"/home/ab/w", "/tmp"}},
		{"absolute -cwd", "/home/a/w", "/home/a", "/scratch/%J", "/exp/a", []string{"/scratch/9", "/tmp"}},
		{"relative -cwd", "/home/a/w", "/home/a", "sub/%I", "/exp/a", []string{"/home/a/w/sub/0", "/exp/a/w/sub/0", "/tmp"}},
		{"-cwd .", "/home/a/w", "/home/a", ".", "/exp/a", []string{"/home/a/w", "/exp/a/w", "/tmp"}},
		{"no submission dir", "", "", "", "/exp/a", []string{"/exp/a", "/tmp"}},
		{"home itself", "/home/a", "/home/a", "", "/exp/a", []string{"/home/a", "/exp/a", "/tmp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &api.JobLaunch{JobID: 9, Spec: &api.JobSpec{SubCwd: tt.subCwd, SubHome: tt.home, Cwd: tt.cwd}}
			if got := Dirs(l, tt.execHome); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Dirs = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestApplyStarterAndQuote(t *testing.T) {
	tests := []struct{ starter, cmd, want string }{
		{`csh -c "%USRCMD;sleep 10"`, "a.out 1", `csh -c "a.out 1;sleep 10"`},
		{"xterm -e", "vi", "xterm -e vi"},
		{"  /bin/time  ", "x", "/bin/time x"},
		{"%USRCMD; %USRCMD", "x", "x; x"},
	}
	for _, tt := range tests {
		if got := ApplyStarter(tt.starter, tt.cmd); got != tt.want {
			t.Errorf("ApplyStarter(%q, %q) = %q, want %q", tt.starter, tt.cmd, got, tt.want)
		}
	}
	for in, want := range map[string]string{"/a/b": "/a/b", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "$X": "'$X'"} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHostFile(t *testing.T) {
	got := string(HostFile([]*api.ExecHost{{Host: "a", Slots: 2}, {Host: "b"}}))
	if got != "a\na\nb\n" {
		t.Errorf("HostFile = %q", got)
	}
}

func TestJobFileContent(t *testing.T) {
	l := launch()
	l.Queue.JobStarter = `/usr/bin/env STARTED=1 %USRCMD`
	got := string(JobFile(l, Files{}))
	want := "#!/bin/sh\n# LSBATCH: User input\n/usr/bin/env STARTED=1 sleep 10\nExitStat=$?\nwait\n# LSBATCH: End user input\nexit $ExitStat\n"
	if got != want {
		t.Errorf("JobFile =\n%s\nwant\n%s", got, want)
	}
	l.Spec.LoginShell = "/bin/bash"
	if a := Argv(l, Files{JobFile: "/s/job file"}); !reflect.DeepEqual(a, []string{"/bin/bash", "-l", "-c", "exec /bin/sh '/s/job file'"}) {
		t.Errorf("Argv = %q", a)
	}
}

// TestJobFileRuns runs generated job files with /bin/sh: the job's exit
// status is its command's, background work is waited for, scripts run
// through their interpreter.
func TestJobFileRuns(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, command string
		script        bool
		status        int
		out           string
	}{
		{"success", "echo hello", false, 0, "hello\n"},
		{"failure", "false", false, 1, ""},
		{"exit value", "exit 3", false, 3, ""},
		{"missing executable", "/nonexistent/prog", false, 127, ""},
		{"background waited for", "(sleep 0.2; echo late) & echo early", false, 0, "early\nlate\n"},
		{"shebang script", "#!/bin/sh\necho from script $LSB_X\nexit 4\n", true, 4, "from script\n"},
		{"plain script", "echo plain\n", true, 0, "plain\n"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Files{JobFile: filepath.Join(dir, "job"+string(rune('a'+i))), Script: filepath.Join(dir, "script"+string(rune('a'+i)))}
			l := &api.JobLaunch{Spec: &api.JobSpec{Command: tt.command, FromScript: tt.script}}
			if tt.script {
				os.WriteFile(f.Script, []byte(tt.command), 0o700)
			}
			os.WriteFile(f.JobFile, JobFile(l, f), 0o700)
			argv := Argv(l, f)
			cmd := exec.Command(argv[0], argv[1:]...)
			out, _ := cmd.Output()
			if code := cmd.ProcessState.ExitCode(); code != tt.status {
				t.Errorf("exit %d, want %d", code, tt.status)
			}
			if string(out) != tt.out {
				t.Errorf("output %q, want %q", out, tt.out)
			}
		})
	}
}

// TestGatedJobFile runs gated job files with /bin/sh: the user's command
// runs only after "go" arrives on the gate, with the umask and LS_JOBPID
// set; a gate that closes without "go" (or says anything else, or is not
// open at all) ends the job with status 125 before its command runs.
func TestGatedJobFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		gate   string // written on the gate before it closes; "-" leaves fd 3 closed
		status int
		ran    bool
	}{
		{"released", "go\n", 0, true},
		{"released without newline", "go", 0, true},
		{"closed", "", 125, false},
		{"wrong word", "stop\n", 125, false},
		{"no gate", "-", 125, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marker := filepath.Join(dir, "ran"+string(rune('a'+i)))
			f := Files{JobFile: filepath.Join(dir, "job"+string(rune('a'+i)))}
			l := &api.JobLaunch{Spec: &api.JobSpec{Command: `echo "$(umask) $LS_JOBPID $LSB_JOBPIDS $$" > ` + marker}}
			os.WriteFile(f.JobFile, GatedJobFile(l, f, 0o027), 0o700)
			cmd := exec.Command("/bin/sh", f.JobFile)
			if tt.gate != "-" {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				cmd.ExtraFiles = []*os.File{r} // fd 3
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				r.Close()
				w.Write([]byte(tt.gate))
				w.Close()
			} else if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tt.status {
				t.Errorf("exit %d, want %d", code, tt.status)
			}
			b, err := os.ReadFile(marker)
			if ran := err == nil; ran != tt.ran {
				t.Fatalf("command ran: %v, want %v", ran, tt.ran)
			}
			if tt.ran {
				pid := strconv.Itoa(cmd.Process.Pid)
				if want := "0027 " + pid + " " + pid + " " + pid + "\n"; string(b) != want {
					t.Errorf("umask, LS_JOBPID, LSB_JOBPIDS, $$ = %q, want %q", b, want)
				}
			}
		})
	}
	// The user input between the markers is the same as in JobFile.
	l := launch()
	plain, gated := string(JobFile(l, Files{})), string(GatedJobFile(l, Files{}, 0o022))
	cut := func(s string) string { return s[strings.Index(s, MarkUserInput):] }
	if cut(plain) != cut(gated) {
		t.Errorf("user input differs:\n%s\n---\n%s", cut(plain), cut(gated))
	}
}

func TestPlainCommand(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string // nil: not plain
	}{
		{"/bin/true", []string{"/bin/true"}},
		{"sleep 10", []string{"sleep", "10"}},
		{"  a.out\t-x   --size=10 x,y:z@h%1+2  ", []string{"a.out", "-x", "--size=10", "x,y:z@h%1+2"}},
		{"./run.sh a", []string{"./run.sh", "a"}},
		{"/usr/bin/echo hi", []string{"/usr/bin/echo", "hi"}}, // a path, not the builtin
		{"/bin/sh /spool/script", []string{"/bin/sh", "/spool/script"}},
		{"", nil},
		{"   ", nil},
		{"echo hi", nil},         // builtin
		{"true", nil},            // builtin
		{"cd /tmp", nil},         // builtin
		{"exec a.out", nil},      // builtin
		{"time a.out", nil},      // reserved word
		{"if", nil},              // reserved word
		{". ./env.sh", nil},      // builtin
		{"FOO=1 a.out", nil},     // assignment
		{"a.out $HOME", nil},     // expansion
		{"a.out 'x y'", nil},     // quotes
		{`a.out x\ y`, nil},      // escape
		{"a.out *.txt", nil},     // glob
		{"a.out ~/x", nil},       // tilde
		{"a.out > out", nil},     // redirection
		{"a.out; b.out", nil},    // list
		{"a.out | b.out", nil},   // pipe
		{"a.out &", nil},         // background
		{"a.out\nb.out", nil},    // two lines
		{"a.out #note", nil},     // comment
		{"a.out {x,y}", nil},     // braces
		{"a.out [ab]", nil},      // bracket glob
		{"a.out `date`", nil},    // substitution
		{"a.out x?", nil},        // glob
		{"a.out (x)", nil},       // subshell
		{"a.out x!", nil},        // history (bash)
		{"a.out caf\u00e9", nil}, // non-ASCII
	}
	for _, tt := range tests {
		got, ok := PlainCommand(tt.cmd)
		if ok != (tt.want != nil) || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("PlainCommand(%q) = %q, %v; want %q", tt.cmd, got, ok, tt.want)
		}
		if ok {
			checkShellWords(t, tt.cmd, got)
		}
	}
}

// checkShellWords checks that /bin/sh splits cmd into words, unchanged.
func checkShellWords(t *testing.T, cmd string, words []string) {
	t.Helper()
	out, err := exec.Command("/bin/sh", "-c", `set -- `+cmd+`; for w; do printf '%s\n' "$w"; done`).Output()
	if err != nil {
		t.Fatalf("sh on %q: %v", cmd, err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !reflect.DeepEqual(got, words) {
		t.Errorf("the shell's words of %q: %q, PlainCommand's: %q", cmd, got, words)
	}
}

func FuzzPlainCommand(f *testing.F) {
	for _, s := range []string{"/bin/true", "sleep 10", "a.out $X", "x=1 y", "echo a", "a\tb  c", "a'b", ". x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		words, ok := PlainCommand(cmd)
		if !ok {
			return
		}
		if len(words) == 0 || strings.Contains(words[0], "=") {
			t.Fatalf("PlainCommand(%q) = %q", cmd, words)
		}
		for _, w := range words {
			if Quote(w) != w {
				t.Fatalf("PlainCommand(%q): word %q is not literal", cmd, w)
			}
		}
		checkShellWords(t, cmd, words)
	})
}

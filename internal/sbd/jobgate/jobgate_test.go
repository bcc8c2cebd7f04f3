package jobgate

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/basalt-lsf/basalt/internal/sbd/jobenv"
)

func TestCodeMatchesSource(t *testing.T) {
	if !Supported() {
		t.Skip("no gate on this architecture")
	}
	for _, tool := range []string{"as", "objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: cannot check code_amd64.go against its source", tool)
		}
	}
	got, err := Assemble("testdata/gate_amd64.S", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, code) {
		t.Errorf("code_amd64.go (%d bytes) is not testdata/gate_amd64.S assembled (%d bytes): run go generate", len(code), len(got))
	}
}

func TestImage(t *testing.T) {
	if !Supported() {
		t.Skip("no gate on this architecture")
	}
	img := Image()
	f, err := elf.NewFile(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != elf.ET_EXEC || f.Machine != machine || f.Class != elf.ELFCLASS64 {
		t.Errorf("type %v, machine %v, class %v", f.Type, f.Machine, f.Class)
	}
	if len(f.Progs) != 2 {
		t.Fatalf("%d program headers, want 2", len(f.Progs))
	}
	load, stack := f.Progs[0], f.Progs[1]
	if load.Type != elf.PT_LOAD || load.Flags != elf.PF_R|elf.PF_X || load.Off != 0 || load.Filesz != uint64(len(img)) {
		t.Errorf("load segment %+v", load.ProgHeader)
	}
	if stack.Type != elf.PT_GNU_STACK || stack.Flags&elf.PF_X != 0 {
		t.Errorf("stack segment %+v", stack.ProgHeader)
	}
	if f.Entry != load.Vaddr+codeOff || !bytes.Equal(img[f.Entry-load.Vaddr:], code) {
		t.Errorf("entry %#x does not start the code", f.Entry)
	}
}

func TestArgvEnv(t *testing.T) {
	if got, want := Argv("/bin/sh", "/j", "/bin/x", []string{"x", "a"}), []string{"/bin/sh", "/j", "/bin/x", "x", "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Argv = %q, want %q", got, want)
	}
	if got, want := Argv("/bin/sh", "/j", "", []string{"x"}), []string{"/bin/sh", "/j"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Argv without a path = %q, want %q", got, want)
	}
	got := Env([]string{"A=1", "LS_JOBPID=7", "B=2", "LSB_JOBPIDS=7 8"})
	want := []string{"A=1", "B=2", "LS_JOBPID=" + PIDPlaceholder, "LSB_JOBPIDS=" + PIDPlaceholder}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
}

// gateRun is one execution of the gate.
type gateRun struct {
	argv    []string
	env     []string
	release string // written on the gate; "" closes it unwritten
	cred    *syscall.Credential
}

// run executes the gate and returns its output, exit status and PID.
func (r gateRun) run(t *testing.T, g *Gate) (string, int, int) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := &exec.Cmd{Path: g.Path, Args: r.argv, Env: r.env, Stdout: &out, Stderr: &out, ExtraFiles: []*os.File{pr}}
	if r.cred != nil {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
		c.Dir = "/"
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	if r.release != "" {
		// A gate that exits without reading (no job file) may have closed
		// its end already.
		if _, err := pw.WriteString(r.release); err != nil && !errors.Is(err, syscall.EPIPE) {
			t.Fatal(err)
		}
	}
	pw.Close()
	err = c.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), c.ProcessState.ExitCode(), c.Process.Pid
}

func openGate(t *testing.T) *Gate {
	t.Helper()
	if !Supported() {
		t.Skip("no gate on this architecture")
	}
	g, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func TestGate(t *testing.T) {
	g := openGate(t)
	dir := t.TempDir()
	jobFile := filepath.Join(dir, "jobfile")
	if err := os.WriteFile(jobFile, []byte(`echo "shell $$ $LS_JOBPID $LSB_JOBPIDS $OTHER"`+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	noShebang := filepath.Join(dir, "noshebang")
	if err := os.WriteFile(noShebang, []byte("echo never\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	show := []string{"typed-name", "-c", `echo "direct $0 $$ $LS_JOBPID $LSB_JOBPIDS $OTHER"`}
	env := Env([]string{"OTHER=kept", "PATH=/usr/bin:/bin"})
	tests := []struct {
		name string
		r    gateRun
		want string // PID replaces "PID"
		code int
	}{
		{"direct", gateRun{argv: Argv("/bin/sh", jobFile, "/bin/sh", show), env: env, release: "go\n"},
			"direct typed-name PID PID PID kept\n", 0},
		{"shell", gateRun{argv: Argv("/bin/sh", jobFile, "", nil), env: env, release: "go\n"},
			"shell PID PID PID kept\n", 0},
		{"direct fails: the shell", gateRun{argv: Argv("/bin/sh", jobFile, "/nonexistent/prog", []string{"prog"}), env: env, release: "go\n"},
			"shell PID PID PID kept\n", 0},
		{"not an executable format: the shell", gateRun{argv: Argv("/bin/sh", jobFile, noShebang, []string{"noshebang"}), env: env, release: "go\n"},
			"shell PID PID PID kept\n", 0},
		{"value too short: left alone", gateRun{argv: Argv("/bin/sh", jobFile, "", nil), env: []string{"LS_JOBPID=1", "LSB_JOBPIDS=" + PIDPlaceholder + "0"}, release: "go\n"},
			"shell PID 1 PID \n", 0},
		{"refused", gateRun{argv: Argv("/bin/sh", jobFile, "/bin/sh", show), env: env, release: "no\n"}, "", ExitRefused},
		{"refused: longer line", gateRun{argv: Argv("/bin/sh", jobFile, "", nil), env: env, release: "gone\n"}, "", ExitRefused},
		{"refused: gate closed", gateRun{argv: Argv("/bin/sh", jobFile, "", nil), env: env}, "", ExitRefused},
		{"no job file", gateRun{argv: []string{"/bin/sh"}, env: env, release: "go\n"}, "", 127},
		{"no shell", gateRun{argv: []string{"/nonexistent/sh", jobFile}, env: env, release: "go\n"}, "", 127},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code, pid := tt.r.run(t, g)
			if want := strings.ReplaceAll(tt.want, "PID", strconv.Itoa(pid)); out != want || code != tt.code {
				t.Errorf("output %q, status %d; want %q, %d", out, code, want, tt.code)
			}
		})
	}
}

func TestGateAsAnotherUser(t *testing.T) {
	g := openGate(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the gate as another user")
	}
	// The memfd is executable by any user: the shepherd execs it with the
	// job user's credentials.
	r := gateRun{argv: Argv("/bin/sh", "/nonexistent", "/bin/sh", []string{"sh", "-c", `echo "$(id -u) $$ $LS_JOBPID"`}),
		env: Env([]string{"PATH=/usr/bin:/bin"}), release: "go\n", cred: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, code, pid := r.run(t, g)
	if want := "65534 " + strconv.Itoa(pid) + " " + strconv.Itoa(pid) + "\n"; out != want || code != 0 {
		t.Errorf("output %q, status %d; want %q, 0", out, code, want)
	}
}

// FuzzGateEnv gives the gate arbitrary environments: it fills exactly the
// LS_JOBPID and LSB_JOBPIDS values long enough for the PID and changes
// nothing else.
func FuzzGateEnv(f *testing.F) {
	f.Add("LS_JOBPID=0000000000", "LSB_JOBPIDS=", "X=LS_JOBPID=0000000000")
	f.Add("LS_JOBPID", "LSB_JOBPIDS=123456789012", "LS_JOBPI=0000000000")
	f.Add("", "=", "LSB_JOBPIDS=\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9")
	g, err := Open()
	if err != nil {
		f.Skip(err)
	}
	defer g.Close()
	f.Fuzz(func(t *testing.T, a, b, c string) {
		env := []string{a, b, c}
		keys := map[string]bool{}
		for _, kv := range env {
			k, _, ok := strings.Cut(kv, "=")
			if strings.IndexByte(kv, 0) >= 0 || !ok || k == "" || keys[k] {
				return // not an environment entry, or one exec.Cmd would drop
			}
			keys[k] = true
		}
		r := gateRun{argv: Argv("/bin/sh", "/nonexistent", "/usr/bin/env", []string{"env"}), env: env, release: "go\n"}
		out, code, pid := r.run(t, g)
		if code != 0 {
			t.Fatalf("status %d: %s", code, out)
		}
		var want strings.Builder
		for _, kv := range env {
			for _, key := range []string{"LS_JOBPID=", "LSB_JOBPIDS="} {
				if v, ok := strings.CutPrefix(kv, key); ok && len(v) >= len(strconv.Itoa(pid)) {
					kv = key + strconv.Itoa(pid)
				}
			}
			want.WriteString(kv + "\n")
		}
		if out != want.String() {
			t.Errorf("env %q: the gate gave\n%s\nwant\n%s", env, out, want.String())
		}
	})
}

func TestCheck(t *testing.T) {
	g := openGate(t)
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	if jobenv.GateFD != 3 {
		t.Errorf("the shepherd puts the gate on descriptor %d; the gate reads descriptor 3", jobenv.GateFD)
	}
}

func TestCheckFails(t *testing.T) {
	if err := (&Gate{fd: -1, Path: "/nonexistent/gate"}).Check(); err == nil {
		t.Error("Check of a missing gate: no error")
	}
}

package esub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// ErrAborted is returned when an esub rejects the submission; bsub prints
// LSF's message for it.
var ErrAborted = errors.New("Request aborted by esub. Job not submitted.")

// Options configure Run.
type Options struct {
	// ServerDir is LSF_SERVERDIR, where esub and esub.<method> live.
	ServerDir string
	// Methods are the esub methods to run after LSF_SERVERDIR/esub: those
	// of LSB_ESUB_METHOD, then those of bsub -a (names only, "fluent" for
	// "-a fluent(arg)"). A requested method without an executable is an
	// error.
	Methods []string
	// Env is the environment the esubs run with (bsub's own).
	Env []string
	// Stdin and Stderr are the esubs' standard input and error (bsub's:
	// an esub may talk to the user); nil means none.
	Stdin  io.Reader
	Stderr io.Writer
	// TempDir holds the parameter and modification files (default
	// os.TempDir()).
	TempDir string
}

// Result is what the esubs made of a submission.
type Result struct {
	// Spec is the job's parameters after the modifications; its Env holds
	// LSB_SUB_MODIFY_ENVFILE's changes.
	Spec *api.JobSpec
	// Output is the esubs' standard output, for eexec's standard input on
	// the execution host.
	Output []byte
	// Warnings are modifications that could not be applied.
	Warnings []string
	// Ran lists the executables run, in order.
	Ran []string
}

// Run runs the esubs of a submission (bsub calls it once it has read its
// options, #BSUB lines and environment into spec). Without any esub,
// Result.Spec is spec itself; otherwise spec is not modified and
// Result.Spec is a copy.
func Run(ctx context.Context, spec *api.JobSpec, opts Options) (*Result, error) {
	progs, err := programs(opts)
	if err != nil || len(progs) == 0 {
		if spec == nil {
			spec = &api.JobSpec{}
		}
		return &Result{Spec: spec}, err
	}
	res := &Result{Spec: clone(spec)}
	dir, err := os.MkdirTemp(opts.TempDir, "esub.")
	if err != nil {
		return nil, fmt.Errorf("esub: %w", err)
	}
	defer os.RemoveAll(dir)
	parm := filepath.Join(dir, "parm")
	modify := filepath.Join(dir, "modify")
	envfile := filepath.Join(dir, "envfile")
	var out bytes.Buffer
	for _, prog := range progs {
		if err := os.WriteFile(parm, ParamFile(Params(res.Spec)), 0o600); err != nil {
			return nil, fmt.Errorf("esub: %w", err)
		}
		for _, f := range []string{modify, envfile} {
			if err := os.WriteFile(f, nil, 0o600); err != nil {
				return nil, fmt.Errorf("esub: %w", err)
			}
		}
		cmd := exec.CommandContext(ctx, prog)
		cmd.Env = append(append([]string(nil), opts.Env...),
			"LSB_SUB_PARM_FILE="+parm,
			"LSB_SUB_ABORT_VALUE="+strconv.Itoa(AbortValue),
			"LSB_SUB_MODIFY_FILE="+modify,
			"LSB_SUB_MODIFY_ENVFILE="+envfile)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = opts.Stdin, &out, opts.Stderr
		res.Ran = append(res.Ran, prog)
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee) && ee.ExitCode() == AbortValue:
			return nil, ErrAborted
		case err != nil && !errors.As(err, &ee):
			return nil, fmt.Errorf("esub: %s: %w", prog, err)
		}
		if err := modifyFrom(res, modify, envfile); err != nil {
			return nil, err
		}
	}
	res.Output = out.Bytes()
	return res, nil
}

func modifyFrom(res *Result, modify, envfile string) error {
	if b, err := os.ReadFile(modify); err == nil && len(bytes.TrimSpace(b)) > 0 {
		as, perr := ParseAssignments(modify, b)
		if perr != nil {
			return fmt.Errorf("esub: LSB_SUB_MODIFY_FILE: %w", perr)
		}
		res.Warnings = append(res.Warnings, Apply(res.Spec, as)...)
	}
	if b, err := os.ReadFile(envfile); err == nil && len(bytes.TrimSpace(b)) > 0 {
		as, perr := ParseAssignments(envfile, b)
		if perr != nil {
			return fmt.Errorf("esub: LSB_SUB_MODIFY_ENVFILE: %w", perr)
		}
		res.Spec.Env = ApplyEnv(res.Spec.Env, as)
	}
	return nil
}

// programs are the esubs to run: LSF_SERVERDIR/esub when it exists, then
// esub.<method> for each method once.
func programs(opts Options) ([]string, error) {
	if opts.ServerDir == "" {
		if len(opts.Methods) > 0 {
			return nil, fmt.Errorf("esub: LSF_SERVERDIR is not defined; cannot run esub.%s", opts.Methods[0])
		}
		return nil, nil
	}
	var out []string
	if p := filepath.Join(opts.ServerDir, "esub"); executable(p) {
		out = append(out, p)
	}
	seen := map[string]bool{}
	for _, m := range opts.Methods {
		m = strings.TrimSpace(m)
		if i := strings.IndexByte(m, '('); i >= 0 {
			m = m[:i]
		}
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		p := filepath.Join(opts.ServerDir, "esub."+m)
		if !executable(p) {
			return nil, fmt.Errorf("esub: %s: No such file or directory", p)
		}
		out = append(out, p)
	}
	return out, nil
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// MethodNames splits LSB_ESUB_METHOD or bsub -a's value into method names
// ("fluent(arg) mpi" -> fluent, mpi).
func MethodNames(s string) []string {
	var out []string
	depth, start := 0, -1
	for i := 0; i <= len(s); i++ {
		var c byte = ' '
		if i < len(s) {
			c = s[i]
		}
		switch {
		case c == '(':
			depth++
		case c == ')':
			if depth > 0 {
				depth--
			}
		case (c == ' ' || c == '\t' || c == ',') && depth == 0:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

func clone(s *api.JobSpec) *api.JobSpec {
	if s == nil {
		return &api.JobSpec{}
	}
	c := &api.JobSpec{}
	if err := c.UnmarshalWire(s.AppendWire(nil)); err != nil {
		cp := *s
		return &cp
	}
	return c
}

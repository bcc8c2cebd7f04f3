package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/config"
)

// lsadmin's RES control: resstartup, resshutdown, resrestart. RES has no
// control method on the wire: startup starts the daemon binary's "res" as
// limstartup starts a LIM; shutdown signals (SIGTERM) the RES processes
// of this machine serving the host on this configuration (the local
// cluster's hosts all run here; on a real cluster run lsadmin on the host
// itself, as LSF's resshutdown needs the RES reachable anyway).

func init() {
	LsadminSubs.Add(
		&Subcommand{Name: "resstartup", Usage: "resstartup [-f] [host_name ... | all]", Summary: "Start up RES", Run: runResStartup},
		&Subcommand{Name: "resshutdown", Usage: "resshutdown [-f] [host_name ... | all]", Summary: "Shut down RES", Run: runResShutdown},
		&Subcommand{Name: "resrestart", Usage: "resrestart [-f] [host_name ... | all]", Summary: "Restart RES", Run: runResRestart},
	)
}

func runResStartup(ctx context.Context, env *Env, args []string) int {
	return resControl(ctx, env, args, "Starting up", "Do you really want to start up RES on all hosts?", true, false)
}

func runResShutdown(ctx context.Context, env *Env, args []string) int {
	return resControl(ctx, env, args, "Shut down", "Do you really want to shut down RES on all hosts?", false, true)
}

func runResRestart(ctx context.Context, env *Env, args []string) int {
	return resControl(ctx, env, args, "Restart", "Do you really want to restart RES on all hosts?", true, true)
}

func resControl(ctx context.Context, env *Env, args []string, verb, question string, start, stop bool) int {
	res, err := limHostsSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsadmin: %v\n", err)
		return ExitUsage
	}
	b, err := lsBase(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsadmin: %v\n", firstLine(err))
		return ExitUsage
	}
	hosts, ok := limTargets(env, b, res.Operands)
	if !ok {
		return ExitUsage
	}
	if lsContains(res.Operands, "all") && !res.Has("f") && !limConfirm(env, question) {
		return 0
	}
	cc, err := loadClientConf(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsadmin: %v\n", err)
		return ExitUsage
	}
	local, _ := config.LocalHostName(b.Conf, env.Getenv, nil)
	status := 0
	for _, h := range hosts {
		fmt.Fprintf(env.Stdout, "%s RES on <%s> ...... ", verb, h)
		if err := resControlHost(ctx, env, cc, h, local, start, stop); err != nil {
			fmt.Fprintf(env.Stdout, "failed: %v\n", err)
			status = ExitUsage
			continue
		}
		fmt.Fprintln(env.Stdout, "done")
	}
	return status
}

func resControlHost(ctx context.Context, env *Env, cc *clientConf, host, local string, start, stop bool) error {
	addr, err := cc.addr(ctx, host, cc.conf.RESPort())
	if err != nil {
		return err
	}
	if stop {
		pids := resProcesses(env.Getenv("LSF_ENVDIR"), host, host == local)
		if len(pids) == 0 && !start {
			return errors.New("RES is not running on this host's machine")
		}
		for _, p := range pids {
			if err := syscall.Kill(p, syscall.SIGTERM); err != nil {
				return fmt.Errorf("RES (pid %d): %w", p, err)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(resProcesses(env.Getenv("LSF_ENVDIR"), host, host == local)) > 0 {
			if time.Now().After(deadline) {
				return errors.New("RES did not stop")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if !start {
		return nil
	}
	if !stop && resListening(env, host, addr) {
		return nil // already running
	}
	if err := startResProcess(env, host); err != nil {
		return err
	}
	deadline := time.Now().Add(15 * time.Second)
	for !resListening(env, host, addr) {
		if time.Now().After(deadline) {
			return errors.New("RES did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// resListening reports whether host's RES accepts connections (dialled
// from the host's network).
func resListening(env *Env, host, addr string) bool {
	ok := false
	_ = startOnHost(env, host, func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			ok = true
		}
		return nil
	})
	return ok
}

func startResProcess(env *Env, host string) error {
	self, err := daemonExe()
	if err != nil {
		return err
	}
	var envv []string
	for _, kv := range env.Environ() {
		if !strings.HasPrefix(kv, "BASALT_HOST=") {
			envv = append(envv, kv)
		}
	}
	envv = append(envv, "BASALT_HOST="+host)
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	cmd := exec.Command(self, "res")
	if p := daemonLink(env, "res"); p != "" {
		cmd = exec.Command(p)
	}
	cmd.Env = envv
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := startOnHost(env, host, cmd.Start); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// resProcesses are the PIDs of this machine's RES daemons on the
// configuration envDir serving host: BASALT_HOST=host, or no BASALT_HOST
// when host is this machine's.
func resProcesses(envDir, host string, local bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		d := filepath.Join("/proc", e.Name())
		cl, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cl), "\x00"), "\x00")
		isRes := filepath.Base(args[0]) == "res" || len(args) > 1 && args[1] == "res"
		if !isRes {
			continue
		}
		environ, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil {
			continue
		}
		vars := map[string]string{}
		for _, kv := range bytes.Split(environ, []byte{0}) {
			if k, v, ok := strings.Cut(string(kv), "="); ok {
				vars[k] = v
			}
		}
		if envDir != "" && vars["LSF_ENVDIR"] != envDir {
			continue
		}
		if h, ok := vars["BASALT_HOST"]; ok && h != host || !ok && !local {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// daemonLink finds the name link to the daemon binary in the caller's PATH
// ("" when there is none).
func daemonLink(env *Env, name string) string {
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

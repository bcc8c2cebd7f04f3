package cli

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Starting a host's daemons from the admin commands (lsadmin limstartup
// and resstartup, badmin hstartup), as LSF's startup does.

// startDaemonProcess starts daemon (lim, res, sbatchd) for host, detached
// and in host's network namespace on a namespace cluster: the daemon
// binary's link of that name in PATH, else "basaltd daemon".
func startDaemonProcess(env *Env, daemon, host string) error {
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
	cmd := exec.Command(self, daemon)
	if p := daemonLink(env, daemon); p != "" {
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

// daemonListening reports whether a daemon of host accepts connections at
// addr (dialled from the host's network).
func daemonListening(env *Env, host, addr string) bool {
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

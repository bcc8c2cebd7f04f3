// Package limtest writes small LSF cluster configurations for tests of
// LIMs on one machine: host N is "hostN" at 127.0.1.N, every LIM on one
// free port, with logs, state and elims under one directory.
package limtest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// Options describe the cluster.
type Options struct {
	Dir        string // everything goes under it
	Cluster    string // "test" when empty
	Hosts      int    // hosts host1..hostN
	ExInterval int    // EXINTERVAL seconds (1 when 0)
	MasterList []string
	// Resources are extra lsf.shared Resource rows
	// ("usr_tmp Numeric 5 N (space in /usr/tmp)").
	Resources []string
	// ResourceMap rows ("usr_tmp [default]").
	ResourceMap []string
	// HostColumns and HostRows override the Host section (default: one
	// row per host, "hostN ! ! 1 ()" under "HOSTNAME model type server RESOURCES").
	HostColumns string
	HostRows    []string
	// Params are extra Parameters lines of lsf.cluster.
	Params []string
	// Conf are extra lsf.conf lines.
	Conf []string
	// Port is LSF_LIM_PORT (a free port when 0).
	Port int
}

// Layout is what Write produced.
type Layout struct {
	EnvDir, ConfDir, ServerDir, LogDir, StateDir string
	Hosts                                        []string
	Port                                         int
}

// Addr returns host N's loopback address.
func Addr(n int) string { return fmt.Sprintf("127.0.1.%d", n) }

// FreePort returns a TCP port free on 127.0.1.1.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", Addr(1)+":0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Write writes lsf.conf, lsf.shared, lsf.cluster.<name> and hosts.
func Write(o Options) (*Layout, error) {
	if o.Cluster == "" {
		o.Cluster = "test"
	}
	if o.ExInterval == 0 {
		o.ExInterval = 1
	}
	if o.Port == 0 {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		o.Port = p
	}
	l := &Layout{EnvDir: filepath.Join(o.Dir, "conf"), ServerDir: filepath.Join(o.Dir, "serverdir"),
		LogDir: filepath.Join(o.Dir, "log"), StateDir: filepath.Join(o.Dir, "state"), Port: o.Port}
	l.ConfDir = l.EnvDir
	for _, d := range []string{l.EnvDir, l.ServerDir, l.LogDir, l.StateDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var hostsFile strings.Builder
	for i := 1; i <= o.Hosts; i++ {
		h := fmt.Sprintf("host%d", i)
		l.Hosts = append(l.Hosts, h)
		fmt.Fprintf(&hostsFile, "%s %s\n", Addr(i), h)
	}
	conf := []string{
		"LSF_CONFDIR=" + l.ConfDir,
		"LSF_SERVERDIR=" + l.ServerDir,
		"LSF_LOGDIR=" + l.LogDir,
		"LSF_LOG_MASK=LOG_INFO", // the lines tests look for (elims started) are LOG_INFO
		"BASALT_STATEDIR=" + l.StateDir,
		"LSB_SHAREDIR=" + filepath.Join(o.Dir, "work"),
		fmt.Sprintf("LSF_LIM_PORT=%d", o.Port),
	}
	if len(o.MasterList) > 0 {
		conf = append(conf, fmt.Sprintf("LSF_MASTER_LIST=%q", strings.Join(o.MasterList, " ")))
	}
	conf = append(conf, o.Conf...)
	shared := fmt.Sprintf(`Begin Cluster
ClusterName
%s
End Cluster

Begin HostType
TYPENAME
X86_64
LINUXARM64
End HostType

Begin HostModel
MODELNAME  CPUFACTOR  ARCHITECTURE
x86_64     1.0        (x86_64)
aarch64    1.0        (aarch64)
SlowBox    0.5        ()
FastBox    2.0        ()
End HostModel

Begin Resource
RESOURCENAME  TYPE     INTERVAL  INCREASING  DESCRIPTION
fs            Boolean  ()        ()          (File server)
bigmem        Boolean  ()        ()          (Large memory host)
%sEnd Resource
`, o.Cluster, rows(o.Resources))
	cols := o.HostColumns
	hostRows := o.HostRows
	if cols == "" {
		cols = "HOSTNAME model type server RESOURCES"
		for _, h := range l.Hosts {
			hostRows = append(hostRows, h+" ! ! 1 ()")
		}
	}
	params := append([]string{fmt.Sprintf("EXINTERVAL = %d", o.ExInterval), "PROBE_TIMEOUT = 1", "ELIM_POLL_INTERVAL = 0.1"}, o.Params...)
	cluster := fmt.Sprintf("Begin Parameters\n%sEnd Parameters\n\nBegin Host\n%s\n%sEnd Host\n", rows(params), cols, rows(hostRows))
	if len(o.ResourceMap) > 0 {
		cluster += fmt.Sprintf("\nBegin ResourceMap\nRESOURCENAME LOCATION\n%sEnd ResourceMap\n", rows(o.ResourceMap))
	}
	files := map[string]string{
		filepath.Join(l.EnvDir, "lsf.conf"):                rows(conf),
		filepath.Join(l.ConfDir, "lsf.shared"):             shared,
		filepath.Join(l.ConfDir, "lsf.cluster."+o.Cluster): cluster,
		filepath.Join(l.ConfDir, "hosts"):                  hostsFile.String(),
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			return nil, err
		}
	}
	// The cluster key of LSF_AUTH=eauth (lsf.conf's default), readable by
	// its owner only.
	if err := os.WriteFile(filepath.Join(l.EnvDir, "lsf.sudoers"), []byte("LSF_EAUTH_KEY=limtest-key\n"), 0o600); err != nil {
		return nil, err
	}
	return l, nil
}

func rows(r []string) string {
	var b strings.Builder
	for _, x := range r {
		b.WriteString(x)
		b.WriteByte('\n')
	}
	return b.String()
}

// WriteOverride writes host's load override file (see load.ParseOverride).
func (l *Layout) WriteOverride(host, text string) error {
	d := filepath.Join(l.StateDir, host, "lim")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d, "load.override"), []byte(text), 0o644)
}

// WriteElim writes an executable elim script into LSF_SERVERDIR.
func (l *Layout) WriteElim(name, script string) error {
	return os.WriteFile(filepath.Join(l.ServerDir, name), []byte("#!/bin/sh\n"+script), 0o755)
}

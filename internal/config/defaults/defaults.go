package defaults

import (
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

//go:embed files/*.tmpl
var files embed.FS

// Defaults of Options' fields.
const (
	DefaultHosts    = 3
	DefaultSlots    = 4
	DefaultCluster  = "basalt"
	DefaultPortBase = 6878 // RES 6878, LIM 6879, MBD 6881, SBD 6882: LSF's own defaults
	DefaultAdmin    = "lsfadmin"
	// MaxHosts is the number of loopback addresses 127.0.1.1 up to
	// 127.0.254.254 that Write hands out.
	MaxHosts = 254 * 254
)

// Options describe the cluster to write. Zero fields take the defaults.
type Options struct {
	Hosts   int    // number of hosts, host1..hostN
	Slots   int    // MXJ of every host
	Cluster string // cluster name
	// PortBase derives the four ports: RES = base, LIM = base+1,
	// MBD = base+3, SBD = base+4 (6878 gives LSF's defaults), and
	// BASALT_HTTP_PORT = base+5 (metrics; sbatchd +6, LIM +7).
	PortBase int
	// Masters is how many of the first hosts are master candidates
	// (LSF_MASTER_LIST); default 1.
	Masters int
	// Admin is the cluster administrator (the user the local cluster runs
	// as); default lsfadmin.
	Admin string
	// Force overwrites an existing configuration.
	Force bool
	// HostPrefix names the hosts <prefix>1..<prefix>N; default "host".
	// Clusters that know each other (MultiCluster) need distinct host
	// names, as LSF's do.
	HostPrefix string
}

// ErrExists is returned when the directory already holds a configuration
// and Force is not set.
var ErrExists = errors.New("configuration already exists")

func (o *Options) fill() error {
	if o.Hosts == 0 {
		o.Hosts = DefaultHosts
	}
	if o.Slots == 0 {
		o.Slots = DefaultSlots
	}
	if o.Cluster == "" {
		o.Cluster = DefaultCluster
	}
	if o.PortBase == 0 {
		o.PortBase = DefaultPortBase
	}
	if o.Masters == 0 {
		o.Masters = 1
	}
	if o.Admin == "" {
		o.Admin = DefaultAdmin
	}
	if o.HostPrefix == "" {
		o.HostPrefix = HostPrefix
	}
	switch {
	case o.Hosts < 1 || o.Hosts > MaxHosts:
		return fmt.Errorf("--hosts %d: must be between 1 and %d", o.Hosts, MaxHosts)
	case o.Slots < 1:
		return fmt.Errorf("--slots %d: must be positive", o.Slots)
	case o.PortBase < 1 || HTTPPort(o.PortBase)+2 > 65535:
		return fmt.Errorf("--port-base %d: the ports %d-%d must be between 1 and 65535", o.PortBase, o.PortBase, HTTPPort(o.PortBase)+2)
	case o.Masters < 1 || o.Masters > o.Hosts:
		return fmt.Errorf("--masters %d: must be between 1 and the number of hosts (%d)", o.Masters, o.Hosts)
	case !nameOK(o.Cluster):
		return fmt.Errorf("--cluster %q: use letters, digits, '_', '-' and '.'", o.Cluster)
	case !nameOK(o.HostPrefix) || strings.ContainsAny(o.HostPrefix[len(o.HostPrefix)-1:], "0123456789"):
		return fmt.Errorf("host prefix %q: use letters, digits, '_', '-' and '.', not ending in a digit", o.HostPrefix)
	case !nameOK(o.Admin):
		return fmt.Errorf("administrator %q is not a valid user name", o.Admin)
	}
	return nil
}

func nameOK(s string) bool {
	if s == "" || len(s) > 39 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Host is one host of the written cluster.
type Host struct {
	Name   string
	Addr   netip.Addr
	Master bool
}

// HostPrefix is the default hosts' names' prefix: host1, host2...
const HostPrefix = "host"

// HostName returns the name of host i (1-based).
func HostName(i int) string { return PrefixedHostName(HostPrefix, i) }

// PrefixedHostName returns the name of host i (1-based) of a cluster whose
// hosts are named with prefix ("" is HostPrefix).
func PrefixedHostName(prefix string, i int) string {
	if prefix == "" {
		prefix = HostPrefix
	}
	return fmt.Sprintf("%s%d", prefix, i)
}

// HostAddr returns the loopback address of host i (1-based): 127.0.1.1 for
// host1, up to 127.0.1.254, then 127.0.2.1 and so on.
func HostAddr(i int) netip.Addr {
	i--
	return netip.AddrFrom4([4]byte{127, 0, byte(1 + i/254), byte(1 + i%254)})
}

// Hosts returns the hosts of a cluster written with opts.
func Hosts(opts Options) []Host {
	_ = opts.fill()
	out := make([]Host, opts.Hosts)
	for i := range out {
		out[i] = Host{Name: PrefixedHostName(opts.HostPrefix, i+1), Addr: HostAddr(i + 1), Master: i < opts.Masters}
	}
	return out
}

// data is what the templates see.
type data struct {
	Options
	Dir, ConfDir                       string
	Hosts                              []Host
	MasterList                         []string
	RESPort, LIMPort, MBDPort, SBDPort int
	HTTPPort                           int
}

// Ports returns the RES, LIM, mbatchd and sbatchd ports of a port base.
func Ports(base int) (res, lim, mbd, sbd int) { return base, base + 1, base + 3, base + 4 }

// HTTPPort is the BASALT_HTTP_PORT of a port base (base+5): mbatchd serves
// its metrics there, each host's sbatchd at +1 and LIM at +2.
func HTTPPort(base int) int { return base + 5 }

// EnvDir returns the LSF_ENVDIR of a cluster written to dir.
func EnvDir(dir string) string { return filepath.Join(dir, "conf") }

// Write writes the default configuration of the cluster opts describes into
// dir (created if needed) and creates its work, log and per-host
// directories. It returns the LSF_ENVDIR to use.
func Write(dir string, opts Options) (string, error) {
	if err := opts.fill(); err != nil {
		return "", fmt.Errorf("config write: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("config write: %w", err)
	}
	d := data{Options: opts, Dir: abs, ConfDir: EnvDir(abs), Hosts: Hosts(opts)}
	d.RESPort, d.LIMPort, d.MBDPort, d.SBDPort = Ports(opts.PortBase)
	d.HTTPPort = HTTPPort(opts.PortBase)
	for _, h := range d.Hosts {
		if h.Master {
			d.MasterList = append(d.MasterList, h.Name)
		}
	}
	if _, err := os.Stat(filepath.Join(d.ConfDir, "lsf.conf")); err == nil && !opts.Force {
		return "", fmt.Errorf("config write: %s: %w (use --force to overwrite)", filepath.Join(d.ConfDir, "lsf.conf"), ErrExists)
	}
	batchDir := filepath.Join(d.ConfDir, "lsbatch", opts.Cluster, "configdir")
	out := map[string]string{
		"lsf.conf.tmpl":      filepath.Join(d.ConfDir, "lsf.conf"),
		"lsf.shared.tmpl":    filepath.Join(d.ConfDir, "lsf.shared"),
		"lsf.cluster.tmpl":   filepath.Join(d.ConfDir, "lsf.cluster."+opts.Cluster),
		"hosts.tmpl":         filepath.Join(d.ConfDir, "hosts"),
		"lsb.params.tmpl":    filepath.Join(batchDir, "lsb.params"),
		"lsb.queues.tmpl":    filepath.Join(batchDir, "lsb.queues"),
		"lsb.hosts.tmpl":     filepath.Join(batchDir, "lsb.hosts"),
		"lsb.users.tmpl":     filepath.Join(batchDir, "lsb.users"),
		"lsb.resources.tmpl": filepath.Join(batchDir, "lsb.resources"),
	}
	dirs := []string{batchDir, filepath.Join(abs, "work", opts.Cluster, "logdir"), filepath.Join(abs, "log"), filepath.Join(abs, "sbin")}
	for _, h := range d.Hosts {
		dirs = append(dirs, filepath.Join(abs, "local", h.Name))
	}
	for _, p := range dirs {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return "", fmt.Errorf("config write: %w", err)
		}
	}
	tmpl, err := template.New("").Funcs(template.FuncMap{"join": strings.Join}).ParseFS(files, "files/*.tmpl")
	if err != nil {
		return "", fmt.Errorf("config write: %w", err) // the embedded templates are constant
	}
	for name, path := range out {
		var b strings.Builder
		if err := tmpl.ExecuteTemplate(&b, name, d); err != nil {
			return "", fmt.Errorf("config write: %s: %w", name, err)
		}
		text := b.String()
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return "", fmt.Errorf("config write: %w", err)
		}
	}
	if err := writeSudoers(filepath.Join(d.ConfDir, "lsf.sudoers")); err != nil {
		return "", fmt.Errorf("config write: %w", err)
	}
	return d.ConfDir, nil
}

// writeSudoers writes lsf.sudoers with a new random cluster key
// (LSF_EAUTH_KEY), readable by its owner only: the daemons refuse a key
// file others can read.
func writeSudoers(path string) error {
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return err
	}
	_ = os.Remove(path) // a new file: mode and owner are this process's
	text := "# lsf.sudoers of a Basalt cluster, written by \"basalt config write\".\n" +
		"# LSF_EAUTH_KEY is the cluster key of LSF_AUTH=eauth: every host of the cluster\n" +
		"# needs the same one, in a file only the daemons' user (root) can read (mode 600).\n" +
		"LSF_EAUTH_KEY=" + hex.EncodeToString(key[:]) + "\n"
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Files returns the names of the embedded templates (for documentation and
// tests).
func Files() []string {
	entries, _ := fs.ReadDir(files, "files")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".tmpl"))
	}
	return out
}

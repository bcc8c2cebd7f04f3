package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/procfs"
)

// Options describe a local cluster.
type Options struct {
	Dir   string // cluster directory (created)
	Hosts int    // default 3
	// Masters is how many of the first hosts are master candidates
	// (LSF_MASTER_LIST; default 1): 3 or 5 replicate the master's log
	// between that many mbatchd replicas.
	Masters int
	Slots   int    // MXJ per host, default 4
	Cluster string // cluster name, default "basalt"
	// Exe is the command binary, basalt (default: this one): its links go
	// in the cluster's bin directory.
	Exe string
	// Daemon is the daemon binary, basaltd, the daemons run from (default:
	// basaltd beside Exe, or Exe itself when there is none, as for a test
	// binary that holds both).
	Daemon string
	// Daemons to start per host; default lim and sbatchd where the binary
	// has them. mbatchd is started by the sbatchd of the master host, as in
	// LSF (it follows the master LIM); without LIMs or sbatchds the cluster
	// starts it on the first host itself.
	NoLIM bool
	NoSBD bool
	// Timeout bounds the wait for the cluster to accept jobs.
	Timeout time.Duration
	// Env is added to every daemon's environment.
	Env []string
	// Has reports whether the binary has a command (default: assume yes).
	Has func(name string) bool
	// Foreground keeps daemons in this process's session (basalt dev): they
	// die with it.
	Foreground bool
	// Files replace generated configuration files after the default
	// configuration is written: the key is a file name; lsb.* files go to
	// the batch configuration directory, the others to LSF_ENVDIR.
	Files map[string][]byte
	// Conf holds extra lsf.conf lines.
	Conf []string
	// Netns puts each host in a network namespace of its own, with its own
	// address on a bridge (root and iproute2 needed): hosts share no
	// loopback and no /proc/net, as separate machines.
	Netns bool
	// User runs the whole cluster as this unprivileged user (a non-root
	// installation: the user is the cluster administrator and every job
	// runs as that user). Only root can start a cluster for another user:
	// the directory is given to the user and the binary copied into it.
	User string
	// PortBase is the cluster's port base (0: a free one).
	PortBase int
	// Peers are the other clusters this one knows (MultiCluster, mc.go).
	Peers []MCPeer
	// HostPrefix names the hosts <prefix>1..<prefix>N (default "host"):
	// clusters that know each other need distinct host names.
	HostPrefix string
	// netPeers are the namespace clusters whose hosts this one's reach
	// (PairOptions of two namespace clusters), plan the planned network
	// of this one (its subnet distinct from theirs).
	netPeers []*netPlan
	plan     *netPlan
}

func (o *Options) fill() error {
	if o.Dir == "" {
		return errors.New("cluster: no directory given")
	}
	if o.Hosts <= 0 {
		o.Hosts = 3
	}
	if o.Slots <= 0 {
		o.Slots = 4
	}
	if o.Cluster == "" {
		o.Cluster = "basalt"
	}
	if o.HostPrefix == "" {
		o.HostPrefix = defaults.HostPrefix
	}
	if o.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		o.Exe = exe
	}
	if o.Daemon == "" {
		o.Daemon = o.Exe
		if d := filepath.Join(filepath.Dir(o.Exe), "basaltd"); d != o.Exe {
			if st, err := os.Stat(d); err == nil && st.Mode().IsRegular() {
				o.Daemon = d
			}
		}
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Has == nil {
		o.Has = func(string) bool { return true }
	}
	return nil
}

// Cluster is a started local cluster.
type Cluster struct {
	Opts   Options
	EnvDir string
	Bin    string
	procs  []proc
	cred   *syscall.Credential // Options.User's, nil: this process's user
	net    *netPlan            // a namespace cluster's namespaces, nil otherwise
}

type proc struct {
	daemon string
	host   string
	pid    int
	cmd    *exec.Cmd
}

// Exports are the shell variables a user needs to talk to the cluster. PATH
// gets the cluster's command directory in front, unless it is there already
// (a shell that evaluates them twice). LSF_BINDIR names that directory, as
// LSF's profile.lsf sets it: IBM's LSF exporter and Open OnDemand's LSF
// adapter run $LSF_BINDIR/<command>.
func (c *Cluster) Exports() [][2]string {
	path := os.Getenv("PATH")
	if first, _, _ := strings.Cut(path, string(os.PathListSeparator)); first != c.Bin {
		path = c.Bin + string(os.PathListSeparator) + path
	}
	return [][2]string{
		{"LSF_ENVDIR", c.EnvDir},
		{"LSF_BINDIR", c.Bin},
		{"BASALT_HOST", c.Host(1)},
		{"PATH", path},
	}
}

// ErrNotRunning is Running's error when no daemon of a cluster runs in the
// directory.
var ErrNotRunning = errors.New("no cluster is running")

// Running returns the cluster that runs in dir (started by Up, in this
// process or another), for its Exports. Only Opts.Dir and Opts.Cluster are
// known of it.
func Running(dir string) (*Cluster, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if pids, _ := readPids(dir); len(pids) == 0 || !anyAlive(pids) {
		return nil, fmt.Errorf("%w in %s", ErrNotRunning, dir)
	}
	net, err := readNet(dir)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if net != nil && len(net.hosts) > 0 {
		prefix = strings.TrimSuffix(net.hosts[0].name, "1")
	}
	return &Cluster{Opts: Options{Dir: dir, Cluster: clusterName(dir), Netns: net != nil, HostPrefix: prefix}, EnvDir: defaults.EnvDir(dir),
		Bin: filepath.Join(dir, "bin"), net: net}, nil
}

// Up writes the configuration and starts every daemon, then waits until the
// cluster accepts jobs.
func Up(ctx context.Context, opts Options) (*Cluster, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	opts.Dir = dir
	if pids, _ := readPids(dir); len(pids) > 0 && anyAlive(pids) {
		return nil, fmt.Errorf("a cluster is already running in %s (eval \"$(basalt cluster env --dir %s)\" uses it, basalt cluster down --dir %s stops it)", dir, dir, dir)
	}
	base := opts.PortBase
	if base == 0 {
		if base, err = freePortBase(opts.Hosts); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	admin := "root"
	if u := os.Getenv("USER"); u != "" && os.Getuid() != 0 {
		admin = u
	}
	var cred *syscall.Credential
	if opts.User != "" {
		if cred, err = credentialOf(opts.User); err != nil {
			return nil, err
		}
		admin = opts.User
	}
	if _, err := defaults.Write(dir, defaults.Options{Hosts: opts.Hosts, Slots: opts.Slots, Cluster: opts.Cluster,
		PortBase: base, Admin: admin, Masters: opts.Masters, Force: true, HostPrefix: opts.HostPrefix}); err != nil {
		return nil, fmt.Errorf("writing the configuration: %w", err)
	}
	c := &Cluster{Opts: opts, EnvDir: defaults.EnvDir(dir), Bin: filepath.Join(dir, "bin"), cred: cred}
	if opts.Netns {
		if c.net = opts.plan; c.net == nil || c.net.dir != dir || len(c.net.hosts) != opts.Hosts {
			if c.net, err = planNet(dir, opts.Hosts, opts.HostPrefix); err != nil {
				return nil, err
			}
		}
		c.net.peers = opts.netPeers
		if err := c.net.setup(ctx); err != nil {
			return nil, err
		}
		if err := c.net.write(dir); err != nil {
			c.net.teardown(context.Background())
			return nil, err
		}
		if err := c.net.writeHosts(c.EnvDir); err != nil {
			c.Down(context.Background())
			return nil, err
		}
	}
	if err := c.overlay(); err != nil {
		return nil, err
	}
	if err := c.writeMC(base); err != nil {
		return nil, err
	}
	if cred != nil {
		// The user must be able to run the binary (a test binary lives in
		// a private build directory).
		exe, daemon := filepath.Join(dir, "basalt"), filepath.Join(dir, "basaltd")
		if c.Opts.Daemon == c.Opts.Exe {
			daemon = exe
		} else if err := copyFile(c.Opts.Daemon, daemon, 0o755); err != nil {
			return nil, fmt.Errorf("copying the daemon binary for %s: %w", opts.User, err)
		}
		if err := copyFile(c.Opts.Exe, exe, 0o755); err != nil {
			return nil, fmt.Errorf("copying the binary for %s: %w", opts.User, err)
		}
		c.Opts.Exe, c.Opts.Daemon = exe, daemon
	}
	if err := c.links(); err != nil {
		return nil, err
	}
	for _, d := range []string{"log", "work", "state"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	if cred != nil {
		if err := chownTree(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	// LIMs first (the master's first, listening before the others start:
	// a LIM that finds no master retries a second later, and mbatchd may
	// read the master's table in between and see the host unavailable
	// for a whole exchange interval), then mbatchd, then the sbatchds.
	if !opts.NoLIM && opts.Has("lim") {
		for i := 1; i <= opts.Hosts; i++ {
			if err := c.start(ctx, "lim", c.Host(i)); err != nil {
				c.Down(context.Background())
				return nil, err
			}
			if i == 1 && opts.Hosts > 1 {
				_, limPort, _, _ := defaults.Ports(c.portBase())
				c.waitListen(c.procs[len(c.procs)-1].pid, netip.AddrPortFrom(c.HostAddr(1), uint16(limPort)), 5*time.Second)
			}
		}
	}
	if !c.keeps() {
		if err := c.start(ctx, "mbatchd", c.Host(1)); err != nil {
			c.Down(context.Background())
			return nil, err
		}
	}
	if !opts.NoSBD && opts.Has("sbatchd") {
		for i := 1; i <= opts.Hosts; i++ {
			if err := c.start(ctx, "sbatchd", c.Host(i)); err != nil {
				c.Down(context.Background())
				return nil, err
			}
		}
	}
	// A RES on every host (lsrun, lsgrun, lsrcp).
	if opts.Has("res") {
		for i := 1; i <= opts.Hosts; i++ {
			if err := c.start(ctx, "res", c.Host(i)); err != nil {
				c.Down(context.Background())
				return nil, err
			}
		}
	}
	if err := c.writePids(); err != nil {
		c.Down(context.Background())
		return nil, err
	}
	if err := c.wait(ctx); err != nil {
		c.Down(context.Background())
		return nil, err
	}
	return c, nil
}

// overlay applies Options.Files and Options.Conf.
func (c *Cluster) overlay() error {
	for name, data := range c.Opts.Files {
		p := filepath.Join(c.EnvDir, name)
		if strings.HasPrefix(filepath.Base(name), "lsb.") && !strings.Contains(name, "/") {
			p = filepath.Join(c.EnvDir, "lsbatch", c.Opts.Cluster, "configdir", name)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("configuration override %s: %w", name, err)
		}
	}
	if len(c.Opts.Conf) > 0 {
		f, err := os.OpenFile(filepath.Join(c.EnvDir, "lsf.conf"), os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		for _, line := range c.Opts.Conf {
			if _, err := fmt.Fprintln(f, line); err != nil {
				return err
			}
		}
	}
	return nil
}

// links creates bin/<command> links to the command binary, and
// bin/<daemon> links to the daemon binary when it is another one.
func (c *Cluster) links() error {
	if err := os.MkdirAll(c.Bin, 0o755); err != nil {
		return err
	}
	bins := [][2]string{{c.Opts.Exe, "basalt"}}
	if c.Opts.Daemon != c.Opts.Exe {
		bins = append(bins, [2]string{c.Opts.Daemon, "basaltd"})
	}
	for _, b := range bins {
		cmd := exec.Command(b[0], "links", c.Bin)
		cmd.Args[0] = b[1]
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("creating %s's links: %v: %s", b[1], err, out)
		}
	}
	// LSF_SERVERDIR/echkpnt and erestart, the checkpoint method
	// framework's programs (internal/chkpnt), are names of the command
	// binary.
	if err := os.MkdirAll(filepath.Join(c.Opts.Dir, "sbin"), 0o755); err != nil {
		return err
	}
	for _, name := range []string{"echkpnt", "erestart"} {
		p := filepath.Join(c.Opts.Dir, "sbin", name)
		_ = os.Remove(p)
		if err := os.Symlink(c.Opts.Exe, p); err != nil {
			return fmt.Errorf("linking %s: %w", p, err)
		}
	}
	// LSF_SERVERDIR/eauth is Basalt's eauth, a name of the daemon binary:
	// a link to sbin/basaltd, itself a link to the binary, so that commands
	// see by its name that it is Basalt's own and do not run it.
	if c.Opts.Has("eauth") {
		sbin := filepath.Join(c.Opts.Dir, "sbin")
		for _, l := range [][2]string{{c.Opts.Daemon, "basaltd"}, {"basaltd", "eauth"}} {
			p := filepath.Join(sbin, l[1])
			_ = os.Remove(p)
			if err := os.Symlink(l[0], p); err != nil {
				return fmt.Errorf("linking %s: %w", p, err)
			}
		}
	}
	return nil
}

func (c *Cluster) start(ctx context.Context, daemon, host string) error {
	logf, err := os.OpenFile(filepath.Join(c.Opts.Dir, "log", fmt.Sprintf("%s-%s.out", daemon, host)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(c.Opts.Daemon)
	cmd.Args = []string{daemon}
	cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST="+host)
	cmd.Env = append(cmd.Env, c.Opts.Env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = c.Opts.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: !c.Opts.Foreground}
	if c.cred != nil {
		cmd.SysProcAttr.Credential = c.cred
		cmd.Env = append(cmd.Env, "USER="+c.Opts.User, "LOGNAME="+c.Opts.User)
	}
	// In a namespace cluster the daemon starts in its host's namespace.
	if err := c.InHost(host, cmd.Start); err != nil {
		return fmt.Errorf("starting %s on %s: %w", daemon, host, err)
	}
	c.procs = append(c.procs, proc{daemon: daemon, host: host, pid: cmd.Process.Pid, cmd: cmd})
	if !c.Opts.Foreground {
		go cmd.Wait() // reap if it dies while we wait for readiness
	}
	return nil
}

func (c *Cluster) writePids() error {
	var b strings.Builder
	for _, p := range c.procs {
		fmt.Fprintf(&b, "%d %s %s\n", p.pid, p.daemon, p.host)
	}
	return os.WriteFile(filepath.Join(c.Opts.Dir, "cluster.pids"), []byte(b.String()), 0o644)
}

// wait blocks until mbatchd answers and every host's sbatchd is connected.
func (c *Cluster) wait(ctx context.Context) error {
	deadline := time.Now().Add(c.Opts.Timeout)
	conf, err := c.lsfConf()
	if err != nil {
		return err
	}
	// As a command of the first host (lsf.conf's LSF_AUTH): one client,
	// a fresh credential per connection.
	creds := authsetup.Client(conf, c.EnvDir, c.Host(1), auth.KindUser)
	masters := conf.MasterReplicas()
	if len(masters) <= 1 {
		masters = []string{c.Host(1)}
	}
	wantSbd := !c.Opts.NoSBD && c.Opts.Has("sbatchd")
	var last error
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if dead := c.deadDaemon(); dead != "" {
			return fmt.Errorf("%s exited during start-up; see %s", dead, filepath.Join(c.Opts.Dir, "log"))
		}
		for _, m := range masters {
			if last = c.ready(ctx, m, conf.MBDPort(), creds, wantSbd); last == nil {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("the cluster did not become ready within %v: %v (logs in %s)", c.Opts.Timeout, last, filepath.Join(c.Opts.Dir, "log"))
}

// waitListen waits (at most timeout) until process pid listens on TCP
// address a, as its network namespace's /proc/net/tcp shows (no
// connection is made to find out).
func (c *Cluster) waitListen(pid int, a netip.AddrPort, timeout time.Duration) {
	b := a.Addr().As4()
	want := fmt.Sprintf(": %02X%02X%02X%02X:%04X 00000000:0000 0A ", b[3], b[2], b[1], b[0], a.Port())
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && alive(pid) {
		if tcp, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", pid)); err != nil || strings.Contains(string(tcp), want) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lsfConf reads the cluster's lsf.conf (as defaults.Write wrote it and
// Options.Conf extended it).
func (c *Cluster) lsfConf() (*lsfconf.Conf, error) {
	path := filepath.Join(c.EnvDir, "lsf.conf")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	conf, _ := lsfconf.Parse(path, b)
	return conf, nil
}

// portBase is the cluster's first port (LSF_RES_PORT).
func (c *Cluster) portBase() int {
	conf, err := c.lsfConf()
	if err != nil {
		return defaults.DefaultPortBase
	}
	return conf.Int("LSF_RES_PORT", defaults.DefaultPortBase)
}

// ready reports (nil) whether the mbatchd of host is the master and every
// host's sbatchd is connected (wantSbd).
func (c *Cluster) ready(ctx context.Context, host string, port int, creds *eauth.Client, wantSbd bool) error {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	mbdAddr := net.JoinHostPort(c.HostAddr(c.hostIndex(host)).String(), strconv.Itoa(port))
	hello, err := creds.Hello(cctx, auth.KindMbatchd, host)
	if err != nil {
		return fmt.Errorf("mbatchd: %w", err)
	}
	var cl *rpc.Client
	err = c.InHost(c.Host(1), func() (err error) {
		cl, err = rpc.Dial(cctx, mbdAddr, hello)
		return err
	})
	if err != nil {
		return fmt.Errorf("mbatchd: %w", err)
	}
	defer cl.Close()
	var hosts api.HostsReply
	if err := cl.Call(cctx, api.MBatchdHosts, &api.HostsRequest{}, &hosts); err != nil {
		return fmt.Errorf("mbatchd: %w", err)
	}
	if !wantSbd {
		return nil
	}
	for _, h := range hosts.Hosts {
		if h.Status == "unavail" || h.Status == "unreach" || h.Status == "closed_LIM" {
			return fmt.Errorf("host %s is %s", h.Name, h.Status)
		}
	}
	return nil
}

// hostIndex is the number of hostN (<prefix>N).
func (c *Cluster) hostIndex(host string) int {
	i, _ := strconv.Atoi(strings.TrimPrefix(host, c.hostPrefix()))
	return i
}

func (c *Cluster) hostPrefix() string {
	if c.Opts.HostPrefix == "" {
		return defaults.HostPrefix
	}
	return c.Opts.HostPrefix
}

// Host is the name of host i (1-based): hostN, or <HostPrefix>N.
func (c *Cluster) Host(i int) string { return defaults.PrefixedHostName(c.Opts.HostPrefix, i) }

// deadDaemon names a daemon that exited, if any.
func (c *Cluster) deadDaemon() string {
	for _, p := range c.procs {
		if syscall.Kill(p.pid, 0) != nil {
			return p.daemon + " on " + p.host
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid)); err == nil {
			f := strings.Fields(string(b))
			if len(f) > 2 && f[2] == "Z" {
				return p.daemon + " on " + p.host
			}
		}
	}
	return ""
}

// Down stops the cluster's daemons: SIGTERM, then SIGKILL after a grace
// period. Jobs are stopped too (their cgroups, then their process groups).
func (c *Cluster) Down(ctx context.Context) error {
	return Down(ctx, c.Opts.Dir, c.Opts.Cluster)
}

// Down stops the cluster in dir (cluster name for its job cgroups).
func Down(ctx context.Context, dir, name string) error {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	pids, err := readPids(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// mbatchds started by sbatchds (stopped by them too, unless an sbatchd
	// was killed).
	if states, _ := os.ReadDir(filepath.Join(dir, "state")); states != nil {
		for _, e := range states {
			if pid := keptMbatchd(dir, e.Name()); pid != 0 {
				pids = append(pids, pid)
			}
		}
	}
	// Daemons started by hand on this cluster's configuration (lsadmin
	// limstartup, an sbatchd restarted from a shell) are its too.
	pids = append(pids, daemonsOf(defaults.EnvDir(dir))...)
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && anyAlive(pids) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range pids {
		if alive(p) {
			_ = syscall.Kill(-p, syscall.SIGKILL)
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	// A host's shepherd process outlives a killed sbatchd (it keeps the
	// jobs, and their ends, for the next one): found by its command line.
	for _, p := range shepherdHosts(dir) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	if name == "" {
		name = clusterName(dir)
	}
	groups := groupDirs(dir, name)
	killJobs(groups)
	removeGroups(ctx, groups)
	// A namespace cluster's namespaces (with what still runs in them) and
	// bridge, also when its start crashed before recording them.
	if p, err := readNet(dir); err == nil && p != nil {
		p.teardown(ctx)
		_ = os.Remove(filepath.Join(dir, netnsFile))
	} else if id, ok := ownedBridge(dir); ok {
		removeNet(ctx, id)
	}
	// The cluster name's directory, unless another cluster of the same
	// name still has hosts in it.
	for _, root := range cgroupRoots {
		_ = os.Remove(filepath.Join(root, "basalt", name))
	}
	_ = os.Remove(filepath.Join(dir, "cluster.pids"))
	return nil
}

// shepherdHosts are the PIDs of the processes serving job shepherds for the
// sbatchds of the cluster in dir ("job-shepherd -host DIR/state/...").
func shepherdHosts(dir string) []int {
	state := filepath.Join(dir, "state") + string(os.PathSeparator)
	return processes(func(_ string, args []string) bool { return isShepherdHost(args, state) })
}

// processes lists the PIDs of this machine's other processes whose command
// line (and /proc directory) match.
func processes(match func(procDir string, args []string) bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		d := filepath.Join("/proc", e.Name())
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && match(d, strings.Split(string(b), "\x00")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// isShepherdHost tells whether args are those of a shepherd host whose
// state directory is under state.
func isShepherdHost(args []string, state string) bool {
	for i := 0; i+2 < len(args); i++ {
		if args[i] == "job-shepherd" && args[i+1] == "-host" && strings.HasPrefix(args[i+2], state) {
			return true
		}
	}
	return false
}

// clusterName is the name of the cluster configured in dir ("" when its
// configuration cannot be read).
func clusterName(dir string) string {
	b, err := config.LoadBase(context.Background(), config.Options{EnvDir: defaults.EnvDir(dir), LocalHost: defaults.HostName(1)})
	if err != nil {
		return ""
	}
	return b.ClusterName()
}

// cgroupRoots are where job cgroups may be: the v1 hierarchies a job group
// uses, and the unified one.
var cgroupRoots = []string{"/sys/fs/cgroup/freezer", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"}

// groupDirs lists the cgroup directories of the cluster in dir in every
// hierarchy, each parent before its children: those of its hosts' sbatchds and RES
// (config.JobCgroupParent of each host's state directory), never another
// cluster's of the same name.
func groupDirs(dir, name string) []string {
	if name == "" {
		return nil
	}
	hosts, _ := os.ReadDir(filepath.Join(dir, "state"))
	var dirs []string
	for _, h := range hosts {
		for _, daemon := range []string{"sbatchd", "res"} { // jobs, and RES's tasks
			parent := config.JobCgroupParent(name, h.Name(), filepath.Join(dir, "state", h.Name(), daemon))
			for _, root := range cgroupRoots {
				filepath.WalkDir(filepath.Join(root, parent), func(p string, d os.DirEntry, err error) error {
					if err == nil && d.IsDir() {
						dirs = append(dirs, p)
					}
					return nil
				})
			}
		}
	}
	return dirs
}

// daemonsOf lists the Basalt daemons (lim, sbatchd, mbatchd, res, by their
// command line) whose environment names envDir as LSF_ENVDIR.
func daemonsOf(envDir string) []int {
	want := []byte("LSF_ENVDIR=" + envDir + "\x00")
	return processes(func(d string, args []string) bool {
		if !isDaemonCmdline(args) {
			return false
		}
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		return err == nil && bytes.Contains(append(env, 0), want)
	})
}

// isDaemonCmdline tells whether args run lim, sbatchd, mbatchd or res (by
// name, or as basaltd's first argument).
func isDaemonCmdline(args []string) bool {
	for i, a := range args {
		if i > 1 {
			break
		}
		switch filepath.Base(a) {
		case "lim", "sbatchd", "mbatchd", "res":
			return true
		}
	}
	return false
}

// killJobs kills every process in the cluster's job cgroups dirs (thawed
// first where frozen).
func killJobs(dirs []string) {
	for _, p := range dirs {
		if strings.HasPrefix(p, "/sys/fs/cgroup/freezer/") {
			_ = os.WriteFile(filepath.Join(p, "freezer.state"), []byte("THAWED"), 0o644)
		}
		b, _ := os.ReadFile(filepath.Join(p, "cgroup.procs"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// removeGroups removes the cgroup directories dirs, deepest first, once the
// processes killed in them have exited (they are given a second).
func removeGroups(ctx context.Context, dirs []string) {
	deadline := time.Now().Add(time.Second)
	for i := len(dirs) - 1; i >= 0; i-- {
		for os.Remove(dirs[i]) != nil && time.Now().Before(deadline) && ctx.Err() == nil {
			if _, err := os.Stat(dirs[i]); err != nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func readPids(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cluster.pids"))
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			if p, err := strconv.Atoi(f[0]); err == nil {
				pids = append(pids, p)
			}
		}
	}
	return pids, nil
}

// alive reports whether process pid still runs: a zombie is dead once its
// last thread has exited (a killed Go daemon's main thread turns zombie
// while other threads still hold its files, its lock among them).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	st, err := procfs.FS{}.Stat(pid)
	if err != nil {
		return false
	}
	return st.State != 'Z' && st.State != 'X' || st.NumThreads > 1
}

func anyAlive(pids []int) bool {
	for _, p := range pids {
		if alive(p) {
			return true
		}
	}
	return false
}

// freePortBase finds a port base whose ports are free on every host's
// address, so that several clusters (tests) run at once.
func freePortBase(hosts int) (int, error) {
	r := rand.New(rand.NewSource(time.Now().UnixNano() ^ int64(os.Getpid())))
	for try := 0; try < 200; try++ {
		base := 20000 + r.Intn(40000/10)*10
		if portsFree(base, hosts) {
			return base, nil
		}
	}
	return 0, errors.New("cluster: no free port range found")
}

func portsFree(base, hosts int) bool {
	res, lim, mbd, sbd := defaults.Ports(base)
	http := defaults.HTTPPort(base)
	ports := []int{res, lim, mbd, sbd, http, http + 1, http + 2}
	for i := 1; i <= hosts; i++ {
		a := defaults.HostAddr(i).String()
		for _, p := range ports {
			ln, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(p)))
			if err != nil {
				return false
			}
			ln.Close()
			if p == lim {
				pc, err := net.ListenPacket("udp", net.JoinHostPort(a, strconv.Itoa(p)))
				if err != nil {
					return false
				}
				pc.Close()
			}
		}
	}
	return true
}

// Wait blocks until ctx ends (basalt dev), then stops the cluster.
func (c *Cluster) Wait(ctx context.Context) error {
	<-ctx.Done()
	return c.Down(context.Background())
}

// keeps reports whether the sbatchds start mbatchd (on the master host):
// the cluster runs LIMs and sbatchds.
func (c *Cluster) keeps() bool {
	return !c.Opts.NoLIM && c.Opts.Has("lim") && !c.Opts.NoSBD && c.Opts.Has("sbatchd")
}

// MbatchdPID is the PID of the mbatchd running on host (0: none): one the
// cluster started, or one the host's sbatchd started (its mbatchd.pid).
func (c *Cluster) MbatchdPID(host string) int {
	if i := slices.IndexFunc(c.procs, func(p proc) bool { return p.daemon == "mbatchd" && p.host == host }); i >= 0 {
		return c.procs[i].pid
	}
	return keptMbatchd(c.Opts.Dir, host)
}

// keptMbatchd reads the PID of the mbatchd the sbatchd of host started
// (0: none running).
func keptMbatchd(dir, host string) int {
	b, err := os.ReadFile(filepath.Join(dir, "state", host, "sbatchd", "mbatchd.pid"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || !alive(pid) {
		return 0
	}
	return pid
}

// Restart stops one daemon with sig (SIGKILL simulates a crash), waits until
// it has exited, starts it again and waits until the cluster is ready. An
// mbatchd started by an sbatchd is started again by that sbatchd.
func (c *Cluster) Restart(ctx context.Context, daemon, host string, sig syscall.Signal) error {
	i := slices.IndexFunc(c.procs, func(p proc) bool { return p.daemon == daemon && p.host == host })
	if i < 0 && daemon == "mbatchd" {
		pid := keptMbatchd(c.Opts.Dir, host)
		if pid == 0 {
			return fmt.Errorf("no mbatchd on %s in this cluster", host)
		}
		if err := c.kill(pid, daemon, host, sig); err != nil {
			return err
		}
		return c.wait(ctx)
	}
	if i < 0 {
		return fmt.Errorf("no %s on %s in this cluster", daemon, host)
	}
	p := c.procs[i]
	if err := c.kill(p.pid, daemon, host, sig); err != nil {
		return err
	}
	c.procs = slices.Delete(c.procs, i, i+1)
	if err := c.start(ctx, daemon, host); err != nil {
		return err
	}
	if err := c.writePids(); err != nil {
		return err
	}
	return c.wait(ctx)
}

// kill signals a daemon and waits until it has exited.
func (c *Cluster) kill(pid int, daemon, host string, sig syscall.Signal) error {
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signalling %s on %s: %w", daemon, host, err)
	}
	deadline := time.Now().Add(c.Opts.Timeout)
	for alive(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s on %s did not exit within %v", daemon, host, c.Opts.Timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// credentialOf is the credential of an unprivileged user to run a cluster
// as (root only).
func credentialOf(name string) (*syscall.Credential, error) {
	if os.Getuid() != 0 {
		return nil, fmt.Errorf("only root can start a cluster as %s", name)
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, fmt.Errorf("user %s: uid %q", name, u.Uid)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil, fmt.Errorf("user %s: gid %q", name, u.Gid)
	}
	if uid == 0 {
		return nil, fmt.Errorf("user %s is root", name)
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	if gids, err := u.GroupIds(); err == nil {
		for _, g := range gids {
			if n, err := strconv.Atoi(g); err == nil {
				cred.Groups = append(cred.Groups, uint32(n))
			}
		}
	}
	return cred, nil
}

// chownTree gives dir and everything below it to uid:gid.
func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

func copyFile(from, to string, perm os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

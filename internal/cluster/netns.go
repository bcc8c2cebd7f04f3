package cluster

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/basalt-lsf/basalt/internal/config/defaults"
)

// A namespace cluster (Options.Netns) puts each host in a network
// namespace of its own: its own loopback, /proc/net and address
// (10.250.<x>.<n>/24 on a veth pair whose other end is on a bridge in the
// root namespace, which holds no address: the hosts reach each other and
// nothing else). Processes of a host are started with the forking thread
// in the host's namespace (InHost), so they inherit it; the file system is
// shared, as a cluster's shared file system would be, and each host keeps
// its own local directories (state, local) as before.

// netnsFile records a namespace cluster's names in its directory, for
// down and for commands run on a host.
const netnsFile = "netns"

// netPlan is a namespace cluster's names and addresses.
type netPlan struct {
	id     string // 6 hex digits from the cluster directory
	bridge string
	hosts  []netHost
}

type netHost struct {
	name string // host1...
	ns   string // network namespace (ip netns)
	veth string // the root namespace's end of the host's veth pair
	addr netip.Addr
}

// planNet derives the names of the namespace cluster in dir: short enough
// for interface names (15 bytes), unique per directory.
func planNet(dir string, hosts int) (*netPlan, error) {
	if hosts > 250 {
		return nil, fmt.Errorf("a namespace cluster has at most 250 hosts, not %d", hosts)
	}
	h := fnv.New32a()
	h.Write([]byte(dir))
	sum := h.Sum32()
	id := fmt.Sprintf("%06x", sum&0xffffff)
	p := &netPlan{id: id, bridge: "bsb" + id}
	third := byte(sum>>24) % 250
	for i := 1; i <= hosts; i++ {
		p.hosts = append(p.hosts, netHost{name: defaults.HostName(i), ns: "basalt-" + id + "-" + defaults.HostName(i),
			veth: fmt.Sprintf("bsv%s%d", id, i), addr: netip.AddrFrom4([4]byte{10, 250, third, byte(i)})})
	}
	return p, nil
}

// setup creates the bridge, the namespaces and their links, removing
// whatever a crashed earlier run of the same directory left.
func (p *netPlan) setup(ctx context.Context) error {
	p.teardown(ctx)
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("a namespace cluster needs iproute2's ip command (scripts/setup-test-env.sh installs it): %w", err)
	}
	run := func(args ...string) error {
		out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := run("link", "add", p.bridge, "type", "bridge"); err != nil {
		return err
	}
	if err := run("link", "set", p.bridge, "up"); err != nil {
		return err
	}
	for i, h := range p.hosts {
		peer := fmt.Sprintf("bsp%s%d", p.id, i+1)
		for _, args := range [][]string{
			{"netns", "add", h.ns},
			{"link", "add", h.veth, "type", "veth", "peer", "name", peer},
			{"link", "set", peer, "netns", h.ns},
			{"-n", h.ns, "link", "set", peer, "name", "eth0"},
			{"-n", h.ns, "addr", "add", h.addr.String() + "/24", "dev", "eth0"},
			{"-n", h.ns, "link", "set", "eth0", "up"},
			{"-n", h.ns, "link", "set", "lo", "up"},
			{"link", "set", h.veth, "master", p.bridge},
			{"link", "set", h.veth, "up"},
		} {
			if err := run(args...); err != nil {
				p.teardown(context.Background())
				return err
			}
		}
	}
	return nil
}

// teardown deletes the namespaces (their veth ends go with them) and the
// bridge; what does not exist is skipped.
func (p *netPlan) teardown(ctx context.Context) {
	for _, h := range p.hosts {
		_ = exec.CommandContext(ctx, "ip", "netns", "del", h.ns).Run()
		_ = exec.CommandContext(ctx, "ip", "link", "del", h.veth).Run()
	}
	_ = exec.CommandContext(ctx, "ip", "link", "del", p.bridge).Run()
}

// write records the plan in the cluster directory: "bridge NAME", then
// "host NAME NAMESPACE VETH ADDRESS" per host.
func (p *netPlan) write(dir string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "bridge %s\n", p.bridge)
	for _, h := range p.hosts {
		fmt.Fprintf(&b, "host %s %s %s %s\n", h.name, h.ns, h.veth, h.addr)
	}
	return os.WriteFile(filepath.Join(dir, netnsFile), []byte(b.String()), 0o644)
}

// readNet reads the plan of the namespace cluster in dir; nil when the
// cluster is not one.
func readNet(dir string) (*netPlan, error) {
	b, err := os.ReadFile(filepath.Join(dir, netnsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p := &netPlan{}
	for n, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "bridge":
			p.bridge = f[1]
		case len(f) == 5 && f[0] == "host":
			a, err := netip.ParseAddr(f[4])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", filepath.Join(dir, netnsFile), n+1, err)
			}
			p.hosts = append(p.hosts, netHost{name: f[1], ns: f[2], veth: f[3], addr: a})
		default:
			return nil, fmt.Errorf("%s:%d: bad line %q", filepath.Join(dir, netnsFile), n+1, line)
		}
	}
	return p, nil
}

func (p *netPlan) host(name string) *netHost {
	for i := range p.hosts {
		if p.hosts[i].name == name {
			return &p.hosts[i]
		}
	}
	return nil
}

// writeHosts rewrites the cluster's hosts file with the namespaces'
// addresses.
func (p *netPlan) writeHosts(envDir string) error {
	var b strings.Builder
	b.WriteString("# LSF hosts file: each host in its own network namespace (basalt cluster up --netns).\n")
	for _, h := range p.hosts {
		fmt.Fprintf(&b, "%-15s %s\n", h.addr, h.name)
	}
	return os.WriteFile(filepath.Join(envDir, "hosts"), []byte(b.String()), 0o644)
}

// InNetns runs fn on a thread that is in the network namespace ns (a name
// of `ip netns`, or a path): sockets fn opens and processes it starts are
// in that namespace (a child inherits its forking thread's). The thread
// goes back to its namespace afterwards; if it cannot, it is not reused.
func InNetns(ns string, fn func() error) error {
	path := ns
	if !strings.Contains(ns, "/") {
		path = filepath.Join("/run/netns", ns)
	}
	target, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("network namespace %s: %w", ns, err)
	}
	defer target.Close()
	runtime.LockOSThread()
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer self.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("entering network namespace %s: %w", ns, err)
	}
	ferr := fn()
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		// The thread stays locked and dies with the goroutine.
		return errors.Join(ferr, fmt.Errorf("leaving network namespace %s: %w", ns, err))
	}
	runtime.UnlockOSThread()
	return ferr
}

// ExecIn replaces this process with argv run on host of the cluster in dir:
// in the host's network namespace when it is a namespace cluster, with
// BASALT_HOST naming the host and LSF_ENVDIR the cluster's configuration
// (basalt cluster exec).
func ExecIn(dir, host string, argv []string) error {
	if len(argv) == 0 {
		return errors.New("no command")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	env := append(os.Environ(), "LSF_ENVDIR="+defaults.EnvDir(abs), "BASALT_HOST="+host,
		"PATH="+filepath.Join(abs, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	path, err := lookPathIn(argv[0], filepath.Join(abs, "bin"))
	if err != nil {
		return err
	}
	p, err := readNet(abs)
	if err != nil {
		return err
	}
	if p == nil {
		return unix.Exec(path, argv, env)
	}
	h := p.host(host)
	if h == nil {
		return fmt.Errorf("no host %s in the cluster in %s", host, abs)
	}
	return InNetns(h.ns, func() error {
		// Exec from the thread in the namespace: the new program starts
		// there (a successful exec does not return).
		return unix.Exec(path, argv, env)
	})
}

// lookPathIn finds name in dir first, then in PATH.
func lookPathIn(name, dir string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	if p := filepath.Join(dir, name); isExecutable(p) {
		return p, nil
	}
	return exec.LookPath(name)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// HostAddr is host i's address in the cluster: its namespace's, or the
// loopback address of a local cluster.
func (c *Cluster) HostAddr(i int) netip.Addr {
	if c.net != nil && i >= 1 && i <= len(c.net.hosts) {
		return c.net.hosts[i-1].addr
	}
	return defaults.HostAddr(i)
}

// InHost runs fn with its thread in host's network namespace (directly
// in a local cluster): connections fn opens come from that host.
func (c *Cluster) InHost(host string, fn func() error) error {
	if c.net == nil {
		return fn()
	}
	h := c.net.host(host)
	if h == nil {
		return fmt.Errorf("no host %s in the cluster", host)
	}
	return InNetns(h.ns, fn)
}

// Namespace is host's network namespace ("" in a local cluster).
func (c *Cluster) Namespace(host string) string {
	if c.net == nil {
		return ""
	}
	if h := c.net.host(host); h != nil {
		return h.ns
	}
	return ""
}

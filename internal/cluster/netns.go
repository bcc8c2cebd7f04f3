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
	"time"

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
//
// Two namespace clusters that know each other (PairOptions) have distinct
// subnets and host names; each one's hosts have an on-link route to the
// other's subnet, their hosts files list both clusters' hosts, and the
// second of the two to start joins their bridges with a veth pair
// (bsl<own id><peer id> on its bridge, bsl<peer id><own id> on the
// peer's): hosts of both reach each other across real links, and still
// nothing else (no address in the root namespace, no forwarding).

// netnsFile records a namespace cluster's names in its directory, for
// down and for commands run on a host.
const netnsFile = "netns"

// netPlan is a namespace cluster's names and addresses.
type netPlan struct {
	id     string // 6 hex digits from the cluster directory
	dir    string // the cluster directory (the bridge's alias names it)
	bridge string
	hosts  []netHost
	third  byte       // the subnet is 10.250.<third>.0/24
	peers  []*netPlan // namespace clusters whose hosts this one's reach
}

// subnet is the plan's hosts' subnet.
func (p *netPlan) subnet() netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 250, p.third, 0}), 24)
}

type netHost struct {
	name string // host1...
	ns   string // network namespace (ip netns)
	veth string // the root namespace's end of the host's veth pair
	addr netip.Addr
}

// planNet derives the names of the namespace cluster in dir: short enough
// for interface names (15 bytes), unique per directory.
func planNet(dir string, hosts int, prefix string) (*netPlan, error) {
	if hosts > 250 {
		return nil, fmt.Errorf("a namespace cluster has at most 250 hosts, not %d", hosts)
	}
	id, third := netID(dir)
	p := &netPlan{id: id, dir: dir, bridge: "bsb" + id}
	for i := 1; i <= hosts; i++ {
		name := defaults.PrefixedHostName(prefix, i)
		p.hosts = append(p.hosts, netHost{name: name, ns: "basalt-" + id + "-" + name,
			veth: fmt.Sprintf("bsv%s%d", id, i)})
	}
	p.setThird(third)
	return p, nil
}

// setThird puts the plan's hosts in 10.250.<third>.0/24.
func (p *netPlan) setThird(third byte) {
	p.third = third
	for i := range p.hosts {
		p.hosts[i].addr = netip.AddrFrom4([4]byte{10, 250, third, byte(i + 1)})
	}
}

// linkName is the name of the root namespace's end, on from's bridge, of
// the veth pair that joins the bridges of the namespace clusters from and
// to (15 bytes, the limit).
func linkName(from, to string) string { return "bsl" + from + to }

// netID derives a namespace cluster's id (6 hex digits, for names) and
// the third byte of its subnet 10.250.X.0/24 from its directory.
func netID(dir string) (string, byte) {
	h := fnv.New32a()
	h.Write([]byte(dir))
	sum := h.Sum32()
	return fmt.Sprintf("%06x", sum&0xffffff), byte(sum>>24) % 250
}

// aliasPrefix starts the alias of a namespace cluster's bridge, followed by
// the cluster's directory: what finds the leftovers of a run whose
// directory is gone.
const aliasPrefix = "basalt cluster "

// setup creates the bridge, the namespaces and their links, removing
// whatever a crashed earlier run of the same directory left, and the
// leftovers of runs whose directories are gone.
func (p *netPlan) setup(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("a namespace cluster (--netns) needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("a namespace cluster needs iproute2's ip command (scripts/setup-test-env.sh installs it): %w", err)
	}
	sweepLeftovers(ctx)
	p.teardown(ctx)
	steps := [][]string{
		{"link", "add", p.bridge, "type", "bridge"},
		{"link", "set", p.bridge, "alias", aliasPrefix + p.dir},
		{"link", "set", p.bridge, "up"},
	}
	for i, h := range p.hosts {
		peer := fmt.Sprintf("bsp%s%d", p.id, i+1)
		steps = append(steps, [][]string{
			{"netns", "add", h.ns},
			{"link", "add", h.veth, "type", "veth", "peer", "name", peer},
			{"link", "set", peer, "netns", h.ns},
			{"-n", h.ns, "link", "set", peer, "name", "eth0"},
			{"-n", h.ns, "addr", "add", h.addr.String() + "/24", "dev", "eth0"},
			{"-n", h.ns, "link", "set", "eth0", "up"},
			{"-n", h.ns, "link", "set", "lo", "up"},
			{"link", "set", h.veth, "master", p.bridge},
			{"link", "set", h.veth, "up"},
		}...)
		for _, peer := range p.peers {
			steps = append(steps, []string{"-n", h.ns, "route", "add", peer.subnet().String(), "dev", "eth0"})
		}
	}
	for _, peer := range p.peers {
		if _, err := os.Stat(filepath.Join("/sys/class/net", peer.bridge)); err != nil {
			continue // not up: it joins the bridges when it starts
		}
		mine, theirs := linkName(p.id, peer.id), linkName(peer.id, p.id)
		steps = append(steps, [][]string{
			{"link", "add", mine, "type", "veth", "peer", "name", theirs},
			{"link", "set", mine, "master", p.bridge},
			{"link", "set", theirs, "master", peer.bridge},
			{"link", "set", mine, "up"},
			{"link", "set", theirs, "up"},
		}...)
	}
	for _, args := range steps {
		if err := ip(ctx, args...); err != nil {
			p.teardown(context.Background())
			return err
		}
	}
	return nil
}

// ip runs iproute2's ip with args; its output is in the error.
func ip(ctx context.Context, args ...string) error {
	out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// teardown stops every process left in the cluster's namespaces (jobs
// outside cgroups, daemons started by hand), then deletes the namespaces,
// the root namespace's veth ends and the bridge; what does not exist is
// skipped. It goes by the cluster's id, so it also removes what a run that
// crashed before recording its plan created.
func (p *netPlan) teardown(ctx context.Context) { removeNet(ctx, p.id) }

// removeNet removes the namespaces, veths and bridge of the namespace
// cluster with id, after killing the processes in its namespaces.
func removeNet(ctx context.Context, id string) {
	nss := namespacesOf(id)
	if pids := processesIn(nss); len(pids) > 0 {
		for _, pid := range pids {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) && anyAlive(pids) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, ns := range nss {
		_ = ip(ctx, "netns", "del", ns)
	}
	links, _ := os.ReadDir("/sys/class/net")
	for _, l := range links {
		n := l.Name()
		// Its hosts' veths, and the links joining its bridge to another
		// cluster's, whichever started them (one end deletes both).
		if strings.HasPrefix(n, "bsv"+id) || len(n) == 15 && strings.HasPrefix(n, "bsl") && (n[3:9] == id || n[9:] == id) {
			_ = ip(ctx, "link", "del", n)
		}
	}
	_ = ip(ctx, "link", "del", "bsb"+id)
}

// namespacesOf lists the network namespaces (names of ip netns) of the
// namespace cluster with id.
func namespacesOf(id string) []string {
	ents, _ := os.ReadDir("/run/netns")
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "basalt-"+id+"-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// processesIn lists the processes whose network namespace is one of nss.
func processesIn(nss []string) []int {
	want := map[string]bool{}
	for _, ns := range nss {
		var st unix.Stat_t
		if unix.Stat(filepath.Join("/run/netns", ns), &st) == nil {
			want[fmt.Sprintf("net:[%d]", st.Ino)] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	return processes(func(d string, _ []string) bool {
		l, err := os.Readlink(filepath.Join(d, "ns", "net"))
		return err == nil && want[l]
	})
}

// sweepLeftovers removes the namespace clusters whose directory no longer
// exists (a run killed before its down, its temporary directory removed):
// nothing can reach or stop them any more. A cluster whose directory
// exists is left to that directory's down or next up.
func sweepLeftovers(ctx context.Context) {
	links, _ := os.ReadDir("/sys/class/net")
	for _, l := range links {
		id, ok := strings.CutPrefix(l.Name(), "bsb")
		if !ok || len(id) != 6 {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/sys/class/net", l.Name(), "ifalias"))
		if err != nil {
			continue
		}
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), aliasPrefix)
		if !ok || !filepath.IsAbs(dir) {
			continue
		}
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			removeNet(ctx, id)
		}
	}
}

// ownedBridge reports whether the bridge of dir's id exists and names dir
// (a namespace cluster of dir whose plan was not recorded).
func ownedBridge(dir string) (string, bool) {
	id, _ := netID(dir)
	b, err := os.ReadFile(filepath.Join("/sys/class/net", "bsb"+id, "ifalias"))
	return id, err == nil && strings.TrimSpace(string(b)) == aliasPrefix+dir
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
	p.id, p.dir = strings.TrimPrefix(p.bridge, "bsb"), dir
	if p.bridge == "" || len(p.id) != 6 {
		return nil, fmt.Errorf("%s: no bridge of a namespace cluster", filepath.Join(dir, netnsFile))
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
	for _, peer := range p.peers {
		fmt.Fprintf(&b, "# The hosts of another cluster (%s).\n", peer.dir)
		for _, h := range peer.hosts {
			fmt.Fprintf(&b, "%-15s %s\n", h.addr, h.name)
		}
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
	if c.net != nil && c.net.host(host) == nil {
		return fmt.Errorf("no host %s in the cluster", host)
	}
	return c.net.on(host, fn)
}

// OnHostOf runs fn with its thread in host's network namespace when dir
// holds a namespace cluster that has host, else directly (a local cluster,
// a configuration of real machines): daemons started by fn run on host
// (lsadmin limstartup).
func OnHostOf(dir, host string, fn func() error) error {
	p, _ := readNet(dir)
	return p.on(host, fn)
}

// on runs fn in host's namespace when p (nil: no namespace cluster) has
// host, else directly.
func (p *netPlan) on(host string, fn func() error) error {
	if p == nil {
		return fn()
	}
	h := p.host(host)
	if h == nil {
		return fn()
	}
	return InNetns(h.ns, fn)
}

// NetnsSupport returns why this machine cannot run a namespace cluster,
// nil when it can: root, iproute2's ip, and a kernel that creates network
// namespaces, veth pairs and bridges (tried in a namespace of its own,
// removed at once; nothing of the root namespace is touched).
func NetnsSupport(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return errors.New("no ip command (iproute2; scripts/setup-test-env.sh installs it)")
	}
	ns := fmt.Sprintf("basalt-probe-%d", os.Getpid())
	defer ip(context.Background(), "netns", "del", ns)
	for _, args := range [][]string{
		{"netns", "add", ns},
		{"-n", ns, "link", "add", "bsprobe", "type", "bridge"},
		{"-n", ns, "link", "add", "bsprobev", "type", "veth", "peer", "name", "bsprobep"},
	} {
		if err := ip(ctx, args...); err != nil {
			return fmt.Errorf("cannot create network namespaces here: %w", err)
		}
	}
	return nil
}

// LinkPeer cuts (up false) or restores the link that joins the bridges of
// two namespace clusters that know each other (PairOptions): a network
// partition between the clusters, each one's hosts still reaching each
// other.
func (c *Cluster) LinkPeer(ctx context.Context, peer *Cluster, up bool) error {
	if c.net == nil || peer.net == nil {
		return errors.New("cluster: a link between clusters needs two namespace clusters")
	}
	state := "down"
	if up {
		state = "up"
	}
	n := 0
	for _, l := range []string{linkName(c.net.id, peer.net.id), linkName(peer.net.id, c.net.id)} {
		if _, err := os.Stat(filepath.Join("/sys/class/net", l)); err != nil {
			continue
		}
		if err := ip(ctx, "link", "set", l, state); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("cluster: the bridges of %s and %s are not joined", c.Opts.Cluster, peer.Opts.Cluster)
	}
	return nil
}

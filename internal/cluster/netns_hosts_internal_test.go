package cluster

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/basalt-lsf/basalt/internal/config/defaults"
)

// netnsOrSkip skips a test on a machine that cannot run namespace
// clusters, saying why.
func netnsOrSkip(t *testing.T) {
	t.Helper()
	if err := NetnsSupport(context.Background()); err != nil {
		t.Skipf("no namespace cluster here: %v", err)
	}
}

func upNetns(t *testing.T, dir, name string, hosts int) *Cluster {
	t.Helper()
	c, err := Up(context.Background(), Options{Dir: dir, Hosts: hosts, Netns: true, Cluster: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Down(context.Background()) })
	return c
}

// nsLink is the /proc/PID/ns/net link of namespace ns (ip netns name).
func nsLink(t *testing.T, ns string) string {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join("/run/netns", ns), &st); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("net:[%d]", st.Ino)
}

// hexAddr is a's form in /proc/net/tcp (little-endian on amd64 and arm64).
func hexAddr(a netip.Addr) string {
	b := a.As4()
	return fmt.Sprintf("%02X%02X%02X%02X", b[3], b[2], b[1], b[0])
}

// TestNetnsHosts: each host of a namespace cluster is its own network
// stack (its own namespace, address, loopback and /proc/net, its daemons
// inside it and listening on its address), commands run on a host through
// basalt cluster exec, and two namespace clusters of one name run side by
// side; down removes one's namespaces, links and processes and leaves the
// other working.
func TestNetnsHosts(t *testing.T) {
	netnsOrSkip(t)
	name := fmt.Sprintf("nh%d", os.Getpid()%100000)
	a := upNetns(t, t.TempDir(), name, 2)
	b := upNetns(t, t.TempDir(), name, 2)
	if a.net.id == b.net.id {
		t.Fatalf("two directories share the id %s", a.net.id)
	}
	self, _ := os.Readlink("/proc/self/ns/net")
	_, limPort, _, _ := defaults.Ports(a.portBase())
	links := map[string]bool{self: true}
	for i, h := range a.net.hosts {
		link := nsLink(t, h.ns)
		if links[link] {
			t.Errorf("%s shares its network namespace %s", h.name, link)
		}
		links[link] = true
		// Inside: its own address and a loopback that is up, no other
		// host's address.
		var addrs []net.Addr
		if err := InNetns(h.ns, func() (err error) { addrs, err = net.InterfaceAddrs(); return err }); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ad := range addrs {
			if ipn, ok := ad.(*net.IPNet); ok && ipn.IP.To4() != nil {
				got = append(got, ad.String())
			}
		}
		slices.Sort(got)
		if want := []string{h.addr.String() + "/24", "127.0.0.1/8"}; !slices.Equal(got, want) {
			t.Errorf("%s's IPv4 addresses %v, want %v", h.name, got, want)
		}
		// Its daemons run in its namespace; its LIM listens on its address,
		// seen in its own /proc/net/tcp and in no other host's.
		for _, p := range a.procs {
			if p.host != h.name {
				continue
			}
			if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", p.pid)); l != link {
				t.Errorf("%s of %s is in network namespace %s, want %s", p.daemon, h.name, l, link)
			}
			if p.daemon != "lim" {
				continue
			}
			listen := fmt.Sprintf("%s:%04X 00000000:0000 0A", hexAddr(h.addr), limPort)
			for j, other := range a.procs {
				if other.daemon != "lim" {
					continue
				}
				tcp, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", other.pid))
				if err != nil {
					t.Fatal(err)
				}
				if has := strings.Contains(string(tcp), listen); has != (other.host == h.name) {
					t.Errorf("host %s's /proc/net/tcp (lim %d) shows %s's LIM listening: %v", other.host, j, h.name, has)
				}
			}
		}
		// basalt cluster exec runs a command on the host.
		cmd := exec.Command(a.Opts.Exe, "cluster", "exec", "--dir", a.Opts.Dir, "--host", h.name,
			"sh", "-c", `echo "$BASALT_HOST $(readlink /proc/self/ns/net)"; lsid | grep master`)
		cmd.Args[0] = "basalt"
		out, err := cmd.CombinedOutput()
		if want := fmt.Sprintf("host%d %s\nMy master name is host1\n", i+1, link); err != nil || string(out) != want {
			t.Errorf("cluster exec on %s: %v\n%s\nwant:\n%s", h.name, err, out, want)
		}
	}
	var pids []int
	for _, p := range a.procs {
		pids = append(pids, p.pid)
	}
	if err := a.Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left := namespacesOf(a.net.id); len(left) > 0 {
		t.Errorf("namespaces left after down: %v", left)
	}
	for _, l := range []string{a.net.bridge, "bsv" + a.net.id + "1", "bsv" + a.net.id + "2"} {
		if _, err := os.Stat(filepath.Join("/sys/class/net", l)); err == nil {
			t.Errorf("link %s left after down", l)
		}
	}
	if anyAlive(pids) {
		t.Errorf("daemons of the cluster left after down")
	}
	// The other cluster of the same name still works.
	if err := b.wait(context.Background()); err != nil {
		t.Errorf("the other cluster after one's down: %v", err)
	}
}

// TestNetnsLeftovers: what a run killed before its down leaves is
// removed: by the down of its directory when it crashed before recording
// its namespaces, and by the next namespace cluster's start when its
// directory is gone (its daemons, still running, are stopped).
func TestNetnsLeftovers(t *testing.T) {
	netnsOrSkip(t)
	ctx := context.Background()
	// A start that crashed after creating its network, before recording
	// it: down --dir finds it by the bridge's alias.
	dir := t.TempDir()
	p, err := planNet(dir, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.setup(ctx); err != nil {
		t.Fatal(err)
	}
	if len(namespacesOf(p.id)) != 2 {
		t.Fatalf("setup made namespaces %v", namespacesOf(p.id))
	}
	if err := Down(ctx, dir, "x"); err != nil {
		t.Fatal(err)
	}
	if left := namespacesOf(p.id); len(left) > 0 {
		t.Errorf("namespaces of an unrecorded start left after down: %v", left)
	}
	if _, err := os.Stat(filepath.Join("/sys/class/net", p.bridge)); err == nil {
		t.Errorf("bridge of an unrecorded start left after down")
	}

	// A running cluster whose run was killed and whose directory was
	// removed: its daemons still run in its namespaces.
	name := fmt.Sprintf("nl%d", os.Getpid()%100000)
	gone := filepath.Join(t.TempDir(), "gone")
	a := upNetns(t, gone, name, 1)
	groups := groupDirs(gone, name)
	pids := processesIn(namespacesOf(a.net.id))
	if len(pids) < 3 {
		t.Fatalf("processes in the cluster's namespaces: %v", pids)
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGSTOP) // none recreates the directory
	}
	t.Cleanup(func() { removeGroups(ctx, groups) })
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	upNetns(t, t.TempDir(), name+"b", 1)
	if left := namespacesOf(a.net.id); len(left) > 0 {
		t.Errorf("namespaces of a removed directory left after another start: %v", left)
	}
	if _, err := os.Stat(filepath.Join("/sys/class/net", a.net.bridge)); err == nil {
		t.Errorf("bridge of a removed directory left after another start")
	}
	if anyAlive(pids) {
		t.Errorf("processes of a removed directory's cluster left running: %v", pids)
	}
}

package cluster

import (
	"strings"
	"testing"
)

// TestPairOptionsNetns: two namespace clusters paired get distinct host
// names and subnets, each the other as a net peer, and each other's
// master as their MultiCluster peer; a namespace cluster and a loopback
// one cannot be paired.
func TestPairOptionsNetns(t *testing.T) {
	a := Options{Dir: t.TempDir(), Cluster: "ca", Netns: true, Hosts: 2}
	b := Options{Dir: t.TempDir(), Cluster: "cb", Netns: true}
	if err := PairOptions(&a, &b); err != nil {
		t.Fatal(err)
	}
	if a.HostPrefix != "host" || b.HostPrefix != "cb-host" {
		t.Errorf("host prefixes %q %q", a.HostPrefix, b.HostPrefix)
	}
	if a.plan == nil || b.plan == nil || a.plan.third == b.plan.third || a.plan.subnet() == b.plan.subnet() {
		t.Fatalf("plans %+v %+v: want distinct subnets", a.plan, b.plan)
	}
	if len(a.netPeers) != 1 || a.netPeers[0] != b.plan || len(b.netPeers) != 1 || b.netPeers[0] != a.plan {
		t.Errorf("net peers %v %v", a.netPeers, b.netPeers)
	}
	if len(a.plan.hosts) != 2 || a.plan.hosts[1].name != "host2" || len(b.plan.hosts) != 3 || b.plan.hosts[0].name != "cb-host1" {
		t.Errorf("hosts %+v %+v", a.plan.hosts, b.plan.hosts)
	}
	for _, h := range b.plan.hosts {
		if !b.plan.subnet().Contains(h.addr) {
			t.Errorf("host %s at %s outside %s", h.name, h.addr, b.plan.subnet())
		}
	}
	if len(a.Peers) != 1 || a.Peers[0].Master != "cb-host1" || len(b.Peers) != 1 || b.Peers[0].Master != "host1" || a.Peers[0].Key != b.Peers[0].Key {
		t.Errorf("peers %+v %+v", a.Peers, b.Peers)
	}
	// Each hosts file lists both clusters' hosts.
	dir := t.TempDir()
	b.plan.peers = b.netPeers
	if err := b.plan.writeHosts(dir); err != nil {
		t.Fatal(err)
	}
	hosts := string(mustRead(t, dir+"/hosts"))
	for _, h := range append(append([]netHost{}, a.plan.hosts...), b.plan.hosts...) {
		if !strings.Contains(hosts, h.addr.String()+strings.Repeat(" ", 16-len(h.addr.String()))+h.name+"\n") {
			t.Errorf("hosts file lacks %s %s:\n%s", h.addr, h.name, hosts)
		}
	}
	if n := linkName(a.plan.id, b.plan.id); len(n) != 15 {
		t.Errorf("link name %q: %d bytes, want 15 (an interface name's limit)", n, len(n))
	}

	c, d := Options{Dir: t.TempDir(), Cluster: "cc", Netns: true}, Options{Dir: t.TempDir(), Cluster: "cd"}
	if err := PairOptions(&c, &d); err == nil {
		t.Error("a namespace cluster paired with a loopback one")
	}
}

package cluster

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// TestNetnsRogueHost: in a cluster of separate hosts, a machine on the
// cluster's network that is not one of its hosts is refused by mbatchd,
// whether it claims to be a host of the cluster or not, even with
// credentials sealed with the cluster's key; the hosts themselves are
// accepted.
func TestNetnsRogueHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no iproute2")
	}
	dir := t.TempDir()
	c, err := Up(context.Background(), Options{Dir: dir, Hosts: 2, Netns: true, Cluster: fmt.Sprintf("n%d", os.Getpid()%100000)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())

	// The rogue machine: a namespace on the cluster's bridge, with an
	// address of the cluster's subnet that no host has.
	rogue := addRogue(t, c, 99)

	conf, _ := lsfconf.Parse("", mustRead(t, filepath.Join(c.EnvDir, "lsf.conf")))
	_, _, mbdPort, _ := defaults.Ports(c.portBase())
	mbd := net.JoinHostPort(c.HostAddr(1).String(), strconv.Itoa(mbdPort))
	// call asks mbatchd for its hosts from namespace ns, as root of host
	// claim (root seals with the cluster key).
	call := func(ns, claim string) error {
		hello, err := authsetup.Client(conf, c.EnvDir, claim, auth.KindUser).Hello(context.Background(), auth.KindMbatchd, "host1")
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var cl *rpc.Client
		if err := InNetns(ns, func() (err error) { cl, err = rpc.Dial(ctx, mbd, hello); return err }); err != nil {
			return err
		}
		defer cl.Close()
		return cl.Call(ctx, api.MBatchdHosts, &api.HostsRequest{}, &api.HostsReply{})
	}
	if err := call(c.net.hosts[1].ns, "host2"); err != nil {
		t.Fatalf("host2 refused: %v", err)
	}
	for _, claim := range []string{"host2", "host1", "rogue"} {
		err := call(rogue, claim)
		if rpc.CodeOf(err) != rpc.Unauthenticated {
			t.Errorf("a machine outside the cluster claiming %s: %v, want Unauthenticated", claim, err)
		}
	}
	// host2 claiming to be host1 is refused too: the address is host2's.
	if err := call(c.net.hosts[1].ns, "host1"); rpc.CodeOf(err) != rpc.Unauthenticated {
		t.Errorf("host2 claiming host1: %v, want Unauthenticated", err)
	}
}

// addRogue adds a machine outside the cluster on its bridge: a namespace
// with an address of the cluster's subnet (last byte last) that no host
// has, removed when the test ends. It returns the namespace's name.
func addRogue(t *testing.T, c *Cluster, last byte) string {
	t.Helper()
	rogue := "basalt-" + c.net.id + "-rogue"
	a := c.net.hosts[0].addr.As4()
	a[3] = last
	addr := netip.AddrFrom4(a)
	veth, peer := "bsr"+c.net.id, "bsq"+c.net.id
	t.Cleanup(func() {
		exec.Command("ip", "netns", "del", rogue).Run()
		exec.Command("ip", "link", "del", veth).Run()
	})
	for _, args := range [][]string{
		{"netns", "add", rogue},
		{"link", "add", veth, "type", "veth", "peer", "name", peer},
		{"link", "set", peer, "netns", rogue},
		{"-n", rogue, "addr", "add", addr.String() + "/24", "dev", peer},
		{"-n", rogue, "link", "set", peer, "up"},
		{"link", "set", veth, "master", c.net.bridge},
		{"link", "set", veth, "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return rogue
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

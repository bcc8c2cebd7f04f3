package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/defaults"
	"github.com/basalt-lsf/basalt/internal/mc"
)

// MCPeer is another local cluster this one knows (MultiCluster): its name,
// its master host and MultiCluster port (clusters on one machine cannot
// share ports), and the secret the two share.
type MCPeer struct {
	Name   string
	Master string
	Port   int
	Key    string
}

// MCPort is the MultiCluster port (LSB_MC_PORT) of a local cluster's port
// base: the one below mbatchd's, which the port plan leaves free.
func MCPort(base int) int {
	_, _, mbd, _ := defaults.Ports(base)
	return mbd - 1
}

var clusterSection = regexp.MustCompile(`(?ms)^Begin Cluster\b.*?^End Cluster[^\n]*\n`)

// writeMC writes a cluster's MultiCluster configuration: lsf.shared's
// Cluster section with itself and its peers (their master as host:port),
// LSB_MC_PORT, and the pair keys in lsf.sudoers.
func (c *Cluster) writeMC(base int) error {
	if len(c.Opts.Peers) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("Begin Cluster\nClusterName    Servers\n")
	fmt.Fprintf(&b, "%-14s (%s)\n", c.Opts.Cluster, c.Host(1))
	for _, p := range c.Opts.Peers {
		fmt.Fprintf(&b, "%-14s (%s:%d)\n", p.Name, p.Master, p.Port)
	}
	b.WriteString("End Cluster\n")
	shared := filepath.Join(c.EnvDir, "lsf.shared")
	src, err := os.ReadFile(shared)
	if err != nil {
		return err
	}
	if !clusterSection.Match(src) {
		return errors.New("lsf.shared has no Cluster section")
	}
	out := clusterSection.ReplaceAllLiteral(src, []byte(b.String()))
	if err := os.WriteFile(shared, out, 0o644); err != nil {
		return err
	}
	if err := appendLines(filepath.Join(c.EnvDir, "lsf.conf"), fmt.Sprintf("LSB_MC_PORT=%d", MCPort(base))); err != nil {
		return err
	}
	var keys []string
	for _, p := range c.Opts.Peers {
		if p.Key != "" {
			keys = append(keys, mc.KeyVar(p.Name)+"="+p.Key)
		}
	}
	return appendLines(filepath.Join(c.EnvDir, "lsf.sudoers"), keys...)
}

func appendLines(path string, lines ...string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := fmt.Fprintln(f, l); err != nil {
			return err
		}
	}
	return nil
}

// PairOptions makes two clusters' options know each other: distinct port
// bases and a shared random key. The clusters are then started with Up,
// in either order.
//
// Two namespace clusters (both Options.Netns) also get distinct host
// names (b's are <b's name>-hostN unless HostPrefix says otherwise) and
// subnets, each other's hosts in their hosts files and routes to each
// other's subnet, and the second to start joins their bridges: their
// hosts reach each other over veths and bridges, as two clusters on one
// network. Both clusters on loopback share host1's address and name.
func PairOptions(a, b *Options) error {
	if a.Cluster == "" || b.Cluster == "" || a.Cluster == b.Cluster {
		return fmt.Errorf("cluster: two clusters need two names (%q, %q)", a.Cluster, b.Cluster)
	}
	if a.Netns != b.Netns {
		return errors.New("cluster: a namespace cluster and a loopback one cannot reach each other")
	}
	if a.Netns {
		if err := pairNets(a, b); err != nil {
			return err
		}
	}
	hosts := max(a.Hosts, b.Hosts, 3)
	var err error
	if a.PortBase == 0 {
		if a.PortBase, err = freePortBase(hosts); err != nil {
			return err
		}
	}
	for b.PortBase == 0 || b.PortBase == a.PortBase {
		if b.PortBase, err = freePortBase(hosts); err != nil {
			return err
		}
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return err
	}
	key := hex.EncodeToString(k)
	a.Peers = append(a.Peers, MCPeer{Name: b.Cluster, Master: defaults.PrefixedHostName(b.HostPrefix, 1), Port: MCPort(b.PortBase), Key: key})
	b.Peers = append(b.Peers, MCPeer{Name: a.Cluster, Master: defaults.PrefixedHostName(a.HostPrefix, 1), Port: MCPort(a.PortBase), Key: key})
	return nil
}

// pairNets plans the networks of two namespace clusters that reach each
// other: distinct host names and subnets, each the other's net peer.
func pairNets(a, b *Options) error {
	if a.Dir == "" || b.Dir == "" {
		return errors.New("cluster: no directory given")
	}
	if a.HostPrefix == "" {
		a.HostPrefix = defaults.HostPrefix
	}
	if b.HostPrefix == "" || b.HostPrefix == a.HostPrefix {
		b.HostPrefix = "peerhost"
		if len(b.Cluster) <= 30 {
			b.HostPrefix = b.Cluster + "-host"
		}
	}
	var plans [2]*netPlan
	for i, o := range []*Options{a, b} {
		dir, err := filepath.Abs(o.Dir)
		if err != nil {
			return err
		}
		if o.Hosts <= 0 {
			o.Hosts = 3
		}
		o.Dir = dir
		if plans[i], err = planNet(dir, o.Hosts, o.HostPrefix); err != nil {
			return err
		}
	}
	if plans[0].id == plans[1].id {
		return errors.New("cluster: two namespace clusters need two directories")
	}
	if plans[1].third == plans[0].third {
		plans[1].setThird((plans[0].third + 1) % 250)
	}
	a.plan, b.plan = plans[0], plans[1]
	a.netPeers = append(a.netPeers, plans[1])
	b.netPeers = append(b.netPeers, plans[0])
	return nil
}

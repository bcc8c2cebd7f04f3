package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"time"
)

// A namespace cluster's hosts can fail as machines do: all their
// processes killed at once (KillHost) and started again (StartHost), or
// their network cut off from the others (Cut).

// errNotNetns is the error of host failures on a loopback cluster.
var errNotNetns = errors.New("host failures need a namespace cluster (--netns)")

// KillHost kills every process of host with SIGKILL (its daemons, its
// jobs and their shepherds: the machine lost its power) and waits until
// they are gone.
func (c *Cluster) KillHost(host string) error {
	if c.net == nil {
		return errNotNetns
	}
	h := c.net.host(host)
	if h == nil {
		return fmt.Errorf("no host %s in this cluster", host)
	}
	pids := processesIn([]string{h.ns})
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(c.Opts.Timeout)
	for anyAlive(pids) {
		if time.Now().After(deadline) {
			return fmt.Errorf("processes of %s still alive after %v", host, c.Opts.Timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.procs = slices.DeleteFunc(c.procs, func(p proc) bool { return p.host == host })
	return c.writePids()
}

// StartHost starts host's daemons again after KillHost (its sbatchd starts
// its mbatchd replica, if it has one); it does not wait for them.
func (c *Cluster) StartHost(ctx context.Context, host string) error {
	if !c.Opts.NoLIM && c.Opts.Has("lim") {
		if err := c.start(ctx, "lim", host); err != nil {
			return err
		}
	}
	if !c.Opts.NoSBD && c.Opts.Has("sbatchd") {
		if err := c.start(ctx, "sbatchd", host); err != nil {
			return err
		}
	}
	return c.writePids()
}

// Cut takes host's link to the other hosts down (cut) or up again: its
// processes run on, unreachable.
func (c *Cluster) Cut(ctx context.Context, host string, cut bool) error {
	if c.net == nil {
		return errNotNetns
	}
	h := c.net.host(host)
	if h == nil {
		return fmt.Errorf("no host %s in this cluster", host)
	}
	state := "up"
	if cut {
		state = "down"
	}
	return ip(ctx, "link", "set", h.veth, state)
}

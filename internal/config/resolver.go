package config

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/hostsfile"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
)

// Resolver maps host names to addresses the way LSF does: LSF_CONFDIR/hosts
// first, then the system resolver.
type Resolver struct {
	// Hosts is LSF's hosts file; nil when there is none.
	Hosts *hostsfile.File
	// Lookup is the system resolver; nil means net.DefaultResolver.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// ErrUnknownHost is returned for a name neither source knows.
var ErrUnknownHost = errors.New("unknown host")

// Resolve returns the address of host name.
func (r *Resolver) Resolve(ctx context.Context, name string) (netip.Addr, error) {
	if a, ok := r.Hosts.Lookup(name); ok {
		return a, nil
	}
	lookup := r.Lookup
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := lookup(ctx, name)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%w %s: %v", ErrUnknownHost, name, err)
	}
	if len(addrs) == 0 {
		return netip.Addr{}, fmt.Errorf("%w %s", ErrUnknownHost, name)
	}
	for _, a := range addrs {
		if a.Is4() || a.Is4In6() {
			return a.Unmap(), nil
		}
	}
	return addrs[0], nil
}

// Name returns the official name of the host with address a according to
// the hosts file ("" and false when it has none).
func (r *Resolver) Name(a netip.Addr) (string, bool) { return r.Hosts.NameOf(a) }

// Resolver returns the cluster's host resolver.
func (b *Base) Resolver() *Resolver { return &Resolver{Hosts: b.HostsFile} }

// LocalHostName returns the name a process uses for its own host: the
// environment variable BASALT_HOST when set (how one machine runs several
// hosts of a local cluster), else the system host name, with LSF_STRIP_DOMAIN
// applied. getenv and hostname default to os.Getenv and os.Hostname.
func LocalHostName(conf *lsfconf.Conf, getenv func(string) string, hostname func() (string, error)) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if hostname == nil {
		hostname = os.Hostname
	}
	name := strings.TrimSpace(getenv("BASALT_HOST"))
	if name == "" {
		h, err := hostname()
		if err != nil {
			return "", fmt.Errorf("local host name: %w", err)
		}
		name = h
	}
	return conf.StripDomain(name), nil
}

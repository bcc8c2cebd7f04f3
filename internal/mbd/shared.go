package mbd

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// sharedResources answers bhosts -s: each shared numeric resource of the
// ResourceMap with, per instance, its hosts, its value (the configured one,
// or what LIM reports for the instance's first host that has one) and the
// amount reserved by jobs (the scheduler charges a shared reservation to
// every host of the instance, so the first host's reservation is the
// instance's).
func (s *Server) sharedResources(ctx context.Context, id auth.Identity, req *api.SharedResourcesRequest) (*api.SharedResourcesReply, error) {
	cfg := s.cfg.Current()
	tab := cfg.ResourceTable()
	reply := &api.SharedResourcesReply{}
	var hosts []*schedHostValues
	s.st.View(func(v *state.View) {
		for _, h := range s.schedHosts(cfg, v) {
			hosts = append(hosts, &schedHostValues{name: h.Name, vals: h.Values})
		}
	})
	want := map[string]bool{}
	for _, n := range req.Names {
		want[n] = true
	}
	found := map[string]bool{}
	for i := 0; i < tab.Len(); i++ {
		d := tab.Def(i)
		if !d.Shared || d.Type != resreq.Numeric || len(want) > 0 && !want[d.Name] {
			continue
		}
		found[d.Name] = true
		r := &api.BatchSharedResource{Name: d.Name}
		m := cfg.Cluster.Mapping(d.Name)
		if m == nil {
			continue
		}
		for k, in := range m.Instances {
			si := &api.BatchSharedInstance{Hosts: instanceHosts(m, k, hosts)}
			if in.Value != "" {
				if v, err := strconv.ParseFloat(in.Value, 64); err == nil {
					si.Total, si.HasTotal = v, true
				}
			}
			for _, hn := range si.Hosts {
				h := findHostValues(hosts, hn)
				if !si.HasTotal && h != nil && h.vals != nil && i < len(h.vals.Num) && !math.IsNaN(h.vals.Num[i]) {
					si.Total, si.HasTotal = h.vals.Num[i], true
				}
			}
			if len(si.Hosts) > 0 {
				if rsv := s.hostReservation(si.Hosts[0]); rsv != nil {
					for _, rv := range rsv.Resources {
						if rv.Index == d.Name {
							si.Reserved += rv.Amount
						}
					}
				}
			}
			r.Instances = append(r.Instances, si)
		}
		reply.Resources = append(reply.Resources, r)
	}
	for _, n := range req.Names {
		if !found[n] {
			reply.NotFound = append(reply.NotFound, n)
		}
	}
	return reply, nil
}

type schedHostValues struct {
	name string
	vals *resreq.Host
}

func findHostValues(hs []*schedHostValues, name string) *schedHostValues {
	for _, h := range hs {
		if strings.EqualFold(h.name, name) {
			return h
		}
	}
	return nil
}

// instanceHosts lists the batch hosts of instance k of mapping m: its named
// hosts, [all] but its exceptions, or [others] (hosts of no other
// instance), in the cluster's host order.
func instanceHosts(m *config.ResourceMapping, k int, hosts []*schedHostValues) []string {
	in := m.Instances[k]
	inOther := func(name string) bool {
		for j, o := range m.Instances {
			if j != k && (o.All && !containsFold(o.Except, name) || containsFold(o.Hosts, name)) {
				return true
			}
		}
		return false
	}
	var out []string
	for _, h := range hosts {
		switch {
		case in.All && !containsFold(in.Except, h.name), containsFold(in.Hosts, h.name), in.Others && !inOther(h.name):
			out = append(out, h.name)
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// partitions answers bhpart: each host partition of lsb.hosts with its
// hosts and its share accounts as the last scheduling pass computed them
// (the configured shares until a pass has run).
func (s *Server) partitions(ctx context.Context, id auth.Identity, req *api.PartitionsRequest) (*api.PartitionsReply, error) {
	cfg := s.cfg.Current()
	reply := &api.PartitionsReply{}
	var parts []*config.HostPartition
	if cfg.LSBHosts != nil {
		parts = cfg.LSBHosts.Partitions
	}
	want := map[string]bool{}
	for _, n := range req.Names {
		want[n] = true
	}
	found := map[string]bool{}
	for _, p := range parts {
		if len(want) > 0 && !want[p.Name] {
			continue
		}
		found[p.Name] = true
		pi := &api.HostPartitionInfo{Name: p.Name, Hosts: p.HostSpec, Shares: s.partitionShares(p.Name)}
		if pi.Shares == nil {
			pi.Shares = shareAccounts(p.Shares)
		}
		reply.Partitions = append(reply.Partitions, pi)
	}
	for _, n := range req.Names {
		if !found[n] {
			reply.NotFound = append(reply.NotFound, n)
		}
	}
	return reply, nil
}

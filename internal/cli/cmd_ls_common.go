package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/hosttype"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// lsBase loads lsf.conf, lsf.shared and lsf.cluster from LSF_ENVDIR.
func lsBase(ctx context.Context, env *Env) (*config.Base, error) {
	return config.LoadBase(ctx, config.Options{EnvDir: env.Getenv("LSF_ENVDIR"), Getenv: env.Getenv})
}

// lsConnect loads the configuration and returns a LIM client, or prints
// the problem as cmd and returns false.
func lsConnect(ctx context.Context, env *Env, cmd string) (*limclient.Client, *config.Base, bool) {
	b, err := lsBase(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %v\n", cmd, firstLine(err))
		return nil, nil, false
	}
	local, _ := config.LocalHostName(b.Conf, env.Getenv, nil)
	return limclient.New(b, limclient.Options{LocalHost: local}), b, true
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// limError prints an error of a LIM call with LSF's wording.
func limError(env *Env, cmd string, err error) {
	switch {
	case errors.Is(err, limclient.ErrLIMDown), errors.Is(err, limclient.ErrNoMaster):
		fmt.Fprintf(env.Stderr, "%s: %v\n", cmd, err)
	case rpc.CodeOf(err) == rpc.PermissionDenied:
		fmt.Fprintf(env.Stderr, "%s: %v\n", cmd, err)
	case rpc.CodeOf(err) == rpc.Unavailable:
		fmt.Fprintf(env.Stderr, "%s: %v\n", cmd, limclient.ErrLIMDown)
	default:
		fmt.Fprintf(env.Stderr, "%s: %v\n", cmd, err)
	}
}

// lsSelect applies a resource requirement (-R) to hosts: the hosts its
// select section accepts, in its order section's order (hosts equal by
// the order keep their order). Errors are printed as cmd's.
func lsSelect(env *Env, cmd string, b *config.Base, cl *limclient.Cluster, hosts []*api.HostLoad, req string, ctxt resreq.Context, defaultOrder bool) ([]*api.HostLoad, bool) {
	t := b.ResourceTable()
	if t == nil {
		t = resreq.BuiltinTable()
	}
	if req == "" && !defaultOrder {
		return hosts, true
	}
	if req == "" {
		req = "order[r15s:pg]"
	}
	r, err := resreq.Parse(req, resreq.Options{Context: ctxt, Table: t, Strict: b.Conf.StrictResReq()})
	if err == nil && defaultOrder && !strings.Contains(req, "order[") {
		r, err = resreq.Parse(req+" order[r15s:pg]", resreq.Options{Context: ctxt, Table: t, Strict: b.Conf.StrictResReq()})
	}
	var c *resreq.Compiled
	if err == nil {
		// type==local and model==local: the local host's, as the master
		// LIM knows it, else this machine's type.
		local := resreq.Local{Type: hosttype.Local()}
		if name, err := config.LocalHostName(b.Conf, env.Getenv, nil); err == nil {
			if h := cl.Host(name); h != nil {
				local.Type, local.Model = h.Type, h.Model
			}
		}
		c, err = r.Compile(t, local)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: Bad resource requirement syntax: %v\n", cmd, firstLine(err))
		return nil, false
	}
	type hv struct {
		h *api.HostLoad
		v *resreq.Host
	}
	var sel []hv
	for _, h := range hosts {
		v := cl.Vector(t, h.Name)
		if h.Status&api.LimUnavail != 0 {
			if defaultOrder {
				sel = append(sel, hv{h, v}) // listed last, after the sort
			}
			continue
		}
		if c.Select(v) {
			sel = append(sel, hv{h, v})
		}
	}
	sort.SliceStable(sel, func(i, j int) bool {
		ui, uj := sel[i].h.Status&api.LimUnavail != 0, sel[j].h.Status&api.LimUnavail != 0
		if ui != uj {
			return uj
		}
		return c.Less(sel[i].v, sel[j].v)
	})
	out := make([]*api.HostLoad, len(sel))
	for i := range sel {
		out[i] = sel[i].h
	}
	return out, true
}

// lsHosts keeps the named hosts (all when none), in the order named;
// unknown names are reported as cmd does.
func lsHosts(env *Env, cmd string, cl *limclient.Cluster, names []string) ([]*api.HostLoad, bool) {
	if len(names) == 0 {
		return cl.Hosts, true
	}
	var out []*api.HostLoad
	bad := false
	for _, n := range names {
		if n == cl.Cluster {
			return cl.Hosts, true
		}
		h := cl.Host(n)
		if h == nil {
			fmt.Fprintf(env.Stderr, "%s: invalid hostname %s\n", cmd, n)
			bad = true
			continue
		}
		out = append(out, h)
	}
	return out, !bad || len(out) > 0
}

// externalIndices are the cluster's host-based external load indices, in
// lsf.shared order.
func externalIndices(cl *limclient.Cluster) []string {
	shared := map[string]bool{}
	for _, s := range cl.Shared {
		shared[s.Name] = true
	}
	var out []string
	for _, r := range cl.Resources {
		if r.Interval > 0 && r.Type == "Numeric" && !shared[r.Name] {
			out = append(out, r.Name)
		}
	}
	return out
}

func allIndices(cl *limclient.Cluster) []string {
	out := []string{"r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem"}
	return append(out, externalIndices(cl)...)
}

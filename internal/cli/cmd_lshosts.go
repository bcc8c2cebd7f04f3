package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/lim/lsfmt"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/version"
)

var lshostsSpec = lsfopt.New("h|V|l|w|s|R:|o:")

func init() {
	Register(&Command{Name: "lshosts", Summary: "display hosts and their static resource information", Run: runLshosts})
}

func lshostsUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: lshosts [-h] [-V] [-w | -l] [-R res_req] [-o \"field_name[:[-][output_width]] ... [delimiter='character']\"] [host_name ...]")
	fmt.Fprintln(env.Stderr, "or\n lshosts [-h] [-V] -s [static_resouce_name ...]")
}

func runLshosts(ctx context.Context, env *Env, args []string) int {
	res, err := lshostsSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lshosts: %v\n", err)
		lshostsUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		lshostsUsage(env)
		return 0
	}
	if res.Has("V") {
		fmt.Fprintln(env.Stderr, version.Header())
		return 0
	}
	if res.Has("s") && (res.Has("l") || res.Has("w") || res.Has("R") || res.Has("o")) || res.Has("l") && res.Has("w") {
		lshostsUsage(env)
		return ExitUsage
	}
	var fields []lshostsField
	delim := ""
	if v, ok := res.Last("o"); ok {
		if fields, delim, err = parseLshostsFormat(v); err != nil {
			fmt.Fprintf(env.Stderr, "lshosts: %v\n", err)
			return ExitUsage
		}
	}
	c, b, ok := lsConnect(ctx, env, "lshosts")
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	cl, err := c.Cluster(ctx)
	if err != nil {
		limError(env, "ls_gethostinfo()", err)
		return ExitUsage
	}
	if res.Has("s") {
		lsfmt.WriteShared(env.Stdout, cl.Shared, false, res.Operands)
		return 0
	}
	hosts, ok := lsHosts(env, "lshosts", cl, res.Operands)
	if !ok {
		return ExitUsage
	}
	if req, _ := res.Last("R"); req != "" {
		if hosts, ok = lsSelect(env, "lshosts", b, cl, hosts, req, resreq.CtxLshosts, false); !ok {
			return ExitUsage
		}
		if len(hosts) == 0 {
			fmt.Fprintln(env.Stderr, "ls_gethostinfo(): No host is found to satisfy the resource requirements")
			return ExitUsage
		}
	}
	switch {
	case fields != nil:
		writeLshostsFields(env, hosts, fields, delim)
	case res.Has("l"):
		lsfmt.WriteHostsLong(env.Stdout, hosts, allIndices(cl), cl.Shared)
	default:
		lsfmt.WriteHosts(env.Stdout, hosts, lsfmt.HostsOptions{Wide: res.Has("w")})
	}
	return 0
}

type lshostsField struct {
	name, header string
	width        int
	right        bool
}

var lshostsFields = map[string]string{
	"host_name": "HOST_NAME", "name": "HOST_NAME", "type": "type", "model": "model", "cpuf": "cpuf",
	"ncpus": "ncpus", "nprocs": "nprocs", "ncores": "ncores", "nthreads": "nthreads", "maxmem": "maxmem",
	"maxswp": "maxswp", "maxtmp": "maxtmp", "ndisks": "ndisks", "rexpri": "rexpri", "server": "server",
	"resources": "RESOURCES", "res": "RESOURCES", "run_windows": "RUN_WINDOWS",
}

// parseLshostsFormat reads -o "field[:[-][width]] ... [delimiter='c']".
func parseLshostsFormat(s string) ([]lshostsField, string, error) {
	delim := ""
	if i := strings.Index(s, "delimiter='"); i >= 0 {
		rest := s[i+len("delimiter='"):]
		j := strings.IndexByte(rest, '\'')
		if j < 0 {
			return nil, "", fmt.Errorf("-o: unterminated delimiter at column %d", i+1)
		}
		delim = rest[:j]
		s = s[:i] + rest[j+1:]
	}
	var out []lshostsField
	col := 1
	for _, w := range strings.Fields(s) {
		col = strings.Index(s, w) + 1
		name, spec, hasSpec := strings.Cut(w, ":")
		h, ok := lshostsFields[strings.ToLower(name)]
		if !ok {
			return nil, "", fmt.Errorf("-o: unknown field <%s> at column %d", name, col)
		}
		f := lshostsField{name: strings.ToLower(name), header: h}
		if hasSpec {
			f.right = strings.HasPrefix(spec, "-")
			n, err := strconv.Atoi(strings.TrimPrefix(spec, "-"))
			if err != nil || n <= 0 {
				return nil, "", fmt.Errorf("-o: bad width <%s> of field %s at column %d", spec, name, col+len(name)+1)
			}
			f.width = n
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, "", fmt.Errorf("-o: no field")
	}
	return out, delim, nil
}

func lshostsValue(h *api.HostLoad, f string) string {
	st := h.Static
	if st == nil {
		st = &api.HostStatic{}
	}
	num := func(n int32, suffix string) string {
		if n <= 0 {
			return "-"
		}
		return strconv.Itoa(int(n)) + suffix
	}
	switch f {
	case "host_name", "name":
		return h.Name
	case "type":
		return h.Type
	case "model":
		return h.Model
	case "cpuf":
		return strconv.FormatFloat(h.CPUF, 'f', 1, 64)
	case "ncpus":
		return num(st.NCPUs, "")
	case "nprocs":
		return num(st.NProcs, "")
	case "ncores":
		return num(st.NCores, "")
	case "nthreads":
		return num(st.NThreads, "")
	case "maxmem":
		return num(st.MaxMem, "M")
	case "maxswp":
		return num(st.MaxSwp, "M")
	case "maxtmp":
		return num(st.MaxTmp, "M")
	case "ndisks":
		return num(st.NDisks, "")
	case "rexpri":
		return strconv.Itoa(int(h.RExPri))
	case "server":
		if h.Server {
			return "Yes"
		}
		return "No"
	case "resources", "res":
		return "(" + strings.Join(h.Resources, " ") + ")"
	case "run_windows":
		if h.RunWindow == "" {
			return "-"
		}
		return h.RunWindow
	}
	return "-"
}

func writeLshostsFields(env *Env, hosts []*api.HostLoad, fields []lshostsField, delim string) {
	sep := " "
	if delim != "" {
		sep = delim
	}
	cell := func(f lshostsField, s string) string {
		if f.width == 0 || delim != "" {
			return s
		}
		if len(s) > f.width {
			s = s[:f.width]
		}
		if f.right {
			return fmt.Sprintf("%*s", f.width, s)
		}
		return fmt.Sprintf("%-*s", f.width, s)
	}
	row := func(vals []string) {
		fmt.Fprintln(env.Stdout, strings.TrimRight(strings.Join(vals, sep), " "))
	}
	var hdr []string
	for _, f := range fields {
		hdr = append(hdr, cell(f, f.header))
	}
	row(hdr)
	for _, h := range hosts {
		var vals []string
		for _, f := range fields {
			vals = append(vals, cell(f, lshostsValue(h, f.name)))
		}
		row(vals)
	}
}

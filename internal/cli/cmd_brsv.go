package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
)

// Advance reservations (LSF 10.1): brsvadd, brsvmod and brsvdel change
// them through mbatchd; brsvs lists them. LSF's texts where its
// documentation gives them ("Reservation "user1#0" is created", brsvs's
// columns); the others are Basalt's.
var (
	brsvaddSpec = lsfopt.New("h|V|o|s|f|p|nosusp|d:|N:|n:|m:|R:|u:|g:|b:|e:|t:|unit:|q:|E:|Et:|Ep:|Ept:")
	brsvmodSpec = lsfopt.New("h|V|o|on|d:|u:|g:|b:|e:|t:|n:|m:|R:|q:|E:|Et:|Ep:|Ept:|td:|tn:|nosusp|nosuspn|f")
	brsvdelSpec = lsfopt.New("h|V|f")
	brsvsSpec   = lsfopt.New("h|V|l|w|p:|z:|c:")
)

const (
	brsvaddUsage = "Usage: brsvadd [-h] [-V] [-o] [-d \"description\"] [-N reservation_name]\n" +
		"               {-s | -n job_slots {-u \"user_name ...\" | -u user_group | -g user_group}}\n" +
		"               {-m \"host_name ... | host_group ...\" [-R \"res_req\"] |\n" +
		"                [-m \"host_name ... | host_group ...\"] -R \"res_req\"}\n" +
		"               {-b begin_time -e end_time | -t time_window}"
	brsvmodUsage = "Usage: brsvmod [-h] [-V] [-o | -on] [-d \"description\"] [-u \"user_name ...\" | -g user_group]\n" +
		"               [-b begin_time | -b [+|-]minutes] [-e end_time | -e [+|-]minutes] | [-t time_window]\n" +
		"               reservation_ID"
	brsvdelUsage = "Usage: brsvdel [-h] [-V] reservation_ID ..."
	brsvsUsage   = "Usage: brsvs [-h] [-V] [-l | -w] [reservation_ID ...]"
)

func init() {
	Register(&Command{Name: "brsvadd", Summary: "add an advance reservation", Run: runBrsvadd})
	Register(&Command{Name: "brsvmod", Summary: "modify an advance reservation", Run: runBrsvmod})
	Register(&Command{Name: "brsvdel", Summary: "delete advance reservations", Run: runBrsvdel})
	Register(&Command{Name: "brsvs", Summary: "display advance reservations", Run: runBrsvs})
}

// rsvParse parses a brsv command's options: ok false when the command is
// done (usage, -h, -V, an option Basalt does not implement).
func rsvParse(env *Env, name, usage string, spec *lsfopt.Spec, unsupported string, args []string) (*lsfopt.Result, int, bool) {
	res, err := spec.Parse(args)
	if err != nil {
		env.Errorf("%s: %v", name, err)
		env.Errorf("%s", usage)
		return nil, ExitUsage, false
	}
	if res.Has("h") {
		env.Errorf("%s", usage)
		return nil, 0, false
	}
	if res.Has("V") {
		return nil, PrintVersion(env), false
	}
	if unsupported != "" && refuseUnsupported(env, name, res, unsupported) {
		return nil, ExitUsage, false
	}
	return res, 0, true
}

// rsvCall sends a reservation change; the reservation's ID, or false (the
// reason printed) when mbatchd refused it.
func rsvCall(ctx context.Context, env *Env, req *api.RsvRequest) (string, bool) {
	var reply api.RsvReply
	if !batchCall(ctx, env, api.MBatchdRsv, req, &reply) {
		return "", false
	}
	if reply.Status != nil && reply.Status.Code != 0 {
		env.Errorf("%s", reply.Status.Message)
		return "", false
	}
	return reply.ID, true
}

// rsvTime reads -b/-e's [[[year:]month:]day:]hour:minute: today's date
// when the day is not given (LSF does not move it to tomorrow; the master
// refuses a begin time already past).
func rsvTime(v string, now time.Time) (int64, error) {
	y, mo, d := now.Date()
	midnight := time.Date(y, mo, d, 0, 0, 0, 0, now.Location())
	t, err := parseTimeSpec(strings.TrimSpace(v), midnight)
	if err != nil {
		return 0, err
	}
	if strings.Count(v, ":") == 1 && t >= midnight.AddDate(0, 0, 1).Unix() {
		t = midnight.Unix() // 0:0 today
	}
	return t, nil
}

func rsvUsers(res *lsfopt.Result) ([]string, bool) {
	if v, ok := res.Last("g"); ok {
		return strings.Fields(v), true
	}
	if v, ok := res.Last("u"); ok {
		return strings.Fields(v), true
	}
	return nil, false
}

func runBrsvadd(ctx context.Context, env *Env, args []string) int {
	res, code, ok := rsvParse(env, "brsvadd", brsvaddUsage, brsvaddSpec, "f|p|nosusp|unit|q|E|Et|Ep|Ept", args)
	if !ok {
		return code
	}
	if len(res.Operands) != 0 {
		env.Errorf("%s", brsvaddUsage)
		return ExitUsage
	}
	req := &api.RsvRequest{Op: api.RsvAdd, Type: api.RsvUser, Open: res.Has("o")}
	req.ID, _ = res.Last("N")
	req.Desc, req.HasDesc = res.Last("d")
	users, hasUsers := rsvUsers(res)
	if res.Has("g") {
		req.Type = api.RsvGroup
	}
	switch {
	case res.Has("s"):
		if hasUsers || res.Has("o") {
			env.Errorf("%s", brsvaddUsage)
			return ExitUsage
		}
		req.Type = api.RsvSystem
	case !hasUsers || len(users) == 0:
		env.Errorf("brsvadd: A user or user group must be specified with -u or -g")
		env.Errorf("%s", brsvaddUsage)
		return ExitUsage
	default:
		req.Users = users
	}
	if v, ok := res.Last("n"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil || n <= 0 {
			env.Errorf("%s: The number of job slots must be a positive integer", v)
			return ExitUsage
		}
		req.Slots = int32(n)
	} else if req.Type != api.RsvSystem {
		env.Errorf("brsvadd: The number of job slots must be specified with -n")
		env.Errorf("%s", brsvaddUsage)
		return ExitUsage
	}
	// -m, -R or both: -R selects among -m's hosts, or among all hosts.
	m, hasM := res.Last("m")
	r, hasR := res.Last("R")
	if hasR && strings.TrimSpace(r) == "" || hasM && len(strings.Fields(m)) == 0 || !hasM && !hasR {
		env.Errorf("brsvadd: Hosts must be specified with -m or -R")
		env.Errorf("%s", brsvaddUsage)
		return ExitUsage
	}
	req.Hosts = strings.Fields(m)
	req.ResReq = strings.TrimSpace(r)
	if !rsvWindowOptions(env, res, req, brsvaddUsage, false) {
		return ExitUsage
	}
	id, ok := rsvCall(ctx, env, req)
	if !ok {
		return ExitUsage
	}
	fmt.Fprintf(env.Stdout, "Reservation %q is created\n", id)
	return 0
}

// rsvWindowOptions reads -b/-e or -t into req (brsvmod: either may be
// missing, and -b/-e may be [+|-]minutes).
func rsvWindowOptions(env *Env, res *lsfopt.Result, req *api.RsvRequest, usage string, mod bool) bool {
	b, hasB := res.Last("b")
	e, hasE := res.Last("e")
	t, hasT := res.Last("t")
	switch {
	case hasT && (hasB || hasE):
		env.Errorf("%s", usage)
		return false
	case hasT:
		if _, err := timewin.ParseRecurring(t); err != nil {
			env.Errorf("%s: Bad time window: %v", t, err)
			return false
		}
		req.Window, req.HasTime = strings.TrimSpace(t), true
		return true
	case !mod && !(hasB && hasE):
		env.Errorf("brsvadd: Either -b and -e, or -t, must be specified")
		env.Errorf("%s", usage)
		return false
	}
	now := env.Clock.Now()
	read := func(v string, at *int64, shift *int64) bool {
		v = strings.TrimSpace(v)
		if mod && (strings.HasPrefix(v, "+") || strings.HasPrefix(v, "-")) {
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				env.Errorf("%s: Bad time specification", v)
				return false
			}
			*shift = n * 60
			return true
		}
		x, err := rsvTime(v, now)
		if err != nil {
			env.Errorf("%v", err)
			return false
		}
		*at = x
		return true
	}
	if hasB && !read(b, &req.Begin, &req.BeginShift) || hasE && !read(e, &req.End, &req.EndShift) {
		return false
	}
	req.HasTime = hasB || hasE
	return true
}

func runBrsvmod(ctx context.Context, env *Env, args []string) int {
	res, code, ok := rsvParse(env, "brsvmod", brsvmodUsage, brsvmodSpec, "n|m|R|q|E|Et|Ep|Ept|td|tn|nosusp|nosuspn|f", args)
	if !ok {
		return code
	}
	// LSF's subcommands (addhost, rmhost, adduser, rmuser, disable) are
	// not implemented.
	if len(res.Operands) == 2 {
		env.Errorf("brsvmod: %s: Subcommand not supported", res.Operands[0])
		return ExitUsage
	}
	if len(res.Operands) != 1 || res.Has("o") && res.Has("on") {
		env.Errorf("%s", brsvmodUsage)
		return ExitUsage
	}
	req := &api.RsvRequest{Op: api.RsvModify, ID: res.Operands[0], Open: res.Has("o"), Closed: res.Has("on")}
	req.Desc, req.HasDesc = res.Last("d")
	req.Users, req.HasUsers = rsvUsers(res)
	if !rsvWindowOptions(env, res, req, brsvmodUsage, true) {
		return ExitUsage
	}
	if !req.HasDesc && !req.HasUsers && !req.HasTime && !req.Open && !req.Closed {
		env.Errorf("%s", brsvmodUsage)
		return ExitUsage
	}
	id, ok := rsvCall(ctx, env, req)
	if !ok {
		return ExitUsage
	}
	fmt.Fprintf(env.Stdout, "Reservation %q is modified\n", id)
	return 0
}

func runBrsvdel(ctx context.Context, env *Env, args []string) int {
	res, code, ok := rsvParse(env, "brsvdel", brsvdelUsage, brsvdelSpec, "", args)
	if !ok {
		return code
	}
	if len(res.Operands) == 0 {
		env.Errorf("%s", brsvdelUsage)
		return ExitUsage
	}
	rc := 0
	for _, id := range res.Operands {
		if _, ok := rsvCall(ctx, env, &api.RsvRequest{Op: api.RsvDelete, ID: id}); !ok {
			rc = ExitUsage
			continue
		}
		fmt.Fprintf(env.Stdout, "Reservation %s is being deleted\n", id)
	}
	return rc
}

func runBrsvs(ctx context.Context, env *Env, args []string) int {
	res, code, ok := rsvParse(env, "brsvs", brsvsUsage, brsvsSpec, "p|z|c", args)
	if !ok {
		return code
	}
	var reply api.RsvsReply
	if !batchCall(ctx, env, api.MBatchdRsvs, &api.RsvsRequest{IDs: res.Operands}, &reply) {
		return ExitUsage
	}
	if len(reply.Rsvs) == 0 {
		env.Errorf("No reservation found")
		return ExitUsage
	}
	writeRsvs(env.Stdout, reply.Rsvs, res.Has("l"), res.Has("w"))
	return 0
}

// writeRsvs prints brsvs's table (and with long, each reservation's
// details after its rows).
func writeRsvs(w io.Writer, rsvs []*api.RsvInfo, long, wide bool) {
	const row = "%-12s%-6s%-10s%-11s%-18s%s\n"
	header := func() { fmt.Fprintf(w, row, "RSVID", "TYPE", "USER", "NCPUS", "RSV_HOSTS", "TIME_WINDOW") }
	if !long {
		header()
	}
	for _, info := range rsvs {
		r := info.Rsv
		if long {
			header()
		}
		id := r.ID
		if !wide && len(id) > 11 {
			id = id[:11]
		}
		typ, user := "user", strings.Join(r.Users, " ")
		switch r.Type {
		case api.RsvGroup:
			typ = "group"
		case api.RsvSystem:
			typ, user = "sys", "system"
		}
		var total, used int32
		hosts := make([]string, len(r.Hosts))
		for i, h := range r.Hosts {
			u := info.Used[i]
			total += h.Slots
			used += u
			hosts[i] = fmt.Sprintf("%s:%d/%d", h.Host, u, h.Slots)
		}
		ncpus := fmt.Sprintf("%d/%d", used, total)
		if r.Type == api.RsvSystem {
			ncpus = strconv.Itoa(int(total))
			for i, h := range r.Hosts {
				hosts[i] = fmt.Sprintf("%s:%d/%d", h.Host, h.Slots, h.Slots)
			}
		}
		first := ""
		if len(hosts) > 0 {
			first = hosts[0]
		}
		fmt.Fprintf(w, row, id, typ, user, ncpus, first, rsvTimeWindow(r))
		for _, h := range hosts[min(1, len(hosts)):] {
			fmt.Fprintf(w, "%39s%s\n", "", h)
		}
		if !long {
			continue
		}
		status := "Inactive"
		if info.Active {
			status = "Active"
		}
		fmt.Fprintf(w, "Reservation Status: %s\n", status)
		const stamp = "Mon Jan _2 15:04:05 2006"
		if r.Window != "" || !info.Active && info.NextBegin > 0 || info.Active {
			fmt.Fprintf(w, "Next Active Period:\n  %s - %s\n", time.Unix(info.NextBegin, 0).Format(stamp), time.Unix(info.NextEnd, 0).Format(stamp))
		}
		fmt.Fprintf(w, "Creator: %s\n", r.Creator)
		kind := "CLOSED"
		if r.Open {
			kind = "OPEN"
		}
		fmt.Fprintf(w, "Reservation Type: %s\n", kind)
		if r.Desc != "" {
			fmt.Fprintf(w, "Description: %s\n", r.Desc)
		}
		for _, js := range []struct {
			name string
			ids  []int64
		}{{"FINISHED", info.Finish}, {"PEND", info.Pend}, {"RUN", info.Run}, {"SUSP", info.Susp}} {
			if len(js.ids) == 0 {
				continue
			}
			s := make([]string, len(js.ids))
			for i, id := range js.ids {
				s[i] = strconv.FormatInt(id, 10)
			}
			fmt.Fprintf(w, "%s Jobs: %s\n", js.name, strings.Join(s, " "))
		}
		fmt.Fprintln(w)
	}
}

// rsvTimeWindow is brsvs's TIME_WINDOW: month/day/hour/minute at each end
// of a one-time reservation; a recurring one's window as
// [day:]hour:minute with " *".
func rsvTimeWindow(r *api.EvRsv) string {
	if r.Window == "" {
		f := func(t time.Time) string { return fmt.Sprintf("%d/%d/%d/%d", t.Month(), t.Day(), t.Hour(), t.Minute()) }
		return f(time.Unix(r.Begin, 0)) + "-" + f(time.Unix(r.End, 0))
	}
	w, err := timewin.ParseRecurring(r.Window)
	if err != nil {
		return r.Window + " *"
	}
	f := func(m int) string {
		if w.Weekly {
			return fmt.Sprintf("%d:%d:%d", m/1440, m%1440/60, m%60)
		}
		return fmt.Sprintf("%d:%d", m/60, m%60)
	}
	return f(w.Begin) + "-" + f(w.End) + " *"
}

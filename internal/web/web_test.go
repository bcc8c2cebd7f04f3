package web

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/lsberr"
)

// fake is a Source over a list of jobs; control is allowed to a job's
// owner and to "admin", as config.MayControl would for a cluster admin.
type fake struct {
	mu       sync.Mutex
	jobs     []*api.JobRecord
	leading  bool
	leader   string
	version  atomic.Uint64
	controls []string
	authID   auth.Identity
	authErr  error
	ident    bool // authenticate with auth.Ident
}

func newFake(n int) *fake {
	f := &fake{leading: true}
	for i := 1; i <= n; i++ {
		st := api.StatePend
		if i%2 == 0 {
			st = api.StateRun
		}
		f.jobs = append(f.jobs, &api.JobRecord{JobID: int64(i), User: []string{"alice", "bob"}[i%2], State: st, Queue: "normal",
			JobName: fmt.Sprintf("job%d", i), Command: "sleep 100", SubmitTime: 1_700_000_000})
	}
	return f
}

func (f *fake) Leader() (bool, string) { return f.leading, f.leader }
func (f *fake) Version() uint64        { return f.version.Load() }
func (f *fake) Hosts(context.Context, auth.Identity) (*api.HostsReply, error) {
	return &api.HostsReply{Hosts: []*api.HostInfo{{Name: "hostA", Status: "ok", Max: 4, NJobs: 2,
		Load: []*api.LoadValue{{Index: "r15m", Total: 0.25, HasValue: true}}}}}, nil
}
func (f *fake) Queues(context.Context, auth.Identity) (*api.QueuesReply, error) {
	return &api.QueuesReply{Queues: []*api.QueueInfo{{Name: "normal", Priority: 30, Open: true, Active: true, NJobs: 3, Pend: 1, Run: 2, Description: "the default queue"}}}, nil
}
func (f *fake) Counts(context.Context) map[api.JobState]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := map[api.JobState]int{}
	for _, j := range f.jobs {
		m[j.State]++
	}
	return m
}
func (f *fake) Jobs(_ context.Context, _ auth.Identity, q JobQuery) (JobPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var sel []*api.JobRecord
	for _, j := range f.jobs {
		if (q.User == "all" || q.User == j.User) && (q.Queue == "" || q.Queue == j.Queue) &&
			(q.Name == "" || q.Name == j.JobName) && (q.State == "" || q.State == "all" || stateName(j.State) == q.State) {
			sel = append(sel, j)
		}
	}
	lo := min(q.Offset, len(sel))
	return JobPage{Jobs: sel[lo:min(lo+q.Limit, len(sel))], Total: len(sel)}, nil
}

func stateName(s api.JobState) string { return funcs["state"].(func(api.JobState) string)(s) }

func (f *fake) find(ref *api.JobRef) *api.JobRecord {
	for _, j := range f.jobs {
		if j.JobID == ref.JobID {
			return j
		}
	}
	return nil
}

func (f *fake) Job(_ context.Context, v auth.Identity, ref *api.JobRef) (*api.JobRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j := f.find(ref)
	if j == nil {
		return nil, nil
	}
	c := *j
	if v.User != j.User && v.User != "admin" {
		c.Command = "(hidden)"
	}
	return &c, nil
}
func (f *fake) History(_ context.Context, _ auth.Identity, ref *api.JobRef) (*api.JobHistory, error) {
	return &api.JobHistory{Events: []*api.HistoryEvent{{Time: 1_700_000_000, Kind: "JOB_NEW", State: api.StatePend, Queue: "normal"}}}, nil
}
func (f *fake) Output(_ context.Context, v auth.Identity, ref *api.JobRef) (*api.PeekChunk, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j := f.find(ref)
	if v.User != j.User && v.User != "admin" {
		return nil, errors.New("User permission denied")
	}
	return &api.PeekChunk{Stdout: []byte("line 1\n<b>line 2</b>\n")}, nil
}

func (f *fake) Control(_ context.Context, id auth.Identity, req *api.ControlRequest) (*api.ControlReply, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ref := req.Jobs[0]
	j := f.find(ref)
	res := &api.ControlResult{Job: ref}
	switch {
	case j == nil:
		return &api.ControlReply{Status: &api.Status{Code: int32(lsberr.NoJob), Message: lsberr.NoJob.Text()}}, nil
	case id.User != j.User && id.User != "admin":
		res.Status = &api.Status{Code: int32(lsberr.Permission), Message: lsberr.Permission.Text()}
	default:
		f.controls = append(f.controls, fmt.Sprintf("%s %d by %s", opName(req.Op), ref.JobID, id.User))
		if req.Op == api.OpKill {
			j.State = api.StateExit
		}
		res.Detail = "is being terminated"
		f.version.Add(1)
	}
	return &api.ControlReply{Results: []*api.ControlResult{res}}, nil
}
func opName(op api.ControlOp) string {
	for k, v := range controlOps {
		if v == op {
			return k
		}
	}
	return "?"
}
func (f *fake) Authenticate(ctx context.Context, c net.Conn, h *api.ConnHello) (auth.Identity, error) {
	if f.ident {
		return (&auth.Ident{}).Authenticate(ctx, c, h)
	}
	return f.authID, f.authErr
}

var testKey = []byte("0123456789abcdef0123456789abcdef")

// TestShutdownEndsStreams: a server with an open event stream shuts down
// at once (Close is registered with RegisterOnShutdown).
func TestShutdownEndsStreams(t *testing.T) {
	h, err := New(Options{Source: newFake(1), Tokens: NewTokensKey(testKey), Heartbeat: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.RegisterOnShutdown(h.Close)
	srv.Start()
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Config.Shutdown(ctx); err != nil {
		t.Errorf("shutdown with an open event stream: %v", err)
	}
}

func newTest(t testing.TB, f *fake) (*httptest.Server, *Tokens, *time.Time) {
	t.Helper()
	now := time.Unix(1_800_000_000, 0)
	tok := NewTokensKey(testKey)
	h, err := New(Options{Source: f, Tokens: tok, Now: func() time.Time { return now }, Poll: 5 * time.Millisecond, Heartbeat: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnContext = ConnContext
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, tok, &now
}

// noRedirect is a copy of c that does not follow redirects.
func noRedirect(c *http.Client) *http.Client {
	c = &http.Client{Transport: c.Transport}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

func get(t *testing.T, c *http.Client, u string, wantCode int, want ...string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := new(strings.Builder)
	_, _ = bufio.NewReader(resp.Body).WriteTo(b)
	if resp.StatusCode != wantCode {
		t.Fatalf("GET %s: %d, want %d\n%s", u, resp.StatusCode, wantCode, b)
	}
	for _, w := range want {
		if !strings.Contains(b.String(), w) {
			t.Errorf("GET %s: no %q in\n%s", u, w, b)
		}
	}
	return b.String()
}

func TestPages(t *testing.T) {
	f := newFake(250)
	srv, _, _ := newTest(t, f)
	c := srv.Client()
	get(t, c, srv.URL+"/", 200, `<a href="/host/hostA">hostA</a>`, `<td class="hs hs-ok">ok</td>`, `<td>0.25</td>`,
		`<a href="/queue/normal">normal</a>`, `data-state="PEND">125</b>`, `data-state="RUN">125</b>`, `name="viewport"`, `/static/live.js`, `<main id="main" data-version="0">`)
	body := get(t, c, srv.URL+"/jobs", 200, `<span id="total">250</span> jobs · page 1 of 3`, `rel="next"`, `href="/job/1"`)
	if n := strings.Count(body, "<tr data-job="); n != PageSize {
		t.Errorf("first page: %d rows, want %d", n, PageSize)
	}
	body = get(t, c, srv.URL+"/jobs?page=3", 200, `page 3 of 3`, `rel="prev"`, `href="/job/250"`)
	if n := strings.Count(body, "<tr data-job="); n != 50 || strings.Contains(body, `rel="next"`) {
		t.Errorf("last page: %d rows (want 50), next link %v", n, strings.Contains(body, `rel="next"`))
	}
	body = get(t, c, srv.URL+"/jobs?user=alice&state=RUN", 200, `<span id="total">125</span>`, `<option value="RUN" selected>`)
	if strings.Contains(body, ">bob<") || strings.Contains(body, ">PEND</span></td>") {
		t.Errorf("filter user=alice state=RUN shows others:\n%s", body)
	}
	get(t, c, srv.URL+"/jobs?name=job7", 200, `<span id="total">1</span>`, `href="/job/7"`)
	get(t, c, srv.URL+"/job/7", 200, `Job 7`, `<code id="command">(hidden)</code>`, `JOB_NEW`, `Log in</a> with a token`)
	f.jobs[6].PendReasons = []*api.PendReason{{Code: 1}} // job 7
	get(t, c, srv.URL+"/job/7", 200, `<dt>Pending reasons</dt><dd id="reasons">New job is waiting for scheduling<br></dd>`)
	get(t, c, srv.URL+"/job/8", 200, `<p id="outputnote">Log in to see the output of your jobs.</p>`)
	get(t, c, srv.URL+"/job/9999", 404, `Job &lt;9999&gt; is not found`)
	get(t, c, srv.URL+"/job/x1", 400, `is not a job ID`)
	get(t, c, srv.URL+"/host/hostA", 200, `Host hostA`, `<th>r15m</th>`)
	get(t, c, srv.URL+"/host/nohost", 404, `nohost: No such host`)
	get(t, c, srv.URL+"/queue/normal", 200, `Queue normal`, `the default queue`, `/jobs?queue=normal&amp;state=PEND`)
	get(t, c, srv.URL+"/queue/nope", 404, `nope: No such queue`)
	get(t, c, srv.URL+"/static/live.js", 200, `new EventSource("/events?since="`)
	get(t, c, srv.URL+"/static/style.css", 200, `@media`)
	// The live refresh fetches the main block only.
	req, _ := http.NewRequest("GET", srv.URL+"/jobs", nil)
	req.Header.Set("X-Fragment", "1")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b := new(strings.Builder)
	_, _ = bufio.NewReader(resp.Body).WriteTo(b)
	resp.Body.Close()
	if strings.Contains(b.String(), "<html") || !strings.Contains(b.String(), `<table id="jobs">`) {
		t.Errorf("fragment:\n%s", b)
	}
}

func TestFollower(t *testing.T) {
	f := newFake(1)
	f.leading, f.leader = false, "master1"
	srv, _, _ := newTest(t, f)
	resp, err := noRedirect(srv.Client()).Get(srv.URL + "/jobs?state=RUN")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	if want := "http://" + net.JoinHostPort("master1", port) + "/jobs?state=RUN"; resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != want {
		t.Errorf("follower: %d to %q, want 307 to %q", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	f.leader = ""
	get(t, srv.Client(), srv.URL+"/", 503, "no master is elected yet")
}

func TestEvents(t *testing.T) {
	f := newFake(1)
	f.version.Store(7)
	srv, _, _ := newTest(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	r := bufio.NewReader(resp.Body)
	event := func() string {
		var lines []string
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reading events: %v (so far %q)", err, lines)
			}
			if l == "\n" {
				return strings.Join(lines, "|")
			}
			lines = append(lines, strings.TrimSuffix(l, "\n"))
		}
	}
	if e := event(); e != "retry: 2000|event: version|data: 7" {
		t.Errorf("first event %q", e)
	}
	f.version.Store(9)
	if e := event(); e != "event: change|data: 9" {
		t.Errorf("after a change: %q", e)
	}
	// A page made from version 5 is told at once that the state changed
	// since; one made from the current version is not.
	for since, want := range map[string]string{"5": "event: change|data: 9", "9": ""} {
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events?since="+since, nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r = bufio.NewReader(resp.Body)
		if e := event(); e != "retry: 2000|event: version|data: 9" {
			t.Errorf("since=%s: first event %q", since, e)
		}
		if want != "" {
			if e := event(); e != want {
				t.Errorf("since=%s: %q, want %q", since, e, want)
			}
		} else {
			f.version.Store(10)
			if e := event(); e != "event: change|data: 10" {
				t.Errorf("since=%s: %q after a change", since, e)
			}
			f.version.Store(9)
		}
		resp.Body.Close()
	}
}

// login gets a client holding a token for id.
func login(t *testing.T, srv *httptest.Server, tok *Tokens, id auth.Identity, exp time.Time) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := noRedirect(srv.Client())
	c.Jar = jar
	resp, err := c.PostForm(srv.URL+"/login", url.Values{"token": {tok.Mint(id, exp)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	return c
}

func post(t *testing.T, c *http.Client, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := new(strings.Builder)
	_, _ = bufio.NewReader(resp.Body).WriteTo(b)
	return resp, b.String()
}

func TestControl(t *testing.T) {
	f := newFake(4) // 1, 3: bob; 2, 4: alice
	srv, tok, now := newTest(t, f)
	alice := login(t, srv, tok, auth.Identity{User: "alice", UID: 1001, GID: 1001}, now.Add(time.Hour))

	// Logged in: the page shows alice's own command and the buttons.
	get(t, alice, srv.URL+"/job/2", 200, `<code id="command">sleep 100</code>`, `id="kill"`, `<span id="viewer">alice</span>`)
	get(t, alice, srv.URL+"/job/1", 200, `<code id="command">(hidden)</code>`)
	get(t, alice, srv.URL+"/job/4", 200, "<pre id=\"output\">line 1\n&lt;b&gt;line 2&lt;/b&gt;\n</pre>")
	f.jobs[2].State = api.StateRun // bob's job 3
	if body := get(t, alice, srv.URL+"/job/3", 200, `<p id="outputnote">User permission denied</p>`); strings.Contains(body, "id=\"output\"") {
		t.Errorf("bob's job's output shown to alice")
	}

	resp, _ := post(t, alice, srv.URL+"/control", url.Values{"job": {"2"}, "op": {"kill"}})
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/job/2?msg=") {
		t.Fatalf("kill own job: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	get(t, alice, srv.URL+resp.Header.Get("Location"), 200, `Job &lt;2&gt; is being terminated`, `id="jobstate">EXIT`)

	// Another user's job: mbatchd's refusal, 403, nothing done.
	resp, body := post(t, alice, srv.URL+"/control", url.Values{"job": {"1"}, "op": {"stop"}})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, lsberr.Permission.Text()) {
		t.Errorf("stop bob's job as alice: %d\n%s", resp.StatusCode, body)
	}
	// Bad operation and job.
	if resp, _ := post(t, alice, srv.URL+"/control", url.Values{"job": {"4"}, "op": {"chmod"}}); resp.StatusCode != 400 {
		t.Errorf("unknown op: %d", resp.StatusCode)
	}
	if resp, _ := post(t, alice, srv.URL+"/control", url.Values{"job": {"-4"}, "op": {"kill"}}); resp.StatusCode != 400 {
		t.Errorf("bad job: %d", resp.StatusCode)
	}
	// No token, a forged one, an expired one, a GET: refused before mbatchd.
	anon := noRedirect(srv.Client())
	if resp, _ := post(t, anon, srv.URL+"/control", url.Values{"job": {"4"}, "op": {"kill"}}); resp.StatusCode != 401 {
		t.Errorf("no token: %d", resp.StatusCode)
	}
	forged := NewTokensKey([]byte("another key, not mbatchd's.....")).Mint(auth.Identity{User: "alice", UID: 1001}, now.Add(time.Hour))
	good := tok.Mint(auth.Identity{User: "bob", UID: 1002}, now.Add(time.Hour))
	_, sig, _ := strings.Cut(good, ".")
	tampered := tokenBody("alice:1001:1001:1900000000") + "." + sig // alice's claims under bob's signature
	expired := tok.Mint(auth.Identity{User: "alice", UID: 1001}, now.Add(-time.Second))
	for name, bad := range map[string]string{"forged": forged, "tampered": tampered, "expired": expired, "garbage": "x.y", "empty": ""} {
		req, _ := http.NewRequest("POST", srv.URL+"/control", strings.NewReader("job=4&op=kill"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: CookieName, Value: bad})
		resp, err := anon.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s token: %d, want 401", name, resp.StatusCode)
		}
		// Nor does such a token show details.
		req, _ = http.NewRequest("GET", srv.URL+"/job/4", nil)
		req.AddCookie(&http.Cookie{Name: CookieName, Value: bad})
		resp, err = anon.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b := new(strings.Builder)
		_, _ = bufio.NewReader(resp.Body).WriteTo(b)
		resp.Body.Close()
		if !strings.Contains(b.String(), "(hidden)") {
			t.Errorf("%s token sees job 4's command", name)
		}
	}
	if resp, err := anon.Get(srv.URL + "/control?job=4&op=kill"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /control: %v %v", resp.StatusCode, err)
	}
	// A bad token does not log in.
	if resp, body := post(t, anon, srv.URL+"/login", url.Values{"token": {expired}}); resp.StatusCode != 401 || !strings.Contains(body, "expired") {
		t.Errorf("login with an expired token: %d", resp.StatusCode)
	}
	// Requeue, stop and resume of alice's job 4 reach mbatchd as alice.
	for _, op := range []string{"stop", "resume", "requeue"} {
		if resp, _ := post(t, alice, srv.URL+"/control", url.Values{"job": {"4"}, "op": {op}}); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("%s: %d", op, resp.StatusCode)
		}
	}
	want := []string{"kill 2 by alice", "stop 4 by alice", "resume 4 by alice", "requeue 4 by alice"}
	if fmt.Sprint(f.controls) != fmt.Sprint(want) {
		t.Errorf("mbatchd was asked %q, want %q", f.controls, want)
	}
}

func tokenBody(s string) string { return b64(s) }

func TestToken(t *testing.T) {
	f := newFake(1)
	srv, tok, now := newTest(t, f)
	hello := (&api.ConnHello{User: "alice", UID: 1001}).AppendWire(nil)
	f.authID = auth.Identity{User: "alice", UID: 1001, GID: 100}
	resp, body := post2(t, srv, hello)
	if resp.StatusCode != 200 {
		t.Fatalf("token: %d %s", resp.StatusCode, body)
	}
	id, err := tok.Verify(strings.TrimSpace(body), *now)
	if err != nil || id.User != "alice" || id.UID != 1001 || id.GID != 100 {
		t.Errorf("token for %+v, %v", id, err)
	}
	if _, err := tok.Verify(strings.TrimSpace(body), now.Add(TokenTTL)); !errors.Is(err, ErrExpiredToken) {
		t.Errorf("token after its TTL: %v", err)
	}
	// Refusals: the authenticator's, a daemon's identity, a bad hello.
	f.authID, f.authErr = auth.Identity{}, errors.New("ident: socket not owned")
	if resp, body := post2(t, srv, hello); resp.StatusCode != 401 || !strings.Contains(body, "socket not owned") {
		t.Errorf("unauthenticated: %d %s", resp.StatusCode, body)
	}
	f.authID, f.authErr = auth.Identity{User: "root", Daemon: "sbatchd"}, nil
	if resp, _ := post2(t, srv, hello); resp.StatusCode != 401 {
		t.Errorf("daemon: %d", resp.StatusCode)
	}
	if resp, _ := post2(t, srv, []byte{0xff, 0xff, 0xff}); resp.StatusCode != 400 {
		t.Errorf("bad hello: %d", resp.StatusCode)
	}
}

// TestTokenIdent: under ident the token is for the owner of the
// connection's socket, whatever user the hello names.
func TestTokenIdent(t *testing.T) {
	f := newFake(1)
	f.ident = true
	srv, tok, now := newTest(t, f)
	me, err := user.Current()
	if err != nil {
		t.Skip(err)
	}
	claim := "alice"
	if me.Username == claim {
		claim = "bob"
	}
	resp, body := post2(t, srv, (&api.ConnHello{User: claim, UID: 4242}).AppendWire(nil))
	if resp.StatusCode != 200 {
		t.Fatalf("token: %d %s", resp.StatusCode, body)
	}
	id, err := tok.Verify(strings.TrimSpace(body), *now)
	if err != nil || id.User != me.Username || strconv.Itoa(id.UID) != me.Uid {
		t.Errorf("hello claiming %s from %s's socket: token for %+v (%v)", claim, me.Username, id, err)
	}
}

func post2(t *testing.T, srv *httptest.Server, body []byte) (*http.Response, string) {
	t.Helper()
	resp, err := srv.Client().Post(srv.URL+"/token", "application/octet-stream", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := new(strings.Builder)
	_, _ = bufio.NewReader(resp.Body).WriteTo(b)
	return resp, b.String()
}

func TestParseRef(t *testing.T) {
	for in, want := range map[string]string{"1": "1", "12[3]": "12[3]", "0": "", "-1": "", "a": "", "1[0]": "", "1[x]": "", "": "", "1[": ""} {
		r, err := ParseRef(in)
		got := ""
		if err == nil {
			got = RefString(r)
		}
		if got != want {
			t.Errorf("ParseRef(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

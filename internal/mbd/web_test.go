package mbd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/web"
)

// submitHeldJobs submits n held jobs as user, named name<i>.
func submitHeldJobs(t testing.TB, m *testMbd, user string, n int) {
	t.Helper()
	c := m.client(user)
	defer c.Close()
	for left := n; left > 0; left -= 1000 {
		req := &api.SubmitRequest{}
		for k := 0; k < min(left, 1000); k++ {
			req.Jobs = append(req.Jobs, &api.JobSpec{Command: "sleep 1000", JobName: fmt.Sprintf("%s%d", user, left-k), FromHost: "host1",
				SubCwd: "/home/" + user, Hold: true, Env: []string{"PATH=/usr/bin:/bin", "USER=" + user}})
		}
		var reply api.SubmitReply
		if err := c.Call(context.Background(), api.MBatchdSubmit, req, &reply); err != nil {
			t.Fatal(err)
		}
	}
}

func webServer(t testing.TB, m *testMbd, tok *web.Tokens) *httptest.Server {
	t.Helper()
	h, err := web.New(web.Options{Source: m.srv.WebSource(), Tokens: tok})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnContext = web.ConnContext
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func webGet(t *testing.T, c *http.Client, u string, want ...string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d\n%s", u, resp.StatusCode, b)
	}
	for _, w := range want {
		if !strings.Contains(string(b), w) {
			t.Errorf("GET %s: no %q in\n%s", u, w, b)
		}
	}
	return string(b)
}

// TestWebSource drives the dashboard over a real mbatchd: its pages show
// what bjobs, bqueues and bhosts answer, its control is mbatchd's own
// (bob may not kill alice's job; alice may).
func TestWebSource(t *testing.T) {
	m := startMbd(t, writeCluster(t, 2, 2))
	submitHeldJobs(t, m, "alice", 3) // jobs 1-3
	submitHeldJobs(t, m, "bob", 2)   // jobs 4-5
	tok := web.NewTokensKey([]byte("k"))
	srv := webServer(t, m, tok)
	anon := srv.Client()
	webGet(t, anon, srv.URL+"/", `data-state="PSUSP">5</b>`, `href="/host/host1"`, `href="/queue/normal"`)
	body := webGet(t, anon, srv.URL+"/jobs", `<span id="total">5</span>`, `href="/job/5"`)
	if strings.Index(body, `href="/job/1"`) > strings.Index(body, `href="/job/5"`) {
		t.Errorf("jobs not in bjobs order:\n%s", body)
	}
	webGet(t, anon, srv.URL+"/jobs?user=bob", `<span id="total">2</span>`)
	webGet(t, anon, srv.URL+"/jobs?name=alice2", `<span id="total">1</span>`, `href="/job/2"`)
	webGet(t, anon, srv.URL+"/jobs?state=RUN", `<span id="total">0</span>`)
	webGet(t, anon, srv.URL+"/job/2", `<code id="command">(hidden)</code>`, `JOB_NEW`, `<dd id="reasons">The job was suspended by the user while pending<br></dd>`)
	webGet(t, anon, srv.URL+"/queue/normal", `Queue normal`)
	webGet(t, anon, srv.URL+"/host/host1", `Host host1`)

	client := func(user string) *http.Client {
		jar, _ := cookiejar.New(nil)
		u, _ := url.Parse(srv.URL)
		jar.SetCookies(u, []*http.Cookie{{Name: web.CookieName, Value: tok.Mint(auth.Identity{User: user, UID: 1500}, time.Now().Add(time.Hour))}})
		return &http.Client{Transport: anon.Transport, Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	webGet(t, client("alice"), srv.URL+"/job/2", `<code id="command">sleep 1000</code>`)
	resp, err := client("bob").PostForm(srv.URL+"/control", url.Values{"job": {"2"}, "op": {"kill"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "User permission denied") {
		t.Errorf("bob kills alice's job: %d\n%s", resp.StatusCode, b)
	}
	resp, err = client("alice").PostForm(srv.URL+"/control", url.Values{"job": {"2"}, "op": {"kill"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("alice kills her job: %d", resp.StatusCode)
	}
	webGet(t, anon, srv.URL+"/job/2", `id="jobstate">EXIT`)
	webGet(t, anon, srv.URL+"/job/1", `id="jobstate">PSUSP`)
}

var webJobs = flag.Int("mbd.webjobs", 100000, "jobs in the system in BenchmarkWebJobs")

// BenchmarkWebJobs is the dashboard's jobs table with -mbd.webjobs jobs in
// the system: the first page (100 rows, every user's unfinished jobs)
// rendered, beside the peer of answering bjobs -u all for them all
// (mbatchd's records of every job, not sent).
//
//	go test -run '^$' -bench WebJobs -benchtime 20x ./internal/mbd/
func BenchmarkWebJobs(b *testing.B) {
	m := startMbd(b, writeCluster(b, 1, 1))
	submitHeldJobs(b, m, "alice", *webJobs)
	tok := web.NewTokensKey([]byte("k"))
	h, err := web.New(web.Options{Source: m.srv.WebSource(), Tokens: tok})
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("first-page/jobs=%d", *webJobs), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/jobs", nil))
			if w.Code != 200 || !strings.Contains(w.Body.String(), fmt.Sprintf(`<span id="total">%d</span>`, *webJobs)) {
				b.Fatalf("%d %.300s", w.Code, w.Body.String())
			}
		}
	})
	b.Run(fmt.Sprintf("overview/jobs=%d", *webJobs), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
			if w.Code != 200 {
				b.Fatal(w.Code)
			}
		}
	})
	b.Run(fmt.Sprintf("peer-bjobs-all-records/jobs=%d", *webJobs), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			n := 0
			if err := m.srv.jobs(context.Background(), auth.Identity{User: "alice", UID: 1500}, &api.JobsRequest{User: "all"}, func(r *api.JobsReply) error {
				n += len(r.Jobs)
				return nil
			}); err != nil || n != *webJobs {
				b.Fatal(n, err)
			}
		}
	})
}

// TestWebFollower: with a replicated master every replica serves the
// dashboard; a follower sends the browser to the leader's.
func TestWebFollower(t *testing.T) {
	dir := writeReplicated(t, 3, 3)
	var rs []*replica
	for _, h := range []string{"host1", "host2", "host3"} {
		rs = append(rs, startReplica(t, dir, h))
	}
	lead := waitLeader(t, 30*time.Second, rs...)
	tok := web.NewTokensKey([]byte("k"))
	for _, r := range rs {
		h, err := web.New(web.Options{Source: r.srv().WebSource(), Tokens: tok})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("GET", "http://"+r.host+":7005/jobs?state=RUN", nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if r == lead {
			if w.Code != 200 || !strings.Contains(w.Body.String(), `<span id="total">0</span>`) {
				t.Errorf("leader %s: %d", r.host, w.Code)
			}
			continue
		}
		if want := "http://" + lead.host + ":7005/jobs?state=RUN"; w.Code != http.StatusTemporaryRedirect || w.Header().Get("Location") != want {
			t.Errorf("follower %s: %d to %q, want 307 to %q", r.host, w.Code, w.Header().Get("Location"), want)
		}
	}
}

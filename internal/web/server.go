package web

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
)

//go:embed assets templates
var files embed.FS

// PageSize is the jobs table's page length.
const PageSize = 100

// CookieName is the cookie the web token is kept in.
const CookieName = "basalt_token"

// Options configure a Handler.
type Options struct {
	Source Source
	Tokens *Tokens
	Log    *slog.Logger
	// Now is the time (tokens' expiry); time.Now when nil.
	Now func() time.Time
	// Poll is how often the event stream looks for a new state version
	// (500 ms when 0); Heartbeat how often it sends a comment while
	// nothing changes (15 s when 0).
	Poll, Heartbeat time.Duration
}

// Handler serves the dashboard.
type Handler struct {
	o     Options
	mux   *http.ServeMux
	pages map[string]*template.Template
	// closed ends the event streams (Close): http.Server.Shutdown waits
	// for handlers but does not cancel them.
	closed    chan struct{}
	closeOnce sync.Once
}

// Close ends the open event streams; register it with the server's
// RegisterOnShutdown.
func (h *Handler) Close() { h.closeOnce.Do(func() { close(h.closed) }) }

type connKey struct{}

type versionKey struct{}

// ConnContext is the http.Server ConnContext the dashboard needs: /token
// authenticates the connection a request came on.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// New is the dashboard's handler.
func New(o Options) (*Handler, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Poll == 0 {
		o.Poll = 500 * time.Millisecond
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{o: o, mux: http.NewServeMux(), pages: map[string]*template.Template{}, closed: make(chan struct{})}
	for _, p := range []string{"overview", "jobs", "job", "host", "queue", "login", "message"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+p+".html")
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", p, err)
		}
		h.pages[p] = t
	}
	h.mux.HandleFunc("GET /{$}", h.overview)
	h.mux.HandleFunc("GET /jobs", h.jobs)
	h.mux.HandleFunc("GET /job/{ref}", h.job)
	h.mux.HandleFunc("GET /host/{name}", h.host)
	h.mux.HandleFunc("GET /queue/{name}", h.queue)
	h.mux.HandleFunc("GET /events", h.events)
	h.mux.HandleFunc("POST /token", h.token)
	h.mux.HandleFunc("GET /login", h.loginForm)
	h.mux.HandleFunc("POST /login", h.login)
	h.mux.HandleFunc("POST /logout", h.logout)
	h.mux.HandleFunc("POST /control", h.control)
	h.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(mustSub("assets"))))
	return h, nil
}

func mustSub(dir string) fsys {
	s, err := subFS(dir)
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return s
}

// ServeHTTP sends a follower's requests to the master's dashboard.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if leading, leader := h.o.Source.Leader(); !leading {
		if leader != "" {
			_, port, err := net.SplitHostPort(r.Host)
			if err == nil {
				u := url.URL{Scheme: "http", Host: net.JoinHostPort(leader, port), Path: r.URL.Path, RawQuery: r.URL.RawQuery}
				http.Redirect(w, r, u.String(), http.StatusTemporaryRedirect)
				return
			}
		}
		msg := "This mbatchd is not the master and no master is elected yet."
		if leader != "" {
			msg = "This mbatchd is not the master; the master is " + leader + "."
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		h.render(w, r, "message", Anonymous, map[string]any{"Title": "Not the master", "Message": msg})
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// The state version before any data is read: the page's event stream
	// starts from it, so that a change between reading and connecting is
	// not missed.
	r = r.WithContext(context.WithValue(r.Context(), versionKey{}, h.o.Source.Version()))
	h.mux.ServeHTTP(w, r)
}

// viewer is the request's user: its token's, or Anonymous.
func (h *Handler) viewer(r *http.Request) auth.Identity {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return Anonymous
	}
	id, err := h.o.Tokens.Verify(c.Value, h.o.Now())
	if err != nil {
		return Anonymous
	}
	return id
}

type page struct {
	Title   string
	Viewer  string
	Version uint64 // the state version the page was made from
	Data    any
}

// render writes page name; with X-Fragment (the live refresh) only its
// main block.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, name string, viewer auth.Identity, data map[string]any) {
	t := h.pages[name]
	var buf bytes.Buffer
	tmpl := "layout.html"
	if r.Header.Get("X-Fragment") != "" {
		tmpl = "main"
	}
	title, _ := data["Title"].(string)
	version, _ := r.Context().Value(versionKey{}).(uint64)
	if err := t.ExecuteTemplate(&buf, tmpl, page{Title: title, Viewer: viewer.User, Version: version, Data: data}); err != nil {
		h.o.Log.Warn("dashboard page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, code int, msg string) {
	w.WriteHeader(code)
	h.render(w, r, "message", h.viewer(r), map[string]any{"Title": http.StatusText(code), "Message": msg})
}

// stateOrder is the order the overview lists states in.
var stateOrder = []api.JobState{api.StatePend, api.StatePSusp, api.StateRun, api.StateSSusp, api.StateUSusp, api.StateDone, api.StateExit}

type stateCount struct {
	Name  string
	Count int
}

func (h *Handler) overview(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(r)
	hosts, err := h.o.Source.Hosts(r.Context(), v)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	queues, err := h.o.Source.Queues(r.Context(), v)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	counts := h.o.Source.Counts(r.Context())
	var sc []stateCount
	for _, s := range stateOrder {
		sc = append(sc, stateCount{job.Name(s), counts[s]})
	}
	h.render(w, r, "overview", v, map[string]any{"Title": "Cluster", "Hosts": hosts.Hosts, "Queues": queues.Queues, "States": sc})
}

func (h *Handler) jobs(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(r)
	q := r.URL.Query()
	jq := JobQuery{User: q.Get("user"), Queue: q.Get("queue"), Name: q.Get("name"), Host: q.Get("host"), State: q.Get("state"), Limit: PageSize}
	if jq.User == "" {
		jq.User = "all"
	}
	pageNo, _ := strconv.Atoi(q.Get("page"))
	if pageNo < 1 {
		pageNo = 1
	}
	jq.Offset = (pageNo - 1) * PageSize
	p, err := h.o.Source.Jobs(r.Context(), v, jq)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err.Error())
		return
	}
	pages := (p.Total + PageSize - 1) / PageSize
	link := func(n int) string {
		c := url.Values{}
		for k, vs := range q {
			c[k] = vs
		}
		c.Set("page", strconv.Itoa(n))
		return "/jobs?" + c.Encode()
	}
	data := map[string]any{"Title": "Jobs", "Jobs": p.Jobs, "Total": p.Total, "Page": pageNo, "Pages": max(pages, 1), "Q": jq,
		"States": []string{"", "PEND", "RUN", "PSUSP", "USUSP", "SSUSP", "DONE", "EXIT", "all"}}
	if pageNo > 1 {
		data["Prev"] = link(pageNo - 1)
	}
	if pageNo < pages {
		data["Next"] = link(pageNo + 1)
	}
	h.render(w, r, "jobs", v, data)
}

// ParseRef parses a job reference: 123 or 123[4].
func ParseRef(s string) (*api.JobRef, error) {
	id, idx := s, ""
	if i := strings.IndexByte(s, '['); i >= 0 && strings.HasSuffix(s, "]") {
		id, idx = s[:i], s[i+1:len(s)-1]
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("%q is not a job ID", s)
	}
	ref := &api.JobRef{JobID: n}
	if idx != "" {
		i, err := strconv.ParseInt(idx, 10, 32)
		if err != nil || i <= 0 {
			return nil, fmt.Errorf("%q is not a job ID", s)
		}
		ref.Index = int32(i)
	}
	return ref, nil
}

func (h *Handler) job(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(r)
	ref, err := ParseRef(r.PathValue("ref"))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err.Error())
		return
	}
	rec, err := h.o.Source.Job(r.Context(), v, ref)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	hist, err := h.o.Source.History(r.Context(), v, ref)
	if err != nil {
		h.o.Log.Warn("dashboard: job history", "err", err)
	}
	if rec == nil && hist != nil {
		rec = hist.Job
	}
	if rec == nil {
		h.fail(w, r, http.StatusNotFound, "Job <"+r.PathValue("ref")+"> is not found")
		return
	}
	data := map[string]any{"Title": "Job " + JobID(rec), "Job": rec, "Msg": r.URL.Query().Get("msg"), "LoggedIn": v.User != ""}
	if hist != nil {
		data["Events"] = hist.Events
	}
	if job.Started(rec.State) {
		// bpeek: only for those who may control the job; sbatchd's answer
		// (or why there is none) is shown as bpeek prints it.
		if v.User == "" {
			data["OutputNote"] = "Log in to see the output of your jobs."
		} else if out, err := h.o.Source.Output(r.Context(), v, ref); err != nil {
			data["OutputNote"] = err.Error()
		} else if out != nil {
			data["Stdout"], data["Stderr"] = string(out.Stdout), string(out.Stderr)
		}
	}
	h.render(w, r, "job", v, data)
}

func (h *Handler) host(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(r)
	name := r.PathValue("name")
	hosts, err := h.o.Source.Hosts(r.Context(), v)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	for _, hi := range hosts.Hosts {
		if hi.Name == name {
			p, err := h.o.Source.Jobs(r.Context(), v, JobQuery{User: "all", Host: name, Limit: PageSize})
			if err != nil {
				h.fail(w, r, http.StatusInternalServerError, err.Error())
				return
			}
			h.render(w, r, "host", v, map[string]any{"Title": "Host " + name, "Host": hi, "Jobs": p.Jobs, "Total": p.Total})
			return
		}
	}
	h.fail(w, r, http.StatusNotFound, name+": No such host")
}

func (h *Handler) queue(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(r)
	name := r.PathValue("name")
	qs, err := h.o.Source.Queues(r.Context(), v)
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	for _, q := range qs.Queues {
		if q.Name == name {
			h.render(w, r, "queue", v, map[string]any{"Title": "Queue " + name, "Queue": q})
			return
		}
	}
	h.fail(w, r, http.StatusNotFound, name+": No such queue")
}

// events tells the page that the state changed: an event "change" with
// the new version whenever it does (at once when it is no longer the
// version the page was made from, ?since=), a comment now and then
// otherwise.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	last := h.o.Source.Version()
	fmt.Fprintf(w, "retry: 2000\nevent: version\ndata: %d\n\n", last)
	if since, err := strconv.ParseUint(r.URL.Query().Get("since"), 10, 64); err == nil && since != last {
		fmt.Fprintf(w, "event: change\ndata: %d\n\n", last)
	}
	fl.Flush()
	poll := time.NewTicker(h.o.Poll)
	defer poll.Stop()
	beat := time.NewTicker(h.o.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.closed:
			return
		case <-beat.C:
			if _, err := io.WriteString(w, ": alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		case <-poll.C:
			if v := h.o.Source.Version(); v != last {
				last = v
				if _, err := fmt.Fprintf(w, "event: change\ndata: %d\n\n", v); err != nil {
					return
				}
				fl.Flush()
			}
		}
	}
}

// maxHello bounds /token's body.
const maxHello = 64 << 10

// token answers a command's hello (api.ConnHello, wire-encoded) with a
// web token for the user the connection authenticates as.
func (h *Handler) token(w http.ResponseWriter, r *http.Request) {
	conn, _ := r.Context().Value(connKey{}).(net.Conn)
	if conn == nil {
		http.Error(w, "no connection to authenticate", http.StatusInternalServerError)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxHello+1))
	if err != nil || len(body) > maxHello {
		http.Error(w, "bad hello", http.StatusBadRequest)
		return
	}
	var hello api.ConnHello
	if err := hello.UnmarshalWire(body); err != nil {
		http.Error(w, "bad hello: "+err.Error(), http.StatusBadRequest)
		return
	}
	id, err := h.o.Source.Authenticate(r.Context(), conn, &hello)
	if err != nil || id.User == "" || id.Daemon != "" {
		msg := "not authenticated"
		if err != nil {
			msg += ": " + err.Error()
		}
		http.Error(w, msg, http.StatusUnauthorized)
		return
	}
	h.o.Log.Info("web token issued", "user", id.User, "addr", conn.RemoteAddr().String())
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, h.o.Tokens.Mint(id, h.o.Now().Add(TokenTTL)))
}

func (h *Handler) loginForm(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, "login", h.viewer(r), map[string]any{"Title": "Log in"})
}

func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	tok := strings.TrimSpace(r.PostFormValue("token"))
	id, err := h.o.Tokens.Verify(tok, h.o.Now())
	if err != nil {
		w.WriteHeader(http.StatusUnauthorized)
		h.render(w, r, "login", Anonymous, map[string]any{"Title": "Log in", "Error": err.Error()})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Expires: h.o.Now().Add(TokenTTL)})
	h.o.Log.Info("web login", "user", id.User)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// controlOps are the operations the page offers.
var controlOps = map[string]api.ControlOp{"kill": api.OpKill, "stop": api.OpStop, "resume": api.OpResume, "requeue": api.OpRequeue}

// control acts on a job for the token's user; the answer is the job page
// with what mbatchd said (303), or 401 without a valid token.
func (h *Handler) control(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		h.fail(w, r, http.StatusUnauthorized, "Job control needs a web token: run basalt web-token and log in.")
		return
	}
	id, err := h.o.Tokens.Verify(c.Value, h.o.Now())
	if err != nil {
		h.fail(w, r, http.StatusUnauthorized, err.Error())
		return
	}
	op, ok := controlOps[r.PostFormValue("op")]
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "unknown operation "+strconv.Quote(r.PostFormValue("op")))
		return
	}
	ref, err := ParseRef(r.PostFormValue("job"))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err.Error())
		return
	}
	reply, err := h.o.Source.Control(r.Context(), id, &api.ControlRequest{Op: op, Jobs: []*api.JobRef{ref}})
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	msg, denied := controlMessage(reply, ref)
	h.o.Log.Info("web control", "user", id.User, "op", r.PostFormValue("op"), "job", RefString(ref), "result", msg)
	if denied {
		h.fail(w, r, http.StatusForbidden, msg)
		return
	}
	http.Redirect(w, r, "/job/"+url.PathEscape(RefString(ref))+"?msg="+url.QueryEscape(msg), http.StatusSeeOther)
}

// controlMessage is what the command would print; denied when mbatchd
// refused the user.
func controlMessage(reply *api.ControlReply, ref *api.JobRef) (string, bool) {
	if reply.Status != nil && reply.Status.Code != 0 {
		return reply.Status.Message, false
	}
	for _, res := range reply.Results {
		if res.Status != nil && res.Status.Code != 0 {
			return fmt.Sprintf("Job <%s>: %s", RefString(ref), res.Status.Message), isPermission(res.Status)
		}
		if res.Detail != "" {
			return fmt.Sprintf("Job <%s> %s", RefString(ref), res.Detail), false
		}
	}
	return fmt.Sprintf("Job <%s>: done", RefString(ref)), false
}

func isPermission(st *api.Status) bool { return st.Code == int32(lsberr.Permission) }

package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
)

func init() {
	Register(&Command{Name: "web-token", Sub: true, Summary: "print a token that lets the dashboard act as you (job control)", Run: runWebToken})
}

const webTokenUsage = `Usage: basalt web-token

Asks the master's mbatchd for a dashboard token for the calling user,
authenticated as every command is (LSF_AUTH), and prints it. Paste it
into the dashboard's login page (its address is printed on standard
error); it is valid for 12 hours or until mbatchd restarts.`

// runWebToken posts the command's connection hello to the dashboard's
// /token on each master candidate in turn (a replica that does not lead
// redirects to the one that does) and prints the token.
func runWebToken(ctx context.Context, env *Env, args []string) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			fmt.Fprintln(env.Stdout, webTokenUsage)
			return 0
		}
		fmt.Fprintln(env.Stderr, webTokenUsage)
		return ExitUsage
	}
	cc, err := loadClientConf(env)
	if err != nil {
		env.Errorf("basalt web-token: %v", err)
		return 1
	}
	port, err := strconv.Atoi(cc.conf.Get("BASALT_HTTP_PORT"))
	if err != nil || port <= 0 || port > 65535 {
		env.Errorf("basalt web-token: lsf.conf BASALT_HTTP_PORT is not set: mbatchd serves no dashboard")
		return 1
	}
	candidates := cc.conf.MasterList()
	if len(candidates) == 0 {
		env.Errorf("basalt web-token: LSF_MASTER_LIST is not defined in lsf.conf")
		return 1
	}
	creds := cc.creds(env)
	var last error = errors.New("no master host")
	tried := map[string]bool{}
	for len(candidates) > 0 {
		h := candidates[0]
		candidates = candidates[1:]
		if tried[h] {
			continue
		}
		tried[h] = true
		tok, leader, err := webToken(ctx, cc, creds, h, port)
		if leader != "" {
			candidates = append([]string{leader}, candidates...)
			continue
		}
		if err != nil {
			last = fmt.Errorf("%s: %w", h, err)
			continue
		}
		fmt.Fprintln(env.Stdout, tok)
		fmt.Fprintf(env.Stderr, "# log in at http://%s/login (the token is valid for 12 hours)\n", net.JoinHostPort(h, strconv.Itoa(port)))
		return 0
	}
	env.Errorf("basalt web-token: %v", last)
	return 1
}

// webToken asks host's dashboard for a token; leader is set when host
// redirected to the master's. The request is HTTP/1.1 written by hand:
// the command binary does not link net/http.
func webToken(ctx context.Context, cc *clientConf, creds *eauth.Client, host string, port int) (tok, leader string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	addr, err := cc.addr(ctx, host, port)
	if err != nil {
		return "", "", err
	}
	hello, err := cc.hello(ctx, creds, auth.KindMbatchd, host)
	if err != nil {
		return "", "", err
	}
	body := hello.AppendWire(nil)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", "", err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	req := fmt.Sprintf("POST /token HTTP/1.1\r\nHost: %s\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		net.JoinHostPort(host, strconv.Itoa(port)), len(body))
	if _, err := conn.Write(append([]byte(req), body...)); err != nil {
		return "", "", err
	}
	code, hdr, text, err := readHTTPResponse(bufio.NewReader(conn))
	if err != nil {
		return "", "", err
	}
	switch {
	case code == 200:
		return strings.TrimSpace(text), "", nil
	case code == 307 && hdr["location"] != "":
		u, err := url.Parse(hdr["location"])
		if err != nil || u.Hostname() == "" {
			return "", "", fmt.Errorf("redirected to %q", hdr["location"])
		}
		return "", u.Hostname(), nil
	}
	return "", "", fmt.Errorf("%d %s", code, strings.TrimSpace(text))
}

// maxWebResponse bounds the answer read from the dashboard.
const maxWebResponse = 64 << 10

// readHTTPResponse reads a response's status, headers (lower-cased names)
// and body (Content-Length bytes, or until the connection closes).
func readHTTPResponse(r *bufio.Reader) (int, map[string]string, string, error) {
	status, err := r.ReadString('\n')
	if err != nil {
		return 0, nil, "", fmt.Errorf("reading the answer: %w", err)
	}
	f := strings.Fields(status)
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/") {
		return 0, nil, "", fmt.Errorf("not an HTTP answer: %q", strings.TrimSpace(status))
	}
	code, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, nil, "", fmt.Errorf("not an HTTP answer: %q", strings.TrimSpace(status))
	}
	hdr := map[string]string{}
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			return 0, nil, "", fmt.Errorf("reading the answer: %w", err)
		}
		l = strings.TrimRight(l, "\r\n")
		if l == "" {
			break
		}
		if k, v, ok := strings.Cut(l, ":"); ok {
			hdr[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	var body io.Reader = io.LimitReader(r, maxWebResponse)
	if n, err := strconv.Atoi(hdr["content-length"]); err == nil && n >= 0 {
		body = io.LimitReader(r, int64(min(n, maxWebResponse)))
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return 0, nil, "", fmt.Errorf("reading the answer: %w", err)
	}
	return code, hdr, string(b), nil
}

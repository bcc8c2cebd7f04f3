package cluster_test

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// browser is a headless Chromium driven over the Chrome DevTools Protocol
// with a minimal websocket client (RFC 6455 text frames).
type browser struct {
	t    *testing.T
	cmd  *exec.Cmd
	conn net.Conn
	r    *bufio.Reader
	id   int
}

// chromiumPath is the browser the test drives, "" when none is installed.
func chromiumPath() string {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

var devtoolsRE = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

func startBrowser(t *testing.T, path string) *browser {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir="+dir, "--remote-debugging-port=0", "--window-size=1280,900", "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, cmd: cmd}
	t.Cleanup(b.close)
	found := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			if m := devtoolsRE.FindStringSubmatch(s.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	var ws string
	select {
	case ws = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("chromium did not open its DevTools port")
	}
	u, _ := url.Parse(ws)
	// The page target, not the browser's.
	var targets []struct{ Type, WebSocketDebuggerURL string }
	resp, err := http.Get("http://" + u.Host + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&targets)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "page" {
			ws = tg.WebSocketDebuggerURL
			break
		}
	}
	b.dial(ws)
	return b
}

func (b *browser) close() {
	if b.conn != nil {
		b.conn.Close()
	}
	if b.cmd.Process != nil {
		b.cmd.Process.Kill()
		b.cmd.Wait()
	}
}

func (b *browser) dial(ws string) {
	u, err := url.Parse(ws)
	if err != nil {
		b.t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		b.t.Fatal(err)
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		u.RequestURI(), u.Host, base64.StdEncoding.EncodeToString(key))
	b.conn, b.r = conn, bufio.NewReader(conn)
	resp, err := http.ReadResponse(b.r, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		b.t.Fatalf("websocket upgrade: %v %v", resp, err)
	}
}

// send writes one masked text frame.
func (b *browser) send(msg []byte) {
	hdr := []byte{0x81}
	switch n := len(msg); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n < 1<<16:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	hdr = append(hdr, mask...)
	out := make([]byte, len(msg))
	for i := range msg {
		out[i] = msg[i] ^ mask[i%4]
	}
	if _, err := b.conn.Write(append(hdr, out...)); err != nil {
		b.t.Fatal(err)
	}
}

// recv reads one message (joining continuation frames; control frames
// skipped).
func (b *browser) recv() []byte {
	var msg []byte
	for {
		h := make([]byte, 2)
		if _, err := io.ReadFull(b.r, h); err != nil {
			b.t.Fatalf("websocket: %v", err)
		}
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var l [2]byte
			io.ReadFull(b.r, l[:])
			n = uint64(binary.BigEndian.Uint16(l[:]))
		case 127:
			var l [8]byte
			io.ReadFull(b.r, l[:])
			n = binary.BigEndian.Uint64(l[:])
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(b.r, p); err != nil {
			b.t.Fatalf("websocket: %v", err)
		}
		op := h[0] & 0x0f
		if op >= 8 {
			continue // ping, pong, close
		}
		msg = append(msg, p...)
		if h[0]&0x80 != 0 {
			return msg
		}
	}
}

// call sends a CDP command and returns its result.
func (b *browser) call(method string, params any) json.RawMessage {
	b.t.Helper()
	b.id++
	req, _ := json.Marshal(map[string]any{"id": b.id, "method": method, "params": params})
	b.conn.SetDeadline(time.Now().Add(60 * time.Second))
	b.send(req)
	for {
		var resp struct {
			ID     int
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := json.Unmarshal(b.recv(), &resp); err != nil {
			b.t.Fatal(err)
		}
		if resp.ID != b.id {
			continue // an event
		}
		if resp.Error != nil {
			b.t.Fatalf("%s: %s", method, resp.Error.Message)
		}
		return resp.Result
	}
}

// eval evaluates a JavaScript expression in the page and returns its
// value as JSON text ("" for undefined).
func (b *browser) eval(expr string) string {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails *struct{ Text string }
	}
	if err := json.Unmarshal(b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &r); err != nil {
		b.t.Fatal(err)
	}
	if r.ExceptionDetails != nil {
		b.t.Fatalf("%s: %s", expr, r.ExceptionDetails.Text)
	}
	return string(r.Result.Value)
}

// text is the page's visible text.
func (b *browser) text() string {
	var s string
	json.Unmarshal([]byte(b.eval("document.body ? document.body.innerText : ''")), &s)
	return s
}

// waitFor polls a boolean expression until it is true.
func (b *browser) waitFor(what, expr string, d time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if b.eval("!!("+expr+")") == "true" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatalf("waiting for %s (%s); the page says:\n%s", what, expr, b.text())
}

// open loads u and waits until it is loaded.
func (b *browser) open(u string) {
	b.t.Helper()
	b.call("Page.navigate", map[string]any{"url": u})
	b.waitFor("page "+u, fmt.Sprintf("document.readyState === 'complete' && location.href === %q", u), 20*time.Second)
}

// screenshot saves the page as a PNG into dir (when set).
func (b *browser) screenshot(dir, name string) {
	b.t.Helper()
	if dir == "" {
		return
	}
	var r struct{ Data string }
	json.Unmarshal(b.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": false}), &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil || len(png) < 8 || string(png[1:4]) != "PNG" {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(dir+"/"+name, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

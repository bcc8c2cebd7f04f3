package cli

import (
	"bufio"
	"strings"
	"testing"
)

func TestReadHTTPResponse(t *testing.T) {
	for _, c := range []struct {
		in, loc, body, err string
		code               int
	}{
		{in: "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\ntoken\nextra", code: 200, body: "token\n"},
		{in: "HTTP/1.1 200 OK\r\n\r\nto the end", code: 200, body: "to the end"},
		{in: "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://m2:7000/token\r\nContent-Length: 0\r\n\r\n", code: 307, loc: "http://m2:7000/token"},
		{in: "HTTP/1.1 401 Unauthorized\r\ncontent-length: 18\r\n\r\nnot authenticated\n", code: 401, body: "not authenticated\n"},
		{in: "", err: "reading the answer: EOF"},
		{in: "SSH-2.0-OpenSSH\r\n", err: `not an HTTP answer: "SSH-2.0-OpenSSH"`},
		{in: "HTTP/1.1 abc\r\n\r\n", err: `not an HTTP answer: "HTTP/1.1 abc"`},
		{in: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n", err: "reading the answer: EOF"},
	} {
		code, hdr, body, err := readHTTPResponse(bufio.NewReader(strings.NewReader(c.in)))
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || code != c.code || body != c.body || hdr["location"] != c.loc {
			t.Errorf("%q: %d %q %q %v; want %d %q %q", c.in, code, body, hdr["location"], err, c.code, c.body, c.loc)
		}
	}
}

func FuzzReadHTTPResponse(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\ntoken\n")
	f.Add("HTTP/1.1 307 x\r\nLocation: http://h:1/\r\nContent-Length: -1\r\n\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		code, _, body, err := readHTTPResponse(bufio.NewReader(strings.NewReader(in)))
		if err == nil && (len(body) > maxWebResponse || code == 0 && !strings.Contains(in, " 0")) {
			t.Errorf("%q: %d, %d bytes", in, code, len(body))
		}
	})
}

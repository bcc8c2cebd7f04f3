package cli

import (
	"strings"
	"testing"
)

func TestParseRcpArg(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want rcpArg
		col  int // error column, 0: none
	}{
		{"file", rcpArg{Path: "file"}, 0},
		{"/tmp/a:b", rcpArg{Path: "/tmp/a:b"}, 0},
		{"./a:b", rcpArg{Path: "./a:b"}, 0},
		{"host1:/tmp/f", rcpArg{Host: "host1", Path: "/tmp/f"}, 0},
		{"host1:rel/f", rcpArg{Host: "host1", Path: "rel/f"}, 0},
		{"bob@host2:f:g", rcpArg{User: "bob", Host: "host2", Path: "f:g"}, 0},
		{"", rcpArg{}, 1},
		{":f", rcpArg{}, 1},
		{"host1:", rcpArg{}, 7},
		{"@host1:f", rcpArg{}, 1},
		{"bob@:f", rcpArg{}, 5},
	} {
		got, err := parseRcpArg(tc.in)
		if tc.col == 0 {
			if err != nil || got != tc.want {
				t.Errorf("parseRcpArg(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			if err == nil && got.String() != tc.in {
				t.Errorf("%+v.String() = %q, want %q", got, got.String(), tc.in)
			}
			continue
		}
		e, ok := err.(*rcpArgError)
		if !ok || e.Col != tc.col || !strings.Contains(e.Error(), "column") {
			t.Errorf("parseRcpArg(%q) error %v, want one at column %d", tc.in, err, tc.col)
		}
	}
}

func FuzzParseRcpArg(f *testing.F) {
	for _, s := range []string{"f", "h:f", "u@h:f", ":", "@:", "a/b:c", "u@h@g:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseRcpArg(s)
		if err != nil {
			e, ok := err.(*rcpArgError)
			if !ok || e.Col < 1 || e.Col > len(s)+1 {
				t.Fatalf("parseRcpArg(%q): bad error %v", s, err)
			}
			return
		}
		if a.Path == "" {
			t.Fatalf("parseRcpArg(%q) = %+v: empty path", s, a)
		}
		if b, err := parseRcpArg(a.String()); err != nil || b != a {
			t.Fatalf("parseRcpArg(%q) = %+v; again from %q: %+v, %v", s, a, a.String(), b, err)
		}
	})
}

package lsfhosts

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	es, err := Parse([]byte("# accounts\nhostA alice send\n  hostB   bob recv # comment\nclus carol\n+ +\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Host: "hostA", User: "alice", Send: true, Line: 2},
		{Host: "hostB", User: "bob", Recv: true, Line: 3},
		{Host: "clus", User: "carol", Send: true, Recv: true, Line: 4},
		{Host: "+", User: "+", Send: true, Recv: true, Line: 5},
	}
	if !reflect.DeepEqual(es, want) {
		t.Fatalf("got %+v", es)
	}
	for _, tc := range []struct{ in, err string }{
		{"hostA\n", "line 1, column 1: 1 fields, want host_name user_name [send|recv]"},
		{"ok u\n  h u both\n", "line 2, column 7: \"both\": want send or recv"},
		{"h u send extra\n", "line 1, column 1: 4 fields, want host_name user_name [send|recv]"},
		{"h ../x\n", "line 1, column 3: \"../x\" is not a name"},
	} {
		if _, err := Parse([]byte(tc.in)); err == nil || err.Error() != tc.err {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestMapping(t *testing.T) {
	a, _ := Parse([]byte("hostX bob send\nhostY carol\n"))
	if SendTo(a, "hostX", "c1") != "bob" || SendTo(a, "hostY", "c1") != "carol" || SendTo(a, "hostZ", "c1") != "" {
		t.Fatalf("send: %q %q %q", SendTo(a, "hostX", "c1"), SendTo(a, "hostY", "c1"), SendTo(a, "hostZ", "c1"))
	}
	if got := FromPairs(SendEntries(a)); SendTo(got, "hostX", "") != "bob" || SendTo(got, "hostY", "") != "carol" {
		t.Fatalf("pairs round trip: %+v", got)
	}
	b, _ := Parse([]byte("hostS alice recv\nc2 dave\n"))
	for _, tc := range []struct {
		host, cluster, user string
		want                bool
	}{
		{"hostS", "c1", "alice", true},
		{"hostS", "c1", "mallory", false},
		{"hostT", "c1", "alice", false},
		{"hostT", "c2", "dave", true},
	} {
		if got := Accepts(b, tc.host, tc.cluster, tc.user); got != tc.want {
			t.Errorf("Accepts(%s, %s, %s) = %v", tc.host, tc.cluster, tc.user, got)
		}
	}
	any, _ := Parse([]byte("+ +\n"))
	if !Accepts(any, "h", "", "anyone") || SendTo(any, "h", "") != "" {
		t.Fatal("+ + accepts everyone and maps no one's jobs")
	}
}

func TestLoadIgnoresOpenFiles(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, ".lsfhosts")
	if err := os.WriteFile(p, []byte("h u\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(home, os.Getuid()); !errors.Is(err, ErrIgnored) {
		t.Fatalf("a file others can read: %v, want ErrIgnored", err)
	}
	os.Chmod(p, 0o600)
	if es, err := Load(home, os.Getuid()); err != nil || len(es) != 1 {
		t.Fatalf("the owner's private file: %v %v", es, err)
	}
	if _, err := Load(home, os.Getuid()+1); !errors.Is(err, ErrIgnored) {
		t.Fatalf("another user's file: %v, want ErrIgnored", err)
	}
	os.Remove(p)
	os.Symlink("/etc/passwd", p)
	if _, err := Load(home, os.Getuid()); err == nil {
		t.Fatal("a symbolic link was read")
	}
	if es, err := Load(t.TempDir(), os.Getuid()); es != nil || err != nil {
		t.Fatalf("no file: %v %v", es, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"h u send\n", "+ +\n# c\n", "a b c d\n", "\x00 x\n", "h u recv\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := Parse(b)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Col < 1 {
				t.Fatalf("unpositioned error %v", err)
			}
			return
		}
		for _, e := range es {
			if e.Host == "" || e.User == "" || !e.Send && !e.Recv {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}

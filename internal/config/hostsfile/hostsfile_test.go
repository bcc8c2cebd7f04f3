package hostsfile

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	src := `# LSF hosts file
127.0.1.1   host1 h1   # first
127.0.1.2	host2
::1 v6host
bogus hostX
10.0.0.9
127.0.1.3 HOST1 host3
127.0.1.2 host2b
`
	f, d := Parse("/c/hosts", []byte(src))
	wantDiags := `/c/hosts:5:1: warning: bad address <bogus>; line ignored
/c/hosts:6:1: warning: no host name for address 10.0.0.9; line ignored
/c/hosts:7:1: warning: host HOST1 already has address 127.0.1.1 (line 2); 127.0.1.3 ignored for it
`
	if d.String() != wantDiags {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", d, wantDiags)
	}
	lookups := map[string]string{"host1": "127.0.1.1", "H1": "127.0.1.1", "host2": "127.0.1.2", "v6host": "::1", "host3": "127.0.1.3", "host2b": "127.0.1.2"}
	for name, want := range lookups {
		a, ok := f.Lookup(name)
		if !ok || a.String() != want {
			t.Errorf("Lookup(%s) = %v %v, want %s", name, a, ok, want)
		}
	}
	if _, ok := f.Lookup("nohost"); ok {
		t.Error("unknown host found")
	}
	if n, ok := f.Official("h1"); !ok || n != "host1" {
		t.Errorf("Official(h1) = %s", n)
	}
	if n, ok := f.NameOf(netip.MustParseAddr("127.0.1.2")); !ok || n != "host2" {
		t.Errorf("NameOf = %s %v", n, ok)
	}
	if n, ok := f.NameOf(netip.MustParseAddr("::ffff:127.0.1.1")); !ok || n != "host1" {
		t.Errorf("NameOf(v4-mapped) = %s %v", n, ok)
	}
	if got := strings.Join(f.Names(), " "); got != "HOST1 host1 host2 host2b v6host" {
		t.Errorf("Names = %s", got)
	}
	if e := f.Entries[0]; e.Pos.Line != 2 || e.Pos.Col != 1 || len(e.Aliases) != 1 {
		t.Errorf("entry = %+v", e)
	}
	var nilFile *File
	if _, ok := nilFile.Lookup("x"); ok {
		t.Error("nil file")
	}
}

func TestFormatRoundTrip(t *testing.T) {
	entries := []Entry{
		{Addr: netip.MustParseAddr("127.0.1.1"), Name: "host1"},
		{Addr: netip.MustParseAddr("127.0.1.2"), Name: "host2", Aliases: []string{"h2", "two"}},
	}
	text := Format(entries)
	if text != "127.0.1.1       host1\n127.0.1.2       host2 h2 two\n" {
		t.Errorf("Format:\n%s", text)
	}
	f, d := Parse("x", []byte(text))
	if len(d) != 0 || len(f.Entries) != 2 || f.Entries[1].Aliases[1] != "two" {
		t.Errorf("round trip: %v %+v", d, f.Entries)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("127.0.0.1 localhost\n::1 a b c # x\nbad\n")
	f.Fuzz(func(t *testing.T, src string) {
		file, _ := Parse("f", []byte(src))
		for _, e := range file.Entries {
			if a, ok := file.Lookup(e.Name); !ok || !a.IsValid() {
				t.Fatalf("entry %s not found", e.Name)
			}
		}
	})
}

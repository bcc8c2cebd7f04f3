package auth

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
)

const procTCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1AE1 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0
   1: 0201007F:D431 0100007F:1AE1 01 00000000:00000000 00:00000000 00000000  1001        0 1002 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:1AE1 0201007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0000000000000000 20 4 30 10 -1
`

const procTCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1AE1 00000000000000000000000001000000:9C40 01 00000000:00000000 00:00000000 00000000  1002        0 2001 1
`

func TestParseProcAddr(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"0100007F:1AE1", "127.0.0.1:6881", ""},
		{"0201007F:D431", "127.0.1.2:54321", ""},
		{"00000000000000000000000001000000:1AE1", "[::1]:6881", ""},
		{"0100007F", "", "missing port"},
		{"0100007G:0001", "", "bad IPv4"},
		{"0100007F:GGGGG", "", "bad port"},
		{"01007F:0001", "", "bad address length"},
	}
	for _, tc := range tests {
		got, err := ParseProcAddr(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseProcAddr(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("ParseProcAddr(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestFindSocketOwner(t *testing.T) {
	server := netip.MustParseAddrPort("127.0.0.1:6881")
	client := netip.MustParseAddrPort("127.0.1.2:54321")
	uid, found, err := FindSocketOwner(strings.NewReader(procTCP), client, server)
	if err != nil || !found || uid != 1001 {
		t.Fatalf("client socket: uid=%d found=%v err=%v, want 1001", uid, found, err)
	}
	// The server's own accepted socket is owned by root: the lookup must not
	// confuse the two directions.
	uid, found, _ = FindSocketOwner(strings.NewReader(procTCP), server, client)
	if !found || uid != 0 {
		t.Fatalf("server socket: uid=%d found=%v", uid, found)
	}
	_, found, _ = FindSocketOwner(strings.NewReader(procTCP), netip.MustParseAddrPort("127.0.0.9:1"), server)
	if found {
		t.Fatal("found a socket that is not there")
	}
	uid, found, err = FindSocketOwner(strings.NewReader(procTCP6), netip.MustParseAddrPort("[::1]:6881"), netip.MustParseAddrPort("[::1]:40000"))
	if err != nil || !found || uid != 1002 {
		t.Fatalf("tcp6: uid=%d found=%v err=%v", uid, found, err)
	}
	if _, _, err := FindSocketOwner(strings.NewReader("hdr\n 0: zz\n"), client, server); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("malformed table error = %v, want line 2", err)
	}
}

// TestIdentRealConnection authenticates a real loopback connection: the peer
// is this process, so the identity must be our own uid.
func TestIdentRealConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	defer s.Close()
	id, err := (&Ident{}).Authenticate(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if id.UID != os.Getuid() {
		t.Fatalf("uid = %d, want %d", id.UID, os.Getuid())
	}
	if id.User == "" {
		t.Fatal("empty user name")
	}
}

func FuzzFindSocketOwner(f *testing.F) {
	f.Add(procTCP)
	f.Add(procTCP6)
	f.Fuzz(func(t *testing.T, table string) {
		_, _, _ = FindSocketOwner(strings.NewReader(table), netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"))
	})
}

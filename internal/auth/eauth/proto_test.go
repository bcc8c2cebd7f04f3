package eauth

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRequestRoundTrip(t *testing.T) {
	in := []*Request{
		{UID: 1001, GID: 100, User: "alice", ClientAddr: "10.0.0.2", ClientPort: 40000, EauthClient: "user", EauthServer: "mbatchd", AuxDataFile: "NULL", AuxDataStatus: "NULL", Data: []byte("basalt1.abc")},
		{UID: 0, GID: 0, User: "root", ClientAddr: "10.0.0.3", ClientPort: 1, EauthClient: "sbatchd", EauthServer: "mbatchd", AuxDataFile: "NULL", AuxDataStatus: "NULL", Data: []byte("with spaces\nand a newline")},
	}
	var b []byte
	for _, r := range in {
		b = r.Append(b)
	}
	rr := NewRequestReader(bytes.NewReader(b))
	for i, want := range in {
		got, err := rr.Read()
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got.UID != want.UID || got.GID != want.GID || got.User != want.User || got.ClientAddr != want.ClientAddr || got.ClientPort != want.ClientPort ||
			got.EauthClient != want.EauthClient || got.EauthServer != want.EauthServer || !bytes.Equal(got.Data, want.Data) {
			t.Fatalf("request %d: %+v, want %+v", i, got, want)
		}
	}
	if _, err := rr.Read(); err != io.EOF {
		t.Fatalf("after the last: %v, want EOF", err)
	}
}

func TestRequestReaderErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"bad uid", "x 0 u a 1 0 user mbatchd NULL NULL \n", "offset 0: uid: \"x\" is not a number"},
		{"bad port", "0 0 u a 70000 0 user mbatchd NULL NULL \n", "client_port: \"70000\" is not a number in 0..65535"},
		{"negative len", "0 0 u a 1 -1 user mbatchd NULL NULL \n", "user_auth_data_len"},
		{"oversized", "0 0 u a 1 99999999 user mbatchd NULL NULL x\n", "user_auth_data_len"},
		{"short data", "0 0 u a 1 10 user mbatchd NULL NULL abc", "offset 39: user_auth_data: 3 of 10 bytes"},
		{"no line end", "0 0 u a 1 3 user mbatchd NULL NULL abcd\n", "offset 38: user_auth_data: 3 bytes, then 'd'"},
		{"truncated", "0 0 u a", "offset 7: client_addr: unexpected end of input"},
		{"control byte", "0 0 u\x01 a", "offset 5: user_name: control byte 0x1"},
		{"long token", "0 0 " + strings.Repeat("u", 300) + " a", "user_name: longer than 256 bytes"},
	}
	for _, tc := range tests {
		_, err := NewRequestReader(strings.NewReader(tc.in)).Read()
		var pe *ProtoError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want a ProtoError with %q", tc.name, err, tc.want)
		}
	}
}

func FuzzParseCredential(f *testing.F) {
	keys := ring("k")
	text, _ := Seal(keys.Current, testCred())
	f.Add(text)
	f.Add([]byte(prefix))
	f.Add([]byte("basalt1.QkFFMQ"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Open(keys, b, t0)
		if err != nil {
			return
		}
		// What opens is exactly what sealing its fields gives.
		again, err := Seal(keys.Current, c)
		if err != nil {
			t.Fatal(err)
		}
		c2, _, _, err := Parse(again)
		if err != nil || c2 != c {
			t.Fatalf("%+v reseals as %+v (%v)", c, c2, err)
		}
	})
}

func FuzzRequestReader(f *testing.F) {
	r := &Request{UID: 1, GID: 2, User: "u", ClientAddr: "10.0.0.1", ClientPort: 3, EauthClient: "user", EauthServer: "mbatchd", Data: []byte("abc")}
	f.Add(r.Append(nil))
	f.Add([]byte("0 0 u a 1 3 user mbatchd NULL NULL abc\n0 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rr := NewRequestReader(bytes.NewReader(b))
		for i := 0; i < 100; i++ {
			req, err := rr.Read()
			if err != nil {
				return
			}
			// What was read writes back to something that reads the same.
			again, err := NewRequestReader(bytes.NewReader(req.Append(nil))).Read()
			if err != nil || again.UID != req.UID || !bytes.Equal(again.Data, req.Data) {
				t.Fatalf("%+v does not round-trip: %+v %v", req, again, err)
			}
		}
	})
}

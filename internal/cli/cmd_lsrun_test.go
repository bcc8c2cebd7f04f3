package cli

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseLsrun(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want *lsrunOpts
		help bool
		err  string
	}{
		{args: []string{"hostname"}, want: &lsrunOpts{argv: []string{"hostname"}}},
		{args: []string{"-l", "-L", "-v", "-n", "sh", "-c", "x -v"}, want: &lsrunOpts{localFail: true, forceRES: true, verbose: true, noStdin: true, argv: []string{"sh", "-c", "x -v"}}},
		{args: []string{"-P", "vi"}, want: &lsrunOpts{pty: true, argv: []string{"vi"}}},
		{args: []string{"-S", "bash"}, want: &lsrunOpts{pty: true, shell: true, argv: []string{"bash"}}},
		{args: []string{"-m", "hostA hostB", "-m", "hostC", "-R", "mem>10", "true"}, want: &lsrunOpts{hosts: []string{"hostA", "hostB", "hostC"}, resReq: "mem>10", argv: []string{"true"}}},
		{args: []string{"-mhostA", "-Rtype==any", "true"}, want: &lsrunOpts{hosts: []string{"hostA"}, resReq: "type==any", argv: []string{"true"}}},
		// Options stop at the command: its own options are its.
		{args: []string{"ls", "-l", "-L"}, want: &lsrunOpts{argv: []string{"ls", "-l", "-L"}}},
		{args: []string{"-V"}, want: &lsrunOpts{version: true}},
		{args: []string{"-h"}, help: true},
		{args: []string{"-x", "true"}, err: "illegal option -- x"},
		{args: []string{"-m"}, err: "option requires an argument -- m"},
		{args: []string{"-m", " ", "true"}, err: "option -m needs a host or cluster name"},
	} {
		got, help, err := parseLsrun(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || help != tc.help {
			t.Errorf("%q: help %v err %v, want help %v", tc.args, help, err, tc.help)
			continue
		}
		if !tc.help && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

func TestConnMessage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"dial tcp 10.250.0.3:6878: connect: connection refused", "A connect sys call failed: Connection refused"},
		{"dial tcp 10.250.0.3:6878: connect: no route to host", "A connect sys call failed: No route to host"},
		{"dial tcp 10.250.0.3:6878: i/o timeout", "Communication time out"},
		{"rpc: connection closed", "Connection is lost"},
		{"read tcp 1.2.3.4:5->1.2.3.4:6: read: connection reset by peer", "Connection is lost"},
		{"unexpected EOF", "Connection is lost"},
		{"something else", "something else"},
	} {
		if got := connMessage(tc.in); got != tc.want {
			t.Errorf("connMessage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestReadLine: one line at a time, nothing consumed past it (the next
// question reads the next line).
func TestReadLine(t *testing.T) {
	r := strings.NewReader("y\nno\nlast")
	for _, want := range []string{"y", "no", "last"} {
		if got, _ := readLine(r); got != want {
			t.Errorf("readLine = %q, want %q", got, want)
		}
	}
	if got, err := readLine(r); got != "" || err == nil {
		t.Errorf("after the input: %q, %v; want an error", got, err)
	}
}

// FuzzParseLsrun: no input panics; a parse without error has a command,
// -V or -h.
func FuzzParseLsrun(f *testing.F) {
	f.Add("-m", "hostA hostB", "true")
	f.Add("-R", "select[mem>1]", "-L")
	f.Add("-lLPSvn", "x", "")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		o, help, err := parseLsrun([]string{a, b, c})
		if err == nil && !help && o == nil {
			t.Fatalf("%q %q %q: no options and no error", a, b, c)
		}
	})
}

package cli

import (
	"strconv"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func TestParseFileTransfer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want api.FileTransfer
		col  int    // error column, 0: none
		msg  string // error text
	}{
		{in: "a > b", want: api.FileTransfer{Local: "a", Op: ">", Remote: "b"}},
		{in: "a < b", want: api.FileTransfer{Local: "a", Op: "<", Remote: "b"}},
		{in: "log << log.all", want: api.FileTransfer{Local: "log", Op: "<<", Remote: "log.all"}},
		{in: "a >< b", want: api.FileTransfer{Local: "a", Op: "><", Remote: "b"}},
		{in: "a <> b", want: api.FileTransfer{Local: "a", Op: "<>", Remote: "b"}},
		// The remote file defaults to the local one, as given.
		{in: "/home/u/in.dat >", want: api.FileTransfer{Local: "/home/u/in.dat", Op: ">", Remote: "/home/u/in.dat"}},
		{in: "  data\t<<  ", want: api.FileTransfer{Local: "data", Op: "<<", Remote: "data"}},
		// File names may hold spaces and '<' or '>' inside a word.
		{in: "my file > a>b c", want: api.FileTransfer{Local: "my file", Op: ">", Remote: "a>b c"}},
		{in: "a > b > c", want: api.FileTransfer{Local: "a", Op: ">", Remote: "b > c"}},
		{in: "", col: 1, msg: `Invalid file operation "" specification`},
		{in: "a", col: 2, msg: `Invalid file operation "" specification`},
		{in: "a>b", col: 4, msg: `Invalid file operation "" specification`},
		{in: "a >> b", col: 3, msg: `Invalid file operation ">>" specification`},
		{in: "a <<< b", col: 3, msg: `Invalid file operation "<<<" specification`},
		{in: "a <>< b", col: 3, msg: `Invalid file operation "<><" specification`},
		{in: "> b", col: 1, msg: "Invalid local file specification"},
		{in: "  < b", col: 1, msg: "Invalid local file specification"},
	} {
		got, err := parseFileTransfer(tc.in)
		if tc.col == 0 {
			if err != nil || *got != tc.want {
				t.Errorf("parseFileTransfer(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			continue
		}
		e, ok := err.(*fileXferError)
		if !ok || e.Col != tc.col || e.Msg != tc.msg {
			t.Errorf("parseFileTransfer(%q) error %#v, want %q at column %d", tc.in, err, tc.msg, tc.col)
			continue
		}
		if want := tc.msg + ` in -f "` + tc.in + `" (column ` + strconv.Itoa(tc.col) + ")"; e.Error() != want {
			t.Errorf("error text %q, want %q", e.Error(), want)
		}
	}
}

func FuzzParseFileTransfer(f *testing.F) {
	for _, s := range []string{"a > b", "a <", "x << y z", "a >< b", "a <> b", ">", "a >> b", "a>b", "", " \t< ", "a > > b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ft, err := parseFileTransfer(s)
		if err != nil {
			e, ok := err.(*fileXferError)
			if !ok || e.Col < 1 || e.Col > len(s)+1 {
				t.Fatalf("parseFileTransfer(%q): bad error %v", s, err)
			}
			return
		}
		switch ft.Op {
		case ">", "<", "<<", "><", "<>":
		default:
			t.Fatalf("parseFileTransfer(%q): operator %q", s, ft.Op)
		}
		if ft.Local == "" || ft.Remote == "" {
			t.Fatalf("parseFileTransfer(%q) = %+v: an empty file", s, ft)
		}
		again, err := parseFileTransfer(ft.Local + " " + ft.Op + " " + ft.Remote)
		if err != nil || *again != *ft {
			t.Fatalf("parseFileTransfer(%q) = %+v; again: %+v, %v", s, ft, again, err)
		}
	})
}

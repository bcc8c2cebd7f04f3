package eauth

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseSudoers(t *testing.T) {
	tests := []struct {
		name, src, key, old, exp, user, err string
	}{
		{"plain", "LSF_EAUTH_KEY=abc\n", "abc", "", "", "", ""},
		{"quoted and comments", "# the key\n\nLSF_EAUTH_KEY=\"a b#c\"\nLSF_EAUTH_USER=lsfadmin # who runs eauth -s\n", "a b#c", "", "", "lsfadmin", ""},
		{"rotation", "LSF_EAUTH_KEY='new'\r\nLSF_EAUTH_OLDKEY=old\nLSF_EAUTH_OLDKEY_EXPIRY=2027/1/31/12:00\n", "new", "old", "2027/1/31/12:00", "", ""},
		{"no equals", "LSF_EAUTH_KEY=a\nLSF_STARTUP_USERS\n", "", "", "", "", "lsf.sudoers:2: \"LSF_STARTUP_USERS\": want NAME=value"},
		{"unterminated", "\nLSF_EAUTH_KEY=\"abc\n", "", "", "", "", "lsf.sudoers:2: LSF_EAUTH_KEY: unterminated quote"},
		{"bad name", "A B=c\n", "", "", "", "", "lsf.sudoers:1: bad parameter name"},
	}
	for _, tc := range tests {
		s, err := ParseSudoers("lsf.sudoers", []byte(tc.src))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if s.Key != tc.key || s.OldKey != tc.old || s.OldExpiry != tc.exp || s.User != tc.user {
			t.Errorf("%s: got %+v", tc.name, s)
		}
	}
}

func TestParseExpiry(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.Local)
	tests := []struct {
		in   string
		want time.Time
		err  string
	}{
		{"12/31", time.Date(2027, 1, 1, 0, 0, 0, 0, time.Local), ""},
		{"2027/2/1/13:30", time.Date(2027, 2, 1, 13, 30, 0, 0, time.Local), ""},
		{"3/4/7:05", time.Date(2026, 3, 4, 7, 5, 0, 0, time.Local), ""},
		{"2027/2/30", time.Time{}, "no day 30 in month 2"},
		{"13/1", time.Time{}, "bad month"},
		{"1/1/25:00", time.Time{}, "bad time"},
		{"x", time.Time{}, "want [year/]month/day"},
		{"99/1/1", time.Time{}, "bad year"},
	}
	for _, tc := range tests {
		got, err := ParseExpiry(tc.in, now)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%q = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// TestReadSudoersChecks: a key file that is a symbolic link, not a
// regular file, open to the group or others, or owned by another user is
// refused with a message naming it.
func TestReadSudoersChecks(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "lsf.sudoers")
	if err := os.WriteFile(good, []byte("LSF_EAUTH_KEY=k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, _, err := LoadKeyring(good, time.Now()); err != nil || r.Current.ID != NewKey("k").ID {
		t.Fatalf("good file: %v", err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(good, link)
	open := filepath.Join(dir, "open")
	os.WriteFile(open, []byte("LSF_EAUTH_KEY=k\n"), 0o600)
	os.Chmod(open, 0o640)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("# nothing\n"), 0o600)
	sub := filepath.Join(dir, "subdir")
	os.Mkdir(sub, 0o700)
	for path, want := range map[string]string{
		link:  "is a symbolic link",
		open:  "mode 0640 gives the group or others access",
		empty: "LSF_EAUTH_KEY is not set",
		sub:   "not a regular file",
	} {
		_, _, err := LoadKeyring(path, time.Now())
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want the file named and %q", filepath.Base(path), err, want)
		}
	}
	st, _ := os.Stat(good)
	if err := checkKeyFile(good, st, os.Geteuid()+1); !errors.Is(err, ErrUnsafeFile) || !strings.Contains(err.Error(), "owned by uid") {
		t.Errorf("another owner: %v", err)
	}
}

func TestSudoersPath(t *testing.T) {
	dir := t.TempDir()
	if got := SudoersPath(dir); got != "/etc/lsf.sudoers" {
		t.Errorf("without $LSF_ENVDIR/lsf.sudoers: %s", got)
	}
	os.WriteFile(filepath.Join(dir, SudoersFile), nil, 0o600)
	if got := SudoersPath(dir); got != filepath.Join(dir, SudoersFile) {
		t.Errorf("with it: %s", got)
	}
}

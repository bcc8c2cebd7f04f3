package eauth

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Key is one cluster key and its id (the first four bytes of a hash of
// it: credentials name the key they were sealed with, so that a daemon
// knows the old key from the new during a rotation).
type Key struct {
	ID     uint32
	secret []byte
}

// NewKey returns the key of a secret.
func NewKey(secret string) *Key {
	h := sha256.Sum256([]byte("basalt-eauth-key-id\x00" + secret))
	return &Key{ID: binary.BigEndian.Uint32(h[:4]), secret: []byte(secret)}
}

// Keyring is the current key and, during a rotation, the old one with its
// expiry: new credentials are sealed with the current key; credentials
// sealed with the old key are accepted until OldExpiry.
type Keyring struct {
	Current   *Key
	Old       *Key
	OldExpiry time.Time
}

func (r *Keyring) lookup(id uint32, now time.Time) *Key {
	if r == nil {
		return nil
	}
	if r.Current != nil && r.Current.ID == id {
		return r.Current
	}
	if r.Old != nil && r.Old.ID == id && now.Before(r.OldExpiry) {
		return r.Old
	}
	return nil
}

// SudoersFile is lsf.sudoers' name.
const SudoersFile = "lsf.sudoers"

// SudoersPath is where the key is read: $LSF_ENVDIR/lsf.sudoers when it
// exists, else /etc/lsf.sudoers.
func SudoersPath(envDir string) string {
	if envDir != "" {
		p := filepath.Join(envDir, SudoersFile)
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
	return filepath.Join("/etc", SudoersFile)
}

// Sudoers holds the parameters of lsf.sudoers that eauth uses.
type Sudoers struct {
	Path      string
	Key       string // LSF_EAUTH_KEY
	OldKey    string // LSF_EAUTH_OLDKEY
	OldExpiry string // LSF_EAUTH_OLDKEY_EXPIRY
	User      string // LSF_EAUTH_USER: the account eauth -s runs as
	// Vars are all the file's parameters.
	Vars map[string]string
}

// SyntaxError is a malformed lsf.sudoers line.
type SyntaxError struct {
	Path string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg) }

// ParseSudoers parses lsf.sudoers: NAME=value lines, values optionally
// quoted, # comments.
func ParseSudoers(path string, src []byte) (*Sudoers, error) {
	s := &Sudoers{Path: path, Vars: map[string]string{}}
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return nil, &SyntaxError{path, i + 1, fmt.Sprintf("%q: want NAME=value", line)}
		}
		if name == "" || strings.ContainsAny(name, " \t\"'") {
			return nil, &SyntaxError{path, i + 1, fmt.Sprintf("bad parameter name %q", name)}
		}
		val = strings.TrimSpace(val)
		if n := len(val); n > 0 && (val[0] == '"' || val[0] == '\'') {
			if n < 2 || val[n-1] != val[0] {
				return nil, &SyntaxError{path, i + 1, fmt.Sprintf("%s: unterminated quote", name)}
			}
			val = val[1 : n-1]
		} else if j := strings.Index(val, " #"); j >= 0 {
			val = strings.TrimSpace(val[:j])
		}
		s.Vars[name] = val
	}
	s.Key, s.OldKey, s.OldExpiry, s.User = s.Vars["LSF_EAUTH_KEY"], s.Vars["LSF_EAUTH_OLDKEY"], s.Vars["LSF_EAUTH_OLDKEY_EXPIRY"], s.Vars["LSF_EAUTH_USER"]
	return s, nil
}

// ErrNoKey is LoadKeyring's error when lsf.sudoers sets no LSF_EAUTH_KEY.
var ErrNoKey = errors.New("LSF_EAUTH_KEY is not set")

// ErrUnsafeFile wraps the refusal of a key file others could read or
// replace.
var ErrUnsafeFile = errors.New("unsafe key file")

// ReadSudoers reads and parses lsf.sudoers after checking that only this
// process's effective user can read or change it: a regular file, not a
// symbolic link, owned by the effective uid, no group or other
// permission. Errors name the file and the problem.
func ReadSudoers(path string) (*Sudoers, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s: %w: it is a symbolic link", path, ErrUnsafeFile)
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkKeyFile(path, st, os.Geteuid()); err != nil {
		return nil, err
	}
	src, err := io.ReadAll(io.LimitReader(f, 1<<16+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(src) > 1<<16 {
		return nil, fmt.Errorf("%s: larger than 64 KiB", path)
	}
	return ParseSudoers(path, src)
}

func checkKeyFile(path string, st os.FileInfo, euid int) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w: not a regular file (%v)", path, ErrUnsafeFile, st.Mode().Type())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != euid {
		return fmt.Errorf("%s: %w: owned by uid %d, not by uid %d", path, ErrUnsafeFile, sys.Uid, euid)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s: %w: mode %04o gives the group or others access (want 0600)", path, ErrUnsafeFile, perm)
	}
	return nil
}

// Keyring returns the keys lsf.sudoers sets; now decides the year of an
// expiry that has none.
func (s *Sudoers) Keyring(now time.Time) (*Keyring, error) {
	if s.Key == "" {
		return nil, fmt.Errorf("%s: %w", s.Path, ErrNoKey)
	}
	r := &Keyring{Current: NewKey(s.Key)}
	if s.OldKey != "" {
		if s.OldExpiry == "" {
			return nil, fmt.Errorf("%s: LSF_EAUTH_OLDKEY is set without LSF_EAUTH_OLDKEY_EXPIRY", s.Path)
		}
		t, err := ParseExpiry(s.OldExpiry, now)
		if err != nil {
			return nil, fmt.Errorf("%s: LSF_EAUTH_OLDKEY_EXPIRY: %w", s.Path, err)
		}
		r.Old, r.OldExpiry = NewKey(s.OldKey), t
	} else if s.OldExpiry != "" {
		return nil, fmt.Errorf("%s: LSF_EAUTH_OLDKEY_EXPIRY is set without LSF_EAUTH_OLDKEY", s.Path)
	}
	return r, nil
}

// LoadKeyring reads the keys of the lsf.sudoers at path (ReadSudoers'
// checks).
func LoadKeyring(path string, now time.Time) (*Keyring, *Sudoers, error) {
	s, err := ReadSudoers(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := s.Keyring(now)
	if err != nil {
		return nil, nil, err
	}
	return r, s, nil
}

// ParseExpiry parses LSF_EAUTH_OLDKEY_EXPIRY, [year/]month/day[/hour:minute]
// in local time; without a year, now's; without a time, the end of the day
// (the old key is good through that day).
func ParseExpiry(s string, now time.Time) (time.Time, error) {
	parts := strings.Split(s, "/")
	var hm string
	if n := len(parts); n > 0 && strings.Contains(parts[n-1], ":") {
		hm, parts = parts[n-1], parts[:n-1]
	}
	year := now.Year()
	switch len(parts) {
	case 2:
	case 3:
		y, err := strconv.Atoi(parts[0])
		if err != nil || y < 1970 || y > 9999 {
			return time.Time{}, fmt.Errorf("%q: bad year %q", s, parts[0])
		}
		year, parts = y, parts[1:]
	default:
		return time.Time{}, fmt.Errorf("%q: want [year/]month/day[/hour:minute]", s)
	}
	month, err := strconv.Atoi(parts[0])
	if err != nil || month < 1 || month > 12 {
		return time.Time{}, fmt.Errorf("%q: bad month %q", s, parts[0])
	}
	day, err := strconv.Atoi(parts[1])
	if err != nil || day < 1 || day > 31 {
		return time.Time{}, fmt.Errorf("%q: bad day %q", s, parts[1])
	}
	if time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.Local).Day() != day {
		return time.Time{}, fmt.Errorf("%q: no day %d in month %d", s, day, month)
	}
	if hm == "" {
		return time.Date(year, time.Month(month), day+1, 0, 0, 0, 0, time.Local), nil
	}
	h, m, _ := strings.Cut(hm, ":")
	hour, err1 := strconv.Atoi(h)
	min, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hour < 0 || hour > 23 || min < 0 || min > 59 {
		return time.Time{}, fmt.Errorf("%q: bad time %q", s, hm)
	}
	return time.Date(year, time.Month(month), day, hour, min, 0, 0, time.Local), nil
}

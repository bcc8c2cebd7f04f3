package lsfhosts

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Entry is one line of a .lsfhosts file.
type Entry struct {
	Host string // host or cluster name, or "+" (any)
	User string // account name, or "+" (any)
	Send bool   // the owner's jobs sent to Host run as User
	Recv bool   // User's jobs from Host may run as the owner
	Line int
}

// Error is a parse error at a line (1-based) and column (1-based, of the
// offending field).
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg) }

// MaxSize bounds the file read (a user's file read by root).
const MaxSize = 64 << 10

// Parse reads the lines of a .lsfhosts file.
func Parse(b []byte) ([]Entry, error) {
	var out []Entry
	for n, line := range strings.Split(string(b), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields, cols := fieldsWithCols(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 2 || len(fields) > 3 {
			return nil, &Error{Line: n + 1, Col: cols[0], Msg: fmt.Sprintf("%d fields, want host_name user_name [send|recv]", len(fields))}
		}
		e := Entry{Host: fields[0], User: fields[1], Send: true, Recv: true, Line: n + 1}
		if len(fields) == 3 {
			switch strings.ToLower(fields[2]) {
			case "send":
				e.Recv = false
			case "recv":
				e.Send = false
			default:
				return nil, &Error{Line: n + 1, Col: cols[2], Msg: fmt.Sprintf("%q: want send or recv", fields[2])}
			}
		}
		for k, f := range fields[:2] {
			if strings.ContainsAny(f, "/\x00") {
				return nil, &Error{Line: n + 1, Col: cols[k], Msg: fmt.Sprintf("%q is not a name", f)}
			}
		}
		out = append(out, e)
	}
	return out, nil
}

func fieldsWithCols(s string) ([]string, []int) {
	var fields []string
	var cols []int
	start := -1
	for i := 0; i <= len(s); i++ {
		blank := i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\r'
		if !blank && start < 0 {
			start = i
		}
		if blank && start >= 0 {
			fields = append(fields, s[start:i])
			cols = append(cols, start+1)
			start = -1
		}
	}
	return fields, cols
}

// ErrIgnored: the file exists but is not the user's own or is open to
// others; LSF ignores such a file.
var ErrIgnored = errors.New("ignored: not owned by the user, or readable or writable by others")

// Load reads home/.lsfhosts of the user uid. A missing file is no entries;
// a file of another owner, open to others or a symbolic link is
// ErrIgnored.
func Load(home string, uid int) ([]Entry, error) {
	p := filepath.Join(home, ".lsfhosts")
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.Mode().IsRegular() || !ok || int(sys.Uid) != uid || st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s: %w", p, ErrIgnored)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSize))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	es, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return es, nil
}

// matchHost reports whether an entry's host field names host or cluster.
func matchHost(field, host, cluster string) bool {
	return field == "+" || strings.EqualFold(field, host) || cluster != "" && field == cluster
}

// SendTo returns the account the owner's jobs run as on host (of
// cluster): the first send entry for it; "" when none maps them.
func SendTo(es []Entry, host, cluster string) string {
	for _, e := range es {
		if e.Send && e.User != "+" && matchHost(e.Host, host, cluster) {
			return e.User
		}
	}
	return ""
}

// Accepts reports whether the owner accepts to run jobs of user submitted
// on host (of cluster).
func Accepts(es []Entry, host, cluster, user string) bool {
	for _, e := range es {
		if e.Recv && matchHost(e.Host, host, cluster) && (e.User == "+" || e.User == user) {
			return true
		}
	}
	return false
}

// SendEntries renders the send entries as "host user" pairs (what bsub
// passes with a job).
func SendEntries(es []Entry) []string {
	var out []string
	for _, e := range es {
		if e.Send && e.User != "+" {
			out = append(out, e.Host+" "+e.User)
		}
	}
	return out
}

// FromPairs is SendEntries read back.
func FromPairs(pairs []string) []Entry {
	var out []Entry
	for _, p := range pairs {
		if h, u, ok := strings.Cut(p, " "); ok && h != "" && u != "" {
			out = append(out, Entry{Host: h, User: u, Send: true})
		}
	}
	return out
}

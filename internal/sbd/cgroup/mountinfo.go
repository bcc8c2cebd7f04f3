package cgroup

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Mount is one line of /proc/<pid>/mountinfo.
type Mount struct {
	// Root is the path of the mount's root inside its file system; for a
	// cgroup mount, the cgroup it shows at MountPoint.
	Root       string
	MountPoint string
	FSType     string
	// SuperOptions are the per-superblock options; for a cgroup v1 mount
	// they name its controllers ("rw,cpu,cpuacct").
	SuperOptions []string
}

// MountinfoError is a malformed mountinfo line.
type MountinfoError struct {
	Line int
	Msg  string
}

func (e *MountinfoError) Error() string {
	return fmt.Sprintf("mountinfo: line %d: %s", e.Line, e.Msg)
}

// ParseMountinfo reads a mountinfo table (proc(5)): "id parent major:minor
// root mountpoint options [optional fields...] - fstype source superoptions".
// Paths have their octal escapes (\040 for a blank) decoded.
func ParseMountinfo(r io.Reader) ([]Mount, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var out []Mount
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		f := strings.Fields(text)
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 7 || sep < 0 {
			return nil, &MountinfoError{Line: line, Msg: "missing \"-\" separator or fields"}
		}
		if len(f) < sep+3 {
			return nil, &MountinfoError{Line: line, Msg: "missing file system type or source after \"-\""}
		}
		m := Mount{Root: unescape(f[3]), MountPoint: unescape(f[4]), FSType: f[sep+1]}
		if len(f) > sep+3 {
			m.SuperOptions = strings.Split(f[sep+3], ",")
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mountinfo: %w", err)
	}
	return out, nil
}

// unescape decodes the \ooo octal escapes the kernel writes for blanks,
// tabs, newlines and backslashes in paths. Malformed escapes are kept.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && isOctal(s, i+1) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(s string, i int) bool {
	if i+3 > len(s) {
		return false
	}
	for j := i; j < i+3; j++ {
		if s[j] < '0' || s[j] > '7' {
			return false
		}
	}
	return s[i] <= '3'
}

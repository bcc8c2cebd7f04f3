package chkpnt

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Spec is a checkpoint specification: bsub -k "dir [period] [method=name]",
// or the queue's CHKPNT = dir [period].
type Spec struct {
	Dir    string
	Period time.Duration // 0: no periodic checkpoints
	Method string        // "" : LSB_ECHKPNT_METHOD, else default
}

// ParseError is a positioned error in a checkpoint specification.
type ParseError struct {
	Col int // 1-based byte column of the offending word
	Msg string
}

func (e *ParseError) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

// ParseSpec parses "dir [period] [method=name]" (period in minutes, a
// positive integer). The words after the directory come in any order, each
// at most once.
func ParseSpec(s string) (Spec, error) {
	var sp Spec
	words := fieldsAt(s)
	if len(words) == 0 {
		return sp, &ParseError{Col: 1, Msg: "no checkpoint directory"}
	}
	sp.Dir = words[0].s
	havePeriod := false
	for _, w := range words[1:] {
		switch {
		case strings.HasPrefix(w.s, "method="):
			if sp.Method != "" {
				return Spec{}, &ParseError{Col: w.col, Msg: "method given twice"}
			}
			name := w.s[len("method="):]
			if !ValidMethod(name) {
				return Spec{}, &ParseError{Col: w.col, Msg: fmt.Sprintf("bad method name %q (letters, digits, _ and -)", name)}
			}
			sp.Method = name
		default:
			if havePeriod {
				return Spec{}, &ParseError{Col: w.col, Msg: fmt.Sprintf("unexpected %q", w.s)}
			}
			m, err := strconv.Atoi(w.s)
			if err != nil || m <= 0 || m > maxPeriodMinutes {
				return Spec{}, &ParseError{Col: w.col, Msg: fmt.Sprintf("%s: Bad checkpoint period value", w.s)}
			}
			sp.Period, havePeriod = time.Duration(m)*time.Minute, true
		}
	}
	return sp, nil
}

// ValidMethod reports whether name is a method name LSF accepts: letters,
// digits, underscores and hyphens.
func ValidMethod(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

type word struct {
	s   string
	col int
}

func fieldsAt(s string) []word {
	var out []word
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' {
			if start >= 0 {
				out = append(out, word{s[start:i], start + 1})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// JobDir is a job's checkpoint directory: dir/<job ID>, or
// dir/<job ID>_<index> for an array element (LSB_CHKPNT_DIR).
func JobDir(dir string, jobID int64, index int32) string {
	name := strconv.FormatInt(jobID, 10)
	if index > 0 {
		name += "_" + strconv.Itoa(int(index))
	}
	return filepath.Join(dir, name)
}

// maxPeriodMinutes bounds a checkpoint period (about 19 years), far below
// what a time.Duration holds.
const maxPeriodMinutes = 10_000_000

// ParseJobDir reads a job's checkpoint directory name (JobDir's last
// element): "123" or "123_4".
func ParseJobDir(name string) (jobID int64, index int32, ok bool) {
	id, idx, arr := strings.Cut(name, "_")
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0, 0, false
	}
	if !arr {
		return n, 0, true
	}
	i, err := strconv.ParseInt(idx, 10, 32)
	if err != nil || i <= 0 {
		return 0, 0, false
	}
	return n, int32(i), true
}

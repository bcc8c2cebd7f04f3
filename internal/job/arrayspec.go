package job

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// NameSpec is a parsed bsub -J value: a plain job name, or a job array
// "name[index_list]%limit".
type NameSpec struct {
	Name    string
	Array   bool
	Spec    string  // the index list as written, without brackets
	Indices []int32 // ascending, without duplicates
	Limit   int32   // %limit, 0 when not given
}

// NameError is a -J syntax error at byte offset Pos.
type NameError struct {
	Pos int
	Msg string
	// TooLarge marks "Job array index too large" (LSBE_ARRAY_TOOLARGE).
	TooLarge bool
}

func (e *NameError) Error() string { return fmt.Sprintf("column %d: %s", e.Pos+1, e.Msg) }

// ParseName parses a -J value. maxSize is MAX_JOB_ARRAY_SIZE: indices must be
// in 1..maxSize (LSF 7+ allows up to the maximum index value; LSF caps the
// number of elements at maxSize, and so do we).
func ParseName(s string, maxSize int) (*NameSpec, error) {
	open := strings.IndexByte(s, '[')
	if open < 0 {
		if strings.ContainsAny(s, "]%") {
			i := strings.IndexAny(s, "]%")
			return nil, &NameError{Pos: i, Msg: fmt.Sprintf("unexpected %q in job name", s[i])}
		}
		return &NameSpec{Name: s}, nil
	}
	end := strings.LastIndexByte(s, ']')
	if end < open {
		return nil, &NameError{Pos: len(s), Msg: "missing ] after the index list"}
	}
	ns := &NameSpec{Name: s[:open], Array: true, Spec: s[open+1 : end]}
	rest := s[end+1:]
	if rest != "" {
		if rest[0] != '%' {
			return nil, &NameError{Pos: end + 1, Msg: "expected %limit after ]"}
		}
		n, err := strconv.Atoi(rest[1:])
		if err != nil || n <= 0 {
			return nil, &NameError{Pos: end + 2, Msg: fmt.Sprintf("bad job limit %q", rest[1:])}
		}
		ns.Limit = int32(n)
	}
	seen := map[int32]bool{}
	off := open + 1
	if strings.TrimSpace(ns.Spec) == "" {
		return nil, &NameError{Pos: off, Msg: "empty index list"}
	}
	for _, item := range strings.Split(ns.Spec, ",") {
		start, stop, step, err := parseRange(item, off)
		if err != nil {
			return nil, err
		}
		if stop > int64(maxSize) {
			return nil, &NameError{Pos: off, Msg: fmt.Sprintf("index %d exceeds MAX_JOB_ARRAY_SIZE %d", stop, maxSize), TooLarge: true}
		}
		for i := start; i <= stop; i += step {
			if !seen[int32(i)] {
				seen[int32(i)] = true
				ns.Indices = append(ns.Indices, int32(i))
				if len(ns.Indices) > maxSize {
					return nil, &NameError{Pos: off, Msg: fmt.Sprintf("more than MAX_JOB_ARRAY_SIZE %d elements", maxSize), TooLarge: true}
				}
			}
		}
		off += len(item) + 1
	}
	slices.Sort(ns.Indices)
	return ns, nil
}

func parseRange(item string, off int) (start, stop, step int64, err error) {
	num := func(s string, at int) (int64, error) {
		s2 := strings.TrimSpace(s)
		n, e := strconv.ParseInt(s2, 10, 64)
		if e != nil || n < 1 || n > 1<<31-1 {
			return 0, &NameError{Pos: at, Msg: fmt.Sprintf("bad index %q", s)}
		}
		return n, nil
	}
	step = 1
	rng, stepStr, hasStep := strings.Cut(item, ":")
	lo, hi, isRange := strings.Cut(rng, "-")
	if start, err = num(lo, off); err != nil {
		return
	}
	stop = start
	if isRange {
		if stop, err = num(hi, off+len(lo)+1); err != nil {
			return
		}
		if stop < start {
			return 0, 0, 0, &NameError{Pos: off, Msg: fmt.Sprintf("range %s ends before it starts", rng)}
		}
	}
	if hasStep {
		if !isRange {
			return 0, 0, 0, &NameError{Pos: off + len(rng), Msg: "a step needs a range"}
		}
		if step, err = num(stepStr, off+len(rng)+1); err != nil {
			return
		}
	}
	return
}

package load

import (
	"fmt"
	"strconv"
	"strings"
)

// Override replaces measured values: built-in indices by their formal
// names (r15s ... mem; ut as a fraction 0..1) and static resources (ncpus,
// nprocs, ncores, nthreads, ndisks, maxmem, maxswp, maxtmp in MB, model,
// type). Values missing from it are measured.
type Override struct {
	Index  map[int]float64
	Static map[string]string
}

// IndexNames are the built-in load indices in LSF's order; the position
// is the LSF load index number.
var IndexNames = [NumIndices]string{"r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem"}

// NumIndices is the number of built-in load indices.
const NumIndices = 11

// Load index numbers.
const (
	R15s = iota
	R1m
	R15m
	Ut
	Pg
	Io
	Ls
	It
	Tmp
	Swp
	Mem
)

// IndexOf returns the load index number of a formal index name.
func IndexOf(name string) (int, bool) {
	for i, n := range IndexNames {
		if n == name {
			return i, true
		}
	}
	return -1, false
}

var staticNames = map[string]bool{"ncpus": true, "nprocs": true, "ncores": true, "nthreads": true,
	"ndisks": true, "maxmem": true, "maxswp": true, "maxtmp": true, "model": true, "type": true}

// ParseOverride reads an override file: "name value" lines, '#' comments.
// Errors name the line and column.
func ParseOverride(src []byte) (*Override, error) {
	o := &Override{Index: map[int]float64{}, Static: map[string]string{}}
	for n, line := range strings.Split(string(src), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		col := strings.Index(line, f[0]) + 1
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d, column %d: want \"name value\", found %d words", n+1, col, len(f))
		}
		name, val := f[0], f[1]
		vcol := col + len(name) + strings.Index(line[col-1+len(name):], val)
		if i, ok := IndexOf(name); ok {
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || v != v {
				return nil, fmt.Errorf("line %d, column %d: %s: bad number %q", n+1, vcol, name, val)
			}
			o.Index[i] = v
			continue
		}
		if !staticNames[name] {
			return nil, fmt.Errorf("line %d, column %d: unknown index or resource %q", n+1, col, name)
		}
		if name != "model" && name != "type" {
			if v, err := strconv.Atoi(val); err != nil || v < 0 {
				return nil, fmt.Errorf("line %d, column %d: %s: bad count %q", n+1, vcol, name, val)
			}
		}
		o.Static[name] = val
	}
	return o, nil
}

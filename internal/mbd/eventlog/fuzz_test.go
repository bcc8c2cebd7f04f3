package eventlog

import (
	"bytes"
	"strings"
	"testing"
)

// seedLines are records of every type and layout, for the fuzzers.
func seedLines() []string {
	var s []string
	for _, g := range goldenRecords {
		s = append(s, g.want)
	}
	s = append(s,
		`"JOB_CHUNK" "10.1" 1 2 "x"`,
		`"JOB_STATUS" "9.13" 5 1 32 0 0 1.0 5 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 256 0 14 1 "h" 1 2 3 4 5 6`,
		line(`"JOB_FINISH" "2.0" 1700000400 5 500 1073741824 1 1700000300 0 0 1700000310 "dave" "normal" "" "" "" "post"`,
			`"old" "/w" "" "" "" "1.5" 0 1 "h1" 64 1.0 "legacy" "true"`,
			`0.100000 0.000000 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "" "p1" 0 1 "" 0 50 60 "" ""`),
		`"JOB_MODIFY2" "9.13" 5 "12[3]" 1 0 0 500 "u" garbage`,
	)
	return s
}

// FuzzParseRecord: ParseRecord never panics, and what it accepts is stable:
// formatting a parsed record and parsing it again gives the same line
// (the first format normalizes floats to their C precision).
func FuzzParseRecord(f *testing.F) {
	for _, l := range seedLines() {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseRecord(line)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T %v is not a *ParseError", err, err)
			}
			return
		}
		// The cheap job ID lookup that lets readers skip records must agree
		// with the parse: a record is never skipped by mistake.
		pid, isJob, pok := peekJobID([]byte(line))
		if id, _, ok := r.JobID(); ok && pok && (!isJob || pid != id) {
			t.Fatalf("peekJobID = %d, %v; the record is about job %d", pid, isJob, id)
		}
		once := r.Format()
		if strings.ContainsRune(once, '\n') {
			t.Fatalf("formatted record holds a newline: %q", once)
		}
		r2, err := ParseRecord(once)
		if err != nil {
			t.Fatalf("re-parse of %q: %v", once, err)
		}
		if twice := r2.Format(); twice != once {
			t.Fatalf("not stable:\n once %q\ntwice %q", once, twice)
		}
	})
}

// FuzzHistory: arbitrary event files never panic the reader or the bhist
// fold, and every job in the result has a record and its JOB_NEW first.
func FuzzHistory(f *testing.F) {
	f.Add([]byte("# 5\n" + strings.Join(seedLines(), "\n")))
	f.Add([]byte(strings.Join(seedLines()[:3], "\n") + "\n" + `"JOB_SIGNAL" "10.1" 9 42 0 1 "KILL" 0 "u"`))
	// Arrays are expanded into element histories; keep them small here.
	old := maxArrayExpand
	maxArrayExpand = 64
	f.Cleanup(func() { maxArrayExpand = old })
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "fuzz")
		h := NewHistory(Filter{States: AllStates})
		for i := 0; i < 10000; i++ {
			rec, err := r.Next()
			if err != nil {
				if _, ok := err.(*ParseError); ok {
					continue
				}
				break
			}
			seek, ok := r.Header()
			h.Add(rec, ok && r.Offset() < seek)
		}
		for _, j := range h.Result() {
			if j.Job == nil || len(j.Events) == 0 || j.Events[0].Kind != TypeJobNew {
				t.Fatalf("history without its submission: %+v", j)
			}
			TimeInStates(j, 1<<40)
		}
	})
}

package eventlog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dirFiles returns every lsb.* file of dir with its content.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "lsb.") {
			out[e.Name()] = readFile(t, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func openW(t *testing.T, dir string, s *sim, max int) *Writer {
	t.Helper()
	w, err := Open(dir, Options{MaxJobNum: max, SyncEvery: -1, Jobs: s})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return w
}

// drive applies entries to the state and appends those after the writer's
// last index, as mbatchd's FSM does after a restart.
func drive(t *testing.T, w *Writer, s *sim, entries []*api.LogEntry) error {
	t.Helper()
	for i, e := range entries {
		s.apply(e)
		if err := w.Append(uint64(i+1), e, nil); err != nil {
			return err
		}
	}
	return nil
}

func TestHeader(t *testing.T) {
	for _, n := range []int{0, 1, 5, 6, 7, 94, 95, 96, 995, 996, 1000, 123456} {
		h := header(n)
		want := fmt.Sprintf("# %d\n", len(h)+n)
		if string(h) != want {
			t.Errorf("header(%d) = %q, want %q", n, h, want)
		}
	}
}

func TestWriterAppendAndReplay(t *testing.T) {
	dir := t.TempDir()
	s := newSim()
	w := openW(t, dir, s, 100)
	var wl workload
	wl.submit(1, "alice")
	wl.start(1, 0, "h1")
	wl.finish(1, 0, api.StateDone)
	if err := drive(t, w, s, wl.entries); err != nil {
		t.Fatal(err)
	}
	if w.LastIndex() != 3 {
		t.Errorf("LastIndex = %d", w.LastIndex())
	}
	// Entries already rendered are skipped; an event the state rejected is
	// not rendered.
	before := readFile(t, filepath.Join(dir, EventsFile))
	if err := w.Append(2, wl.entries[1], nil); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(dir, EventsFile)) != before {
		t.Error("a replayed entry was written again")
	}
	rejected := &api.LogEntry{Events: []*api.Event{
		{Time: (t0 + 9) * 1e9, JobClean: &api.EvJobClean{JobID: 1}},
		{Time: (t0 + 9) * 1e9, JobClean: &api.EvJobClean{JobID: 99}},
	}}
	if err := w.Append(4, rejected, []error{nil, errors.New("no such job")}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, filepath.Join(dir, EventsFile))
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	var types []string
	for _, l := range lines[1:] {
		types = append(types, strings.Fields(l)[0])
	}
	if lines[0] != "# 4" || strings.Join(types, " ") != `"JOB_NEW" "JOB_START" "JOB_START_ACCEPT" "JOB_EXECUTE" "JOB_STATUS" "JOB_CLEAN"` {
		t.Errorf("lsb.events:\n%s", got)
	}
	if !strings.HasSuffix(got, `"JOB_CLEAN" "10.1" 1700000009 1 0`+"\n") {
		t.Errorf("last record of\n%s", got)
	}
	acct := readFile(t, filepath.Join(dir, AcctFile))
	if strings.Count(acct, "\n") != 1 || !strings.HasPrefix(acct, `"JOB_FINISH" "10.1" 1700000004 1 1000 `) {
		t.Errorf("lsb.acct:\n%s", acct)
	}
	if err := w.Append(5, rejected, nil); err == nil {
		t.Error("Append after Close succeeded")
	}
}

// After a crash, Open cuts off what the checkpoint does not cover (here a
// torn last line and unsynced records) and replay renders it again: the
// files end up exactly as without the crash.
func TestWriterRecoversFromCrash(t *testing.T) {
	var wl workload
	for id := int64(1); id <= 6; id++ {
		wl.submit(id, "alice")
		wl.start(id, 0, "h1")
		wl.finish(id, 0, api.StateDone)
	}
	ref := t.TempDir()
	s := newSim()
	w := openW(t, ref, s, 100)
	if err := drive(t, w, s, wl.entries); err != nil {
		t.Fatal(err)
	}
	w.Close()

	dir := t.TempDir()
	s = newSim()
	w = openW(t, dir, s, 100)
	if err := drive(t, w, s, wl.entries[:7]); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := drive(t, w, s, wl.entries[:11]); err != nil { // 8..11 unsynced
		t.Fatal(err)
	}
	// The crash: no Close; a torn record at the end of each file.
	for _, f := range []string{EventsFile, AcctFile} {
		fh, _ := os.OpenFile(filepath.Join(dir, f), os.O_WRONLY|os.O_APPEND, 0)
		fh.WriteString(`"JOB_STATUS" "10.1" 17000`)
		fh.Close()
	}
	s2 := newSim()
	w2 := openW(t, dir, s2, 100)
	if w2.LastIndex() != 7 {
		t.Fatalf("LastIndex after the crash = %d, want 7", w2.LastIndex())
	}
	if err := drive(t, w2, s2, wl.entries); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if got, want := dirFiles(t, dir), dirFiles(t, ref); !equalFiles(got, want) {
		t.Errorf("files after recovery differ from a run without crash:\n%s", diffFiles(got, want))
	}
}

func equalFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func diffFiles(got, want map[string]string) string {
	var b strings.Builder
	for k, v := range want {
		if got[k] != v {
			fmt.Fprintf(&b, "%s:\n got %q\nwant %q\n", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			fmt.Fprintf(&b, "%s: unexpected\n", k)
		}
	}
	return b.String()
}

// rotationWorkload finishes two jobs per round while one job stays pending
// and one array element keeps running, so every switch has live jobs to
// re-log.
func rotationWorkload() *workload {
	var wl workload
	wl.submit(100, "bob")            // pending for ever
	wl.submit(200, "carol", 1, 2, 3) // an array
	wl.start(200, 2, "h9")           // element 2 runs for ever
	wl.finish(200, 1, api.StateExit) // element 1 exits
	for id := int64(1); id <= 10; id++ {
		wl.submit(id, "alice")
		wl.start(id, 0, "h1")
		wl.finish(id, 0, api.StateDone)
	}
	return &wl
}

func TestWriterRotation(t *testing.T) {
	dir := t.TempDir()
	s := newSim()
	w := openW(t, dir, s, 3)
	wl := rotationWorkload()
	if err := drive(t, w, s, wl.entries); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := dirFiles(t, dir)
	// 11 jobs finished (element 200[1] and jobs 1-10): switches after the
	// 3rd, 6th and 9th, so three archives.
	for _, name := range []string{EventsFile, "lsb.events.1", "lsb.events.2", "lsb.events.3", AcctFile} {
		if _, ok := files[name]; !ok {
			t.Fatalf("missing %s; have %v", name, mapKeys(files))
		}
	}
	if _, ok := files["lsb.events.4"]; ok {
		t.Error("four switches, want three")
	}
	if n := strings.Count(files[AcctFile], "\n"); n != 11 {
		t.Errorf("lsb.acct has %d records, want 11", n)
	}
	// Archives start with the time of their last event and hold history only.
	for _, name := range []string{"lsb.events.1", "lsb.events.2", "lsb.events.3"} {
		lines := strings.Split(strings.TrimSuffix(files[name], "\n"), "\n")
		last, err := ParseRecord(lines[len(lines)-1])
		if err != nil {
			t.Fatal(err)
		}
		if lines[0] != fmt.Sprintf("# %d", last.Time) {
			t.Errorf("%s header %q, last event at %d", name, lines[0], last.Time)
		}
	}
	if !strings.Contains(files["lsb.events.3"], `"JOB_NEW" "10.1" 1700000001 100 `) {
		t.Error("the oldest archive does not start with the first submission")
	}
	// The current file: "# <seek>", LOG_SWITCH and the live jobs above the
	// seek position, history below.
	cur := files[EventsFile]
	var seek int
	fmt.Sscanf(cur, "# %d", &seek)
	block, hist := cur[:seek], cur[seek:]
	if !strings.Contains(block, `"LOG_SWITCH" "10.1" `) {
		t.Errorf("no LOG_SWITCH in the state block:\n%s", block)
	}
	for _, want := range []string{`"JOB_NEW" "10.1" 1700000001 100 `, `"JOB_NEW" "10.1" 1700000002 200 `,
		`"activeIdx" "2-3"`, `"JOB_START" "10.1" 1700000003 200 4 0 0 1.0 1 "h9"`} {
		if !strings.Contains(block, want) {
			t.Errorf("state block lacks %s:\n%s", want, block)
		}
	}
	if strings.Contains(block, `"JOB_NEW" "10.1" 1700000006 1 `) {
		t.Error("a finished job was re-logged")
	}
	// The switch follows the entry with the 9th finished job (job 8's);
	// the history goes on with job 9's submission, logged once.
	if f := strings.Fields(hist); len(f) < 4 || f[0] != `"JOB_NEW"` || f[3] != "9" || strings.Contains(block, `.9" `) {
		t.Errorf("history part starts with %.40q; block:\n%s", hist, block)
	}
	// Every line of every file parses.
	for name, content := range files {
		r := NewReader(strings.NewReader(content), name)
		for {
			_, err := r.Next()
			if err != nil {
				if err.Error() != "EOF" {
					t.Errorf("%v", err)
				}
				break
			}
		}
	}
}

func mapKeys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}

// A crash at any point of a log switch is repaired by Open and the replay:
// the files end up exactly as without the crash.
func TestWriterCrashDuringSwitch(t *testing.T) {
	wl := rotationWorkload()
	ref := t.TempDir()
	s := newSim()
	w := openW(t, ref, s, 3)
	if err := drive(t, w, s, wl.entries); err != nil {
		t.Fatal(err)
	}
	w.Close()
	want := dirFiles(t, ref)

	// Every crash point of each of the three switches; the third switch
	// shifts two archives, so a crash can leave a hole in the numbering.
	points := []string{"archive written", "events written", "switch checkpointed",
		"shifted lsb.events.2", "shifted lsb.events.1", "archive renamed", "events renamed"}
	crashes := 0
	for _, point := range points {
		for _, nth := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/%d", point, nth), func(t *testing.T) {
				dir := t.TempDir()
				seen := 0
				crashAt = func(p string) bool {
					if p == point {
						seen++
						return seen == nth
					}
					return false
				}
				defer func() { crashAt = nil }()
				s := newSim()
				w := openW(t, dir, s, 3)
				err := drive(t, w, s, wl.entries)
				crashAt = nil
				if err == nil {
					// The point is reached fewer than nth times.
					w.Close()
					if got := dirFiles(t, dir); !equalFiles(got, want) {
						t.Errorf("files differ:\n%s", diffFiles(got, want))
					}
					return
				}
				if !errors.Is(err, errCrash) {
					t.Fatalf("drive: %v, want the simulated crash", err)
				}
				crashes++
				// Restart: the state is rebuilt by replay; the writer resumes.
				s2 := newSim()
				w2 := openW(t, dir, s2, 3)
				if err := drive(t, w2, s2, wl.entries); err != nil {
					t.Fatal(err)
				}
				w2.Close()
				if got := dirFiles(t, dir); !equalFiles(got, want) {
					t.Errorf("files differ from a run without crash:\n%s", diffFiles(got, want))
				}
				for _, tmp := range []string{tmpEvents, tmpArchive} {
					if exists(filepath.Join(dir, tmp)) {
						t.Errorf("%s left behind", tmp)
					}
				}
			})
		}
	}
	// 3 switches x 5 points, plus the shift of lsb.events.1 at the 2nd and
	// 3rd switch and of lsb.events.2 at the 3rd.
	if crashes != 3*5+2+1 {
		t.Errorf("%d simulated crashes, want 18", crashes)
	}
}

// recordTypes lists the record types of an lsb.events file (header line
// skipped).
func recordTypes(t *testing.T, p string) []string {
	t.Helper()
	var types []string
	for _, l := range strings.Split(strings.TrimSuffix(readFile(t, p), "\n"), "\n")[1:] {
		types = append(types, strings.Fields(l)[0])
	}
	return types
}

// TestWriterDamagedFiles: a damaged lsb.events (shorter than the checkpoint,
// or under an unreadable checkpoint) is set aside and started again, and the
// next entry switches it so that the new file holds the live jobs; a short
// lsb.acct is appended to after its records. Open never fails on them.
func TestWriterDamagedFiles(t *testing.T) {
	dir := t.TempDir()
	s := newSim()
	w := openW(t, dir, s, 10)
	var wl workload
	wl.submit(1, "alice")
	wl.submit(2, "bob")
	wl.start(2, 0, "h1")
	wl.finish(2, 0, api.StateDone)
	drive(t, w, s, wl.entries)
	w.Close()
	n := len(wl.entries)
	eventsBefore := readFile(t, filepath.Join(dir, EventsFile))
	if err := os.Truncate(filepath.Join(dir, EventsFile), 3); err != nil {
		t.Fatal(err)
	}
	acctBefore := readFile(t, filepath.Join(dir, AcctFile))
	var warned []string
	opts := Options{MaxJobNum: 10, SyncEvery: -1, Jobs: s, Warn: func(m string) { warned = append(warned, m) }}
	w, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open of a truncated lsb.events: %v", err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "lsb.events.damaged.1") {
		t.Errorf("warnings %q, want one naming lsb.events.damaged.1", warned)
	}
	if got := readFile(t, filepath.Join(dir, EventsFile+".damaged.1")); got != eventsBefore[:3] {
		t.Errorf("damaged file set aside: %q", got)
	}
	if w.LastIndex() != uint64(n) {
		t.Errorf("LastIndex %d after recovery, want %d (nothing rendered twice)", w.LastIndex(), n)
	}
	// The next entry: job 3 is submitted; the new lsb.events then starts
	// with the switch and the live jobs (1 pending, 3 pending).
	wl.submit(3, "carol")
	s.apply(wl.entries[n])
	if err := w.Append(uint64(n+1), wl.entries[n], nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recordTypes(t, filepath.Join(dir, EventsFile)), " "); got != `"LOG_SWITCH" "JOB_NEW" "JOB_NEW"` {
		t.Errorf("new lsb.events records: %s", got)
	}
	if got := strings.Join(recordTypes(t, filepath.Join(dir, EventsFile+".1")), " "); got != `"JOB_NEW"` {
		t.Errorf("lsb.events.1 (the entry after the recovery): %s", got)
	}
	if got := readFile(t, filepath.Join(dir, AcctFile)); got != acctBefore {
		t.Errorf("lsb.acct changed by the recovery:\n%s", got)
	}

	// lsb.acct shorter than the checkpoint, its last line torn: kept,
	// completed, appended to.
	if err := os.Truncate(filepath.Join(dir, AcctFile), 10); err != nil {
		t.Fatal(err)
	}
	warned = nil
	w, err = Open(dir, opts)
	if err != nil {
		t.Fatalf("Open of a truncated lsb.acct: %v", err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "lsb.acct") {
		t.Errorf("warnings %q, want one about lsb.acct", warned)
	}
	wl.start(3, 0, "h1")
	wl.finish(3, 0, api.StateDone)
	for i := n + 1; i < len(wl.entries); i++ {
		s.apply(wl.entries[i])
		if err := w.Append(uint64(i+1), wl.entries[i], nil); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	acct := readFile(t, filepath.Join(dir, AcctFile))
	if !strings.HasPrefix(acct, acctBefore[:10]+"\n") || strings.Count(acct, "\n") != 2 || !strings.Contains(acct, `"JOB_FINISH" "10.1"`) {
		t.Errorf("lsb.acct after the recovery:\n%s", acct)
	}

	// An unreadable checkpoint: lsb.events set aside as the next damaged
	// file, started again.
	os.WriteFile(filepath.Join(dir, checkpointFile), []byte("garbage\n"), 0o644)
	warned = nil
	if w, err = Open(dir, opts); err != nil {
		t.Fatalf("Open with a bad checkpoint: %v", err)
	}
	w.Close()
	if len(warned) != 1 || !strings.Contains(warned[0], "lsb.events.damaged.2") {
		t.Errorf("warnings %q, want one naming lsb.events.damaged.2", warned)
	}
	if _, err := Open(dir, Options{}); err == nil {
		t.Error("Open without a JobSource succeeded")
	}
}

func TestWriterAdoptsExistingFiles(t *testing.T) {
	dir := t.TempDir()
	oldEvents := "# 4\n" + `"JOB_NEW" "9.13" 5 1 500 0 1 5 0 0 0 0 0 "u"` + "\n"
	oldAcct := `"JOB_CLEAN" "9.13" 6 1 0` + "\n"
	os.WriteFile(filepath.Join(dir, EventsFile), []byte(oldEvents), 0o644)
	os.WriteFile(filepath.Join(dir, "lsb.events.1"), []byte("# 3\n"), 0o644)
	os.WriteFile(filepath.Join(dir, AcctFile), []byte(oldAcct), 0o644)
	s := newSim()
	w := openW(t, dir, s, 10)
	var wl workload
	wl.submit(7, "alice")
	wl.start(7, 0, "h")
	wl.finish(7, 0, api.StateDone)
	if err := drive(t, w, s, wl.entries); err != nil {
		t.Fatal(err)
	}
	w.Close()
	files := dirFiles(t, dir)
	if files["lsb.events.1"] != oldEvents || files["lsb.events.2"] != "# 3\n" {
		t.Errorf("archives %q %q", files["lsb.events.1"], files["lsb.events.2"])
	}
	if !strings.HasPrefix(files[AcctFile], oldAcct) || strings.Count(files[AcctFile], "\n") != 2 {
		t.Errorf("lsb.acct %q", files[AcctFile])
	}
	if !strings.HasPrefix(files[EventsFile], "# 4\n\"JOB_NEW\" \"10.1\"") {
		t.Errorf("lsb.events %q", files[EventsFile])
	}
}

// The readers see a rotated directory the way bhist -n does.
func TestHistoryAcrossRotatedFiles(t *testing.T) {
	dir := t.TempDir()
	s := newSim()
	w := openW(t, dir, s, 3)
	wl := rotationWorkload()
	if err := drive(t, w, s, wl.entries); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ctx := context.Background()
	ids := func(n int, f Filter) string {
		res, err := ReadHistory(ctx, &HistoryQuery{Filter: f, Dir: dir, NumLogFiles: n})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) > 0 {
			t.Errorf("warnings %v", res.Warnings)
		}
		var out []string
		for _, h := range res.Jobs {
			id := fmt.Sprint(h.Job.JobID)
			if h.Job.Index > 0 {
				id += fmt.Sprintf("[%d]", h.Job.Index)
			}
			out = append(out, id)
		}
		return strings.Join(out, " ")
	}
	all := Filter{States: AllStates}
	// -n 1: the current file; jobs finished in archived files are not
	// there, the live ones are, from the state block.
	if got, want := ids(1, all), "9 10 100 200[2] 200[3]"; got != want {
		t.Errorf("-n 1: %s, want %s", got, want)
	}
	if got, want := ids(2, all), "6 7 8 9 10 100 200[2] 200[3]"; got != want {
		t.Errorf("-n 2: %s, want %s", got, want)
	}
	if got, want := ids(0, all), "1 2 3 4 5 6 7 8 9 10 100 200[1] 200[2] 200[3]"; got != want {
		t.Errorf("-n 0: %s, want %s", got, want)
	}
	if got, want := ids(9, all), ids(0, all); got != want {
		t.Errorf("-n 9: %s, want %s", got, want)
	}
	// Default states: unfinished jobs only.
	if got, want := ids(0, Filter{}), "100 200[2] 200[3]"; got != want {
		t.Errorf("unfinished: %s, want %s", got, want)
	}
	// A job found in the archives and again in the state block is one
	// history, with its events once.
	res, _ := ReadHistory(ctx, &HistoryQuery{Filter: Filter{Jobs: []*api.JobRef{{JobID: 200, Index: 2}}}, Dir: dir})
	if len(res.Jobs) != 1 {
		t.Fatalf("%d histories for 200[2]", len(res.Jobs))
	}
	res0, _ := ReadHistory(ctx, &HistoryQuery{Filter: Filter{Jobs: []*api.JobRef{{JobID: 200, Index: 2}}}, Dir: dir, NumLogFiles: 0})
	var kinds []string
	for _, e := range res0.Jobs[0].Events {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, " "); got != "JOB_NEW JOB_START JOB_START_ACCEPT JOB_EXECUTE" {
		t.Errorf("200[2] events across all files: %s", got)
	}
	if j := res0.Jobs[0].Job; j.State != api.StateRun || j.JobPID != 1200 || j.ExecHosts[0].Host != "h9" {
		t.Errorf("200[2] = %+v", j)
	}
	// bacct sees every finished run in lsb.acct.
	acct, err := ReadAcct(ctx, &AcctQuery{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(acct.Jobs) != 11 {
		t.Errorf("bacct: %d jobs, want 11", len(acct.Jobs))
	}
}

func TestWriterSyncEvery(t *testing.T) {
	dir := t.TempDir()
	s := newSim()
	w, err := Open(dir, Options{SyncEvery: 2, Jobs: s})
	if err != nil {
		t.Fatal(err)
	}
	var wl workload
	for id := int64(1); id <= 3; id++ {
		wl.submit(id, "alice")
	}
	var durable []uint64
	for i, e := range wl.entries {
		s.apply(e)
		if err := w.Append(uint64(i+1), e, nil); err != nil {
			t.Fatal(err)
		}
		durable = append(durable, w.Durable())
	}
	if !slices.Equal(durable, []uint64{0, 2, 2}) {
		t.Errorf("Durable after each entry = %v, want [0 2 2]", durable)
	}
	ck, found, err := readCheckpoint(filepath.Join(dir, checkpointFile))
	if err != nil || !found || ck.Index != 2 {
		t.Errorf("checkpoint %+v %v %v", ck, found, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Durable() != 3 {
		t.Errorf("Durable after Close = %d", w.Durable())
	}
	if w.Dir() != dir {
		t.Errorf("Dir() = %q", w.Dir())
	}
}

// A run's end is logged once however often it is reported: in the same
// second (the writer remembers the run) or later (the job's end time says
// the report did not end it). The post-execution result is one more
// JOB_STATUS.
func TestWriterRepeatedFinish(t *testing.T) {
	dir := t.TempDir()
	s := newSim()
	w := openW(t, dir, s, 100)
	var wl workload
	wl.submit(1, "alice")
	wl.start(1, 0, "h1")
	wl.finish(1, 0, api.StateDone)
	end := wl.t
	done := func(sec int64, post bool) *api.LogEntry {
		return &api.LogEntry{Events: []*api.Event{{Time: (t0 + sec) * 1e9,
			JobStatus: &api.EvJobStatus{JobID: 1, State: api.StateDone, RunCount: 1, PostDone: post}}}}
	}
	wl.entries = append(wl.entries, done(end, false), done(end+5, false), done(end+6, true))
	if err := drive(t, w, s, wl.entries); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if n := strings.Count(readFile(t, filepath.Join(dir, AcctFile)), "\n"); n != 1 {
		t.Errorf("lsb.acct has %d records, want 1", n)
	}
	events := readFile(t, filepath.Join(dir, EventsFile))
	if n := strings.Count(events, `"JOB_STATUS" "10.1" `); n != 2 {
		t.Errorf("%d JOB_STATUS records, want 2 (DONE, then DONE|PDONE):\n%s", n, events)
	}
	if !strings.Contains(events, fmt.Sprintf(`"JOB_STATUS" "10.1" %d 1 192 `, t0+end+6)) {
		t.Errorf("no post-done status:\n%s", events)
	}
}

// TestWriterSkip: entries a replica never sees (a snapshot installed in
// their place) are skipped with a warning, and the next entry starts a
// new lsb.events with the live jobs, so that the file again describes
// every job in the system.
func TestWriterSkip(t *testing.T) {
	dir := t.TempDir()
	s := newSim()
	var warned []string
	w, err := Open(dir, Options{MaxJobNum: 100, SyncEvery: -1, Jobs: s, Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	var wl workload
	wl.submit(1, "alice")
	wl.submit(2, "bob")   // in the snapshot only
	wl.start(2, 0, "h1")  // in the snapshot only
	wl.submit(3, "carol") // after the snapshot
	s.apply(wl.entries[0])
	if err := w.Append(1, wl.entries[0], nil); err != nil {
		t.Fatal(err)
	}
	s.apply(wl.entries[1])
	s.apply(wl.entries[2])
	w.Skip(3)
	w.Skip(2) // behind: nothing
	if len(warned) != 1 || !strings.Contains(warned[0], "log entries 2-3") {
		t.Errorf("warnings %q", warned)
	}
	s.apply(wl.entries[3])
	if err := w.Append(4, wl.entries[3], nil); err != nil {
		t.Fatal(err)
	}
	if w.LastIndex() != 4 {
		t.Errorf("LastIndex %d, want 4", w.LastIndex())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recordTypes(t, filepath.Join(dir, EventsFile)), " "); got != `"LOG_SWITCH" "JOB_NEW" "JOB_NEW" "JOB_START" "JOB_START_ACCEPT" "JOB_EXECUTE" "JOB_NEW"` {
		t.Errorf("new lsb.events records: %s", got)
	}
}

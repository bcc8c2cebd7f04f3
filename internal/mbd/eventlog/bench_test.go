package eventlog

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// benchJobs sizes the event files of BenchmarkReadHistory.
var benchJobs = flag.Int("eventlog.benchjobs", 2000, "jobs in the event file BenchmarkReadHistory reads")

func benchSubmit() *api.Event {
	return &api.Event{Time: t0 * 1e9, User: "alice", UID: 1001, JobNew: &api.EvJobNew{
		JobID: 123456, Queue: "normal", Project: "default", NumProcs: 4, MaxProcs: 4, JobName: "Snakemake_rule___(uuid)",
		Spec: &api.JobSpec{Command: "python -m snakemake --snakefile /w/Snakefile --target-jobs 'a:x=1' --cores 4",
			JobName: "Snakemake_rule___(uuid)", Queues: []string{"normal"}, ResReq: []string{"span[hosts=1]", "rusage[mem=4000]"},
			OutFile: "/w/.snakemake/lsf_logs/rule/x.log", ErrFile: "/w/.snakemake/lsf_logs/rule/x.log",
			Cwd: "/w", SubCwd: "/w", SubHome: "/home/alice", FromHost: "login1", Project: "default",
			Limits: &api.Limits{Run: 3600, Mem: 4096000}},
	}}
}

func BenchmarkRenderJobNew(b *testing.B) {
	ev := benchSubmit()
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		recs, _ := Render(ev, nil)
		buf = AppendRecord(buf[:0], recs[0])
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkRenderJobFinish(b *testing.B) {
	job := testJob()
	job.EndTime = t0 + 100
	ev := &api.Event{Time: (t0 + 100) * 1e9, JobStatus: &api.EvJobStatus{JobID: 9, State: api.StateDone, RunCount: 1,
		Usage: &api.Usage{CPUTime: 10, UTime: 8, STime: 2, MaxMem: 5000, AvgMem: 4000, RunTime: 94}}}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		evs, acct := Render(ev, job)
		buf = AppendRecord(buf[:0], evs[0])
		buf = AppendRecord(buf, acct[0])
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkParseJobNew(b *testing.B) {
	recs, _ := Render(benchSubmit(), nil)
	l := recs[0].Format()
	b.SetBytes(int64(len(l)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRecord(l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseJobFinish(b *testing.B) {
	job := testJob()
	job.EndTime = t0 + 100
	_, acct := Render(&api.Event{Time: (t0 + 100) * 1e9, JobStatus: &api.EvJobStatus{JobID: 9, State: api.StateDone,
		Usage: &api.Usage{CPUTime: 10}}}, job)
	l := acct[0].Format()
	b.SetBytes(int64(len(l)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRecord(l); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriterAppend appends job lifecycles (submit; dispatch+execute;
// finish: 3 entries, 5 lsb.events records and 1 lsb.acct record per job),
// without fsync, log switches every 1000 jobs included.
func BenchmarkWriterAppend(b *testing.B) {
	dir := b.TempDir()
	s := newSim()
	w, err := Open(dir, Options{SyncEvery: -1, Jobs: s})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	var idx uint64
	id := int64(0)
	b.ReportAllocs()
	for b.Loop() {
		id++
		var wl workload
		wl.submit(id, "alice")
		wl.start(id, 0, "h1")
		wl.finish(id, 0, api.StateDone)
		wl.add(&api.Event{JobClean: &api.EvJobClean{JobID: id}})
		for _, e := range wl.entries {
			s.apply(e)
			idx++
			if err := w.Append(idx, e, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkReadHistory(b *testing.B) {
	dir := b.TempDir()
	s := newSim()
	w, err := Open(dir, Options{SyncEvery: -1, MaxJobNum: 1 << 30, Jobs: s})
	if err != nil {
		b.Fatal(err)
	}
	var idx uint64
	for id := int64(1); id <= int64(*benchJobs); id++ {
		var wl workload
		wl.submit(id, "alice")
		wl.start(id, 0, "h1")
		wl.finish(id, 0, api.StateDone)
		for _, e := range wl.entries {
			s.apply(e)
			idx++
			w.Append(idx, e, nil)
		}
	}
	w.Close()
	st, _ := os.Stat(filepath.Join(dir, EventsFile))
	b.SetBytes(st.Size())
	q := &HistoryQuery{Dir: dir, Filter: Filter{Jobs: []*api.JobRef{{JobID: int64(*benchJobs / 2)}}}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := ReadHistory(context.Background(), q)
		if err != nil || len(res.Jobs) != 1 {
			b.Fatal(err, len(res.Jobs))
		}
	}
}

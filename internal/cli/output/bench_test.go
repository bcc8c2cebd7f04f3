package output

import (
	"flag"
	"io"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// benchJobs is the size of the job lists the benchmarks format (a busy
// cluster's "bjobs -u all").
var benchJobs = flag.Int("bench.jobs", 10000, "jobs per benchmark iteration")

func manyJobs(n int) []*api.JobRecord {
	base := fixtureJobs()
	out := make([]*api.JobRecord, n)
	for i := range out {
		j := *base[i%len(base)]
		j.JobID = int64(1000 + i)
		out[i] = &j
	}
	return out
}

func BenchmarkWriteJobs(b *testing.B) {
	jobs := manyJobs(*benchJobs)
	o := opts()
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteJobs(io.Discard, jobs, o, JobsFlags{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteJobsCustom(b *testing.B) {
	jobs := manyJobs(*benchJobs)
	f, err := ParseFormat("jobid stat user queue exec_host job_name submit_time", JobFields)
	if err != nil {
		b.Fatal(err)
	}
	o := opts()
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteJobsCustom(io.Discard, jobs, f, o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteJobsJSON(b *testing.B) {
	jobs := manyJobs(*benchJobs)
	f, err := ParseFormat("jobid stat user queue exec_host job_name submit_time output_file", JobFields)
	if err != nil {
		b.Fatal(err)
	}
	o := opts()
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteJobsJSON(io.Discard, jobs, f, nil, o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteJobsLong(b *testing.B) {
	jobs := manyJobs(*benchJobs / 10)
	o := opts()
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteJobsLong(io.Discard, jobs, o, JobsFlags{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseFormat(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseFormat("jobid:7 stat:-5 user queue exec_host job_name:10 submit_time mem::MB delimiter='|'", JobFields); err != nil {
			b.Fatal(err)
		}
	}
}

package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// fakeBatch answers batch calls from canned replies and records requests.
type fakeBatch struct {
	replies map[string][]wire.Message // method -> replies (one for Call)
	err     error
	reqs    map[string]wire.Message
}

func (f *fakeBatch) Call(_ context.Context, method string, req, resp wire.Message) error {
	f.reqs[method] = req
	if f.err != nil {
		return f.err
	}
	rs := f.replies[method]
	if len(rs) == 0 {
		return rpc.Errorf(rpc.Unimplemented, "no reply for %s", method)
	}
	return resp.UnmarshalWire(wire.Marshal(rs[0]))
}

func (f *fakeBatch) Stream(_ context.Context, method string, req wire.Message) (batchStream, error) {
	f.reqs[method] = req
	if f.err != nil {
		return nil, f.err
	}
	return &fakeStream{msgs: f.replies[method]}, nil
}

func (f *fakeBatch) Close() error { return nil }

type fakeStream struct{ msgs []wire.Message }

func (s *fakeStream) Recv(m wire.Message) error {
	if len(s.msgs) == 0 {
		return io.EOF
	}
	b := wire.Marshal(s.msgs[0])
	s.msgs = s.msgs[1:]
	return m.UnmarshalWire(b)
}

var testNow = time.Date(2026, time.March, 31, 15, 0, 0, 0, time.UTC)

// runBatch runs a command against fake replies and returns its stdout,
// stderr and exit status.
func runBatch(t *testing.T, fake *fakeBatch, envVars map[string]string, run func(context.Context, *Env, []string) int, args ...string) (string, string, int) {
	t.Helper()
	if fake.reqs == nil {
		fake.reqs = map[string]wire.Message{}
	}
	saved := dialBatch
	dialBatch = func(context.Context, *Env) (batchClient, error) { return fake, nil }
	defer func() { dialBatch = saved }()
	savedLocal := time.Local
	time.Local = time.UTC
	defer func() { time.Local = savedLocal }()
	var out, errb bytes.Buffer
	env := &Env{
		Name: "test", Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return envVars[k] },
		Environ: func() []string {
			var kv []string
			for k, v := range envVars {
				kv = append(kv, k+"="+v)
			}
			return kv
		},
		Getwd: func() (string, error) { return "/", nil },
		Clock: clock.NewFake(testNow),
	}
	rc := run(context.Background(), env, args)
	return out.String(), errb.String(), rc
}

func sampleJobs() []*api.JobRecord {
	return []*api.JobRecord{
		{JobID: 12, User: "alice", State: api.StateRun, Queue: "normal", FromHost: "hostA",
			ExecHosts: []*api.ExecHost{{Host: "hostB", Slots: 1}}, JobName: "sleep 60",
			SubmitTime: testNow.Add(-time.Hour).Unix(), StartTime: testNow.Add(-50 * time.Minute).Unix(),
			Spec: &api.JobSpec{Command: "sleep 60", OutFile: "/tmp/o"}},
		{JobID: 13, User: "alice", State: api.StateDone, Queue: "short", FromHost: "hostA",
			ExecHosts: []*api.ExecHost{{Host: "hostB", Slots: 1}}, JobName: "true",
			SubmitTime: testNow.Add(-time.Hour).Unix(), StartTime: testNow.Add(-59 * time.Minute).Unix(),
			EndTime: testNow.Add(-58 * time.Minute).Unix(), Spec: &api.JobSpec{Command: "true"}},
	}
}

func TestBjobs(t *testing.T) {
	jobs := sampleJobs()
	reply := func(j []*api.JobRecord, nf ...*api.JobRef) *fakeBatch {
		return &fakeBatch{replies: map[string][]wire.Message{"MBatchd.Jobs": {&api.JobsReply{Jobs: j, NotFound: nf}}}}
	}
	tests := []struct {
		name      string
		fake      *fakeBatch
		env       map[string]string
		args      []string
		out, errs string
		rc        int
		checkReq  func(*api.JobsRequest) bool
	}{
		{name: "default", fake: reply(jobs[:1]), args: nil,
			out: "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n" +
				"12      alice   RUN   normal     hostA       hostB       sleep 60   Mar 31 14:00\n",
			checkReq: func(r *api.JobsRequest) bool { return r.User == "" && !r.IncludeFinished && r.StateMask == 0 }},
		{name: "o noheader", fake: reply(jobs), args: []string{"-noheader", "-o", "jobid stat", "12", "13"},
			out:      "12 RUN\n13 DONE\n",
			checkReq: func(r *api.JobsRequest) bool { return len(r.Jobs) == 2 && r.User == "all" && r.IncludeFinished }},
		{name: "o stat only", fake: reply(jobs[1:]), args: []string{"-o", "stat", "-noheader", "13"}, out: "DONE\n"},
		{name: "delimiter", fake: reply(jobs[:1]), args: []string{"-o", "jobid stat queue delimiter='|'"},
			out: "JOBID|STAT|QUEUE\n12|RUN|normal\n"},
		{name: "env format", fake: reply(jobs[:1]), env: map[string]string{"LSB_BJOBS_FORMAT": "id user"}, args: nil,
			out: "JOBID USER\n12 alice\n"},
		{name: "not found", fake: reply(nil, &api.JobRef{JobID: 99}), args: []string{"99"},
			errs: "Job <99> is not found\n", rc: ExitUsage},
		{name: "some not found", fake: reply(jobs[:1], &api.JobRef{JobID: 99, Index: 2}), args: []string{"-noheader", "-o", "id", "12", "99[2]"},
			out: "12\n", errs: "Job <99[2]> is not found\n", rc: ExitUsage},
		{name: "no unfinished", fake: reply(nil), errs: "No unfinished job found\n"},
		{name: "no pending", fake: reply(nil), args: []string{"-p"}, errs: "No pending job found\n",
			checkReq: func(r *api.JobsRequest) bool { return r.StateMask == uint32(api.StatePend|api.StatePSusp) }},
		{name: "no job -a", fake: reply(nil), args: []string{"-a"}, errs: "No job found\n"},
		{name: "consistent exit", fake: reply(nil), env: map[string]string{"LSB_BJOBS_CONSISTENT_EXIT_CODE": "Y"},
			errs: "No unfinished job found\n", rc: ExitUsage},
		{name: "json empty", fake: reply(nil), args: []string{"-json", "-o", "jobid stat"},
			out: "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":0,\n  \"RECORDS\":[\n  ]\n}\n"},
		{name: "json", fake: reply(jobs[:1], &api.JobRef{JobID: 5}), args: []string{"-o", "id proj output_file", "-json", "12", "5"},
			out: "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":2,\n  \"RECORDS\":[\n    {\n      \"JOBID\":\"12\",\n      \"PROJ_NAME\":\"default\",\n      \"OUTPUT_FILE\":\"\\/tmp\\/o\"\n    },\n" +
				"    {\n      \"JOBID\":\"5\",\n      \"ERROR\":\"Job <5> is not found\"\n    }\n  ]\n}\n", rc: ExitUsage},
		{name: "json without o", fake: reply(nil), args: []string{"-json"}, rc: ExitUsage},
		{name: "bad field", fake: reply(nil), args: []string{"-o", "jobid nope"},
			errs: "<nope> in the format string is not a valid field name.\n", rc: ExitUsage},
		{name: "l and w", fake: reply(nil), args: []string{"-l", "-w"}, rc: ExitUsage},
		{name: "bad job id", fake: reply(nil), args: []string{"12x"}, errs: "12x: Illegal job ID.\n", rc: ExitUsage},
		{name: "array ids", fake: reply(nil), args: []string{"-o", "id", "7[1-3,5]"},
			checkReq: func(r *api.JobsRequest) bool {
				return len(r.Jobs) == 4 && r.Jobs[0].JobID == 7 && r.Jobs[0].Index == 1 && r.Jobs[3].Index == 5
			}},
		{name: "filters", fake: reply(nil), args: []string{"-u", "all", "-q", "night", "-m", "hostB", "-J", "x*", "-P", "p", "-lp"},
			errs: "No pending job found\n",
			checkReq: func(r *api.JobsRequest) bool {
				return r.User == "all" && r.Queue == "night" && r.Host == "hostB" && r.JobName == "x*" && r.Project == "p" && r.Detail && r.PendHosts
			}},
		{name: "unavailable", fake: &fakeBatch{err: rpc.Errorf(rpc.Unavailable, "connection refused")}, rc: ExitUsage,
			errs: "Cannot connect to LSF. Please wait ...: connection refused\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, rc := runBatch(t, tt.fake, tt.env, runBjobs, tt.args...)
			if out != tt.out || rc != tt.rc || (tt.errs != "" && errs != tt.errs) {
				t.Errorf("bjobs %v:\nstdout %q\nwant   %q\nstderr %q\nwant   %q\nrc %d want %d", tt.args, out, tt.out, errs, tt.errs, rc, tt.rc)
			}
			if tt.checkReq != nil {
				req, _ := tt.fake.reqs["MBatchd.Jobs"].(*api.JobsRequest)
				if req == nil || !tt.checkReq(req) {
					t.Errorf("bjobs %v: request %+v", tt.args, req)
				}
			}
		})
	}
}

func TestParseIndexList(t *testing.T) {
	tests := []struct {
		in   string
		want []int32
		bad  bool
	}{
		{"1-3", []int32{1, 2, 3}, false},
		{"1-10:4,20", []int32{1, 5, 9, 20}, false},
		{"5", []int32{5}, false},
		{"0", nil, true},
		{"3-1", nil, true},
		{"1-5:0", nil, true},
		{"x", nil, true},
		{"1-2000000000", nil, true},
	}
	for _, tt := range tests {
		got, err := parseIndexList(tt.in)
		if (err != nil) != tt.bad || (!tt.bad && !equalInts(got, tt.want)) {
			t.Errorf("parseIndexList(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func equalInts(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

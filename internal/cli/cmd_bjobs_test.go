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

func (f *fakeBatch) Call(_ context.Context, m api.MethodDesc, req, resp wire.Message) error {
	method := m.RPCMethod().Name()
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

func (f *fakeBatch) Stream(_ context.Context, m api.MethodDesc, req wire.Message) (batchStream, error) {
	method := m.RPCMethod().Name()
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
			errs: "Job <99> is not found\n"},
		{name: "not found, consistent exit", fake: reply(nil, &api.JobRef{JobID: 99}), args: []string{"99"},
			env: map[string]string{"LSB_BJOBS_CONSISTENT_EXIT_CODE": "Y"}, errs: "Job <99> is not found\n", rc: ExitUsage},
		{name: "some not found", fake: reply(jobs[:1], &api.JobRef{JobID: 99, Index: 2}), args: []string{"-noheader", "-o", "id", "12", "99[2]"},
			out: "12\n", errs: "Job <99[2]> is not found\n", rc: ExitUsage},
		{name: "no unfinished", fake: reply(nil), errs: "No unfinished job found\n"},
		{name: "A lists arrays only", fake: reply(append(sampleJobs()[:1], &api.JobRecord{JobID: 14, Index: 2, User: "alice",
			State: api.StatePend, JobName: "arr[2]", ArraySpec: "[1-3]"})), args: []string{"-A"},
			out: "JOBID    ARRAY_SPEC  OWNER   NJOBS PEND DONE  RUN EXIT SSUSP USUSP PSUSP\n" +
				"14       arr[1-3]    alice       1    1    0    0    0     0     0     0\n"},
		{name: "A without arrays", fake: reply(jobs[:1]), args: []string{"-A"}, errs: "No unfinished job found\n"},
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

// TestBatchQueryCommands runs the other query commands against canned
// replies: what they ask mbatchd, what they print, their messages and exit
// statuses.
func TestBatchQueryCommands(t *testing.T) {
	jobs := sampleJobs()
	calls := func(method string, replies ...wire.Message) *fakeBatch {
		return &fakeBatch{replies: map[string][]wire.Message{method: replies}}
	}
	queues := &api.QueuesReply{Queues: []*api.QueueInfo{{Name: "normal", Priority: 30, Open: true, Active: true, NJobs: 2, Run: 2}}}
	hosts := &api.HostsReply{Hosts: []*api.HostInfo{{Name: "hostA", Status: "closed_Full", Max: 2, NJobs: 2, Run: 2}}}
	hist := &api.HistoryReply{Jobs: []*api.JobHistory{{Job: jobs[1], Events: []*api.HistoryEvent{
		{Time: jobs[1].SubmitTime, Kind: "JOB_NEW"}, {Time: jobs[1].StartTime, Kind: "JOB_START"},
		{Time: jobs[1].EndTime, Kind: "JOB_STATUS", State: api.StateDone}}}}}
	tests := []struct {
		name      string
		run       func(context.Context, *Env, []string) int
		fake      *fakeBatch
		args      []string
		out, errs string
		rc        int
		method    string
		checkReq  func(wire.Message) bool
	}{
		{name: "bqueues", run: runBqueues, fake: calls("MBatchd.Queues", queues),
			out: "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP\n" +
				"normal           30  Open:Active       -    -    -    -     2     0     2     0\n"},
		{name: "bqueues missing", run: runBqueues, fake: calls("MBatchd.Queues", &api.QueuesReply{NotFound: []string{"nosuch"}}),
			args: []string{"nosuch"}, errs: "nosuch: No such queue\n", rc: ExitUsage, method: "MBatchd.Queues",
			checkReq: func(m wire.Message) bool {
				r := m.(*api.QueuesRequest)
				return len(r.Queues) == 1 && r.Queues[0] == "nosuch"
			}},
		{name: "bqueues l w", run: runBqueues, fake: calls("MBatchd.Queues", queues), args: []string{"-l", "-w"}, rc: ExitUsage},
		{name: "bhosts", run: runBhosts, fake: calls("MBatchd.Hosts", hosts),
			out: "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV\n" +
				"hostA              closed          -      2      2      2      0      0      0\n"},
		{name: "bhosts w", run: runBhosts, fake: calls("MBatchd.Hosts", hosts), args: []string{"-w", "-R", "mem>1"},
			out: "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV\n" +
				"hostA              closed_Full     -      2      2      2      0      0      0\n",
			method: "MBatchd.Hosts", checkReq: func(m wire.Message) bool { return m.(*api.HostsRequest).ResReq == "mem>1" }},
		{name: "busers", run: runBusers, fake: calls("MBatchd.Users", &api.UsersReply{Users: []*api.UserInfo{{Name: "alice", NJobs: 1, Run: 1}}}),
			args: []string{"alice"},
			out:  "USER/GROUP          JL/P    MAX  NJOBS   PEND    RUN  SSUSP  USUSP    RSV\nalice                  -      -      1      0      1      0      0      0\n"},
		{name: "bparams a", run: runBparams, fake: calls("MBatchd.Params", &api.ParamsReply{Params: []*api.KeyValue{{Key: "DEFAULT_QUEUE", Value: "normal"}}}),
			args: []string{"-a"}, out: "lsb.params configuration at Tue Mar 31 15:00:00 2026\n    DEFAULT_QUEUE = normal\n"},
		{name: "bparams", run: runBparams, fake: calls("MBatchd.Params", &api.ParamsReply{}),
			out: "Default Queues:  normal\nMBD_SLEEP_TIME used for calculations:  10 seconds\nJob Checking Interval:  7 seconds\nJob Accepting Interval:  0 seconds\n"},
		{name: "bugroup", run: func(ctx context.Context, env *Env, a []string) int { return runGroups(ctx, env, a, false) },
			fake: calls("MBatchd.Groups", &api.GroupsReply{Groups: []*api.Group{{Name: "g1", Members: []string{"alice", "bob"}}}}),
			out:  "GROUP_NAME    USERS\ng1            alice bob \n", method: "MBatchd.Groups",
			checkReq: func(m wire.Message) bool { return !m.(*api.GroupsRequest).HostGroups }},
		{name: "bmgroup missing", run: func(ctx context.Context, env *Env, a []string) int { return runGroups(ctx, env, a, true) },
			fake: calls("MBatchd.Groups", &api.GroupsReply{NotFound: []string{"hg"}}), args: []string{"-r", "hg"},
			errs: "hg: No such host group\n", rc: ExitUsage, method: "MBatchd.Groups",
			checkReq: func(m wire.Message) bool { r := m.(*api.GroupsRequest); return r.HostGroups && r.Recursive }},
		{name: "bhist", run: runBhist, fake: calls("MBatchd.History", hist), args: []string{"13"},
			out: "Summary of time in seconds spent in various states:\n" +
				"JOBID   USER    JOB_NAME  PEND    PSUSP   RUN     USUSP   SSUSP   UNKWN   TOTAL\n" +
				"13      alice   true      60      0       60      0       0       0       120    \n",
			method: "MBatchd.History", checkReq: func(m wire.Message) bool {
				r := m.(*api.JobsRequest)
				return r.User == "all" && r.IncludeFinished && len(r.Jobs) == 1
			}},
		{name: "bhist none", run: runBhist, fake: calls("MBatchd.History"), errs: "No matching job found\n", rc: ExitUsage},
		{name: "bacct l", run: runBacct, fake: calls("MBatchd.Acct", &api.JobsReply{Jobs: jobs[1:]}), args: []string{"-l", "13"},
			method: "MBatchd.Acct", checkReq: func(m wire.Message) bool {
				return m.(*api.JobsRequest).StateMask == uint32(api.StateDone|api.StateExit)
			}},
		{name: "bacct e", run: runBacct, fake: calls("MBatchd.Acct"), args: []string{"-e", "-u", "all"},
			method: "MBatchd.Acct", checkReq: func(m wire.Message) bool {
				r := m.(*api.JobsRequest)
				return r.StateMask == uint32(api.StateExit) && r.User == "all"
			}},
		{name: "bqueues unavailable", run: runBqueues, fake: &fakeBatch{err: rpc.Errorf(rpc.Unavailable, "down")},
			errs: "Cannot connect to LSF. Please wait ...: down\n", rc: ExitUsage},
		{name: "bhosts bad option", run: runBhosts, fake: calls("MBatchd.Hosts"), args: []string{"-Z"}, rc: ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, rc := runBatch(t, tt.fake, map[string]string{"USER": "alice"}, tt.run, tt.args...)
			if (tt.out != "" && out != tt.out) || rc != tt.rc || (tt.errs != "" && errs != tt.errs) {
				t.Errorf("%v:\nstdout %q\nwant   %q\nstderr %q\nwant   %q\nrc %d want %d", tt.args, out, tt.out, errs, tt.errs, rc, tt.rc)
			}
			if tt.checkReq != nil && (tt.fake.reqs[tt.method] == nil || !tt.checkReq(tt.fake.reqs[tt.method])) {
				t.Errorf("%v: request %+v", tt.args, tt.fake.reqs[tt.method])
			}
		})
	}
	// bacct -l prints the completion line Toil looks for.
	out, _, rc := runBatch(t, calls("MBatchd.Acct", &api.JobsReply{Jobs: jobs[1:]}), nil, runBacct, "-l", "13")
	if rc != 0 || !strings.Contains(out, ": Completed <done>.\n") {
		t.Errorf("bacct -l: rc %d\n%s", rc, out)
	}
}

package output

import (
	"slices"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// ibmJobFields is IBM LSF 10.1's "Table 1. Output fields for bjobs" (bjobs
// -o, Fix Pack 14), in its order: field name, recommended width (0: none),
// aliases, and whether the field takes a unit prefix (the fields the
// table's text lists: mem, max_mem, avg_mem, memlimit, swap, swaplimit,
// corelimit, stacklimit and hrusage). cpu_efficiency is Fix Pack 13's name
// of cpu_peak_efficiency. rc_account and vm_type follow the table: they
// are not in it.
var ibmJobFields = []struct {
	name    string
	width   int
	aliases string
	unit    bool
}{
	{"jobid", 7, "id", false},
	{"jobindex", 8, "", false},
	{"stat", 5, "", false},
	{"user", 7, "", false},
	{"user_group", 15, "ugroup", false},
	{"queue", 10, "", false},
	{"job_name", 10, "name", false},
	{"job_description", 17, "description", false},
	{"proj_name", 11, "proj project", false},
	{"application", 13, "app", false},
	{"service_class", 13, "sla", false},
	{"job_group", 10, "group", false},
	{"job_priority", 12, "priority", false},
	{"rsvid", 40, "", false},
	{"esub", 20, "", false},
	{"kill_reason", 50, "", false},
	{"suspend_reason", 50, "", false},
	{"resume_reason", 50, "", false},
	{"kill_issue_host", 50, "", false},
	{"suspend_issue_host", 50, "", false},
	{"resume_issue_host", 50, "", false},
	{"dependency", 15, "", false},
	{"pend_reason", 11, "", false},
	{"charged_saap", 50, "saap", false},
	{"command", 15, "cmd", false},
	{"pre_exec_command", 16, "pre_cmd", false},
	{"post_exec_command", 17, "post_cmd", false},
	{"resize_notification_command", 27, "resize_cmd", false},
	{"pids", 20, "", false},
	{"exit_code", 10, "", false},
	{"exit_reason", 50, "", false},
	{"interactive", 11, "", false},
	{"from_host", 11, "", false},
	{"first_host", 11, "", false},
	{"exec_host", 11, "", false},
	{"nexec_host", 10, "", false},
	{"ask_hosts", 30, "", false},
	{"alloc_slot", 20, "", false},
	{"nalloc_slot", 10, "", false},
	{"host_file", 10, "", false},
	{"exclusive", 13, "", false},
	{"nreq_slot", 10, "", false},
	{"submit_time", 15, "", false},
	{"start_time", 15, "", false},
	{"estimated_start_time", 20, "estart_time", false},
	{"specified_start_time", 20, "sstart_time", false},
	{"specified_terminate_time", 24, "sterminate_time", false},
	{"time_left", 11, "", false},
	{"finish_time", 16, "", false},
	{"estimated_run_time", 20, "ertime", false},
	{"ru_utime", 12, "", false},
	{"ru_stime", 12, "", false},
	{"%complete", 11, "", false},
	{"warning_action", 15, "warn_act", false},
	{"action_warning_time", 19, "warn_time", false},
	{"pendstate", 9, "", false},
	{"pend_time", 12, "", false},
	{"ependtime", 12, "", false},
	{"ipendtime", 12, "", false},
	{"estimated_sim_start_time", 24, "esstart_time", false},
	{"effective_plimit", 18, "", false},
	{"plimit_remain", 15, "", false},
	{"effective_eplimit", 19, "", false},
	{"eplimit_remain", 16, "", false},
	{"cpu_used", 10, "", false},
	{"run_time", 15, "", false},
	{"idle_factor", 11, "", false},
	{"exception_status", 16, "except_stat", false},
	{"slots", 5, "", false},
	{"mem", 10, "", true},
	{"max_mem", 10, "", true},
	{"avg_mem", 10, "", true},
	{"memlimit", 10, "", true},
	{"swap", 10, "", true},
	{"swaplimit", 10, "", true},
	{"gpu_num", 10, "gnum", false},
	{"gpu_mode", 20, "gmode", false},
	{"j_exclusive", 15, "j_excl", false},
	{"gpu_alloc", 30, "galloc", false},
	{"nthreads", 10, "", false},
	{"hrusage", 50, "", true},
	{"min_req_proc", 12, "", false},
	{"max_req_proc", 12, "", false},
	{"effective_resreq", 17, "eresreq", false},
	{"combined_resreq", 20, "cresreq", false},
	{"network_req", 15, "", false},
	{"filelimit", 10, "", true}, // a size, as the others: Basalt takes a unit for it too
	{"corelimit", 10, "", true},
	{"stacklimit", 10, "", true},
	{"processlimit", 12, "", false},
	{"runtimelimit", 12, "", false},
	{"plimit", 10, "", false},
	{"eplimit", 10, "", false},
	{"input_file", 10, "", false},
	{"output_file", 11, "", false},
	{"error_file", 10, "", false},
	{"output_dir", 15, "", false},
	{"sub_cwd", 10, "", false},
	{"exec_home", 10, "", false},
	{"exec_cwd", 10, "", false},
	{"licproject", 20, "", false},
	{"forward_cluster", 15, "fwd_cluster", false},
	{"forward_time", 15, "fwd_time", false},
	{"srcjobid", 8, "", false},
	{"dstjobid", 8, "", false},
	{"source_cluster", 15, "srcluster", false},
	{"energy", 0, "", false},
	{"gpfsio", 0, "", false},
	{"cpu_peak", 10, "", false},
	{"cpu_peak_efficiency", 10, "cpu_efficiency", false},
	{"mem_efficiency", 10, "", false},
	{"average_cpu_efficiency", 10, "", false},
	{"cpu_peak_reached_duration", 10, "", false},
	{"rc_account", 20, "", false},
	{"vm_type", 20, "", false},
}

// TestJobFieldsAreIBMs: bjobs -o has exactly IBM's fields, in IBM's
// order, with IBM's recommended widths and aliases and no alias of its
// own; each prints its upper-case name as header (and -json key), also
// when asked for by an alias.
func TestJobFieldsAreIBMs(t *testing.T) {
	got := JobFields.Fields()
	if len(got) != len(ibmJobFields) {
		t.Errorf("%d bjobs -o fields, IBM's table has %d", len(got), len(ibmJobFields))
	}
	for i, want := range ibmJobFields {
		if i >= len(got) {
			break
		}
		f := got[i]
		if f.Name != want.name {
			t.Errorf("field %d is %s, want %s", i+1, f.Name, want.name)
			continue
		}
		aliases := strings.Fields(want.aliases)
		if f.Width != want.width || f.Header != strings.ToUpper(want.name) || f.Memory != want.unit ||
			!slices.Equal(f.Aliases, aliases) && len(f.Aliases)+len(aliases) > 0 {
			t.Errorf("%s: width %d header %q unit %v aliases %q; want %d %q %v %q",
				f.Name, f.Width, f.Header, f.Memory, f.Aliases, want.width, strings.ToUpper(want.name), want.unit, aliases)
		}
		for _, a := range append(aliases, strings.ToUpper(want.name)) {
			c, err := ParseFormat(a+":", JobFields)
			if err != nil || c.Columns[0].Name != want.name || c.Columns[0].Header != strings.ToUpper(want.name) || c.Columns[0].Width != want.width {
				t.Errorf("-o %q: %+v, %v", a+":", c, err)
			}
		}
	}
}

// TestJobFieldWidthsInOutput: "field:" pads to the recommended width (a
// longer value is cut, JOB_NAME keeps its end after '*'), "field:-" is
// right-justified, a field with no recommended width is unpadded.
func TestJobFieldWidthsInOutput(t *testing.T) {
	j := &api.JobRecord{JobID: 1234, User: "alice", State: api.StateRun, Queue: "normal",
		Spec:      &api.JobSpec{JobName: "averyveryverylongname", Command: "sleep 1"},
		StartTime: 100, Usage: &api.Usage{Mem: 2048}}
	tests := []struct{ spec, want string }{
		{"jobid: stat: user:", "JOBID   STAT  USER   \n1234    RUN   alice  \n"},
		{"jobid:- queue:-", "  JOBID      QUEUE\n   1234     normal\n"},
		{"name:", "JOB_NAME  \n*ylongname\n"},
		{"mem: mem:-:M", "MEM               MEM\n2 Mbytes        2.00M\n"},
		{"energy: gpfsio: id", "ENERGY GPFSIO JOBID\n- - 1234\n"},
		{"id delimiter='|' stat", "JOBID|STAT\n1234|RUN\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := WriteJobsCustom(&b, []*api.JobRecord{j}, mustFormat(t, tt.spec), opts()); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("-o %q:\n%q\nwant\n%q", tt.spec, b.String(), tt.want)
		}
	}
}

// TestJobColumnsFromEnvironment: LSB_JOBID_DISP_LENGTH widens a jobid
// column given no width number (IBM 10.1: "If the jobid field is defined
// with no output width and LSB_JOBID_DISP_LENGTH is defined ... that value
// is used"); LSB_UNIT_FOR_JOBS_DISPLAY is the memory fields' unit unless
// the field gives its own.
func TestJobColumnsFromEnvironment(t *testing.T) {
	j := &api.JobRecord{JobID: 12, State: api.StateRun, StartTime: 100, Usage: &api.Usage{Mem: 10 * 1024}}
	o := opts()
	o.JobIDWidth, o.Unit = 9, "G"
	tests := []struct{ spec, want string }{
		{"jobid stat", "JOBID     STAT\n12        RUN\n"},
		{"jobid: stat", "JOBID     STAT\n12        RUN\n"},
		{"jobid:4 stat", "JOBI STAT\n12   RUN\n"},
		{"mem mem::M", "MEM MEM       \n0.01G 10.00M    \n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := WriteJobsCustom(&b, []*api.JobRecord{j}, mustFormat(t, tt.spec), o); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("-o %q:\n%q\nwant\n%q", tt.spec, b.String(), tt.want)
		}
	}
}

// TestIBMFormatExample parses the example of IBM's bjobs -o page: JOBID
// unlimited and left-aligned, STAT 5 wide (its recommended width), QUEUE
// 10 wide right-aligned, PROJECT (PROJ_NAME) 10 wide, APPLICATION 6 wide
// right-aligned, MEM 12 wide in G, '^' between columns.
func TestIBMFormatExample(t *testing.T) {
	f, err := ParseFormat(`jobid stat: queue:- project:10 application:-6 mem:12:G delimiter='^'`, JobFields)
	if err != nil {
		t.Fatal(err)
	}
	want := []Column{
		{Name: "jobid", Header: "JOBID", Col: 1},
		{Name: "stat", Header: "STAT", Width: 5, Col: 7},
		{Name: "queue", Header: "QUEUE", Width: 10, Right: true, Col: 13},
		{Name: "proj_name", Header: "PROJ_NAME", Width: 10, Sized: true, Col: 21},
		{Name: "application", Header: "APPLICATION", Width: 6, Sized: true, Right: true, Col: 32},
		{Name: "mem", Header: "MEM", Width: 12, Sized: true, Unit: "G", Col: 47},
	}
	if f.Delimiter != "^" || !slices.Equal(f.Columns, want) {
		t.Errorf("got %+v delimiter %q\nwant %+v", f.Columns, f.Delimiter, want)
	}
	var b strings.Builder
	j := &api.JobRecord{JobID: 123, State: api.StatePend, Queue: "normal", Spec: &api.JobSpec{App: "fluent"}}
	if err := WriteJobsCustom(&b, []*api.JobRecord{j}, f, opts()); err != nil {
		t.Fatal(err)
	}
	if want := "JOBID^STAT ^     QUEUE^PROJ_NAME ^APPLIC^MEM         \n123^PEND ^    normal^default   ^fluent^-           \n"; b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

package output

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/lim/lsfmt"
)

// fixtureLoads are lsload/lshosts records: an ordinary host, a busy host
// with big memory values and an external index, an unavailable host and a
// host that reported nothing.
func fixtureLoads() []*api.HostLoad {
	return []*api.HostLoad{
		{Name: "host1", Load: []float64{0.5, 0.7, 0.9, 0.25, 1.5, 120, 2, 0, 15000, 2048, 3500},
			Static: &api.HostStatic{NCPUs: 2, NProcs: 1, NCores: 2, NThreads: 1, MaxMem: 7800, MaxSwp: 2048, MaxTmp: 50000, NDisks: 1},
			Type:   "X86_64", Model: "x86_64", CPUF: 1, Server: true, Resources: []string{"fs"}},
		{Name: "host2.example.org", Status: api.LimBusy, Busy: []string{"r15s", "r1m"},
			Load:   []float64{4.2, 6.1, 3, 0.97, 0, 2, 0, 120, 900, 0, 1500000},
			Ext:    []*api.IndexValue{{Name: "scratch", Value: 12345.5}},
			Static: &api.HostStatic{NCPUs: 4, MaxMem: 16000}, Type: "X86_64", Model: "FastBox", CPUF: 2, Server: true,
			RunWindow: "8:00-18:00"},
		{Name: "host3", Status: api.LimUnavail, Type: "X86_64", Model: "x86_64", CPUF: 1, Server: true},
		{Name: "client1", Type: "LINUX64", Model: "Generic", CPUF: 1.5},
	}
}

func parse(t *testing.T, spec string, set *FieldSet) *Format {
	t.Helper()
	f, err := ParseFormat(spec, set)
	if err != nil {
		t.Fatalf("ParseFormat(%q): %v", spec, err)
	}
	return f
}

// TestTableFieldSets: names and aliases in any case, the header each
// prints (the field's upper-case name for the batch commands, also for an
// alias; the default listing's header for lsload and lshosts) and the
// recommended width of "name:".
func TestTableFieldSets(t *testing.T) {
	tests := []struct {
		set    *FieldSet
		spec   string
		header []string
		width  []int
	}{
		{HostFields, "HOST_NAME STATUS JL_U MAX NJOBS RUN SSUSP USUSP RSV",
			[]string{"HOST_NAME", "STATUS", "JL_U", "MAX", "NJOBS", "RUN", "SSUSP", "USUSP", "RSV"}, nil},
		{HostFields, "hname: stat: jlu: cpuf: dispwin: comment:",
			[]string{"HOST_NAME", "STATUS", "JL_U", "CPUF", "DISPATCH_WINDOW", "COMMENTS"}, []int{20, 15, 8, 10, 50, 128}},
		// The field list of an LSF monitor's bhosts plugin (GPU counters
		// included), keyed in its -json by these headers.
		{HostFields, "host_name status cpuf jl_u max njobs run ssusp ususp rsv dispatch_window ngpus ngpus_alloc ngpus_excl_alloc ngpus_shared_alloc ngpus_shared_jexcl_alloc ngpus_excl_avail ngpus_shared_avail",
			[]string{"HOST_NAME", "STATUS", "CPUF", "JL_U", "MAX", "NJOBS", "RUN", "SSUSP", "USUSP", "RSV", "DISPATCH_WINDOW",
				"NGPUS", "NGPUS_ALLOC", "NGPUS_EXCL_ALLOC", "NGPUS_SHARED_ALLOC", "NGPUS_SHARED_JEXCL_ALLOC", "NGPUS_EXCL_AVAIL", "NGPUS_SHARED_AVAIL"}, nil},
		{QueueFields, "QUEUE_NAME PRIO STATUS MAX JL_U JL_P JL_H NJOBS PEND RUN SUSP",
			[]string{"QUEUE_NAME", "PRIORITY", "STATUS", "MAX", "JL_U", "JL_P", "JL_H", "NJOBS", "PEND", "RUN", "SUSP"}, nil},
		{QueueFields, "qname: desc: priority: jlu: jlp: jlh: rsv: ususp: ssusp: nice:",
			[]string{"QUEUE_NAME", "DESCRIPTION", "PRIORITY", "JL_U", "JL_P", "JL_H", "RSV", "USUSP", "SSUSP", "NICE"},
			[]int{15, 50, 10, 10, 10, 10, 10, 10, 10, 6}},
		{LshostsFields, "HOST_NAME:80 type:30 model:30 cpuf: ncpus: maxmem: maxswp: server: nprocs: ncores: nthreads: maxtmp:",
			[]string{"HOST_NAME", "type", "model", "cpuf", "ncpus", "maxmem", "maxswp", "server", "nprocs", "ncores", "nthreads", "maxtmp"},
			[]int{80, 30, 30, 8, 8, 10, 10, 8, 8, 8, 8, 10}},
		{LshostsFields, "name res ndisks rexpri run_windows",
			[]string{"HOST_NAME", "RESOURCES", "ndisks", "rexpri", "RUN_WINDOWS"}, nil},
		{LsloadFields(nil), "HOST_NAME status r15s r1m r15m ut pg io ls it tmp swp mem",
			[]string{"HOST_NAME", "status", "r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem"}, nil},
		{LsloadFields([]string{"scratch", "verylongindex"}), "host_name: status: R1M: ut: ls: swap: login: idle: scratch: verylongindex:",
			[]string{"HOST_NAME", "status", "r1m", "ut", "ls", "swp", "ls", "it", "scratch", "verylongindex"},
			[]int{20, 8, 6, 5, 4, 6, 4, 6, 8, 14}},
	}
	for _, tt := range tests {
		f := parse(t, tt.spec, tt.set)
		var header []string
		var width []int
		for _, c := range f.Columns {
			header = append(header, c.Header)
			width = append(width, c.Width)
		}
		if !reflect.DeepEqual(header, tt.header) {
			t.Errorf("%q: headers %q, want %q", tt.spec, header, tt.header)
		}
		if tt.width != nil && !reflect.DeepEqual(width, tt.width) {
			t.Errorf("%q: widths %v, want %v", tt.spec, width, tt.width)
		}
	}
}

// TestTableUnknownField: every command's unknown field gets LSF's message;
// a field of another command is unknown.
func TestTableUnknownField(t *testing.T) {
	tests := []struct {
		set  *FieldSet
		spec string
		col  int
		msg  string
	}{
		{HostFields, "host_name bogus", 11, "<bogus> in the format string is not a valid field name."},
		{HostFields, "host_name queue_name", 11, "<queue_name> in the format string is not a valid field name."},
		{QueueFields, "Nope:5 queue_name", 1, "<Nope> in the format string is not a valid field name."},
		{QueueFields, "jobid", 1, "<jobid> in the format string is not a valid field name."},
		{LsloadFields(nil), "host_name scratch", 11, "<scratch> in the format string is not a valid field name."},
		{LsloadFields(nil), "ncpus", 1, "<ncpus> in the format string is not a valid field name."},
		{LshostsFields, "name r1m", 6, "<r1m> in the format string is not a valid field name."},
	}
	for _, tt := range tests {
		_, err := ParseFormat(tt.spec, tt.set)
		var fe *FormatError
		if !errors.As(err, &fe) || !fe.LSF || fe.Col != tt.col || err.Error() != tt.msg {
			t.Errorf("ParseFormat(%q) = %v (%+v), want %q at column %d", tt.spec, err, fe, tt.msg, tt.col)
		}
	}
}

// TestTablesCustom: the text listings, with widths (truncation of values
// and headers, right justification), delimiters and -noheader; values are
// the default and -w listings' strings, "-" when unset.
func TestTablesCustom(t *testing.T) {
	noHeader := &Options{NoHeader: true}
	loads := fixtureLoads()
	tests := []struct {
		name string
		f    func(*strings.Builder) error
		want string
	}{
		{"bhosts delimiter", func(b *strings.Builder) error {
			return WriteHostsCustom(b, fixtureHosts(), parse(t, "HOST_NAME STATUS JL_U MAX NJOBS RUN SSUSP USUSP RSV delimiter='|'", HostFields), nil)
		}, "HOST_NAME|STATUS|JL_U|MAX|NJOBS|RUN|SSUSP|USUSP|RSV\n" +
			"hostA|ok|-|4|2|1|1|0|0\n" +
			"hostB.with.a.long.domain|closed_Adm|1|8|0|0|0|0|0\n" +
			"hostC|unavail|-|-|0|0|0|0|0\n"},
		{"bhosts noheader", func(b *strings.Builder) error {
			return WriteHostsCustom(b, fixtureHosts(), parse(t, "host_name status max njobs run ssusp ususp", HostFields), noHeader)
		}, "hostA ok 4 2 1 1 0\n" +
			"hostB.with.a.long.domain closed_Adm 8 0 0 0 0\n" +
			"hostC unavail - 0 0 0 0\n"},
		{"bhosts widths", func(b *strings.Builder) error {
			return WriteHostsCustom(b, fixtureHosts(), parse(t, "host_name:8 stat:-11 cpuf: dispatch_window:3 comments", HostFields), nil)
		}, "HOST_NAM      STATUS CPUF       DIS COMMENTS\n" +
			"hostA             ok 1.00       -   -\n" +
			"hostB.wi  closed_Adm 2.50       20: maintenance\n" +
			"hostC        unavail 0.00       -   -\n"},
		{"bhosts nil records", func(b *strings.Builder) error {
			return WriteHostsCustom(b, []*api.HostInfo{nil, {Name: "x"}, nil}, parse(t, "host_name status", HostFields), nil)
		}, "HOST_NAME STATUS\nx -\n"},
		{"bqueues delimiter", func(b *strings.Builder) error {
			return WriteQueuesCustom(b, fixtureQueues(), parse(t, "QUEUE_NAME PRIO STATUS MAX JL_U JL_P JL_H NJOBS PEND RUN SUSP delimiter='|'", QueueFields), nil)
		}, "QUEUE_NAME|PRIORITY|STATUS|MAX|JL_U|JL_P|JL_H|NJOBS|PEND|RUN|SUSP\n" +
			"owners|43|Open:Active|6|-|-|-|0|0|0|0\n" +
			"priority|43|Open:Active|-|2|1.5|-|18|8|5|5\n" +
			"a_very_long_queue_name|40|Open:Inactive|-|-|-|-|44|44|0|0\n" +
			"closed|1|Closed:Inactive|-|-|-|-|0|0|0|0\n"},
		{"bqueues noheader", func(b *strings.Builder) error {
			return WriteQueuesCustom(b, fixtureQueues(), parse(t, "queue_name status priority njobs pend run ssusp ususp max", QueueFields), noHeader)
		}, "owners Open:Active 43 0 0 0 0 0 6\n" +
			"priority Open:Active 43 18 8 5 3 2 -\n" +
			"a_very_long_queue_name Open:Inactive 40 44 44 0 0 0 -\n" +
			"closed Closed:Inactive 1 0 0 0 0 0 -\n"},
		{"bqueues widths", func(b *strings.Builder) error {
			return WriteQueuesCustom(b, fixtureQueues()[1:3], parse(t, "queue_name: prio:-4 desc:12 nice", QueueFields), nil)
		}, "QUEUE_NAME      PRIO DESCRIPTION  NICE\n" +
			"priority          43 Jobs submitt 0\n" +
			"a_very_long_que   40 -            0\n"},
		{"lsload delimiter", func(b *strings.Builder) error {
			return WriteLsloadCustom(b, loads, parse(t, "HOST_NAME status r15s r1m r15m ut pg io ls it tmp swp mem delimiter='|'", LsloadFields(nil)), lsfmt.Raw)
		}, "HOST_NAME|status|r15s|r1m|r15m|ut|pg|io|ls|it|tmp|swp|mem\n" +
			"host1|ok|0.5|0.7|0.9|25%|1.5|120|2|0|15000.0M|2048.0M|3500.0M\n" +
			"host2.example.org|busy|*4.2|*6.1|3.0|97%|0.0|2|0|120|900.0M|0.0M|1500000.0M\n" +
			"host3|unavail|-|-|-|-|-|-|-|-|-|-|-\n" +
			"client1|ok|-|-|-|-|-|-|-|-|-|-|-\n"},
		{"lsload widths and external index", func(b *strings.Builder) error {
			return WriteLsloadCustom(b, loads[:2], parse(t, "host_name: status: r1m:-6 mem: scratch", LsloadFields([]string{"scratch"})), lsfmt.Raw)
		}, "HOST_NAME            status      r1m mem    scratch\n" +
			"host1                ok          0.7 3500.0 -\n" +
			"host2.example.org    busy       *6.1 150000 12345.5\n"},
		{"lshosts", func(b *strings.Builder) error {
			return WriteLshostsCustom(b, loads, parse(t, "host_name:8 ncpus:-6 maxmem server res", LshostsFields))
		}, "HOST_NAM  ncpus maxmem server RESOURCES\n" +
			"host1         2 7800M Yes (fs)\n" +
			"host2.ex      4 16000M Yes ()\n" +
			"host3         - - Yes ()\n" +
			"client1       - - No ()\n"},
		{"lshosts delimiter and recommended widths", func(b *strings.Builder) error {
			return WriteLshostsCustom(b, loads[:2], parse(t, "HOST_NAME:20 cpuf: maxtmp: nthreads: run_windows delimiter='|'", LshostsFields))
		}, "HOST_NAME           |cpuf    |maxtmp    |nthreads|RUN_WINDOWS\n" +
			"host1               |1.0     |50000M    |1       |-\n" +
			"host2.example.org   |2.0     |-         |-       |8:00-18:00\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.f(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}

// TestLsloadRunQueue: -N and -E change the run queue columns as in the
// default listing.
func TestLsloadRunQueue(t *testing.T) {
	loads := fixtureLoads()[1:2]
	f := parse(t, "r15s r1m ut", LsloadFields(nil))
	for _, mode := range []lsfmt.RunQueue{lsfmt.Raw, lsfmt.Effective, lsfmt.Normalized} {
		var b strings.Builder
		if err := WriteLsloadCustom(&b, loads, f, mode); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, n := range []string{"r15s", "r1m", "ut"} {
			v, _ := lsfmt.LoadValue(loads[0], n, mode)
			want = append(want, strings.TrimSpace(lsfmt.IndexValue(n, v, true, n != "ut", true)))
		}
		if got := strings.Split(b.String(), "\n")[1]; got != strings.Join(want, " ") {
			t.Errorf("mode %d: %q, want %q", mode, got, strings.Join(want, " "))
		}
	}
}

// jsonDoc decodes a -json document, failing on anything but the LSF shape:
// COMMAND, a count and RECORDS of string values.
func jsonDoc(t *testing.T, s, countKey string) (string, int, []map[string]string) {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, s)
	}
	var cmd string
	var n int
	var recs []map[string]string
	if err := errors.Join(json.Unmarshal(doc["COMMAND"], &cmd), json.Unmarshal(doc[countKey], &n),
		json.Unmarshal(doc["RECORDS"], &recs)); err != nil || len(doc) != 3 {
		t.Fatalf("not {COMMAND, %s, RECORDS}: %v\n%s", countKey, err, s)
	}
	return cmd, n, recs
}

// TestTablesJSON: every command's document, keyed by headers (a header
// asked twice once), "" for unset values, "-" for unlimited ones, '/'
// escaped, widths ignored.
func TestTablesJSON(t *testing.T) {
	var b strings.Builder
	hosts := fixtureHosts()
	hosts[1].Comment = `disk/swap "check"`
	if err := WriteHostsJSON(&b, hosts, parse(t, "hname:3 jl_u STATUS:-20 jlu comments dispatch_window", HostFields)); err != nil {
		t.Fatal(err)
	}
	want := `{
  "COMMAND":"bhosts",
  "HOSTS":3,
  "RECORDS":[
    {
      "HOST_NAME":"hostA",
      "JL_U":"-",
      "STATUS":"ok",
      "COMMENTS":"",
      "DISPATCH_WINDOW":""
    },
    {
      "HOST_NAME":"hostB.with.a.long.domain",
      "JL_U":"1",
      "STATUS":"closed_Adm",
      "COMMENTS":"disk\/swap \"check\"",
      "DISPATCH_WINDOW":"20:00-8:00"
    },
    {
      "HOST_NAME":"hostC",
      "JL_U":"-",
      "STATUS":"unavail",
      "COMMENTS":"",
      "DISPATCH_WINDOW":""
    }
  ]
}
`
	if b.String() != want {
		t.Errorf("bhosts -json:\n%s\nwant\n%s", b.String(), want)
	}
	if cmd, n, recs := jsonDoc(t, b.String(), "HOSTS"); cmd != "bhosts" || n != 3 || recs[1]["COMMENTS"] != `disk/swap "check"` {
		t.Errorf("bhosts -json decodes to %q %d %v", cmd, n, recs)
	}

	b.Reset()
	if err := WriteQueuesJSON(&b, fixtureQueues(), parse(t, "queue_name prio status jl_p description", QueueFields)); err != nil {
		t.Fatal(err)
	}
	cmd, n, recs := jsonDoc(t, b.String(), "QUEUES")
	if cmd != "bqueues" || n != 4 || len(recs) != 4 {
		t.Fatalf("bqueues -json: %q %d %d records", cmd, n, len(recs))
	}
	if want := map[string]string{"QUEUE_NAME": "priority", "PRIORITY": "43", "STATUS": "Open:Active", "JL_P": "1.5",
		"DESCRIPTION": "Jobs submitted for this queue are scheduled as urgent jobs."}; !reflect.DeepEqual(recs[1], want) {
		t.Errorf("bqueues -json record %v, want %v", recs[1], want)
	}
	if recs[0]["DESCRIPTION"] != "" || recs[0]["JL_P"] != "-" {
		t.Errorf("bqueues -json unset/unlimited: %v", recs[0])
	}

	b.Reset()
	if err := WriteLsloadJSON(&b, fixtureLoads(), parse(t, "HOST_NAME status r1m mem scratch", LsloadFields([]string{"scratch"})), lsfmt.Raw); err != nil {
		t.Fatal(err)
	}
	cmd, n, recs = jsonDoc(t, b.String(), "HOSTS")
	if cmd != "lsload" || n != 4 {
		t.Fatalf("lsload -json: %q %d", cmd, n)
	}
	if want := map[string]string{"HOST_NAME": "host2.example.org", "status": "busy", "r1m": "*6.1", "mem": "1500000.0M", "scratch": "12345.5"}; !reflect.DeepEqual(recs[1], want) {
		t.Errorf("lsload -json record %v, want %v", recs[1], want)
	}
	if recs[2]["r1m"] != "" || recs[2]["status"] != "unavail" {
		t.Errorf("lsload -json unavailable host: %v", recs[2])
	}

	b.Reset()
	if err := WriteLshostsJSON(&b, fixtureLoads(), parse(t, "name:5 ncpus maxmem run_windows", LshostsFields)); err != nil {
		t.Fatal(err)
	}
	cmd, n, recs = jsonDoc(t, b.String(), "HOSTS")
	if cmd != "lshosts" || n != 4 {
		t.Fatalf("lshosts -json: %q %d", cmd, n)
	}
	if want := map[string]string{"HOST_NAME": "host2.example.org", "ncpus": "4", "maxmem": "16000M", "RUN_WINDOWS": "8:00-18:00"}; !reflect.DeepEqual(recs[1], want) {
		t.Errorf("lshosts -json record %v, want %v", recs[1], want)
	}
	if recs[3]["ncpus"] != "" {
		t.Errorf("lshosts -json unset ncpus: %v", recs[3])
	}

	b.Reset()
	if err := WriteHostsJSON(&b, nil, parse(t, "host_name", HostFields)); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"COMMAND\":\"bhosts\",\n  \"HOSTS\":0,\n  \"RECORDS\":[\n  ]\n}\n"; b.String() != want {
		t.Errorf("no hosts: %q, want %q", b.String(), want)
	}
}

// TestTableFieldsAnyRecord: every field of every set copes with an empty
// record, in text (a column for each field on each line) and JSON.
func TestTableFieldsAnyRecord(t *testing.T) {
	count := func(t *testing.T, s string, cols, lines int) {
		t.Helper()
		got := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		if len(got) != lines {
			t.Fatalf("%d lines, want %d:\n%s", len(got), lines, s)
		}
		for _, l := range got {
			if n := len(strings.Split(l, "|")); n != cols {
				t.Errorf("%d columns, want %d: %q", n, cols, l)
			}
		}
	}
	var b strings.Builder
	f := parse(t, "all delimiter='|'", HostFields)
	if err := WriteHostsCustom(&b, []*api.HostInfo{{}}, f, nil); err != nil {
		t.Fatal(err)
	}
	count(t, b.String(), len(HostFields.Fields()), 2)
	b.Reset()
	f = parse(t, "all delimiter='|'", QueueFields)
	if err := WriteQueuesCustom(&b, []*api.QueueInfo{{}}, f, nil); err != nil {
		t.Fatal(err)
	}
	count(t, b.String(), len(QueueFields.Fields()), 2)
	b.Reset()
	f = parse(t, "all delimiter='|'", LshostsFields)
	if err := WriteLshostsCustom(&b, []*api.HostLoad{{}}, f); err != nil {
		t.Fatal(err)
	}
	count(t, b.String(), len(LshostsFields.Fields()), 2)
	b.Reset()
	f = parse(t, "all delimiter='|'", UserFields)
	if err := WriteUsersCustom(&b, []*api.UserInfo{{}, {Name: "u1", JLP: 2.5, Max: 4, NJobs: 3, Run: 2, Pend: 1}}, f, nil); err != nil {
		t.Fatal(err)
	}
	count(t, b.String(), len(UserFields.Fields()), 3)
	if got := strings.Split(b.String(), "\n")[2]; !strings.HasPrefix(got, "u1|2.5|4|-|1|2|0|0|0|3|-|-|-|") {
		t.Errorf("busers -o all row: %q", got)
	}
	b.Reset()
	set := LsloadFields([]string{"scratch"})
	f = parse(t, "all delimiter='|'", set)
	if err := WriteLsloadCustom(&b, []*api.HostLoad{{}}, f, lsfmt.Normalized); err != nil {
		t.Fatal(err)
	}
	count(t, b.String(), len(set.Fields()), 2)
	if err := WriteLsloadJSON(&b, []*api.HostLoad{{}}, f, lsfmt.Effective); err != nil {
		t.Fatal(err)
	}
}

func TestNonNil(t *testing.T) {
	a, b := &api.HostInfo{Name: "a"}, &api.HostInfo{Name: "b"}
	tests := []struct{ in, want []*api.HostInfo }{
		{nil, nil},
		{[]*api.HostInfo{a, b}, []*api.HostInfo{a, b}},
		{[]*api.HostInfo{nil, a, nil, b, nil}, []*api.HostInfo{a, b}},
		{[]*api.HostInfo{nil}, []*api.HostInfo{}},
	}
	for _, tt := range tests {
		if got := nonNil(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("nonNil(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	in := []*api.HostInfo{a, b}
	if got := nonNil(in); &got[0] != &in[0] {
		t.Error("nonNil copied a slice without nil elements")
	}
}

// TestUnitS: lshosts' and lsload's sizes take the unit S (IBM 10.1
// LSF_LSHOSTS_FORMAT's examples: 30 -> 30.0M, 4096 -> 4.0G, 5000000 ->
// 4.8T) and no other; no other field takes a unit.
func TestUnitS(t *testing.T) {
	for in, want := range map[string]string{"30M": "30.0M", "4096M": "4.0G", "5000000": "4.8T", "1023.9M": "1023.9M", "-": "-", "": ""} {
		if got := scaleMB(in); got != want {
			t.Errorf("scaleMB(%q) = %q, want %q", in, got, want)
		}
	}
	var b strings.Builder
	if err := WriteLshostsCustom(&b, fixtureLoads(), parse(t, "HOST_NAME maxmem:-8:S maxswp::S maxtmp::S ncpus", LshostsFields)); err != nil {
		t.Fatal(err)
	}
	want := "HOST_NAME   maxmem maxswp     maxtmp     ncpus\n" +
		"host1     7.6G 2.0G       48.8G      2\n" +
		"host2.example.org    15.6G -          -          4\n" +
		"host3        - -          -          -\n" +
		"client1        - -          -          -\n"
	if b.String() != want {
		t.Errorf("lshosts -o with S:\n%s\nwant\n%s", b.String(), want)
	}
	for _, tt := range []struct {
		set  *FieldSet
		spec string
		msg  string
	}{
		{LshostsFields, "maxmem::G", "-o: column 1: field maxmem takes only the unit S"},
		{LshostsFields, "ncpus::S", "-o: column 1: field ncpus does not take a unit prefix"},
		{LsloadFields(nil), "r1m::S", "-o: column 1: field r1m does not take a unit prefix"},
		{LsloadFields(nil), "mem::MB", "-o: column 1: field mem takes only the unit S"},
	} {
		if _, err := ParseFormat(tt.spec, tt.set); err == nil || err.Error() != tt.msg {
			t.Errorf("%q: %v, want %s", tt.spec, err, tt.msg)
		}
	}
	b.Reset()
	if err := WriteLsloadCustom(&b, fixtureLoads()[:2], parse(t, "HOST_NAME mem::S swp tmp::S", LsloadFields(nil)), 0); err != nil {
		t.Fatal(err)
	}
	want = "HOST_NAME mem    swp tmp   \n" +
		"host1 3.4G   2048.0M 14.6G \n" +
		"host2.example.org 1.4T   0.0M 900.0M\n"
	if b.String() != want {
		t.Errorf("lsload -o with S:\n%s\nwant\n%s", b.String(), want)
	}
}

// TestLsloadWildcard: one '*' names every external index it matches, in
// the cluster's order (IBM 10.1: lsload -o "gpu_mode*" shows gpu_mode0,
// gpu_mode1, gpu_model0...); it never matches a built-in index, and a
// pattern matching nothing is an unknown field.
func TestLsloadWildcard(t *testing.T) {
	set := LsloadFields([]string{"gpu_mode0", "gpu_mode1", "scratch", "gpu_model0", "mem_gpu"})
	for spec, want := range map[string][]string{
		"HOST_NAME gpu_mode*":     {"host_name", "gpu_mode0", "gpu_mode1", "gpu_model0"},
		"GPU_MODE*:4":             {"gpu_mode0", "gpu_mode1", "gpu_model0"},
		"*0":                      {"gpu_mode0", "gpu_model0"},
		"*":                       {"gpu_mode0", "gpu_mode1", "scratch", "gpu_model0", "mem_gpu"},
		"me*":                     {"mem_gpu"},
		"gpu_mode* delimiter=','": {"gpu_mode0", "gpu_mode1", "gpu_model0"},
	} {
		var got []string
		for _, c := range parse(t, spec, set).Columns {
			got = append(got, c.Name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q, want %q", spec, got, want)
		}
	}
	for _, spec := range []string{"r1*", "gpu*mode*", "nomatch*"} {
		_, err := ParseFormat(spec, set)
		if err == nil || !strings.Contains(err.Error(), "in the format string is not a valid field name.") {
			t.Errorf("%q: %v", spec, err)
		}
	}
	if _, err := ParseFormat("gpu_mode*", JobFields); err == nil {
		t.Error("bjobs -o took a wildcard")
	}
}

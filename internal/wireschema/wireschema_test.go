package wireschema

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// lock builds a schema from lock text (without the header).
func lock(t *testing.T, text string) *Schema {
	t.Helper()
	s, err := Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return s
}

const base = "message Ev\n\t1 JobID int64\n\t2 Spec *Spec\n\t3 State JobState(int32)\n\treserved 9\nmessage Spec\n\t1 Cmd string\n"

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		cur  string
		want []string // substrings, one per expected problem
	}{
		{"same", base, nil},
		{"field added", strings.Replace(base, "\treserved 9\n", "\t4 Host string\n\treserved 9\n", 1), nil},
		{"message added", base + "message New\n\t1 X bool\n", nil},
		{"retyped", strings.Replace(base, "1 JobID int64", "1 JobID int32", 1),
			[]string{"Ev.JobID (1): type changed from int64 to int32"}},
		{"enum underlying retyped", strings.Replace(base, "JobState(int32)", "JobState(int64)", 1),
			[]string{"Ev.State (3): type changed from JobState(int32) to JobState(int64)"}},
		{"nested message retyped", strings.Replace(base, "2 Spec *Spec", "2 Spec []*Spec", 1),
			[]string{"type changed from *Spec to []*Spec"}},
		{"number reused", strings.Replace(base, "1 JobID int64", "1 Count int64", 1),
			[]string{"Ev field 1: was JobID, now Count: a field number is never reused"}},
		{"removed without reserving", strings.Replace(base, "\t1 JobID int64\n", "", 1),
			[]string{"Ev.JobID (1) removed without reserving its number"}},
		{"removed and reserved", strings.Replace(base, "\t1 JobID int64\n", "\treserved 1\n", 1), nil},
		{"reserved number used", strings.Replace(base, "\treserved 9\n", "\t9 Old string\n", 1),
			[]string{"Ev.Old uses field number 9, which is reserved"}},
		{"reservation dropped", strings.Replace(base, "\treserved 9\n", "", 1),
			[]string{"Ev: reserved number 9 is no longer reserved"}},
		{"message removed", "message Ev\n\t1 JobID int64\n\t2 Spec *Spec\n\t3 State JobState(int32)\n\treserved 9\n",
			[]string{"message Spec removed"}},
		{"two problems", strings.Replace(strings.Replace(base, "1 Cmd string", "1 Cmd []byte", 1), "\t3 State JobState(int32)\n", "", 1),
			[]string{"Ev.State (3) removed without reserving", "Spec.Cmd (1): type changed from string to []byte"}},
	}
	old := lock(t, base)
	for _, tc := range tests {
		errs := Check(old, lock(t, tc.cur))
		if len(errs) != len(tc.want) {
			t.Errorf("%s: got %d problems %v, want %d", tc.name, len(errs), errs, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(errs[i].Error(), w) {
				t.Errorf("%s: problem %d = %q, want it to contain %q", tc.name, i, errs[i], w)
			}
		}
	}
}

func TestAdded(t *testing.T) {
	cur := lock(t, strings.Replace(base, "\treserved 9\n", "\t4 Host string\n\treserved 9\n\treserved 5\n", 1)+"message New\n")
	got := Added(lock(t, base), cur)
	want := []string{"Ev.Host (4)", "Ev reserved 5", "message New"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Added = %q, want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		text string
		want string
	}{
		{"\t1 X int64\n", "schema.lock:1:1: field before any message"},
		{"msg Ev\n", `schema.lock:1:1: want "message NAME"`},
		{"message 9Ev\n", `schema.lock:1:9: bad message name "9Ev"`},
		{"message Ev\nmessage Ev\n", "schema.lock:2:9: message Ev listed twice"},
		{"message Ev\n\t1 X\n", `schema.lock:2:2: want "NUM NAME TYPE"`},
		{"message Ev\n\tx X int64\n", `schema.lock:2:2: bad field number "x"`},
		{"message Ev\n\t0 X int64\n", `schema.lock:2:2: bad field number "0"`},
		{"message Ev\n\t536870912 X int64\n", `schema.lock:2:2: bad field number "536870912"`},
		{"message Ev\n\t1 X- int64\n", `schema.lock:2:4: bad field name "X-"`},
		{"message Ev\n\t1 X int64\n\treserved 1\n", "schema.lock:3:11: number 1 listed twice in Ev"},
		{"message Ev\n\treserved\n", `schema.lock:2:2: want "reserved NUM"`},
		{"# c\n\nmessage Ev\n\treserved -3\n", `schema.lock:4:11: bad field number "-3"`},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.text))
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q) = %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestFormatParseRoundTrip(t *testing.T) {
	s := lock(t, base)
	again, err := Parse(Format(s))
	if err != nil || !reflect.DeepEqual(s, again) {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, s, again)
	}
	if f := again.Lookup("Ev").Field(2); f == nil || f.Message != "Spec" {
		t.Fatalf("nested message of Ev.Spec: %+v", f)
	}
}

func writeSource(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\n\n"+src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFromSource(t *testing.T) {
	dir := writeSource(t, "type JobState int32\n"+
		"type Ev struct {\n\tJobID int64 `wire:\"1\"`\n\t// reserved: 2 (Spec), 7\n\tState JobState `wire:\"3\"`\n\tHosts []*Host `wire:\"4\"`\n\tRaw []byte `wire:\"5\"`\n}\n"+
		"type Host struct {\n\tName string `wire:\"1\"`\n}\n"+
		"type Empty struct{}\n"+
		"type notMessage struct{ x int }\n"+
		"type Gen[T any] struct{ X T }\n")
	s, err := FromSource(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := string(Format(s)[len(Header):])
	want := "message Empty\nmessage Ev\n\t1 JobID int64\n\t3 State JobState(int32)\n\t4 Hosts []*Host\n\t5 Raw []byte\n\treserved 2\n\treserved 7\nmessage Host\n\t1 Name string\n"
	if got != want {
		t.Fatalf("schema:\n%s\nwant:\n%s", got, want)
	}
	if f := s.Lookup("Ev").Field(4); f.Message != "Host" {
		t.Fatalf("Ev.Hosts nested message %q", f.Message)
	}
}

func TestFromSourceErrors(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{"type Ev struct {\n\tA int64 `wire:\"1\"`\n\t// reserved: 1\n}\n", "Ev: field number 1 is reserved but A uses it"},
		{"type Ev struct {\n\tA int64 `wire:\"1\"`\n\tB int64 `wire:\"1\"`\n}\n", "Ev: field number 1 used by A and B"},
		{"type Ev struct {\n\tA int64 `wire:\"1\"`\n\t// reserved: x\n}\n", `Ev: bad reserved number "x"`},
		{"type Ev struct {\n\tA int64 `wire:\"1\"`\n\t// reserved: 2, 2\n}\n", "Ev: number 2 reserved twice"},
		{"type Ev struct {\n\tA int64 `wire:\"0\"`\n}\n", "Ev: bad wire tag"},
		{"type Ev struct {\n\tA int64 `wire:\"1\"`\n\tB int64\n}\n", "Ev: field without a wire tag"},
	}
	for _, tc := range tests {
		_, err := FromSource(writeSource(t, tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.src, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(base))
	f.Add([]byte("message A\n\treserved 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		again, err := Parse(Format(s))
		if err != nil || !reflect.DeepEqual(s, again) {
			t.Fatalf("formatted schema does not parse back: %v", err)
		}
	})
}

package api

import (
	"encoding/json"
	"flag"
	"hash/fnv"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "write golden fixtures that are missing (existing ones are never rewritten)")

const goldenLogDir = "testdata/golden/log"

// eventKinds lists Event's payload fields (JobNew, JobStart...).
func eventKinds() []reflect.StructField {
	var out []reflect.StructField
	t := reflect.TypeOf(Event{})
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Type.Kind() == reflect.Pointer {
			out = append(out, f)
		}
	}
	return out
}

// goldenEntry is a log entry holding one event of kind k, every field set
// (deterministically: the seed is the kind's name).
func goldenEntry(k reflect.StructField) *LogEntry {
	h := fnv.New64a()
	h.Write([]byte(k.Name))
	r := rand.New(rand.NewSource(int64(h.Sum64())))
	ev := &Event{Time: 1767225600e9 + r.Int63n(1e9), User: "alice", UID: 1001}
	payload := reflect.New(k.Type.Elem())
	fill(r, payload.Elem(), 0)
	reflect.ValueOf(ev).Elem().FieldByIndex(k.Index).Set(payload)
	return &LogEntry{Events: []*Event{ev}}
}

// TestGoldenLog: every kind of event, as an earlier version wrote it inside
// a log entry (testdata/golden/log/KIND.bin, beside its values in
// KIND.json), decodes to the same values. The log is replayed for ever, so
// fixtures are never rewritten: -update only adds the missing ones, and a
// new event kind fails here until it has one.
func TestGoldenLog(t *testing.T) {
	for _, k := range eventKinds() {
		bin := filepath.Join(goldenLogDir, k.Name+".bin")
		js := filepath.Join(goldenLogDir, k.Name+".json")
		_, err := os.Stat(bin)
		if os.IsNotExist(err) && *update {
			e := goldenEntry(k)
			j, err := json.MarshalIndent(e, "", "\t")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(goldenLogDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bin, e.AppendWire(nil), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(js, append(j, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s and %s", bin, js)
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Errorf("event kind %s has no golden fixture (%v): run go test ./api/ -run TestGoldenLog -update and commit %s", k.Name, err, goldenLogDir)
			continue
		}
		want, err := os.ReadFile(js)
		if err != nil {
			t.Errorf("%s: %v", k.Name, err)
			continue
		}
		var got, exp LogEntry
		if err := got.UnmarshalWire(data); err != nil {
			t.Errorf("%s: decoding %s: %v", k.Name, bin, err)
			continue
		}
		if err := json.Unmarshal(want, &exp); err != nil {
			t.Errorf("%s: %v", k.Name, err)
			continue
		}
		if !reflect.DeepEqual(&got, &exp) {
			g, _ := json.MarshalIndent(&got, "", "\t")
			t.Errorf("%s: %s decodes to\n%s\nwant (%s)\n%s", k.Name, bin, g, js, want)
			continue
		}
		if len(got.Events) != 1 || reflect.ValueOf(got.Events[0]).Elem().FieldByIndex(k.Index).IsNil() {
			t.Errorf("%s: the fixture holds no %s event", k.Name, k.Name)
		}
	}
}

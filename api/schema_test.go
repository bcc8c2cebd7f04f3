package api

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/basalt-lsf/basalt/internal/wireschema"
)

// TestSchemaLock: the schema of this package's source is the committed
// schema.lock. An incompatible change (a retyped or reused field number, a
// field dropped without `// reserved: N`) fails with what is wrong; a
// compatible one fails until `go generate ./api/` rewrites the lock.
func TestSchemaLock(t *testing.T) {
	cur, err := wireschema.FromSource(".")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("schema.lock")
	if err != nil {
		t.Fatal(err)
	}
	locked, err := wireschema.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range wireschema.Check(locked, cur) {
		t.Errorf("incompatible schema change: %v", e)
	}
	if added := wireschema.Added(locked, cur); len(added) > 0 {
		t.Errorf("schema.lock lacks %q: run go generate ./api/ and commit schema.lock", added)
	}
	if !bytes.Equal(wireschema.Format(cur), data) && !t.Failed() {
		t.Errorf("schema.lock is not what go generate ./api/ writes: run it")
	}
}

// TestSchemaTable: the table UnknownFields walks (schema_wire.go) is the
// source's schema.
func TestSchemaTable(t *testing.T) {
	cur, err := wireschema.FromSource(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(wireSchema) != len(cur.Messages) {
		t.Fatalf("schema_wire.go has %d messages, the source %d: run go generate ./api/", len(wireSchema), len(cur.Messages))
	}
	for i, m := range cur.Messages {
		tm := wireSchema[i]
		var nums []int32
		for _, f := range m.Fields {
			nums = append(nums, int32(f.Num))
			if tf := findField(tm, f.Num); tf == nil || (tf.msg >= 0) != (f.Message != "") || tf.msg >= 0 && wireSchema[tf.msg].name != f.Message {
				t.Errorf("schema_wire.go: %s.%s differs from the source: run go generate ./api/", m.Name, f.Name)
			}
		}
		var tnums []int32
		for _, f := range tm.fields {
			tnums = append(tnums, f.num)
		}
		if tm.name != m.Name || !reflect.DeepEqual(nums, tnums) {
			t.Errorf("schema_wire.go: message %d is %s %v, the source has %s %v", i, tm.name, tnums, m.Name, nums)
		}
	}
}

func findField(m schemaMessage, num int) *schemaField {
	for i := range m.fields {
		if int(m.fields[i].num) == num {
			return &m.fields[i]
		}
	}
	return nil
}

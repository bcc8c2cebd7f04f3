package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeAPI(t *testing.T, dir, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\n\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLock: generation writes the lock, accepts additions and a reserved
// removal, and refuses a retyped or reused number without writing
// anything.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	writeAPI(t, dir, "type Ev struct {\n\tA int64 `wire:\"1\"`\n\tB string `wire:\"2\"`\n}\n")
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	lock := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "schema.lock"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if l := lock(); !strings.Contains(l, "message Ev\n\t1 A int64\n\t2 B string\n") {
		t.Fatalf("lock:\n%s", l)
	}
	for _, bad := range []struct{ src, want string }{
		{"type Ev struct {\n\tA int32 `wire:\"1\"`\n\tB string `wire:\"2\"`\n}\n", "Ev.A (1): type changed from int64 to int32"},
		{"type Ev struct {\n\tA int64 `wire:\"1\"`\n\tC string `wire:\"2\"`\n}\n", "Ev field 2: was B, now C"},
		{"type Ev struct {\n\tA int64 `wire:\"1\"`\n}\n", "Ev.B (2) removed without reserving its number"},
	} {
		before := lock()
		writeAPI(t, dir, bad.src)
		err := run(dir)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err = %v, want %q", bad.src, err, bad.want)
		}
		if lock() != before {
			t.Errorf("%q: the lock changed on a refused change", bad.src)
		}
	}
	writeAPI(t, dir, "type Ev struct {\n\tA int64 `wire:\"1\"`\n\t// reserved: 2 (B)\n\tD bool `wire:\"3\"`\n}\n")
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	if l := lock(); !strings.Contains(l, "message Ev\n\t1 A int64\n\t3 D bool\n\treserved 2\n") {
		t.Fatalf("lock after a reserved removal:\n%s", l)
	}
	writeAPI(t, dir, "type Ev struct {\n\tA int64 `wire:\"1\"`\n\tB string `wire:\"2\"`\n\tD bool `wire:\"3\"`\n}\n")
	if err := run(dir); err == nil || !strings.Contains(err.Error(), "Ev.B uses field number 2, which is reserved") {
		t.Fatalf("reusing a reserved number: %v", err)
	}
}

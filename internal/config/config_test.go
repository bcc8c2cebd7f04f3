package config

import (
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
)

var update = flag.Bool("update", false, "rewrite golden files")

// exampleRoot maps the absolute paths of the example cluster's lsf.conf
// (/example/...) to testdata/example.
const exampleRoot = "testdata/example"

func exampleReadFile(p string) ([]byte, error) {
	if strings.HasPrefix(p, "/example/") {
		return os.ReadFile(filepath.Join(exampleRoot, strings.TrimPrefix(p, "/example/")))
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

// wednesdayNoon is a working-day time: JOB_ACCEPT_INTERVAL's #else branch.
var wednesdayNoon = time.Date(2024, 1, 10, 12, 0, 0, 0, time.UTC)

func fakeEGroup(calls *[]string) EGroupFunc {
	return func(_ context.Context, flag, group string) ([]string, error) {
		if calls != nil {
			*calls = append(*calls, flag+" "+group)
		}
		switch flag + " " + group {
		case "-m ext_hosts":
			return []string{"hostG", "hostF"}, nil
		case "-u ext_users":
			return []string{"gina", "hank"}, nil
		}
		return nil, errors.New("exit status 1")
	}
}

func exampleOptions() Options {
	return Options{
		EnvDir:   "/example/conf",
		Clock:    clock.NewFake(wednesdayNoon),
		EGroup:   fakeEGroup(nil),
		ReadFile: exampleReadFile,
	}
}

func loadExample(t *testing.T) *Config {
	t.Helper()
	c, err := Load(context.Background(), exampleOptions())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update to accept):\n%s", name, diffLines(string(want), got))
	}
}

// diffLines shows the first differing lines.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\n-" + a + "\n+" + b
		}
	}
	return ""
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(i)) }

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	return string(b)
}

// TestExampleGolden loads the realistic example cluster and compares the
// typed configuration with testdata/example.golden. The example is meant to
// be clean: any diagnostic is a failure.
func TestExampleGolden(t *testing.T) {
	c := loadExample(t)
	if len(c.Warnings) != 0 {
		t.Errorf("example cluster has diagnostics:\n%s", c.Warnings)
	}
	golden(t, "example.golden", c.Dump())
}

func TestExampleCheckIsClean(t *testing.T) {
	opts := exampleOptions()
	if d := Check(context.Background(), opts, true); len(d) != 0 {
		t.Errorf("Check(batch):\n%s", d)
	}
	if d := Check(context.Background(), opts, false); len(d) != 0 {
		t.Errorf("Check(base):\n%s", d)
	}
}

// BenchmarkLoadExample loads the example cluster (in memory: no disk I/O),
// every file and every resolution step.
func BenchmarkLoadExample(b *testing.B) {
	opts := exampleOptions()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Load(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}

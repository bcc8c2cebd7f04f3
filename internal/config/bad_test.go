package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// archive is a txtar archive: a comment, then "-- name --" files.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct {
	name string
	data string
}

func parseArchive(src string) archive {
	var a archive
	cur := -1
	for _, line := range strings.SplitAfter(src, "\n") {
		trimmed := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			a.files = append(a.files, archiveFile{name: strings.TrimSpace(trimmed[3 : len(trimmed)-3])})
			cur = len(a.files) - 1
			continue
		}
		if cur < 0 {
			a.comment += line
		} else {
			a.files[cur].data += line
		}
	}
	return a
}

func (a archive) format() string {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, f := range a.files {
		b.WriteString("-- " + f.name + " --\n")
		b.WriteString(f.data)
	}
	return b.String()
}

// TestBadInputs runs every testdata/bad/*.txtar: the archive's files replace
// the fixture cluster's (lsf.* and hosts in LSF_CONFDIR, lsb.* in the batch
// directory; an empty file removes it) and its "want" file lists the
// expected diagnostics, one per line, sorted. Regenerate with -update after
// checking the differences.
func TestBadInputs(t *testing.T) {
	paths, err := filepath.Glob("testdata/bad/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no bad inputs: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ar := parseArchive(string(src))
			overrides := map[string]string{}
			wantIdx := -1
			for i, f := range ar.files {
				switch {
				case f.name == "want":
					wantIdx = i
				case strings.HasPrefix(f.name, "lsb."):
					overrides[f.name] = f.data
				default:
					overrides["/c/"+f.name] = f.data
				}
			}
			if wantIdx < 0 {
				t.Fatal("no want section")
			}
			got := strings.Join(render(Check(context.Background(), fixtureOptions(fixture(overrides)), true)), "\n")
			if got != "" {
				got += "\n"
			}
			if *update {
				ar.files[wantIdx].data = got
				if err := os.WriteFile(path, []byte(ar.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := ar.files[wantIdx].data; got != want {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
			}
			if strings.TrimSpace(got) == "" {
				t.Error("a bad input must produce diagnostics")
			}
		})
	}
}

package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseBSUBLines(t *testing.T) {
	tests := []struct {
		name, script string
		want         []string
		err          string
	}{
		{"basic", "#!/bin/bash\n#BSUB -q short\n#BSUB -n 4\necho hi\n", []string{"-q", "short", "-n", "4"}, ""},
		{"quoted resreq", "#BSUB -R \"span[hosts=1] rusage[mem=100]\"\n", []string{"-R", "span[hosts=1] rusage[mem=100]"}, ""},
		{"single quotes and comment", "#BSUB -J 'my job' # the name\n", []string{"-J", "my job"}, ""},
		{"stops at first command", "#BSUB -q a\nexport X=1\n#BSUB -q b\n", []string{"-q", "a"}, ""},
		{"comments and blanks skipped", "#!/bin/sh\n\n# a comment\n#BSUB -o out.%J\n", []string{"-o", "out.%J"}, ""},
		{"not a directive", "#BSUBX -q a\n#BSUB -x\n", []string{"-x"}, ""},
		{"indented", "  #BSUB -W 10\n", []string{"-W", "10"}, ""},
		{"space after hash", "# BSUB -q night\n", []string{"-q", "night"}, ""},
		{"escaped quote", `#BSUB -J "a\"b"` + "\n", []string{"-J", `a"b`}, ""},
		{"crlf", "#BSUB -q short\r\n", []string{"-q", "short"}, ""},
		{"unterminated", "#BSUB -J \"abc\n", nil, `line 1, column 10: unterminated " quote`},
		{"unterminated single", "#!/bin/sh\n#BSUB -J 'x\n", nil, "line 2, column 10: unterminated ' quote"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseBSUBLines(tc.script)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzParseBSUBLines(f *testing.F) {
	f.Add("#!/bin/bash\n#BSUB -q short\n#BSUB -R \"span[hosts=1]\" # x\necho hi\n")
	f.Add("#BSUB -J 'a b' \\\" c\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parseBSUBLines(s)
	})
}

// TestIsJobScriptFile: a lone operand is read as a job script when it has
// #BSUB lines among its first 200; a program (a NUL byte in its first 512
// bytes) is not read at all, even if "#BSUB" appears in it.
func TestIsJobScriptFile(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("echo filler\n", 150)
	for _, tt := range []struct {
		name, content string
		want          bool
	}{
		{"script", "#!/bin/sh\n#BSUB -q normal\necho hi\n", true},
		{"spaced directive", "#!/bin/sh\n  #  BSUB -n 2\n", true},
		{"no directive", "#!/bin/sh\necho '#BSUB in a string is not a directive line'\n", false},
		{"directive past line 200", long + long + "#BSUB -q normal\n", false},
		{"directive at line 151", long + "#BSUB -q normal\n", true},
		{"program", "\x7fELF\x02\x01\x01\x00\x00\x00\n#BSUB -q normal\n", false},
		{"empty", "", false},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
		if err := os.WriteFile(path, []byte(tt.content), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := isJobScriptFile(path); got != tt.want {
			t.Errorf("%s: isJobScriptFile = %v, want %v", tt.name, got, tt.want)
		}
	}
	if isJobScriptFile(dir) || isJobScriptFile(filepath.Join(dir, "missing")) {
		t.Error("a directory or a missing file is not a job script")
	}
}

package cli

import (
	"reflect"
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

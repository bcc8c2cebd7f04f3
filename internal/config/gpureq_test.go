package config

import (
	"context"
	"strings"
	"testing"
)

// TestGPUReq: GPU_REQ of lsb.queues and lsb.applications is kept as
// written (quotes removed) when it parses; a bad one is warned about at
// its faulty option and ignored.
func TestGPUReq(t *testing.T) {
	for _, tt := range []struct {
		name, value, want, diag string
	}{
		{"plain", "num=2", "num=2", ""},
		{"quoted", `"num=1:mode=exclusive_process:j_exclusive=yes"`, "num=1:mode=exclusive_process:j_exclusive=yes", ""},
		{"quoted blanks", `" mps=yes,nocvd "`, "mps=yes,nocvd", ""},
		{"empty", `""`, "", ""},
		{"bad num", `"num=x"`, "", `:3:16: warning: X <x>: GPU_REQ <num=x> is not a valid GPU requirement: num must be a number of GPUs from 1 to 1024, not "x"; ignored`},
		{"unknown", "num=1:frob=2", "", `:3:17: warning: X <x>: GPU_REQ <num=1:frob=2> is not a valid GPU requirement: unknown option "frob"; ignored`},
		{"twice", "num=1:num=2", "", `:3:17: warning: X <x>: GPU_REQ <num=1:num=2> is not a valid GPU requirement: option num given twice; ignored`},
	} {
		for _, kind := range []struct{ file, section, name string }{
			{"lsb.queues", "Queue", "QUEUE_NAME"}, {"lsb.applications", "Application", "NAME"},
		} {
			src := "Begin " + kind.section + "\n" + kind.name + " = x\nGPU_REQ = " + tt.value + "\nEnd " + kind.section + "\n"
			if kind.file == "lsb.queues" {
				// The fixture's default queue stays.
				src += "Begin Queue\nQUEUE_NAME = normal\nEnd Queue\n"
			}
			m := fixture(map[string]string{kind.file: src})
			opts := fixtureOptions(m)
			var got []string
			for _, d := range render(Check(context.Background(), opts, true)) {
				if strings.Contains(d, "GPU_REQ") {
					got = append(got, d)
				}
			}
			wantDiag := ""
			if tt.diag != "" {
				wantDiag = kind.file + strings.Replace(tt.diag, "X <", kind.section+" <", 1)
			}
			if strings.Join(got, "\n") != wantDiag {
				t.Errorf("%s in %s: diagnostics %q, want %q", tt.name, kind.file, got, wantDiag)
			}
			c, err := Load(context.Background(), opts)
			if err != nil {
				t.Fatalf("%s in %s: %v", tt.name, kind.file, err)
			}
			var value string
			if kind.file == "lsb.queues" {
				value = c.Queue("x").GPUReq
			} else {
				value = c.Application("x").GPUReq
			}
			if value != tt.want {
				t.Errorf("%s in %s: GPU_REQ %q, want %q", tt.name, kind.file, value, tt.want)
			}
		}
	}
}

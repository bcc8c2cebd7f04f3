package cli

import (
	"strings"
	"testing"
)

func TestParseClustersOption(t *testing.T) {
	for _, tt := range []struct {
		in, want, err string
	}{
		{"all", "all", ""},
		{"all ~c2 ~c3", "all ~c2 ~c3", ""},
		{"c1 c2+2 others+1", "c1 c2 all", ""},
		{"c1+", "c1", ""},
		{"", "", "Bad cluster name list"},
		{"c1 all", "", "all must come first"},
		{"~c1", "", "~cluster_name only follows all"},
		{"all c1", "", "only ~cluster_name may follow all"},
		{"c1+x", "", "c1+x: Bad preference level"},
		{"c/1", "", "c/1: Bad cluster name"},
	} {
		got, err := parseClustersOption(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("%q: %q %v, want %q", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseClustersOption(f *testing.F) {
	f.Add("all ~c2")
	f.Add("c1+3 others")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseClustersOption(s)
		if err == nil && len(got) == 0 {
			t.Fatalf("%q: no clusters and no error", s)
		}
	})
}

package cli

import (
	"fmt"
	"strings"
)

// parseClustersOption parses bsub -clusters (LSF 10.1): "all
// [~cluster_name] ..." or "cluster_name[+[pref_level]] ...
// [others[+[pref_level]]]". Preference levels are accepted and not kept
// (Basalt forwards in SNDJOBS_TO's order); "others" is kept as "all" with
// the named clusters' complement left to SNDJOBS_TO.
func parseClustersOption(v string) ([]string, error) {
	words := strings.Fields(v)
	if len(words) == 0 {
		return nil, fmt.Errorf("-clusters: Bad cluster name list")
	}
	var out []string
	all := false
	for i, w := range words {
		name, pref, hasPref := strings.Cut(w, "+")
		if hasPref && pref != "" {
			for _, c := range pref {
				if c < '0' || c > '9' {
					return nil, fmt.Errorf("-clusters: %s: Bad preference level", w)
				}
			}
		}
		switch {
		case name == "all":
			if i != 0 || hasPref {
				return nil, fmt.Errorf("-clusters: %s: all must come first, without a preference", w)
			}
			all = true
			out = append(out, "all")
		case strings.HasPrefix(name, "~"):
			if !all || hasPref || len(name) == 1 {
				return nil, fmt.Errorf("-clusters: %s: ~cluster_name only follows all", w)
			}
			out = append(out, name)
		case name == "others":
			out = append(out, "all")
		case name == "" || !clusterNameOK(name):
			return nil, fmt.Errorf("-clusters: %s: Bad cluster name", w)
		default:
			if all {
				return nil, fmt.Errorf("-clusters: %s: only ~cluster_name may follow all", w)
			}
			out = append(out, name)
		}
	}
	return out, nil
}

func clusterNameOK(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return len(s) <= 39
}

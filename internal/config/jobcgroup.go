package config

import (
	"hash/fnv"
	"path/filepath"
	"strconv"
)

// JobCgroupParent is the cgroup (relative to each hierarchy's root) under
// which the jobs of the sbatchd whose state directory is stateDir live:
// basalt/<cluster>/<host>.<8 hex digits of the state directory's hash>.
// Two clusters of one name on one machine (two local clusters, a test
// beside a demo) so never share a group, and stopping one never touches
// the other's jobs; sbatchd and `basalt cluster down` compute it alike.
func JobCgroupParent(cluster, host, stateDir string) string {
	h := fnv.New64a()
	h.Write([]byte(filepath.Clean(stateDir)))
	id := strconv.FormatUint(h.Sum64()&0xffffffff, 16)
	for len(id) < 8 {
		id = "0" + id
	}
	return filepath.Join("basalt", cluster, host+"."+id)
}

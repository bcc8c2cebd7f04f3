// Package cgroup is sbatchd's own minimal cgroupfs client: one control group
// per job, on cgroup v1 (one hierarchy per controller), v2 (the unified
// hierarchy) or the hybrid layout (v1 controllers plus a controller-less v2
// hierarchy, whose cgroup.kill, cgroup.freeze and cgroup.events are used when
// present).
//
// A [Manager] is built from the mount table ([Detect], [FromMounts]) and a
// parent path (basalt/<cluster>/<host>); [Manager.Create] makes the group
// basalt/<cluster>/<host>/job.<id>[.<index>] in every hierarchy the package
// uses (memory, cpuacct, freezer, pids, and the unified one). A [Group]
// joins processes, lists them, freezes, signals and kills them as a whole,
// reads their accounting ([Group.Stats]) and is removed once empty.
//
// The package writes cgroupfs files directly, with no dependency beyond the
// standard library: every command of the multi-call binary links it, and the
// containerd/cgroups module measurably slowed process start-up.
package cgroup

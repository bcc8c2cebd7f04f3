// Package mc is Basalt's MultiCluster: LSF's job forwarding model between
// clusters that know each other through lsf.shared's Cluster section.
//
// This package holds what does not need mbatchd's state: the
// cluster-to-cluster credentials (a key per pair of clusters in
// lsf.sudoers, LSF_MC_KEY_<peer>, from which both sides derive the same
// HMAC key; credentials are Basalt's eauth credentials of kind "cluster",
// bound to the receiving master, with the replay cache's protection), the
// Authenticator of mbatchd's MultiCluster listener (LSB_MC_PORT).
// internal/mbd's mc*.go files hold the links to the peers, the forwarding
// decision, the RPC handlers and the forwarding side effects.
package mc

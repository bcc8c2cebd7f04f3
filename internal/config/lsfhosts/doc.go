// Package lsfhosts reads a user's .lsfhosts file: LSF's user-level account
// mapping between hosts (seed 004, "User Account Mapping").
//
// Each line is "host_name user_name [send|recv]" (or "cluster_name
// user_name", or "+ +"): send maps the owner's jobs sent to host_name to the
// account user_name there; recv lets jobs of user_name submitted on
// host_name run under the owner's account; neither means both. '+' in the
// host field is any LSF host, in the user field any user; '#' starts a
// comment. A file that others may read or write, or that its user does not
// own, is ignored, as LSF ignores it.
package lsfhosts

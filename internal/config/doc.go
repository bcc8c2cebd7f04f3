// Package config reads an LSF cluster's configuration as it is and gives
// every daemon a typed, validated, immutable view of it.
//
// # Files
//
// Loading starts at LSF_ENVDIR (default /etc):
//
//	LSF_ENVDIR/lsf.conf                      package lsfconf (NAME=VALUE)
//	LSF_CONFDIR/lsf.shared                   Shared: clusters, types, models, resources
//	LSF_CONFDIR/lsf.cluster.<cluster>        ClusterFile: parameters, admins, hosts, ResourceMap
//	LSF_CONFDIR/hosts                        package hostsfile (optional)
//	LSB_CONFDIR/<cluster>/configdir/lsb.params     Params
//	LSB_CONFDIR/<cluster>/configdir/lsb.queues     []*Queue
//	LSB_CONFDIR/<cluster>/configdir/lsb.hosts      LSBHosts, resolved into BatchHosts
//	LSB_CONFDIR/<cluster>/configdir/lsb.users      LSBUsers
//	LSB_CONFDIR/<cluster>/configdir/lsb.resources  []*Limit
//
// The cluster is the only one of lsf.shared's Cluster section, or the first
// whose lsf.cluster file lists the local host, or the first whose file
// exists. All section files go through one lexer (package lex), which
// handles comments, continuation lines, #INCLUDE "path" (lsf.shared: before
// the first section) and, in the lsb.* files, #if time(...) blocks evaluated
// at the loader's clock (Config.NextChange says when to reload).
//
// # Entry points
//
//	LoadBase(ctx, opts)  (*Base, error)    what LIM needs
//	LoadBatch(ctx, base, opts) (*Config, error)
//	Load(ctx, opts)      (*Config, error)  both
//	Check(ctx, opts, batch) Diagnostics    every problem, for ckconfig
//	NewStore(ctx, load)  *Store[T]         atomic snapshot + Reload
//
// Every problem is a Diagnostic with its file, line and column. As in LSF, a
// Warning means the line, value or section was ignored (or replaced by its
// default) and the rest is used; an Error means the daemon refuses the
// configuration (Load returns an *ErrorList). Errors are: an unreadable or
// missing lsf.conf, lsf.shared or lsf.cluster file, no LSF_CONFDIR (or no
// LSB_SHAREDIR for the batch part), no cluster in lsf.shared, no valid host,
// a bad #INCLUDE or #if directive. Everything else is a warning.
//
// # Resolution
//
// Host groups (with all, ~exclusions, host* wildcards, host[1-4] ranges and
// external groups from "egroup -m"), user groups (recursive, external ones
// from "egroup -u"), queue HOSTS with +preferences and others, lsb.hosts rows
// (host, group, model, type, default), share assignments (user, group,
// group@, default, others), preemption relations (Queue.Preempts, in LSF's
// order of preference) and slot pools (Config.Pools) are resolved at load
// time. Queue RES_REQ, STOP_COND and RESUME_COND are validated with package
// resreq against the cluster's resource table (Base.ResourceTable), strictly
// when LSF_STRICT_RESREQ=Y.
package config

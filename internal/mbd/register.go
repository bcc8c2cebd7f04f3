package mbd

import (
	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// register installs mbatchd's RPC methods.
func (s *Server) register() {
	r := s.rpc
	rpc.HandleUnary(r, api.MBatchdSubmit, s.submit)
	rpc.HandleStream(r, api.MBatchdJobs, s.jobs)
	rpc.HandleUnary(r, api.MBatchdControl, s.control)
	rpc.HandleUnary(r, api.MBatchdModify, s.modify)
	rpc.HandleStream(r, api.MBatchdWaitJob, s.waitJob)
	rpc.HandleUnary(r, api.MBatchdQueues, s.queues)
	rpc.HandleUnary(r, api.MBatchdHosts, s.hostsInfo)
	rpc.HandleUnary(r, api.MBatchdSharedResources, s.sharedResources)
	rpc.HandleUnary(r, api.MBatchdPartitions, s.partitions)
	rpc.HandleUnary(r, api.MBatchdApplications, s.applications)
	rpc.HandleUnary(r, api.MBatchdUsers, s.users)
	rpc.HandleUnary(r, api.MBatchdGroups, s.groups)
	rpc.HandleUnary(r, api.MBatchdParams, s.params)
	rpc.HandleUnary(r, api.MBatchdInfo, s.info)
	rpc.HandleUnary(r, api.MBatchdAdmin, s.admin)
	rpc.HandleStream(r, api.MBatchdHistory, s.history)
	rpc.HandleStream(r, api.MBatchdAcct, s.acct)
	r.Handle(api.MBatchdSbdSession, s.sbdSession)
	rpc.HandleUnary(r, api.MBatchdLeader, s.leaderInfo)
	rpc.HandleUnary(r, api.MBatchdLimits, s.limits)
	rpc.HandleUnary(r, api.MBatchdJobGroup, s.jobGroup)
	rpc.HandleUnary(r, api.MBatchdJobGroups, s.jobGroups)
	rpc.HandleUnary(r, api.MBatchdSysHistory, s.sysHistory)
	rpc.HandleUnary(r, api.MBatchdClusters, s.clusters)
	rpc.HandleUnary(r, api.MBatchdRsv, s.rsv)
	rpc.HandleUnary(r, api.MBatchdResize, s.resize)
	rpc.HandleUnary(r, api.MBatchdRsvs, s.rsvs)
	rpc.HandleUnary(r, api.MBatchdShowStatus, s.showStatus)
}

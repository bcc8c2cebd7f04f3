package mbd

import "github.com/basalt-lsf/basalt/internal/rpc"

// register installs mbatchd's RPC methods.
func (s *Server) register() {
	r := s.rpc
	rpc.HandleUnary(r, "MBatchd.Submit", s.submit)
	rpc.HandleStream(r, "MBatchd.Jobs", s.jobs)
	rpc.HandleUnary(r, "MBatchd.Control", s.control)
	rpc.HandleUnary(r, "MBatchd.Modify", s.modify)
	rpc.HandleStream(r, "MBatchd.WaitJob", s.waitJob)
	rpc.HandleUnary(r, "MBatchd.Queues", s.queues)
	rpc.HandleUnary(r, "MBatchd.Hosts", s.hostsInfo)
	rpc.HandleUnary(r, "MBatchd.SharedResources", s.sharedResources)
	rpc.HandleUnary(r, "MBatchd.Partitions", s.partitions)
	rpc.HandleUnary(r, "MBatchd.Applications", s.applications)
	rpc.HandleUnary(r, "MBatchd.Users", s.users)
	rpc.HandleUnary(r, "MBatchd.Groups", s.groups)
	rpc.HandleUnary(r, "MBatchd.Params", s.params)
	rpc.HandleUnary(r, "MBatchd.Info", s.info)
	rpc.HandleUnary(r, "MBatchd.Admin", s.admin)
	rpc.HandleStream(r, "MBatchd.History", s.history)
	rpc.HandleStream(r, "MBatchd.Acct", s.acct)
	r.Handle("MBatchd.SbdSession", s.sbdSession)
}

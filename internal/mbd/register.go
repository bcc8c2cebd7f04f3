package mbd

import (
	"context"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

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
	rpc.HandleUnary(r, "MBatchd.Users", s.users)
	rpc.HandleUnary(r, "MBatchd.Groups", s.groups)
	rpc.HandleUnary(r, "MBatchd.Params", s.params)
	rpc.HandleUnary(r, "MBatchd.Info", s.info)
	rpc.HandleUnary(r, "MBatchd.Admin", s.admin)
	rpc.HandleStream(r, "MBatchd.History", s.history)
	rpc.HandleStream(r, "MBatchd.Acct", s.acct)
	r.Handle("MBatchd.SbdSession", s.sbdSession)
}

// history answers bhist from the event log files.
func (s *Server) history(ctx context.Context, id auth.Identity, req *api.JobsRequest, send func(*api.HistoryReply) error) error {
	return rpc.Errorf(rpc.Unimplemented, "bhist is not available yet")
}

// acct answers bacct from lsb.acct.
func (s *Server) acct(ctx context.Context, id auth.Identity, req *api.JobsRequest, send func(*api.JobsReply) error) error {
	return rpc.Errorf(rpc.Unimplemented, "bacct is not available yet")
}

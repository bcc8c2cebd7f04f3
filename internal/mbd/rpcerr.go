package mbd

import "github.com/basalt-lsf/basalt/internal/rpc"

func fmtRPCUnavailable(format string, args ...any) error {
	return rpc.Errorf(rpc.Unavailable, format, args...)
}

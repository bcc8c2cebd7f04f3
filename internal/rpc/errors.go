package rpc

import (
	"context"
	"errors"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
)

// Code classifies an RPC failure.
type Code int32

// Status codes carried in end frames.
const (
	OK               Code = 0
	Canceled         Code = 1
	Unknown          Code = 2
	InvalidArgument  Code = 3
	DeadlineExceeded Code = 4
	NotFound         Code = 5
	PermissionDenied Code = 7
	// ResourceExhausted: a bound was reached (a peer sent past its flow
	// control window).
	ResourceExhausted Code = 8
	// FailedPrecondition: the server is not in a state to carry the call
	// out and did nothing (an mbatchd replica that is not the master): the
	// caller may send it elsewhere.
	FailedPrecondition Code = 9
	Unimplemented      Code = 12
	Internal           Code = 13
	Unavailable        Code = 14
	Unauthenticated    Code = 16
)

var (
	errFlowControl = &Error{Code: ResourceExhausted, Msg: "rpc: peer sent past the stream's flow control window"}
	errStreamDone  = &Error{Code: Canceled, Msg: "rpc: stream ended"}
)

// Error is an RPC-level failure returned by a handler or seen by a client.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Errorf builds an *Error.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns err's code: OK for nil, Unknown for non-RPC errors.
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, context.DeadlineExceeded):
		return DeadlineExceeded // the caller's context ended before a reply
	case errors.Is(err, context.Canceled):
		return Canceled
	}
	return Unknown
}

func statusOf(err error) *api.Status {
	if err == nil {
		return &api.Status{}
	}
	var e *Error
	if errors.As(err, &e) {
		return &api.Status{Code: int32(e.Code), Message: e.Msg}
	}
	// A handler that returns its context's error: the call's deadline
	// passed, or the caller cancelled it.
	if c := CodeOf(err); c == DeadlineExceeded || c == Canceled {
		return &api.Status{Code: int32(c), Message: err.Error()}
	}
	return &api.Status{Code: int32(Internal), Message: err.Error()}
}

func errorOf(s *api.Status) error {
	if s == nil || s.Code == 0 {
		return nil
	}
	return &Error{Code: Code(s.Code), Msg: s.Message}
}

// Package rpc is Basalt's transport: request/response and streaming calls
// multiplexed over one TCP connection, carrying messages of package api.
//
// A connection starts with a hello frame (api.ConnHello) that the server
// authenticates once, through an auth.Authenticator; every call on the
// connection then runs as that identity. Calls are unary (Call), server
// streaming (Stream: bjobs, bhist) or bidirectional (Bidi: the sbatchd
// session). Deadlines travel with the request and cancellation with a cancel
// frame, so a server handler's context ends when the client gives up.
//
// Methods are api.MethodDesc values from api's service description
// (api/rpc.go), never strings, so a misspelt method does not compile.
//
// Frame layout (frame.go): a 4-byte big-endian length, a type byte, the
// stream id as a varint, for requests the method name and deadline, for
// window frames the bytes granted, then the payload. Framing version 2
// (negotiated in the hellos: api.ConnHello.Proto, api.ServerHello) adds
// per-stream flow control (flow.go): every stream buffers at most
// StreamWindow bytes plus one message in each direction, and a consumer
// that stops reading stalls only its own stream. Version-1 peers still
// work, without window frames. The package uses only the standard library
// so that every command of the multi-call binary starts quickly.
package rpc

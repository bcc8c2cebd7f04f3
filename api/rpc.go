package api

// ConnHello opens every RPC connection: who the client says it is and the
// credential that proves it (empty for the local identity check).
type ConnHello struct {
	Version    string `wire:"1"`
	User       string `wire:"2"`
	Host       string `wire:"3"` // client's cluster host name
	Credential []byte `wire:"4"` // eauth -c output, when LSF_AUTH=eauth
	Scheme     string `wire:"5"` // "ident" (local uid check) or "eauth"
	Proto      int32  `wire:"6"` // internal/rpc framing version (0: 1)
}

// ConnHello.Proto and ServerHello.Proto are internal/rpc's framing version
// (0 from a peer that predates versioning: version 1).

// ServerHello answers a ConnHello whose Proto is 2 or more, on the
// connection's stream 0, before any other frame: the server's framing
// version. A version-1 client ignores it.
type ServerHello struct {
	Proto int32 `wire:"1"`
}

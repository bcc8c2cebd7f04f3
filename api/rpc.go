package api

// ConnHello opens every RPC connection: who the client says it is and the
// credential that proves it (empty for the local identity check).
type ConnHello struct {
	Version    string `wire:"1"`
	User       string `wire:"2"`
	Host       string `wire:"3"` // client's cluster host name
	Credential []byte `wire:"4"` // eauth -c output, when LSF_AUTH=eauth
	Scheme     string `wire:"5"` // "ident" (local uid check) or "eauth"
}

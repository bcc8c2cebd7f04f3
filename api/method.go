package api

// MethodKind is how a method's messages flow.
type MethodKind uint8

// Method kinds.
const (
	KindUnary        MethodKind = 1 // one request, one reply
	KindServerStream MethodKind = 2 // one request, any number of replies
	KindBidi         MethodKind = 3 // messages both ways
)

// Method is one RPC method: its "Service.Method" name on the wire and its
// kind. Methods are declared once, in the service description (rpc.go), and
// internal/rpc takes only these values, never a string: a misspelt method is
// a compile error, and the typed descriptors (Unary, ServerStream, Bidi)
// make a handler of the wrong message types one too.
type Method struct {
	name string
	kind MethodKind
}

// Name is the method's name on the wire.
func (m Method) Name() string { return m.name }

// Kind is how the method's messages flow.
func (m Method) Kind() MethodKind { return m.kind }

func (m Method) String() string { return m.name }

// RPCMethod makes every descriptor a MethodDesc.
func (m Method) RPCMethod() Method { return m }

// MethodDesc is any method descriptor.
type MethodDesc interface{ RPCMethod() Method }

// Unary is a request/reply method.
type Unary[Req, Resp any] struct{ Method }

// ServerStream is a method with one request and a stream of replies.
type ServerStream[Req, Resp any] struct{ Method }

// Bidi is a bidirectional method: the client sends Send messages, the
// server Recv messages.
type Bidi[Send, Recv any] struct{ Method }

// NewUnary declares a unary method. Outside the service description it is
// meant for tests' own methods.
func NewUnary[Req, Resp any](name string) Unary[Req, Resp] {
	return Unary[Req, Resp]{Method{name, KindUnary}}
}

// NewServerStream declares a server-streaming method (see NewUnary).
func NewServerStream[Req, Resp any](name string) ServerStream[Req, Resp] {
	return ServerStream[Req, Resp]{Method{name, KindServerStream}}
}

// NewBidi declares a bidirectional method (see NewUnary).
func NewBidi[Send, Recv any](name string) Bidi[Send, Recv] {
	return Bidi[Send, Recv]{Method{name, KindBidi}}
}

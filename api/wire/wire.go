package wire

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Type is a wire type.
type Type int8

// Wire types used by Basalt (protobuf's numbering).
const (
	VarintType  Type = 0
	Fixed64Type Type = 1
	BytesType   Type = 2
	Fixed32Type Type = 5
)

// MaxFieldNumber is the largest field number the format allows.
const MaxFieldNumber = 1<<29 - 1

// Message is implemented by every generated message type.
type Message interface {
	AppendWire(b []byte) []byte
	SizeWire() int
	UnmarshalWire(b []byte) error
}

// Marshal encodes m into a new buffer.
func Marshal(m Message) []byte { return m.AppendWire(make([]byte, 0, m.SizeWire())) }

// Errors returned (as negative lengths) by the Consume functions.
var (
	errTruncated = errors.New("truncated input")
	errOverflow  = errors.New("varint overflows 64 bits")
	errFieldNum  = errors.New("invalid field number")
	errWireType  = errors.New("unsupported wire type")
	errLength    = errors.New("length exceeds input")
)

const (
	codeTruncated = -1
	codeOverflow  = -2
	codeFieldNum  = -3
	codeWireType  = -4
	codeLength    = -5
)

func codeErr(n int) error {
	switch n {
	case codeTruncated:
		return errTruncated
	case codeOverflow:
		return errOverflow
	case codeFieldNum:
		return errFieldNum
	case codeWireType:
		return errWireType
	case codeLength:
		return errLength
	}
	return fmt.Errorf("decode error %d", n)
}

// Error is a positioned decoding error.
type Error struct {
	Message string // message type being decoded
	Field   int    // field number, 0 if the tag itself was bad
	Offset  int    // byte offset within the message
	Err     error
}

func (e *Error) Error() string {
	if e.Field == 0 {
		return fmt.Sprintf("wire: %s: at byte %d: %v", e.Message, e.Offset, e.Err)
	}
	return fmt.Sprintf("wire: %s: field %d at byte %d: %v", e.Message, e.Field, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds the error for a negative length n returned by a Consume
// function while decoding field of msg at offset.
func Errorf(msg string, field, offset, n int) error {
	return &Error{Message: msg, Field: field, Offset: offset, Err: codeErr(n)}
}

// TypeError reports a field encoded with an unexpected wire type.
func TypeError(msg string, field, offset int, got Type) error {
	return &Error{Message: msg, Field: field, Offset: offset, Err: fmt.Errorf("unexpected wire type %d", got)}
}

// NestedError wraps an error from decoding a nested message.
func NestedError(msg string, field, offset int, err error) error {
	return &Error{Message: msg, Field: field, Offset: offset, Err: err}
}

// AppendVarint appends v as a base-128 varint.
func AppendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// SizeVarint is the encoded length of v.
func SizeVarint(v uint64) int { return 1 + (bits.Len64(v|1)-1)/7 }

// AppendTag appends a field key.
func AppendTag(b []byte, num int, t Type) []byte {
	return AppendVarint(b, uint64(num)<<3|uint64(t))
}

// SizeTag is the encoded length of a field key.
func SizeTag(num int) int { return SizeVarint(uint64(num) << 3) }

// AppendBytes appends a length-delimited value (without its tag).
func AppendBytes(b []byte, v []byte) []byte {
	b = AppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// AppendString appends a length-delimited string (without its tag).
func AppendString(b []byte, v string) []byte {
	b = AppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// SizeBytes is the encoded length of a length-delimited value of n bytes.
func SizeBytes(n int) int { return SizeVarint(uint64(n)) + n }

// AppendFixed64 appends v little-endian.
func AppendFixed64(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

// AppendDouble appends a float64 as fixed64.
func AppendDouble(b []byte, v float64) []byte { return AppendFixed64(b, math.Float64bits(v)) }

// ConsumeVarint decodes a varint; n < 0 on error.
func ConsumeVarint(b []byte) (v uint64, n int) {
	var shift uint
	for i := 0; i < len(b); i++ {
		if i == 10 {
			return 0, codeOverflow
		}
		c := b[i]
		if i == 9 && c > 1 {
			return 0, codeOverflow
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i + 1
		}
		shift += 7
	}
	return 0, codeTruncated
}

// ConsumeTag decodes a field key; n < 0 on error.
func ConsumeTag(b []byte) (num int, t Type, n int) {
	v, n := ConsumeVarint(b)
	if n < 0 {
		return 0, 0, n
	}
	num64 := v >> 3
	if num64 == 0 || num64 > MaxFieldNumber {
		return 0, 0, codeFieldNum
	}
	return int(num64), Type(v & 7), n
}

// ConsumeBytes decodes a length-delimited value; the result aliases b.
func ConsumeBytes(b []byte) (v []byte, n int) {
	l, n := ConsumeVarint(b)
	if n < 0 {
		return nil, n
	}
	if l > uint64(len(b)-n) {
		return nil, codeLength
	}
	return b[n : n+int(l)], n + int(l)
}

// ConsumeFixed64 decodes a little-endian 64-bit value.
func ConsumeFixed64(b []byte) (v uint64, n int) {
	if len(b) < 8 {
		return 0, codeTruncated
	}
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56, 8
}

// ConsumeDouble decodes a fixed64 float64.
func ConsumeDouble(b []byte) (float64, int) {
	v, n := ConsumeFixed64(b)
	return math.Float64frombits(v), n
}

// ConsumeFieldValue skips one value of wire type t; n < 0 on error.
func ConsumeFieldValue(t Type, b []byte) int {
	switch t {
	case VarintType:
		_, n := ConsumeVarint(b)
		return n
	case Fixed64Type:
		if len(b) < 8 {
			return codeTruncated
		}
		return 8
	case BytesType:
		_, n := ConsumeBytes(b)
		return n
	case Fixed32Type:
		if len(b) < 4 {
			return codeTruncated
		}
		return 4
	}
	return codeWireType
}

// Bool decodes a varint as a Boolean.
func Bool(v uint64) bool { return v != 0 }

// BoolVarint encodes a Boolean.
func BoolVarint(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

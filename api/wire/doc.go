// Package wire holds the primitives of the protobuf wire format that the
// generated *_wire.go code of package api uses: varints, tags, length-
// delimited bytes, fixed64, and field skipping. Decoding never panics: every
// Consume function returns a negative length on malformed input, and Errorf
// turns that into an error naming the message, field and byte offset.
package wire

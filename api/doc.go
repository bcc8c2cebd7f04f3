// Package api is Basalt's wire schema: the messages commands and daemons
// exchange, and the records of mbatchd's event log.
//
// Messages are plain Go structs whose fields carry explicit field numbers in
// `wire:"N"` tags. cmd/wiregen (go generate) writes, for each file here, a
// *_wire.go companion with MarshalWire/UnmarshalWire/SizeWire methods that
// encode in the protobuf wire format: zero values are omitted and unknown
// fields are skipped, so daemons of different versions interoperate, and any
// protobuf tool can read the bytes given a matching .proto description.
// The generated code needs no reflection and no package initialisation, which
// keeps every command of the multi-call binary quick to start (see
// ARCHITECTURE.md, "Wire format").
//
// Rules for editing: never reuse or renumber a field number; add fields with
// new numbers; run `go generate ./api/...` after any change.
package api

//go:generate go run ../internal/tools/wiregen -dir .

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
// new numbers; when a field goes, leave `// reserved: N (Name)` in its
// struct, and N is never used again. Run `go generate ./api/` after any
// change: it refuses an incompatible change and rewrites schema.lock, which
// TestSchemaLock compares with the source (internal/wireschema). A new
// event kind needs its golden fixture: `go test ./api/ -run TestGoldenLog
// -update` writes the missing ones, never rewrites one (mbatchd replays
// its log for ever: what this version wrote, every later one must read).
package api

//go:generate go run ../internal/tools/wiregen -dir .

// Package sbdwire holds the messages private to one execution host: what
// sbatchd gives a job's shepherd (Params, Command), and what the shepherd
// gives the helper that becomes a job process (ExecSpec, ExecResult). They
// are Go structs with `wire:"N"` field numbers, encoded by the codec
// wiregen generates (sbdwire_wire.go), like the messages of package api.
//
// Rules for editing: never reuse or renumber a field number; run
// `go generate ./internal/sbd/sbdwire/` after any change.
package sbdwire

//go:generate go run ../../tools/wiregen -dir .

// Package wireschema derives the wire schema of package api (messages,
// field names, numbers and types, reserved numbers) from its Go source,
// reads and writes it as a lock file (api/schema.lock), and checks that a
// schema evolves compatibly: a field number is never retyped, never reused
// for another field, and a removed field's number stays reserved for ever.
// The log of mbatchd is replayed for ever, so this holds for every record
// ever written.
//
// internal/tools/wiregen (go generate ./api/) refuses to generate when Check
// finds a problem and otherwise rewrites the lock; a test in api fails when
// the source and the committed lock differ.
//
// Reserving: a removed field leaves a comment in its struct,
//
//	type EvJobNew struct {
//		JobID int64 `wire:"1"`
//		// reserved: 2 (Spec), 15
//	}
//
// and its number may then never be used again in that message.
package wireschema

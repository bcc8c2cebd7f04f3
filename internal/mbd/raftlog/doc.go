// Package raftlog is mbatchd's durable storage under hashicorp/raft: a
// segmented write-ahead log implementing raft.LogStore and
// raft.MonotonicLogStore, and a small key/value file implementing
// raft.StableStore, both in one directory (LSB_SHAREDIR/<cluster>/raft/log).
//
// Usage:
//
//	st, err := raftlog.Open(ctx, dir, raftlog.Options{})
//	if errors.Is(err, raftlog.ErrLocked) { ... another mbatchd runs ... }
//	if r := st.Repaired(); r != nil { ... log the torn tail that was cut ... }
//	r, err := raft.NewRaft(conf, fsm, st, st, snaps, trans)
//	...
//	st.Close()
//
// # Guarantees
//
// StoreLogs writes a whole batch with one write and one fdatasync before it
// returns (group commit), so every batch that returned nil survives a crash.
// The log is always contiguous: a batch must continue it, and DeleteRange
// removes a prefix, a suffix or everything. The store is safe for concurrent
// use by raft's goroutines and starts none of its own; it never reads the
// clock (AppendedAt is stored as given). Every I/O error after a write has
// begun puts the store in a failed state (ErrFailed) in which it refuses
// writes: the process must reopen it, which runs recovery.
//
// # Directory
//
//	LOCK                       flock(2)ed by Open, exclusively, until Close
//	                           (holds the owner's pid, for the error message)
//	meta                       where the live log begins (absent: at the start)
//	stable                     the StableStore keys and values
//	00000000000000000001.seg   segment files, named by a 20-digit decimal
//	00000000000000000002.seg   sequence number
//	*.tmp                      files being written; removed by Open
//
// Integers are little-endian unless stated. CRCs are CRC-32C (Castagnoli).
//
// # Segment file
//
// A 40-byte header, then records back to back, no padding:
//
//	offset size  field
//	0      8     magic "BSLTRLOG"
//	8      4     format version, 1
//	12     4     CRC of bytes 0-12 and 16-40
//	16     8     sequence number (equals the file name's)
//	24     8     base: raft index of the segment's first record (not 0)
//	32     8     reserved, zero
//
// A new segment is written as NNN.seg.tmp, fsynced, renamed into place and
// the directory fsynced, so a segment file always has a valid header. The
// log rolls to a new segment before a batch that would take the current one
// past Options.SegmentSize (default 64 MiB); a batch never spans segments.
// Each segment's base is the previous segment's last index plus one.
//
// # Record
//
// One raft.Log per record; the record's length is 8 + L:
//
//	offset size  field
//	0      4     L, payload length (32 + data length + extensions length)
//	4      4     CRC of bytes 0-4 and 8-(8+L)
//	8      8     raft index (not 0; consecutive within the log)
//	16     8     raft term
//	24     8     AppendedAt, Unix nanoseconds (0 for the zero time)
//	32     4     D, data length
//	36     1     raft log type
//	37     1     flags: 0x01 = first record of a StoreLogs batch; others 0
//	38     2     reserved, zero
//	40     D     Data
//	40+D   L-32-D  Extensions
//
// A record is valid when 8 <= its available bytes, 32 <= L, 8+L <=
// Options.MaxRecordSize, all 8+L bytes are present, the CRC matches, D <=
// L-32, the unknown flags and reserved bytes are zero, and the index is the
// one expected at that position. GetLog checks the same on every read from a
// file.
//
// # Meta file
//
// 40 bytes, replaced atomically (write meta.tmp, fsync, rename, fsync the
// directory):
//
//	offset size  field
//	0      8     magic "BSLTMETA"
//	8      4     format version, 1
//	12     4     CRC of bytes 0-12 and 16-40
//	16     8     firstSeg: segments numbered below it are dead
//	24     8     firstIndex: 0, or the first live index, which is in firstSeg
//	32     8     firstOffset: byte offset of firstIndex's record in firstSeg
//
// # Stable file
//
// Replaced atomically like meta on every Set:
//
//	0      8     magic "BSLTSTBL"
//	8      4     format version, 1
//	12     4     CRC of bytes 0-12 and 16-end
//	16     4     number of entries
//	20     ...   per entry, by key: uint32 key length, key, uint32 value
//	             length, value
//
// SetUint64 stores 8 bytes big-endian under the same key space.
//
// # Deleting
//
// Head truncation (DeleteRange from the first index, after a snapshot)
// writes meta with the new start, then deletes the segments wholly before
// it; at most one segment keeps a logically deleted prefix. Tail truncation
// (DeleteRange to the last index, raft dropping conflicting entries) deletes
// the later segments newest first, then truncates the segment holding the
// new end and fdatasyncs it. Deleting everything writes meta naming the next
// unused sequence number as firstSeg, then deletes every segment. A crash at
// any step leaves either the old log, the new log, or (tail truncation) a
// log between the two; dead segments and temporary files left by a crash
// are removed by the next Open.
//
// # Recovery
//
// Open reads every live record of every live segment and checks it. Damage
// is repaired only where a crash can have caused it: the last batch written,
// which is the only write that can be in flight, at the end of the last
// segment. When the first invalid record of the last segment is found at
// offset X, Open searches the bytes after X for an intact record flagged as
// the first of a batch with a higher index. If there is one, the damaged
// batch was followed by another, so it had been acknowledged: Open fails
// with a *CorruptError naming the file and X. If there is none, X is a torn
// tail: the file is truncated at X and Repaired reports it. Any invalid
// record in an earlier segment, a bad header, a gap between segments or an
// inconsistent meta file is a *CorruptError. (Silent damage to the final,
// acknowledged batch is indistinguishable from a torn write and is cut like
// one.) If nothing is left live, Open empties the directory as DeleteRange
// would.
package raftlog

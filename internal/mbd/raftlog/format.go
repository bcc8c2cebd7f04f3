package raftlog

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// On-disk constants; doc.go describes the layout they define.
const (
	segMagic   = "BSLTRLOG"
	metaMagic  = "BSLTMETA"
	kvMagic    = "BSLTSTBL"
	fmtVersion = 1

	segHeaderSize  = 40 // segment file header
	metaSize       = 40 // meta file
	recPrefixSize  = 8  // length + CRC
	recFixedSize   = 32 // index, term, appendedAt, dataLen, type, flags, reserved
	minRecordSize  = recPrefixSize + recFixedSize
	flagBatchStart = 0x01 // the record is the first of a StoreLogs batch
	knownFlags     = flagBatchStart
)

// castagnoli is built on first use: every command of the multi-call binary
// links this package, and building the table at init cost each of them
// about half a millisecond.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// record is one decoded raft log entry. data and ext alias the buffer it was
// decoded from.
type record struct {
	index, term uint64
	appendedAt  int64 // Unix nanoseconds; 0 for the zero time
	typ         uint8
	flags       uint8
	data, ext   []byte
}

// encodedSize is the number of bytes appendRecord writes for l.
func encodedSize(l *raft.Log) int {
	return minRecordSize + len(l.Data) + len(l.Extensions)
}

// appendRecord appends the encoding of l to b.
func appendRecord(b []byte, l *raft.Log, flags uint8) []byte {
	start := len(b)
	payload := recFixedSize + len(l.Data) + len(l.Extensions)
	var at int64
	if !l.AppendedAt.IsZero() {
		at = l.AppendedAt.UnixNano()
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(payload))
	b = binary.LittleEndian.AppendUint32(b, 0) // CRC, filled in below
	b = binary.LittleEndian.AppendUint64(b, l.Index)
	b = binary.LittleEndian.AppendUint64(b, l.Term)
	b = binary.LittleEndian.AppendUint64(b, uint64(at))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(l.Data)))
	b = append(b, byte(l.Type), flags, 0, 0)
	b = append(b, l.Data...)
	b = append(b, l.Extensions...)
	binary.LittleEndian.PutUint32(b[start+4:], recordCRC(b[start:]))
	return b
}

// recordCRC is the CRC-32C of a record's length field and payload; rec holds
// the whole record.
func recordCRC(rec []byte) uint32 {
	c := crc32.Update(0, castagnoli(), rec[0:4])
	return crc32.Update(c, castagnoli(), rec[recPrefixSize:])
}

// decodeError says why the bytes at some offset are not a record. Offset is
// relative to the slice given to decodeRecord; short is set when the bytes
// simply end too early (a torn or unfinished write) rather than being wrong.
type decodeError struct {
	Offset int64
	Short  bool
	Reason string
}

func (e *decodeError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Reason) }

// decodeRecord decodes the record at the start of b. It returns the record
// and its encoded length; on failure it returns a *decodeError whose Offset
// points at the offending field. maxRecord bounds the encoded size of a
// record. It never panics and never reads past b.
func decodeRecord(b []byte, maxRecord int) (record, int, error) {
	if len(b) < recPrefixSize {
		return record{}, 0, &decodeError{Offset: int64(len(b)), Short: true,
			Reason: fmt.Sprintf("record header cut short: %d of %d bytes", len(b), recPrefixSize)}
	}
	payload := uint64(binary.LittleEndian.Uint32(b[0:4]))
	if payload < recFixedSize {
		return record{}, 0, &decodeError{Offset: 0,
			Reason: fmt.Sprintf("record length %d is below the minimum %d", payload, recFixedSize)}
	}
	total := recPrefixSize + payload
	if total > uint64(maxRecord) {
		return record{}, 0, &decodeError{Offset: 0,
			Reason: fmt.Sprintf("record length %d exceeds the maximum %d", total, maxRecord)}
	}
	if uint64(len(b)) < total {
		return record{}, 0, &decodeError{Offset: int64(len(b)), Short: true,
			Reason: fmt.Sprintf("record cut short: %d of %d bytes", len(b), total)}
	}
	rec := b[:total]
	if want, got := binary.LittleEndian.Uint32(rec[4:8]), recordCRC(rec); want != got {
		return record{}, 0, &decodeError{Offset: 4,
			Reason: fmt.Sprintf("checksum mismatch: stored %08x, computed %08x", want, got)}
	}
	r := record{
		index:      binary.LittleEndian.Uint64(rec[8:16]),
		term:       binary.LittleEndian.Uint64(rec[16:24]),
		appendedAt: int64(binary.LittleEndian.Uint64(rec[24:32])),
		typ:        rec[36],
		flags:      rec[37],
	}
	dataLen := uint64(binary.LittleEndian.Uint32(rec[32:36]))
	if dataLen > payload-recFixedSize {
		return record{}, 0, &decodeError{Offset: 32,
			Reason: fmt.Sprintf("data length %d exceeds the record's %d payload bytes", dataLen, payload-recFixedSize)}
	}
	if r.flags&^knownFlags != 0 {
		return record{}, 0, &decodeError{Offset: 37, Reason: fmt.Sprintf("unknown flags %#02x", r.flags)}
	}
	if rec[38] != 0 || rec[39] != 0 {
		return record{}, 0, &decodeError{Offset: 38, Reason: "reserved bytes are not zero"}
	}
	if r.index == 0 {
		return record{}, 0, &decodeError{Offset: 8, Reason: "raft index 0"}
	}
	body := rec[minRecordSize:]
	if dataLen > 0 {
		r.data = body[:dataLen:dataLen]
	}
	if ext := body[dataLen:]; len(ext) > 0 {
		r.ext = ext
	}
	return r, int(total), nil
}

// toLog fills l from r. l's slices alias r's.
func (r *record) toLog(l *raft.Log) {
	l.Index = r.index
	l.Term = r.term
	l.Type = raft.LogType(r.typ)
	l.Data = r.data
	l.Extensions = r.ext
	if r.appendedAt == 0 {
		l.AppendedAt = time.Time{}
	} else {
		l.AppendedAt = time.Unix(0, r.appendedAt)
	}
}

// segHeader is the fixed header at the start of every segment file.
type segHeader struct {
	seq  uint64 // the segment's sequence number; also its file name
	base uint64 // raft index of the segment's first record
}

func (h segHeader) encode() []byte {
	b := make([]byte, segHeaderSize)
	copy(b, segMagic)
	binary.LittleEndian.PutUint32(b[8:12], fmtVersion)
	binary.LittleEndian.PutUint64(b[16:24], h.seq)
	binary.LittleEndian.PutUint64(b[24:32], h.base)
	binary.LittleEndian.PutUint32(b[12:16], headerCRC(b))
	return b
}

// headerCRC is the CRC-32C of a fixed-size header (segment or meta file)
// with its CRC field, bytes 12..16, left out.
func headerCRC(b []byte) uint32 {
	c := crc32.Update(0, castagnoli(), b[0:12])
	return crc32.Update(c, castagnoli(), b[16:])
}

// checkFixedHeader validates the magic, version and CRC of a segment, meta
// or stable file header; the CRC covers b[:crcEnd] except the CRC field. If
// b is shorter than size the error is positioned at its end.
func checkFixedHeader(b []byte, magic string, size, crcEnd int) error {
	if len(b) < size {
		return &decodeError{Offset: int64(len(b)), Short: true,
			Reason: fmt.Sprintf("header cut short: %d of %d bytes", len(b), size)}
	}
	if string(b[0:8]) != magic {
		return &decodeError{Offset: 0, Reason: fmt.Sprintf("bad magic %q, want %q", b[0:8], magic)}
	}
	if v := binary.LittleEndian.Uint32(b[8:12]); v != fmtVersion {
		return &decodeError{Offset: 8, Reason: fmt.Sprintf("unsupported format version %d (this build reads %d)", v, fmtVersion)}
	}
	if want, got := binary.LittleEndian.Uint32(b[12:16]), headerCRC(b[:crcEnd]); want != got {
		return &decodeError{Offset: 12, Reason: fmt.Sprintf("checksum mismatch: stored %08x, computed %08x", want, got)}
	}
	return nil
}

func decodeSegHeader(b []byte) (segHeader, error) {
	if err := checkFixedHeader(b, segMagic, segHeaderSize, segHeaderSize); err != nil {
		return segHeader{}, err
	}
	h := segHeader{
		seq:  binary.LittleEndian.Uint64(b[16:24]),
		base: binary.LittleEndian.Uint64(b[24:32]),
	}
	for i := 32; i < segHeaderSize; i++ {
		if b[i] != 0 {
			return segHeader{}, &decodeError{Offset: int64(i), Reason: "reserved header bytes are not zero"}
		}
	}
	if h.base == 0 {
		return segHeader{}, &decodeError{Offset: 24, Reason: "base index 0"}
	}
	return h, nil
}

// metaState is the content of the meta file: where the live log begins.
// Segments numbered below firstSeg are dead. If firstIndex is not zero, the
// records of segment firstSeg before byte firstOffset are dead and the record
// at firstOffset has raft index firstIndex. With firstIndex zero the lowest
// surviving segment is live from its first record.
type metaState struct {
	firstSeg    uint64
	firstIndex  uint64
	firstOffset int64
}

func (m metaState) encode() []byte {
	b := make([]byte, metaSize)
	copy(b, metaMagic)
	binary.LittleEndian.PutUint32(b[8:12], fmtVersion)
	binary.LittleEndian.PutUint64(b[16:24], m.firstSeg)
	binary.LittleEndian.PutUint64(b[24:32], m.firstIndex)
	binary.LittleEndian.PutUint64(b[32:40], uint64(m.firstOffset))
	binary.LittleEndian.PutUint32(b[12:16], headerCRC(b))
	return b
}

func decodeMeta(b []byte) (metaState, error) {
	if err := checkFixedHeader(b, metaMagic, metaSize, metaSize); err != nil {
		return metaState{}, err
	}
	if len(b) != metaSize {
		return metaState{}, &decodeError{Offset: metaSize, Reason: fmt.Sprintf("%d trailing bytes", len(b)-metaSize)}
	}
	m := metaState{
		firstSeg:    binary.LittleEndian.Uint64(b[16:24]),
		firstIndex:  binary.LittleEndian.Uint64(b[24:32]),
		firstOffset: int64(binary.LittleEndian.Uint64(b[32:40])),
	}
	if m.firstIndex != 0 && m.firstOffset < segHeaderSize {
		return metaState{}, &decodeError{Offset: 32, Reason: fmt.Sprintf("first offset %d inside the segment header", m.firstOffset)}
	}
	return m, nil
}

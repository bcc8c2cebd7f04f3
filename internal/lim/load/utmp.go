package load

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// utmp records on Linux (glibc, every 64-bit and 32-bit ABI with 32-bit
// time fields in the record): 384 bytes.
const (
	utmpSize    = 384
	utmpTypeOff = 0
	utmpLineOff = 8
	utmpLineLen = 32
	utmpUserOff = 44
	utmpUserLen = 32
	userProcess = 7 // USER_PROCESS
)

// Session is a login session of utmp.
type Session struct {
	User string
	Line string // terminal, relative to /dev
}

// ParseUtmp returns the login sessions (USER_PROCESS records with a user)
// of a utmp file. A trailing partial record is an error.
func ParseUtmp(b []byte) ([]Session, error) {
	if len(b)%utmpSize != 0 {
		return nil, &ParseError{"utmp", len(b)/utmpSize + 1, fmt.Sprintf("truncated record: file size %d is not a multiple of %d", len(b), utmpSize)}
	}
	var out []Session
	for off := 0; off < len(b); off += utmpSize {
		rec := b[off : off+utmpSize]
		if int32(binary.LittleEndian.Uint32(rec[utmpTypeOff:])) != userProcess {
			continue
		}
		user := cstr(rec[utmpUserOff : utmpUserOff+utmpUserLen])
		if user == "" {
			continue
		}
		out = append(out, Session{User: user, Line: cstr(rec[utmpLineOff : utmpLineOff+utmpLineLen])})
	}
	return out, nil
}

// AppendUtmp appends a USER_PROCESS record (for tests and fixtures).
func AppendUtmp(b []byte, s Session) []byte {
	rec := make([]byte, utmpSize)
	binary.LittleEndian.PutUint32(rec[utmpTypeOff:], userProcess)
	copy(rec[utmpLineOff:utmpLineOff+utmpLineLen], s.Line)
	copy(rec[utmpUserOff:utmpUserOff+utmpUserLen], s.User)
	return append(b, rec...)
}

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

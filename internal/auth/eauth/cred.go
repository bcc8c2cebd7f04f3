package eauth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Limits of a credential.
const (
	// MaxTTL is the longest time to live of a credential; MaxSkew the most
	// a credential may come from the future (LSF rejects clocks more than
	// five minutes apart).
	MaxTTL  = 5 * time.Minute
	MaxSkew = 5 * time.Minute
	// DefaultTTL is the time to live of the credentials Basalt seals: the
	// most, so that a client whose clock is behind the daemon's by up to
	// LSF's five minutes still authenticates (the replay cache, not the
	// time to live, stops a credential's reuse).
	DefaultTTL = MaxTTL
	// MaxEncoded bounds a printed credential.
	MaxEncoded = 1024
	// NonceSize is the length of a credential's nonce.
	NonceSize = 16

	prefix  = "basalt1."
	magic   = "BAE1"
	macSize = sha256.Size
	maxStr  = 255
)

// Cred is a credential: who (uid, gid, user, the host the client runs on
// and its kind), for whom (a daemon on a host), when, and a nonce.
type Cred struct {
	KeyID        uint32
	UID, GID     uint32
	User         string
	ClientHost   string
	ClientKind   string // "user", "lim", "sbatchd", "mbatchd", "res"
	ServerDaemon string
	ServerHost   string
	Issued       time.Time // millisecond precision
	TTL          time.Duration
	Nonce        [NonceSize]byte
}

// Expiry is when the credential stops being valid.
func (c *Cred) Expiry() time.Time { return c.Issued.Add(c.TTL) }

// ParseError is a malformed credential: Off is the byte offset in the
// decoded credential (or in the printed form for an encoding error).
type ParseError struct {
	Off int
	Msg string
}

func (e *ParseError) Error() string { return fmt.Sprintf("credential: offset %d: %s", e.Off, e.Msg) }

// appendBody appends the sealed part of c (everything but the MAC).
func (c *Cred) appendBody(b []byte) ([]byte, error) {
	b = append(b, magic...)
	b = binary.BigEndian.AppendUint32(b, c.KeyID)
	b = binary.BigEndian.AppendUint64(b, uint64(c.Issued.UnixMilli()))
	ttl := c.TTL / time.Second
	if ttl < 0 || ttl > 0xffff {
		return nil, fmt.Errorf("credential: time to live %v out of range", c.TTL)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(ttl))
	b = binary.BigEndian.AppendUint32(b, c.UID)
	b = binary.BigEndian.AppendUint32(b, c.GID)
	b = append(b, c.Nonce[:]...)
	for _, s := range []string{c.User, c.ClientHost, c.ClientKind, c.ServerDaemon, c.ServerHost} {
		if len(s) > maxStr {
			return nil, fmt.Errorf("credential: field %.20q... longer than %d bytes", s, maxStr)
		}
		b = append(b, byte(len(s)))
		b = append(b, s...)
	}
	return b, nil
}

// fixed is the length of the fixed part of a body.
const fixed = len(magic) + 4 + 8 + 2 + 4 + 4 + NonceSize

// parseBody decodes a body (without MAC).
func parseBody(b []byte) (Cred, error) {
	var c Cred
	if len(b) < fixed {
		return c, &ParseError{len(b), fmt.Sprintf("truncated: %d bytes, want at least %d", len(b), fixed+5+macSize)}
	}
	if string(b[:4]) != magic {
		return c, &ParseError{0, fmt.Sprintf("bad magic %q", b[:4])}
	}
	off := 4
	c.KeyID = binary.BigEndian.Uint32(b[off:])
	off += 4
	c.Issued = time.UnixMilli(int64(binary.BigEndian.Uint64(b[off:])))
	off += 8
	c.TTL = time.Duration(binary.BigEndian.Uint16(b[off:])) * time.Second
	off += 2
	c.UID = binary.BigEndian.Uint32(b[off:])
	off += 4
	c.GID = binary.BigEndian.Uint32(b[off:])
	off += 4
	copy(c.Nonce[:], b[off:])
	off += NonceSize
	for _, p := range []*string{&c.User, &c.ClientHost, &c.ClientKind, &c.ServerDaemon, &c.ServerHost} {
		if off >= len(b) {
			return c, &ParseError{off, "truncated: missing a field length"}
		}
		n := int(b[off])
		off++
		if off+n > len(b) {
			return c, &ParseError{off, fmt.Sprintf("truncated: field of %d bytes, %d left", n, len(b)-off)}
		}
		s := string(b[off : off+n])
		for i := 0; i < len(s); i++ {
			if s[i] <= ' ' || s[i] >= 0x7f {
				return c, &ParseError{off + i, fmt.Sprintf("byte %#x in a name", s[i])}
			}
		}
		*p = s
		off += n
	}
	if off != len(b) {
		return c, &ParseError{off, fmt.Sprintf("%d trailing bytes", len(b)-off)}
	}
	return c, nil
}

// Parse decodes a printed credential without checking its seal: the MAC
// is returned for Open to check.
func Parse(text []byte) (Cred, []byte, []byte, error) {
	if len(text) > MaxEncoded {
		return Cred{}, nil, nil, &ParseError{MaxEncoded, fmt.Sprintf("oversized: %d bytes, at most %d", len(text), MaxEncoded)}
	}
	s := strings.TrimRight(string(text), "\r\n")
	if !strings.HasPrefix(s, prefix) {
		return Cred{}, nil, nil, &ParseError{0, "not a Basalt credential (no " + prefix + " prefix)"}
	}
	raw, err := base64.RawURLEncoding.DecodeString(s[len(prefix):])
	if err != nil {
		var ce base64.CorruptInputError
		off := 0
		if errors.As(err, &ce) {
			off = len(prefix) + int(ce)
		}
		return Cred{}, nil, nil, &ParseError{off, "bad encoding"}
	}
	if len(raw) < macSize {
		return Cred{}, nil, nil, &ParseError{len(raw), "truncated: shorter than its MAC"}
	}
	body, mac := raw[:len(raw)-macSize], raw[len(raw)-macSize:]
	c, err := parseBody(body)
	if err != nil {
		return Cred{}, nil, nil, err
	}
	return c, body, mac, nil
}

// Seal prints c sealed with key (c.KeyID is set to the key's).
func Seal(key *Key, c Cred) ([]byte, error) {
	c.KeyID = key.ID
	body, err := c.appendBody(make([]byte, 0, 160))
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key.secret)
	m.Write(body)
	raw := m.Sum(body)
	out := make([]byte, len(prefix)+base64.RawURLEncoding.EncodedLen(len(raw)))
	copy(out, prefix)
	base64.RawURLEncoding.Encode(out[len(prefix):], raw)
	return out, nil
}

// Errors of Open. Each is a refusal ("User permission denied" to the
// client); the text is for the daemon's log.
var (
	ErrBadSeal    = errors.New("credential: bad seal (wrong key or tampered)")
	ErrUnknownKey = errors.New("credential: sealed with an unknown or expired key")
	ErrExpired    = errors.New("credential: expired")
	ErrFuture     = errors.New("credential: issued in the future (clock skew over 5 minutes)")
	ErrTTL        = errors.New("credential: time to live over 5 minutes")
	ErrReplayed   = errors.New("credential: replayed")
	ErrWrongPeer  = errors.New("credential: meant for another daemon")
)

// Open parses a printed credential and checks its seal and its times at
// now. It does not check whom it is for nor its nonce (Verifier does).
func Open(ring *Keyring, text []byte, now time.Time) (Cred, error) {
	c, body, mac, err := Parse(text)
	if err != nil {
		return Cred{}, err
	}
	key := ring.lookup(c.KeyID, now)
	if key == nil {
		return Cred{}, fmt.Errorf("%w (key id %08x)", ErrUnknownKey, c.KeyID)
	}
	m := hmac.New(sha256.New, key.secret)
	m.Write(body)
	if !hmac.Equal(m.Sum(nil), mac) {
		return Cred{}, ErrBadSeal
	}
	switch {
	case c.TTL <= 0 || c.TTL > MaxTTL:
		return Cred{}, fmt.Errorf("%w: %v", ErrTTL, c.TTL)
	case c.Issued.After(now.Add(MaxSkew)):
		return Cred{}, fmt.Errorf("%w: issued %s, now %s", ErrFuture, c.Issued.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	case !now.Before(c.Expiry()):
		return Cred{}, fmt.Errorf("%w at %s", ErrExpired, c.Expiry().UTC().Format(time.RFC3339))
	}
	return c, nil
}

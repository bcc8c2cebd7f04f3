package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/auth"
)

// TokenTTL is how long a web token is valid.
const TokenTTL = 12 * time.Hour

// Tokens mints and checks web tokens: "user:uid:gid:expiry" (expiry in
// Unix seconds), base64url, a dot, and its HMAC-SHA256 under key.
type Tokens struct {
	key []byte
}

// NewTokens is a token signer with a fresh random key: tokens do not
// survive the mbatchd that issued them.
func NewTokens() (*Tokens, error) {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("web token key: %w", err)
	}
	return &Tokens{key: k}, nil
}

// NewTokensKey is a token signer with the given key (tests).
func NewTokensKey(key []byte) *Tokens { return &Tokens{key: append([]byte(nil), key...)} }

func (t *Tokens) sign(body string) string {
	m := hmac.New(sha256.New, t.key)
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Mint is a token for id valid until expiry.
func (t *Tokens) Mint(id auth.Identity, expiry time.Time) string {
	body := fmt.Sprintf("%s:%d:%d:%d", id.User, id.UID, id.GID, expiry.Unix())
	b := base64.RawURLEncoding.EncodeToString([]byte(body))
	return b + "." + t.sign(b)
}

// Errors of Verify.
var (
	ErrBadToken     = errors.New("web token: malformed or not signed by this mbatchd")
	ErrExpiredToken = errors.New("web token: expired")
)

// Verify returns the identity a token was minted for.
func (t *Tokens) Verify(tok string, now time.Time) (auth.Identity, error) {
	b, sig, ok := strings.Cut(tok, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(t.sign(b))) {
		return auth.Identity{}, ErrBadToken
	}
	raw, err := base64.RawURLEncoding.DecodeString(b)
	if err != nil {
		return auth.Identity{}, ErrBadToken
	}
	f := strings.Split(string(raw), ":")
	if len(f) != 4 || f[0] == "" {
		return auth.Identity{}, ErrBadToken
	}
	uid, err1 := strconv.Atoi(f[1])
	gid, err2 := strconv.Atoi(f[2])
	exp, err3 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return auth.Identity{}, ErrBadToken
	}
	if now.Unix() >= exp {
		return auth.Identity{}, ErrExpiredToken
	}
	return auth.Identity{User: f[0], UID: uid, GID: gid}, nil
}

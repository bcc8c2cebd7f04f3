package mc

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
)

// KeyVar is the lsf.sudoers parameter holding the secret this cluster
// shares with the cluster peer.
func KeyVar(peer string) string { return "LSF_MC_KEY_" + peer }

// ErrNoPairKey is the refusal of a cluster lsf.sudoers holds no key for.
var ErrNoPairKey = errors.New("no MultiCluster key for the cluster")

// PairKey derives the key of the pair of clusters a and b from their
// shared secret: HMAC-SHA256 of the secret over both names in order, so
// that the key differs from the cluster's own eauth key (even if an
// administrator reused the secret) and from the key of any other pair.
func PairKey(secret, a, b string) *eauth.Key {
	if b < a {
		a, b = b, a
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("basalt-mc-pair\x00" + a + "\x00" + b))
	return eauth.NewKey(hex.EncodeToString(m.Sum(nil)))
}

// Keys are a cluster's pair keys, from lsf.sudoers.
type Keys struct {
	Local string
	vars  map[string]string
}

// NewKeys returns the keys of cluster local in the parameters of its
// lsf.sudoers (Sudoers.Vars).
func NewKeys(local string, vars map[string]string) *Keys { return &Keys{Local: local, vars: vars} }

// For returns the key this cluster shares with peer.
func (k *Keys) For(peer string) (*eauth.Key, error) {
	if k == nil {
		return nil, fmt.Errorf("%w <%s>: lsf.sudoers not read", ErrNoPairKey, peer)
	}
	s := strings.TrimSpace(k.vars[KeyVar(peer)])
	if s == "" {
		return nil, fmt.Errorf("%w <%s> (lsf.sudoers sets no %s)", ErrNoPairKey, peer, KeyVar(peer))
	}
	if len(s) < 16 {
		return nil, fmt.Errorf("%s: the secret is shorter than 16 characters", KeyVar(peer))
	}
	return PairKey(s, k.Local, peer), nil
}

// Port is the port of mbatchd's MultiCluster listener: LSB_MC_PORT, by
// default the port below LSB_MBD_PORT (LSF's defaults leave it free).
func Port(conf *lsfconf.Conf) int { return conf.Int("LSB_MC_PORT", conf.MBDPort()-1) }

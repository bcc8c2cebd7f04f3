package state

import (
	"encoding/binary"
	"hash/maphash"
	"slices"

	"github.com/basalt-lsf/basalt/api"
)

// envTable stores each distinct job environment once.
type envTable struct {
	seed    maphash.Seed
	byHash  map[uint64][]*envEntry
	nextRef int64
	byRef   map[int64]*envEntry
}

type envEntry struct {
	env  []string
	ref  int64
	refs int // jobs (specs) using it
}

func newEnvTable() *envTable {
	return &envTable{seed: maphash.MakeSeed(), byHash: map[uint64][]*envEntry{}, byRef: map[int64]*envEntry{}}
}

func (t *envTable) hash(env []string) uint64 {
	var h maphash.Hash
	h.SetSeed(t.seed)
	for _, kv := range env {
		h.WriteString(kv)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// intern returns the shared copy of env and its reference.
func (t *envTable) intern(env []string) ([]string, int64) {
	if len(env) == 0 {
		return nil, 0
	}
	h := t.hash(env)
	for _, e := range t.byHash[h] {
		if slices.Equal(e.env, env) {
			e.refs++
			return e.env, e.ref
		}
	}
	t.nextRef++
	e := &envEntry{env: env, ref: t.nextRef, refs: 1}
	t.byHash[h] = append(t.byHash[h], e)
	t.byRef[e.ref] = e
	return e.env, e.ref
}

// release drops one use of the environment with reference ref.
func (t *envTable) release(ref int64) {
	e := t.byRef[ref]
	if e == nil {
		return
	}
	e.refs--
	if e.refs > 0 {
		return
	}
	delete(t.byRef, ref)
	h := t.hash(e.env)
	list := t.byHash[h]
	for i, x := range list {
		if x == e {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(t.byHash, h)
	} else {
		t.byHash[h] = list
	}
}

// strings interns short repeated strings (users, queues, hosts, projects).
type stringTable map[string]string

func (t stringTable) get(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := t[s]; ok {
		return v
	}
	t[s] = s
	return s
}

// baseTable stores each distinct Spec base once (see Spec): keyed by the
// base's wire encoding, without its environment, followed by the
// environment's reference.
type baseTable struct {
	byKey   map[string]*specBase
	scratch api.JobSpec // the base being looked up
	key     []byte
}

// specBase is an interned base.
type specBase struct {
	*sharedSpec
	key  string
	ref  int64 // its environment's reference (snapshots)
	refs int   // Specs using it
}

func newBaseTable() *baseTable { return &baseTable{byKey: map[string]*specBase{}} }

// intern returns the base of in (in without the fields a Spec holds
// itself), counting one use; its Env is interned in envs.
func (t *baseTable) intern(in *api.JobSpec, envs *envTable) *specBase {
	t.scratch = *in
	t.scratch.Command, t.scratch.JobName, t.scratch.OutFile, t.scratch.ErrFile, t.scratch.Cwd = "", "", "", "", ""
	t.scratch.Env = nil
	env, ref := envs.intern(in.Env)
	t.key = binary.AppendVarint(t.scratch.AppendWire(t.key[:0]), ref)
	b := t.byKey[string(t.key)]
	if b != nil {
		b.refs++
		envs.release(ref)
	} else {
		sp := new(api.JobSpec)
		*sp = t.scratch
		sp.Env = env
		b = &specBase{sharedSpec: sp, key: string(t.key), ref: ref, refs: 1}
		t.byKey[b.key] = b
	}
	t.scratch = api.JobSpec{}
	return b
}

// release drops one use of b.
func (t *baseTable) release(b *specBase, envs *envTable) {
	b.refs--
	if b.refs > 0 {
		return
	}
	delete(t.byKey, b.key)
	envs.release(b.ref)
}

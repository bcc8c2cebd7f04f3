package state

import (
	"hash/maphash"
	"maps"
	"sync/atomic"
)

// Generations. Every object of the state that the applier may change
// (a job record, a shard of a map, a chunk of a pending list, the header of
// a list) carries the generation in which the applier made it. The applier
// writes in place only objects of its current generation; anything older may
// be in a published snapshot, so it copies it first and puts the copy where
// the old one was. Publishing a snapshot starts a new generation: everything
// the snapshot can reach becomes read-only. Generations come from one
// counter for every State, so objects of a restored state are never taken
// for the applier's own.
var generations atomic.Uint64

func nextGen() uint64 { return generations.Add(1) }

// fanBits is the fan-out of a cowMap's two levels: 64 × 64 shards, so a
// snapshot copies 64 pointers per map and the first write to a shard after
// it copies one 64-pointer node and the shard (about 250 entries at a
// million jobs).
const (
	fanBits = 6
	fan     = 1 << fanBits
)

// cowMap is a hash map in 4096 shards behind a two-level tree, copied
// shard by shard on write (see generations). A copy of the struct is a
// snapshot of the map once the applier has moved to a new generation.
type cowMap[K comparable, V any] struct {
	hash func(K) uint64
	n    int
	top  [fan]*cowNode[K, V]
}

type cowNode[K comparable, V any] struct {
	gen    uint64
	shards [fan]*cowShard[K, V]
}

type cowShard[K comparable, V any] struct {
	gen uint64
	m   map[K]V
}

func newCowMap[K comparable, V any](hash func(K) uint64) cowMap[K, V] {
	return cowMap[K, V]{hash: hash}
}

func (m *cowMap[K, V]) get(k K) (V, bool) {
	h := m.hash(k)
	if n := m.top[h&(fan-1)]; n != nil {
		if s := n.shards[(h>>fanBits)&(fan-1)]; s != nil {
			v, ok := s.m[k]
			return v, ok
		}
	}
	var zero V
	return zero, false
}

// shard returns k's shard, writable in generation gen.
func (m *cowMap[K, V]) shard(gen uint64, k K) *cowShard[K, V] {
	h := m.hash(k)
	i, j := h&(fan-1), (h>>fanBits)&(fan-1)
	n := m.top[i]
	switch {
	case n == nil:
		n = &cowNode[K, V]{gen: gen}
		m.top[i] = n
	case n.gen != gen:
		c := *n
		c.gen = gen
		n = &c
		m.top[i] = n
	}
	s := n.shards[j]
	switch {
	case s == nil:
		s = &cowShard[K, V]{gen: gen, m: map[K]V{}}
		n.shards[j] = s
	case s.gen != gen:
		s = &cowShard[K, V]{gen: gen, m: maps.Clone(s.m)}
		n.shards[j] = s
	}
	return s
}

func (m *cowMap[K, V]) set(gen uint64, k K, v V) {
	s := m.shard(gen, k)
	if _, ok := s.m[k]; !ok {
		m.n++
	}
	s.m[k] = v
}

func (m *cowMap[K, V]) del(gen uint64, k K) {
	if _, ok := m.get(k); !ok {
		return
	}
	delete(m.shard(gen, k).m, k)
	m.n--
}

// each calls fn for every entry, in no particular order, until fn returns
// false.
func (m *cowMap[K, V]) each(fn func(K, V) bool) {
	for _, n := range m.top {
		if n == nil {
			continue
		}
		for _, s := range n.shards {
			if s == nil {
				continue
			}
			for k, v := range s.m {
				if !fn(k, v) {
					return
				}
			}
		}
	}
}

// diff calls gone for each entry of prev that m does not have with the
// same value, and came for each entry of m that prev does not have with
// the same value. Nodes and shards the two share are not looked into.
func diff[K, V comparable](m, prev *cowMap[K, V], gone, came func(K, V)) {
	for i := range m.top {
		a, b := m.top[i], prev.top[i]
		if a == b {
			continue
		}
		for j := range fan {
			var sa, sb *cowShard[K, V]
			if a != nil {
				sa = a.shards[j]
			}
			if b != nil {
				sb = b.shards[j]
			}
			if sa == sb {
				continue
			}
			if sb != nil {
				for k, v := range sb.m {
					if sa == nil {
						gone(k, v)
					} else if w, ok := sa.m[k]; !ok || w != v {
						gone(k, v)
					}
				}
			}
			if sa != nil {
				for k, v := range sa.m {
					if sb == nil {
						came(k, v)
					} else if w, ok := sb.m[k]; !ok || w != v {
						came(k, v)
					}
				}
			}
		}
	}
}

// cowSmall is a small map (queues, hosts' administrative states, counters,
// the pending lists by queue) copied whole on the first write of a
// generation.
type cowSmall[K comparable, V any] struct {
	gen uint64
	m   map[K]V
}

// w returns the map, writable in generation gen.
func (c *cowSmall[K, V]) w(gen uint64) map[K]V {
	if c.gen != gen {
		c.m = maps.Clone(c.m)
		if c.m == nil {
			c.m = map[K]V{}
		}
		c.gen = gen
	}
	return c.m
}

var hashSeed = maphash.MakeSeed()

// hashKey puts runs of 64 consecutive job IDs (and of an array's indices)
// in one shard, the runs spread over the shards: a batch of submissions, or
// the dispatch of an array's elements, copies a few shards, not one per job.
func hashKey(k Key) uint64 {
	return mix(uint64(k.ID)>>6 ^ (uint64(uint32(k.Index))>>6)*0x9e3779b97f4a7c15)
}

func hashID(id int64) uint64 { return mix(uint64(id) >> 6) }

// mix is splitmix64's finalizer: consecutive IDs spread over the shards.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func hashString(s string) uint64 { return maphash.String(hashSeed, s) }

func hashName(k nameKey) uint64 {
	return maphash.String(hashSeed, k.name) ^ mix(maphash.String(hashSeed, k.user))
}

// hostJobs is the started jobs of one host, copied whole on the first
// write of a generation (a new record of a job started there is a write).
type hostJobs struct {
	gen  uint64
	jobs map[Key]*Job
}

// nameList is the jobs of one (user, name), in submission order. Entries
// below frozen may be in a snapshot: appending past them shares the array,
// removing one copies it.
type nameList struct {
	gen    uint64
	frozen int
	keys   []Key
}

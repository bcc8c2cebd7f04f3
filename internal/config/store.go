package config

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// Store holds the configuration a daemon runs with: an immutable snapshot
// swapped atomically on reconfiguration. Readers call Current and keep the
// snapshot for the duration of one decision; Reload loads a new one and
// keeps the old one in force when the new one has errors. T is Config for
// mbatchd and sbatchd, Base for LIM.
type Store[T any] struct {
	load func(context.Context) (*T, error)
	cur  atomic.Pointer[T]
	mu   sync.Mutex // serialises Reload
	gen  atomic.Uint64
}

// NewStore loads the first snapshot with load; it fails if that fails.
func NewStore[T any](ctx context.Context, load func(context.Context) (*T, error)) (*Store[T], error) {
	s := &Store[T]{load: load}
	c, err := load(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading configuration: %w", err)
	}
	if c == nil {
		return nil, fmt.Errorf("loading configuration: no configuration returned")
	}
	s.cur.Store(c)
	s.gen.Store(1)
	return s, nil
}

// Current returns the snapshot in force. It never returns nil.
func (s *Store[T]) Current() *T { return s.cur.Load() }

// Generation counts successful loads (1 after NewStore).
func (s *Store[T]) Generation() uint64 { return s.gen.Load() }

// Reload loads a new snapshot and swaps it in. On error the current
// snapshot stays in force and the error (with every diagnostic) is returned.
func (s *Store[T]) Reload(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.load(ctx)
	if err != nil {
		return fmt.Errorf("reconfiguration failed, the previous configuration stays in force: %w", err)
	}
	if c == nil {
		return fmt.Errorf("reconfiguration failed: no configuration returned")
	}
	s.cur.Store(c)
	s.gen.Add(1)
	return nil
}

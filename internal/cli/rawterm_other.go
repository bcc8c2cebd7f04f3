//go:build !linux

package cli

import (
	"errors"
	"os"
)

type rawTerm struct{}

// makeRaw is Linux's only: elsewhere the terminal stays as it is.
func makeRaw(f *os.File, keepSignals bool) (*rawTerm, error) {
	return nil, errors.New("raw terminal mode: not supported on this system")
}

func (r *rawTerm) restore() {}

func termSize(f *os.File) (uint32, uint32, bool) { return 0, 0, false }

func isTerminal(f *os.File) bool { return false }

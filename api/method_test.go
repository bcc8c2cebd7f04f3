package api

import (
	"regexp"
	"testing"
)

func TestMethodsWellFormed(t *testing.T) {
	name := regexp.MustCompile(`^[A-Z][A-Za-z]*\.[A-Z][A-Za-z]*$`)
	seen := map[string]bool{}
	for _, m := range Methods() {
		if !name.MatchString(m.Name()) {
			t.Errorf("method %q is not Service.Method", m.Name())
		}
		if m.Kind() < KindUnary || m.Kind() > KindBidi {
			t.Errorf("method %q has kind %d", m.Name(), m.Kind())
		}
		if seen[m.Name()] {
			t.Errorf("method %q declared twice", m.Name())
		}
		seen[m.Name()] = true
	}
	if len(seen) < 24 {
		t.Errorf("Methods lists %d methods, the description declares 24", len(seen))
	}
}

package cli

import (
	"errors"
	"fmt"

	"github.com/basalt-lsf/basalt/internal/resreq/gpureq"
)

// bsubGPU checks bsub -gpu's value ("-" or LSF 10.1's GPU requirement)
// and returns it as the job carries it.
func bsubGPU(v string) (string, error) {
	if _, err := gpureq.Parse(v); err != nil {
		var e *gpureq.Error
		if errors.As(err, &e) {
			return "", fmt.Errorf("%s: Bad GPU requirement syntax: %s at position %d", v, e.Msg, e.Pos)
		}
		return "", err
	}
	return v, nil
}

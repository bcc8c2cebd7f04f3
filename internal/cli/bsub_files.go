package cli

import (
	"fmt"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// fileXferError is a positioned error in a bsub -f argument (Col from 1),
// worded as LSF's bsub words it.
type fileXferError struct {
	Arg string
	Col int
	Msg string
}

func (e *fileXferError) Error() string {
	return fmt.Sprintf("%s in -f \"%s\" (column %d)", e.Msg, e.Arg, e.Col)
}

// isXferSpace is C's isspace: what separates the operator from the files.
func isXferSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func trimXferSpace(s string) (string, int) {
	i, j := 0, len(s)
	for i < j && isXferSpace(s[i]) {
		i++
	}
	for j > i && isXferSpace(s[j-1]) {
		j--
	}
	return s[i:j], i
}

// parseFileTransfer reads bsub -f "local_file op [remote_file]". The
// operator is the first word (white space on both sides) made of '<' and
// '>' only, and must be one of >, <, <<, >< or <>; what is before it is
// the local file, what is after the remote file, each without the white
// space around it (a file name may hold spaces, as LSF's parser allows).
// The remote file defaults to the local file, as in LSF.
func parseFileTransfer(v string) (*api.FileTransfer, error) {
	i := 0
	for i < len(v) {
		for i < len(v) && isXferSpace(v[i]) {
			i++
		}
		start := i
		for i < len(v) && !isXferSpace(v[i]) {
			i++
		}
		word := v[start:i]
		if word == "" || strings.Trim(word, "<>") != "" {
			continue
		}
		switch word {
		case ">", "<", "<<", "><", "<>":
		default:
			return nil, &fileXferError{v, start + 1, fmt.Sprintf("Invalid file operation \"%s\" specification", word)}
		}
		local, _ := trimXferSpace(v[:start])
		if local == "" {
			return nil, &fileXferError{v, 1, "Invalid local file specification"}
		}
		remote, _ := trimXferSpace(v[i:])
		if remote == "" {
			remote = local
		}
		return &api.FileTransfer{Local: local, Op: word, Remote: remote}, nil
	}
	return nil, &fileXferError{v, len(v) + 1, "Invalid file operation \"\" specification"}
}

package res

import (
	"os"

	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

// openAs opens path with the file system identity of acct (nil: RES's
// own), on one locked OS thread switched to the user's groups, fsgid and
// fsuid and back (shepherd.OpenAs, which jobs' files go through too).
func openAs(path string, flags int, perm os.FileMode, acct *account) (*os.File, error) {
	if acct == nil {
		return os.OpenFile(path, flags, perm)
	}
	return shepherd.OpenAs(path, flags, perm, int(acct.UID), int(acct.GID), acct.Groups)
}

package shepherd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/basalt-lsf/basalt/api"
)

// transfer is one bsub -f entry: a file copied from the submission host to
// the execution host before the job (in), and/or back after it (out,
// appended with "<<").
type transfer struct {
	local, remote string
	in, out       bool
	appendOut     bool
}

// transfers reads bsub -f entries ("local op [remote]"; op is >, <, <<, ><
// or <>; remote defaults to local). Entries with another op are returned
// as notes.
func transfers(files []*api.FileTransfer) ([]transfer, []string) {
	var out []transfer
	var notes []string
	for _, f := range files {
		t := transfer{local: f.Local, remote: f.Remote}
		if t.remote == "" {
			t.remote = t.local
		}
		switch f.Op {
		case ">":
			t.in = true
		case "<":
			t.out = true
		case "<<":
			t.out, t.appendOut = true, true
		case "><", "<>":
			t.in, t.out = true, true
		default:
			notes = append(notes, fmt.Sprintf("Unknown file transfer operator <%s> in <%s %s %s>; ignored.", f.Op, f.Local, f.Op, f.Remote))
			continue
		}
		if t.local == "" {
			notes = append(notes, fmt.Sprintf("File transfer <%s %s> has no local file; ignored.", f.Op, f.Remote))
			continue
		}
		out = append(out, t)
	}
	return out, notes
}

// under resolves a relative path against base.
func under(p, base string) string {
	if filepath.IsAbs(p) || base == "" {
		return p
	}
	return filepath.Join(base, p)
}

// copyAs copies src to dst with the permissions of c (nil: the shepherd's),
// truncating dst or appending to it.
func copyAs(src, dst string, appendTo bool, c *cred) error {
	in, err := openAs(src, os.O_RDONLY, 0, c)
	if err != nil {
		return err
	}
	defer in.Close()
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	out, err := openAs(dst, flags, 0o666, c)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// copyFiles runs a direction of the job's file transfers and returns the
// report's notes about failures. Basalt copies through the file system
// (hosts of a local cluster share it); LSF's lsrcp through RES is not used.
func copyFiles(ts []transfer, toExec bool, subCwd, execCwd string, c *cred) []string {
	var notes []string
	for _, t := range ts {
		local, remote := under(t.local, subCwd), under(t.remote, execCwd)
		switch {
		case toExec && t.in:
			if err := copyAs(local, remote, false, c); err != nil {
				notes = append(notes, fmt.Sprintf("Unable to copy file <%s> to <%s> on the execution host: %v.", local, remote, err))
			}
		case !toExec && t.out:
			if err := copyAs(remote, local, t.appendOut, c); err != nil {
				notes = append(notes, fmt.Sprintf("Unable to copy file <%s> to <%s> on the submission host: %v.", remote, local, err))
			}
		}
	}
	return notes
}

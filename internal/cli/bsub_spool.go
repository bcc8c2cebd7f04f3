package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// maxSpoolBytes bounds a spooled file: the job's record carries it, and
// mbatchd refuses a record past MaxJobSpecBytes (4 MiB) anyway; bsub says
// which file is too large instead.
const maxSpoolBytes = 4 << 20

// spoolFiles reads the files bsub spools at submission (LSF copies them
// to JOB_SPOOL_DIR; Basalt carries them in the job's replicated record):
// -is's input file, and with -Zs the command file, the command's first
// word. Relative paths are the submission directory's.
func spoolFiles(spec *api.JobSpec, cmdSpool bool) error {
	if spec.InSpool && spec.InFile != "" {
		b, err := readSpool(spec.SubCwd, spec.InFile)
		if err != nil {
			return err
		}
		spec.InSpoolData = b
	}
	if !cmdSpool || spec.FromScript {
		// A job script (bsub < script, or a file with #BSUB lines) is
		// already carried whole: nothing more to spool.
		return nil
	}
	name := firstWord(spec.Command)
	if name == "" {
		return errors.New("-Zs: No command file to spool")
	}
	b, err := readSpool(spec.SubCwd, name)
	if err != nil {
		return err
	}
	spec.CmdSpool, spec.CmdSpoolName = b, name
	return nil
}

// firstWord is the command's first blank-separated word.
func firstWord(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// readSpool reads a file to spool, at most maxSpoolBytes.
func readSpool(dir, name string) ([]byte, error) {
	path := name
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, pathErr(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, pathErr(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: Not a regular file; cannot spool it", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSpoolBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, pathErr(err))
	}
	if len(b) > maxSpoolBytes {
		return nil, fmt.Errorf("%s: File too large to spool (more than %d bytes)", name, maxSpoolBytes)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// pathErr is the system's message for err without the path (bsub names
// the file itself), as strerror prints it: "No such file or directory".
func pathErr(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return capitalize(err.Error())
}

package spool

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/sbd/rawfile"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// Key names a job on a host: "<jobid>" or "<jobid>.<index>" for an array
// element.
func Key(jobID int64, index int32) string {
	if index > 0 {
		return strconv.FormatInt(jobID, 10) + "." + strconv.Itoa(int(index))
	}
	return strconv.FormatInt(jobID, 10)
}

// ParseKey is Key's inverse.
func ParseKey(k string) (jobID int64, index int32, ok bool) {
	id, idx, dotted := strings.Cut(k, ".")
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != id {
		return 0, 0, false
	}
	if !dotted {
		return n, 0, true
	}
	i, err := strconv.ParseInt(idx, 10, 32)
	if err != nil || i <= 0 || strconv.FormatInt(i, 10) != idx {
		return 0, 0, false
	}
	return n, int32(i), true
}

// Dir is one job's spool directory.
type Dir string

// Root is the directory holding every job's spool directory.
type Root string

// Job returns the spool directory of the job with key k.
func (r Root) Job(k string) Dir { return Dir(filepath.Join(string(r), k)) }

// Keys lists the jobs spooled under r, sorted; entries that are not job
// keys are ignored.
func (r Root) Keys() ([]string, error) {
	ents, err := os.ReadDir(string(r))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if _, _, ok := ParseKey(e.Name()); ok && e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, ai, _ := ParseKey(out[i])
		b, bi, _ := ParseKey(out[j])
		return a < b || a == b && ai < bi
	})
	return out, nil
}

// Paths of the files in a spool directory.
// The names of the files a Pool keeps when it reuses a directory.
const (
	launchName    = "launch"
	stateName     = "state"
	stateNextName = "state.next"
	userName      = "job"
)

func (d Dir) Launch() string { return filepath.Join(string(d), launchName) }
func (d Dir) Params() string { return filepath.Join(string(d), "params") }
func (d Dir) State() string  { return filepath.Join(string(d), stateName) }
func (d Dir) Acked() string  { return filepath.Join(string(d), "acked") }
func (d Dir) Log() string    { return filepath.Join(string(d), "shepherd.log") }

// User is the directory of the files the job's user reads and writes: job/
// in the spool directory.
func (d Dir) User() UserDir { return UserDir(filepath.Join(string(d), userName)) }

// UserDir is the job user's own directory of a job: the job file, the
// script, the host file, esub's data for eexec and the output of a job
// without -o. sbatchd puts it elsewhere than the spool directory when job
// users cannot reach the latter.
type UserDir string

// Paths of the files in a user directory.
func (u UserDir) JobFile() string  { return filepath.Join(string(u), "jobfile") }
func (u UserDir) Script() string   { return filepath.Join(string(u), "script") }
func (u UserDir) HostFile() string { return filepath.Join(string(u), "hostfile") }
func (u UserDir) Output() string   { return filepath.Join(string(u), "output") }
func (u UserDir) EexecIn() string  { return filepath.Join(string(u), "eexec.in") }

// CmdSpool and InSpool hold a job's spooled command file (bsub -Zs) and
// input file (bsub -is).
func (u UserDir) CmdSpool() string { return filepath.Join(string(u), "cmdspool") }
func (u UserDir) InSpool() string  { return filepath.Join(string(u), "inspool") }

// WriteFile replaces path with data atomically and durably: a temporary
// file in the same directory is written, synced and renamed over path.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, true)
}

// Replace replaces path with data atomically, without waiting for the disk:
// readers see the old content or the new, and the new survives the crash
// of any process, not the loss of the machine.
func Replace(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, false)
}

func replace(path string, data []byte, perm os.FileMode, sync bool) error {
	if err := rawfile.Replace(path, data, uint32(perm.Perm()), sync); err != nil {
		return fmt.Errorf("spool: writing %s: %w", path, err)
	}
	return nil
}

// The launch and parameters are not synced: after the loss of the machine
// the job is gone anyway, and a spool file that did not reach the disk
// reads as missing or damaged (the job is then reported lost).
func write(path string, m wire.Message) error { return Replace(path, wire.Marshal(m), 0o600) }

func read(path string, m wire.Message) error {
	b, err := rawfile.ReadFile(path)
	if err != nil {
		return err
	}
	if err := m.UnmarshalWire(b); err != nil {
		return fmt.Errorf("spool: %s: %w", path, err)
	}
	return nil
}

// WriteLaunch records the job's launch.
func (d Dir) WriteLaunch(l *api.JobLaunch) error { return write(d.Launch(), l) }

// CreateLaunch records the job's launch, given encoded, in a new spool
// directory (no temporary file: a torn launch reads as damaged, and a
// launch that cannot be read is treated as missing).
func (d Dir) CreateLaunch(b []byte) error {
	if err := rawfile.WriteFile(d.Launch(), b, syscall.O_CREAT|syscall.O_EXCL, 0o600); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// ReadLaunch reads the job's launch.
func (d Dir) ReadLaunch() (*api.JobLaunch, error) {
	l := &api.JobLaunch{}
	return l, read(d.Launch(), l)
}

// WriteParams records the shepherd's parameters.
func (d Dir) WriteParams(p *sbdwire.Params) error { return write(d.Params(), p) }

// ReadParams reads the shepherd's parameters.
func (d Dir) ReadParams() (*sbdwire.Params, error) {
	p := &sbdwire.Params{}
	return p, read(d.Params(), p)
}

// WriteState records the job's state, atomically but not synced: it
// survives the crash of sbatchd and of the shepherds (which is what it is
// for: the outcome of a job that ended while sbatchd was down), not the
// loss of the machine in the moment between the job's end and mbatchd's
// acknowledgement (the job is then reported lost). Syncing cost more CPU
// per job than the rest of its record keeping.
//
// The record is written whole to state.next, which is then exchanged with
// state: the inode of the previous state is kept (as state.next) for the
// next write instead of being freed, and a directory the Pool reuses
// allocates none. A reader that opened the previous state just before and
// reads it while it is being rewritten as state.next sees a record whose
// checksum fails: it reads as damaged, never as another state.
func (d Dir) WriteState(s *api.JobStatusReport) error {
	next := d.stateNext()
	if err := rawfile.Overwrite(next, encodeState(s), syscall.O_CREAT, 0o600); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if err := rawfile.Exchange(next, d.State()); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

func (d Dir) stateNext() string { return filepath.Join(string(d), stateNextName) }

// ReadState reads the job's state; fs.ErrNotExist when the shepherd never
// wrote one (also when the file is empty, or holds the record of no job
// that clearState writes).
func (d Dir) ReadState() (*api.JobStatusReport, error) {
	b, err := rawfile.ReadFile(d.State())
	if err != nil {
		return nil, err
	}
	s, err := DecodeState(b) // an empty file decodes as the record of no job
	if err != nil {
		return nil, fmt.Errorf("spool: %s: %w", d.State(), err)
	}
	if s.JobID == 0 {
		return nil, &fs.PathError{Op: "read", Path: d.State(), Err: fs.ErrNotExist}
	}
	return s, nil
}

// clearState leaves d with no state, keeping the file's inode: the record
// of no job (JobID 0) is written over it.
func (d Dir) clearState() error {
	err := rawfile.Overwrite(d.State(), encodeState(&api.JobStatusReport{}), 0, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// stateMagic starts a state record with its checksum: a byte 0 cannot
// start a protobuf message (field 0 does not exist), so a record of an
// earlier version, the bare message, is told apart.
var stateMagic = []byte{0, 'b', 's', '1'}

// A state record is stateMagic, the CRC-32C (Castagnoli) of the message,
// little-endian, and the message.
func encodeState(s *api.JobStatusReport) []byte {
	m := wire.Marshal(s)
	b := make([]byte, 0, len(stateMagic)+4+len(m))
	b = append(b, stateMagic...)
	b = binary.LittleEndian.AppendUint32(b, checksum(m))
	return append(b, m...)
}

// checksum is the CRC-32C of m. Its table is made at the first call, not
// when the package is initialised: every command of the binary would pay
// for it (9 KB of heap at start-up).
func checksum(m []byte) uint32 { return crc32.Checksum(m, crc32.MakeTable(crc32.Castagnoli)) }

// DecodeState parses a state record: checksummed, or a bare message as
// earlier versions wrote it.
func DecodeState(b []byte) (*api.JobStatusReport, error) {
	s := &api.JobStatusReport{}
	if !bytes.HasPrefix(b, stateMagic[:1]) {
		if err := s.UnmarshalWire(b); err != nil {
			return nil, err
		}
		return s, nil
	}
	n := len(stateMagic) + 4
	if len(b) < n || !bytes.Equal(b[:len(stateMagic)], stateMagic) {
		return nil, fmt.Errorf("state record: bad header at byte 0")
	}
	m := b[n:]
	if binary.LittleEndian.Uint32(b[len(stateMagic):]) != checksum(m) {
		return nil, fmt.Errorf("state record: checksum mismatch (a torn record) in bytes %d-%d", n, len(b))
	}
	if err := s.UnmarshalWire(m); err != nil {
		return nil, err
	}
	return s, nil
}

// MarkAcked records that mbatchd acknowledged the job's final report.
func (d Dir) MarkAcked() error { return WriteFile(d.Acked(), nil, 0o600) }

// IsAcked reports whether MarkAcked was called (by an earlier version:
// the spool of an acknowledged job is now removed at once, atomically).
func (d Dir) IsAcked() bool {
	_, err := os.Stat(d.Acked())
	return err == nil
}

// goneSuffix marks a spool directory being removed (renamed out of the
// job keys first, so it disappears atomically).
const goneSuffix = ".gone"

// Remove deletes the spool directory: it leaves the job keys atomically
// (a rename), then its files are deleted. A directory left behind
// half-deleted by a crash is not a job; Root.Sweep removes it.
func (d Dir) Remove() error {
	gone := string(d) + goneSuffix
	if err := os.Rename(string(d), gone); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return rawfile.RemoveAll(string(d))
	}
	return rawfile.RemoveAll(gone)
}

// Sweep removes what interrupted Removes left, and the directories a Pool
// kept (a new sbatchd starts with an empty pool).
func (r Root) Sweep() error {
	ents, err := os.ReadDir(string(r))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	var errs []error
	for _, e := range ents {
		k, gone := strings.CutSuffix(e.Name(), goneSuffix)
		if _, _, valid := ParseKey(k); gone && valid || isKept(e.Name()) {
			errs = append(errs, rawfile.RemoveAll(filepath.Join(string(r), e.Name())))
		}
	}
	return errors.Join(errs...)
}

package eventlog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// File names in the log directory (LSB_SHAREDIR/<cluster>/logdir).
const (
	EventsFile = "lsb.events"
	AcctFile   = "lsb.acct"
	// checkpointFile holds what the writer has rendered; the dot keeps it out
	// of "lsb.events*" globs.
	checkpointFile = ".basalt-eventlog"
	// Temporary files of a log switch.
	tmpEvents  = ".lsb.events.tmp"
	tmpArchive = ".lsb.events.1.tmp"
)

// DefaultMaxJobNum is lsb.params MAX_JOB_NUM's default: finished jobs per
// lsb.events before it is switched.
const DefaultMaxJobNum = 1000

// ErrDamaged reports files that no longer match the writer's checkpoint (a
// file shorter than what was rendered into it, or a checkpoint that cannot
// be read): their records cannot be repaired from the raft log alone. Open
// recovers from it (see recoverEvents), telling Options.Warn.
var ErrDamaged = errors.New("event log files do not match the checkpoint")

// JobSource is mbatchd's state as the writer reads it, after the entry
// being rendered was applied. mbatchd's FSM goroutine owns both.
type JobSource interface {
	// Job returns a job or array element; nil if mbatchd does not hold it.
	Job(id int64, index int32) *Job
	// ActiveJobs returns every job and array element not yet finished, for
	// the re-logging at a log switch.
	ActiveJobs() []*Job
}

// Options configure a Writer.
type Options struct {
	// MaxJobNum is lsb.params MAX_JOB_NUM: lsb.events is switched once
	// that many jobs have finished in it. 0: DefaultMaxJobNum.
	MaxJobNum int
	// SyncEvery is the number of entries between automatic Syncs. 0: 64;
	// negative: only explicit Sync and Close (and log switches) sync.
	SyncEvery int
	// Jobs is mbatchd's state; required.
	Jobs JobSource
	// Warn is told of damaged files Open recovered from; nil: not told.
	Warn func(msg string)
}

// Writer renders committed log entries into lsb.events and lsb.acct. It is
// owned by one goroutine (mbatchd's FSM applier): no method is safe for
// concurrent use.
//
// Durability: lsb.events and lsb.acct are derived data; the raft log is
// the truth. Append writes without fsync. Sync fsyncs both files, then
// records in a checkpoint file the last entry rendered and the size of each
// file. Open truncates the files to the checkpointed sizes (dropping the
// records of entries after it, complete or torn) and LastIndex tells the
// caller where to resume: replaying the entries after it re-renders exactly
// what was lost, so no record is duplicated or missing. The caller must keep
// raft log entries after Durable() (raft's trailing logs) for that replay.
//
// Log switch: after MaxJobNum finished jobs, the next Append first switches
// the file: lsb.events.N becomes N+1, the history part of lsb.events becomes
// lsb.events.1 with first line "# <time of its last event>", and the new
// lsb.events starts with "# <history seek position>", a LOG_SWITCH record
// and the re-logged state of every unfinished job (relogAll), the seek
// position pointing after them. A switch interrupted by a crash is finished
// by Open.
type Writer struct {
	dir       string
	opts      Options
	events    *os.File
	acct      *os.File
	ck        checkpoint
	durable   uint64
	sinceSync int
	broken    error
	buf       []byte
	acctBuf   []byte
	// ended are the runs whose end was rendered (run count by job), until
	// the job starts again or is cleaned.
	ended map[jobKey]int32
}

// checkpoint is the writer's durable state.
type checkpoint struct {
	Index      uint64 // last raft index rendered
	EventsSize int64
	AcctSize   int64
	SeekPos    int64 // history seek position of lsb.events
	Finished   int64 // jobs finished in lsb.events
	LastJobID  int64
	LastTime   int64 // time of the last record in lsb.events
	// A switch in progress: the numbered files before it and the size (and
	// seek position) of the new lsb.events.
	Switching bool
	Archives  int64
	NewSize   int64
	// Relog: lsb.events was started again after damage; the next entry
	// switches it, so that the new file begins with the live jobs.
	Relog bool
}

// Open opens (creating) the log directory dir and recovers it to its last
// checkpoint. Without a checkpoint, an existing lsb.events is archived as
// lsb.events.1 and a new one started; lsb.acct is appended to. Files that do
// not match the checkpoint (ErrDamaged) are recovered from: a damaged
// lsb.events is set aside and started again, a short lsb.acct appended to.
func Open(dir string, opts Options) (*Writer, error) {
	if opts.Jobs == nil {
		return nil, errors.New("eventlog: Options.Jobs is required")
	}
	if opts.MaxJobNum <= 0 {
		opts.MaxJobNum = DefaultMaxJobNum
	}
	if opts.SyncEvery == 0 {
		opts.SyncEvery = 64
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating log directory: %w", err)
	}
	w := &Writer{dir: dir, opts: opts}
	ck, found, err := readCheckpoint(w.path(checkpointFile))
	switch {
	case errors.Is(err, ErrDamaged):
		// What was rendered is unknown: entries the raft log replays are
		// rendered again after the live jobs.
		if err := w.recoverEvents(err, false); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	case found && ck.Switching:
		w.ck = ck
		if err := w.finishSwitch(); err != nil {
			return nil, err
		}
	case found:
		w.ck = ck
		w.removeTemps()
		damaged := truncateTo(w.path(EventsFile), ck.EventsSize)
		if damaged != nil && !errors.Is(damaged, ErrDamaged) {
			return nil, damaged
		}
		if err := w.fitAcct(); err != nil {
			return nil, err
		}
		if damaged != nil {
			if err := w.recoverEvents(damaged, true); err != nil {
				return nil, err
			}
		}
	default:
		w.removeTemps()
		if err := w.start(); err != nil {
			return nil, err
		}
	}
	if err := w.openFiles(); err != nil {
		return nil, err
	}
	w.durable = w.ck.Index
	return w, nil
}

// Skip records that the entries up to index will never be rendered (a
// replica that installed a snapshot from the master: the entries it
// compacted are not in this replica's log): the next entry switches
// lsb.events, so that the new file begins with the live jobs, as after
// damage.
func (w *Writer) Skip(index uint64) {
	if index <= w.ck.Index {
		return
	}
	w.warn(fmt.Sprintf("%s misses the records of log entries %d-%d (a snapshot was installed); the next entry starts a new file with the live jobs",
		EventsFile, w.ck.Index+1, index))
	w.ck.Index = index
	w.ck.Relog = true
}

// LastIndex is the last raft index rendered; after Open, the one to replay
// from (exclusive).
func (w *Writer) LastIndex() uint64 { return w.ck.Index }

// Durable is the last raft index whose records are known to be on disk.
func (w *Writer) Durable() uint64 { return w.durable }

// Dir is the log directory.
func (w *Writer) Dir() string { return w.dir }

func (w *Writer) path(name string) string { return filepath.Join(w.dir, name) }

// start begins a directory without a checkpoint.
func (w *Writer) start() error {
	ev := w.path(EventsFile)
	if st, err := os.Stat(ev); err == nil && st.Size() > 0 {
		n, err := countArchives(w.dir)
		if err != nil {
			return err
		}
		if err := shiftArchives(w.dir, n); err != nil {
			return err
		}
		if err := os.Rename(ev, w.path(EventsFile+".1")); err != nil {
			return fmt.Errorf("archiving %s: %w", ev, err)
		}
	}
	w.ck = checkpoint{}
	if err := w.emptyEvents(true); err != nil {
		return err
	}
	return w.writeCheckpoint()
}

// emptyEvents writes a new lsb.events without records and points the
// checkpoint at it (nothing finished in it, no switch in progress); with
// acctAsIs, lsb.acct is appended to from its present size.
func (w *Writer) emptyEvents(acctAsIs bool) error {
	head := header(0)
	if err := writeFileSync(w.path(EventsFile), head); err != nil {
		return err
	}
	n := int64(len(head))
	w.ck.EventsSize, w.ck.SeekPos, w.ck.Finished = n, n, 0
	w.ck.Switching, w.ck.Archives, w.ck.NewSize = false, 0, 0
	if acctAsIs {
		w.ck.AcctSize = 0
		if st, err := os.Stat(w.path(AcctFile)); err == nil {
			w.ck.AcctSize = st.Size()
		}
	}
	return nil
}

// recoverEvents sets a damaged lsb.events aside (lsb.events.damaged.N, out
// of the archives' numbering) and starts a new one, keeping the raft index
// rendered so far: mbatchd's state is in the raft log, not in lsb.events,
// and a derived file must not keep the master from serving. The next
// entry switches the new file (Checkpoint.Relog), which then begins with
// the live jobs.
//
// acctKnown says the checkpoint's lsb.acct size holds (lsb.acct was fitted
// to it); otherwise lsb.acct is appended to as it is.
func (w *Writer) recoverEvents(cause error, acctKnown bool) error {
	w.removeTemps()
	ev := w.path(EventsFile)
	aside := ""
	if _, err := os.Lstat(ev); err == nil {
		for i := 1; ; i++ {
			aside = ev + ".damaged." + strconv.Itoa(i)
			if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
				break
			}
		}
		if err := os.Rename(ev, aside); err != nil {
			return fmt.Errorf("setting aside %s: %w (%w)", ev, err, cause)
		}
	}
	if err := w.emptyEvents(!acctKnown); err != nil {
		return err
	}
	w.ck.Relog = true
	if err := w.writeCheckpoint(); err != nil {
		return err
	}
	msg := fmt.Sprintf("%v; a new %s was started", cause, EventsFile)
	if aside != "" {
		msg += ", the damaged one is " + filepath.Base(aside)
	}
	w.warn(msg)
	return nil
}

// fitAcct cuts lsb.acct back to the checkpoint; a shorter (or missing)
// lsb.acct lost records that cannot be rendered again: it is kept as it is,
// its last line completed, and appended to.
func (w *Writer) fitAcct() error {
	err := truncateTo(w.path(AcctFile), w.ck.AcctSize)
	if !errors.Is(err, ErrDamaged) {
		return err
	}
	size, lerr := completeLastLine(w.path(AcctFile))
	if lerr != nil {
		return fmt.Errorf("%w (%w)", lerr, err)
	}
	w.ck.AcctSize = size
	if werr := w.writeCheckpoint(); werr != nil {
		return werr
	}
	w.warn(fmt.Sprintf("%v; records after byte %d are lost, appending from there", err, size))
	return nil
}

// completeLastLine appends a newline to file p unless it is empty, missing
// or already ends with one, and returns its size.
func completeLastLine(p string) (int64, error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return 0, err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, st.Size()-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		return st.Size(), nil
	}
	if _, err := f.Write([]byte{'\n'}); err != nil {
		return 0, err
	}
	return st.Size() + 1, f.Sync()
}

func (w *Writer) warn(msg string) {
	if w.opts.Warn != nil {
		w.opts.Warn(msg)
	}
}

// header returns lsb.events' first line for a state block of n bytes: "#
// <offset of the first history record>".
func header(n int) []byte {
	pos := n
	for {
		h := "# " + strconv.Itoa(pos) + "\n"
		if len(h)+n == pos {
			return []byte(h)
		}
		pos = len(h) + n
	}
}

func (w *Writer) openFiles() error {
	var err error
	if w.events, err = os.OpenFile(w.path(EventsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		return fmt.Errorf("opening %s: %w", EventsFile, err)
	}
	if w.acct, err = os.OpenFile(w.path(AcctFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		w.events.Close()
		return fmt.Errorf("opening %s: %w", AcctFile, err)
	}
	return nil
}

// Append renders the events of the committed entry at raft index index.
// errs are the state's per-event Apply errors: events that did not apply
// are not rendered. Entries at or below LastIndex were rendered before and
// are skipped.
func (w *Writer) Append(index uint64, e *api.LogEntry, errs []error) error {
	if w.broken != nil {
		return w.broken
	}
	if index <= w.ck.Index {
		return nil
	}
	// A switch left pending (MaxJobNum lowered since the checkpoint) happens
	// before the entry.
	if w.ck.Finished >= int64(w.opts.MaxJobNum) {
		if err := w.switchLog(); err != nil {
			w.broken = fmt.Errorf("switching %s: %w", EventsFile, err)
			return w.broken
		}
	}
	w.buf, w.acctBuf = w.buf[:0], w.acctBuf[:0]
	ck := w.ck
	for i, ev := range e.Events {
		if i < len(errs) && errs[i] != nil {
			continue
		}
		job := w.jobFor(ev)
		if job != nil {
			job.StateChanged = job.StateIndex == index
		}
		if w.repeatedFinish(ev, job) {
			continue
		}
		evs, acct := Render(ev, job)
		for _, r := range evs {
			w.buf = AppendRecord(w.buf, r)
			ck.LastTime = max(ck.LastTime, r.Time)
			if n, ok := r.Log.(*JobNew); ok {
				ck.LastJobID = max(ck.LastJobID, n.JobID)
			}
		}
		for _, r := range acct {
			w.acctBuf = AppendRecord(w.acctBuf, r)
			ck.Finished++
		}
	}
	if err := writeAll(w.events, w.buf); err != nil {
		w.broken = err
		return err
	}
	if err := writeAll(w.acct, w.acctBuf); err != nil {
		w.broken = err
		return err
	}
	ck.Index = index
	ck.EventsSize += int64(len(w.buf))
	ck.AcctSize += int64(len(w.acctBuf))
	w.ck = ck
	w.sinceSync++
	// The entry that reaches MaxJobNum switches the file, with the state
	// right after it. Until the switch is checkpointed, the durable
	// checkpoint stays before this entry: a crash replays the entry, and
	// the switch, identically.
	if w.ck.Finished >= int64(w.opts.MaxJobNum) || w.ck.Relog {
		if err := w.switchLog(); err != nil {
			w.broken = fmt.Errorf("switching %s: %w", EventsFile, err)
			return w.broken
		}
		return nil
	}
	if w.opts.SyncEvery > 0 && w.sinceSync >= w.opts.SyncEvery {
		return w.Sync()
	}
	return nil
}

// repeatedFinish reports a DONE or EXIT report of a run whose end was
// already rendered in the same second (Render tells a run's end by the
// job's EndTime, which has a one-second resolution), and keeps track of
// the runs that ended.
func (w *Writer) repeatedFinish(ev *api.Event, job *Job) bool {
	switch {
	case ev.JobStart != nil:
		delete(w.ended, jobKey{ev.JobStart.JobID, ev.JobStart.Index})
	case ev.JobClean != nil:
		delete(w.ended, jobKey{ev.JobClean.JobID, ev.JobClean.Index})
	case ev.JobStatus != nil && job != nil:
		s := ev.JobStatus
		if s.State != api.StateDone && s.State != api.StateExit || s.PostDone || s.PostFailed {
			return false
		}
		k := jobKey{s.JobID, s.Index}
		if run, ok := w.ended[k]; ok && run == job.RunCount {
			return true
		}
		if w.ended == nil {
			w.ended = map[jobKey]int32{}
		}
		w.ended[k] = job.RunCount
	}
	return false
}

// jobFor looks up the job context an event's records need.
func (w *Writer) jobFor(ev *api.Event) *Job {
	switch {
	case ev.JobStart != nil:
		return w.opts.Jobs.Job(ev.JobStart.JobID, ev.JobStart.Index)
	case ev.JobExecute != nil:
		return w.opts.Jobs.Job(ev.JobExecute.JobID, ev.JobExecute.Index)
	case ev.JobStatus != nil:
		return w.opts.Jobs.Job(ev.JobStatus.JobID, ev.JobStatus.Index)
	case ev.JobModify != nil:
		return w.opts.Jobs.Job(ev.JobModify.JobID, ev.JobModify.Index)
	case ev.JobSignal != nil:
		return w.opts.Jobs.Job(ev.JobSignal.JobID, ev.JobSignal.Index)
	case ev.JobFwdUpdate != nil:
		return w.opts.Jobs.Job(ev.JobFwdUpdate.JobID, ev.JobFwdUpdate.Index)
	case ev.JobChkpnt != nil:
		return w.opts.Jobs.Job(ev.JobChkpnt.JobID, ev.JobChkpnt.Index)
	}
	return nil
}

func writeAll(f *os.File, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Base(f.Name()), err)
	}
	return nil
}

// Sync makes everything appended durable and checkpoints it.
func (w *Writer) Sync() error {
	if w.broken != nil {
		return w.broken
	}
	for _, f := range []*os.File{w.events, w.acct} {
		if err := f.Sync(); err != nil {
			w.broken = fmt.Errorf("syncing %s: %w", filepath.Base(f.Name()), err)
			return w.broken
		}
	}
	if err := w.writeCheckpoint(); err != nil {
		w.broken = err
		return err
	}
	w.durable = w.ck.Index
	w.sinceSync = 0
	return nil
}

// Close syncs and closes the files.
func (w *Writer) Close() error {
	err := w.Sync()
	if w.events != nil {
		if cerr := w.events.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}
	if w.acct != nil {
		if cerr := w.acct.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}
	w.events, w.acct = nil, nil
	if w.broken == nil {
		w.broken = errors.New("eventlog: writer closed")
	}
	return err
}

// crashAt, set by tests, simulates a crash at a named point of a log
// switch: when it returns true the switch stops there with errCrash.
var crashAt func(point string) bool

var errCrash = errors.New("simulated crash")

func crash(point string) error {
	if crashAt != nil && crashAt(point) {
		return errCrash
	}
	return nil
}

// switchLog switches lsb.events (see Writer). The checkpoint is not
// written until the new files are ready: a crash before that recovers to the
// previous checkpoint, and the replay switches again.
func (w *Writer) switchLog() error {
	for _, f := range []*os.File{w.events, w.acct} {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("syncing %s: %w", filepath.Base(f.Name()), err)
		}
	}
	// The archive: the history part of the current file.
	if err := w.writeArchive(); err != nil {
		return err
	}
	if err := crash("archive written"); err != nil {
		return err
	}
	// The new current file: header, LOG_SWITCH, the live jobs.
	block := AppendRecord(nil, &Record{Type: TypeLogSwitch, Version: Version, Time: w.ck.LastTime, Log: &LogSwitch{LastJobID: w.ck.LastJobID}})
	for _, r := range relogAll(w.opts.Jobs.ActiveJobs()) {
		block = AppendRecord(block, r)
	}
	head := header(len(block))
	if err := writeFileSync(w.path(tmpEvents), append(head, block...)); err != nil {
		return err
	}
	if err := crash("events written"); err != nil {
		return err
	}
	n, err := countArchives(w.dir)
	if err != nil {
		return err
	}
	w.ck.Switching, w.ck.Archives, w.ck.NewSize = true, int64(n), int64(len(head)+len(block))
	if err := w.writeCheckpoint(); err != nil {
		return err
	}
	if err := crash("switch checkpointed"); err != nil {
		return err
	}
	w.events.Close()
	w.events = nil
	if err := w.finishSwitch(); err != nil {
		return err
	}
	var ferr error
	w.events, ferr = os.OpenFile(w.path(EventsFile), os.O_WRONLY|os.O_APPEND, 0o644)
	if ferr != nil {
		return fmt.Errorf("opening %s: %w", EventsFile, ferr)
	}
	w.durable = w.ck.Index
	w.sinceSync = 0
	return nil
}

func (w *Writer) writeArchive() error {
	src, err := os.Open(w.path(EventsFile))
	if err != nil {
		return fmt.Errorf("archiving %s: %w", EventsFile, err)
	}
	defer src.Close()
	dst, err := os.OpenFile(w.path(tmpArchive), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("archiving %s: %w", EventsFile, err)
	}
	_, err = fmt.Fprintf(dst, "# %d\n", w.ck.LastTime)
	if err == nil {
		_, err = io.Copy(dst, io.NewSectionReader(src, w.ck.SeekPos, w.ck.EventsSize-w.ck.SeekPos))
	}
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("archiving %s: %w", EventsFile, err)
	}
	return nil
}

// finishSwitch completes the renames of a switch whose files are written
// and checkpointed, and checkpoints the new lsb.events. It is idempotent:
// Open runs it again after a crash in the middle.
func (w *Writer) finishSwitch() error {
	if exists(w.path(tmpArchive)) {
		// Shift lsb.events.i to i+1, from the highest; a crash may have
		// done part of it, leaving a hole where it stopped.
		h := int64(1)
		for h <= w.ck.Archives+1 && exists(w.path(archiveName(h))) {
			h++
		}
		if err := shiftArchives(w.dir, int(h-1)); err != nil {
			return err
		}
		if err := os.Rename(w.path(tmpArchive), w.path(archiveName(1))); err != nil {
			return fmt.Errorf("switching %s: %w", EventsFile, err)
		}
		if err := crash("archive renamed"); err != nil {
			return err
		}
	}
	if exists(w.path(tmpEvents)) {
		if err := os.Rename(w.path(tmpEvents), w.path(EventsFile)); err != nil {
			return fmt.Errorf("switching %s: %w", EventsFile, err)
		}
		if err := crash("events renamed"); err != nil {
			return err
		}
	}
	if err := syncDir(w.dir); err != nil {
		return err
	}
	w.ck.Switching, w.ck.Relog = false, false
	w.ck.EventsSize, w.ck.SeekPos, w.ck.Finished = w.ck.NewSize, w.ck.NewSize, 0
	w.ck.Archives, w.ck.NewSize = 0, 0
	if err := w.fitAcct(); err != nil {
		return err
	}
	return w.writeCheckpoint()
}

func archiveName(i int64) string { return EventsFile + "." + strconv.FormatInt(i, 10) }

// countArchives returns N for lsb.events.1 ... lsb.events.N, the way LSF
// finds them (stat of increasing numbers until one is missing).
func countArchives(dir string) (int, error) {
	n := 0
	for {
		_, err := os.Stat(filepath.Join(dir, archiveName(int64(n+1))))
		if errors.Is(err, fs.ErrNotExist) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		n++
	}
}

// shiftArchives renames lsb.events.i to i+1 for i = n down to 1 (LSF's
// renameElogFiles).
func shiftArchives(dir string, n int) error {
	for i := int64(n); i >= 1; i-- {
		if err := os.Rename(filepath.Join(dir, archiveName(i)), filepath.Join(dir, archiveName(i+1))); err != nil {
			return fmt.Errorf("renaming %s: %w", archiveName(i), err)
		}
		if err := crash("shifted " + archiveName(i)); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) removeTemps() {
	os.Remove(w.path(tmpEvents))
	os.Remove(w.path(tmpArchive))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// truncateTo cuts a file back to size n; a shorter file is ErrDamaged.
func truncateTo(p string, n int64) error {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) && n == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if st.Size() < n {
		return fmt.Errorf("%w: %s is %d bytes, the checkpoint says %d", ErrDamaged, p, st.Size(), n)
	}
	if st.Size() > n {
		if err := os.Truncate(p, n); err != nil {
			return fmt.Errorf("truncating %s: %w", p, err)
		}
	}
	return nil
}

func writeFileSync(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// The checkpoint file: one line of key=value fields, replaced atomically.
const checkpointMagic = "basalt-eventlog/1"

func (w *Writer) writeCheckpoint() error {
	c := w.ck
	b := fmt.Appendf(nil, "%s index=%d events=%d acct=%d seek=%d finished=%d lastjob=%d lasttime=%d switching=%t archives=%d newsize=%d relog=%t\n",
		checkpointMagic, c.Index, c.EventsSize, c.AcctSize, c.SeekPos, c.Finished, c.LastJobID, c.LastTime, c.Switching, c.Archives, c.NewSize, c.Relog)
	tmp := w.path(checkpointFile + ".tmp")
	if err := writeFileSync(tmp, b); err != nil {
		return err
	}
	if err := os.Rename(tmp, w.path(checkpointFile)); err != nil {
		return fmt.Errorf("writing checkpoint: %w", err)
	}
	return syncDir(w.dir)
}

func readCheckpoint(p string) (checkpoint, bool, error) {
	var c checkpoint
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("reading checkpoint: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 || f[0] != checkpointMagic {
		return c, false, fmt.Errorf("%w: %s is not a checkpoint", ErrDamaged, p)
	}
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "index":
			c.Index, err = strconv.ParseUint(v, 10, 64)
		case "events":
			c.EventsSize, err = strconv.ParseInt(v, 10, 64)
		case "acct":
			c.AcctSize, err = strconv.ParseInt(v, 10, 64)
		case "seek":
			c.SeekPos, err = strconv.ParseInt(v, 10, 64)
		case "finished":
			c.Finished, err = strconv.ParseInt(v, 10, 64)
		case "lastjob":
			c.LastJobID, err = strconv.ParseInt(v, 10, 64)
		case "lasttime":
			c.LastTime, err = strconv.ParseInt(v, 10, 64)
		case "switching":
			c.Switching, err = strconv.ParseBool(v)
		case "archives":
			c.Archives, err = strconv.ParseInt(v, 10, 64)
		case "newsize":
			c.NewSize, err = strconv.ParseInt(v, 10, 64)
		case "relog":
			c.Relog, err = strconv.ParseBool(v)
		}
		if err != nil {
			return c, false, fmt.Errorf("%w: %s: bad %s: %v", ErrDamaged, p, k, err)
		}
	}
	return c, true, nil
}

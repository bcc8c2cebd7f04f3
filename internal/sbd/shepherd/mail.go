package shepherd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/basalt-lsf/basalt/internal/sbd/report"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// Job mail, as LSF's sbatchd sends it (bsub -B, -N, -u; lsf.conf
// LSB_MAILPROG, LSB_MAILTO, LSB_MAILSIZE_LIMIT):
//
//   - a job without -o (and not interactive) has its report and its output
//     mailed when it ends (the output stays in the spool's output file too,
//     with the report appended as before);
//   - -N with -o mails the report alone, which says where the output is,
//     and the -o file gets the output without the report (when the mail
//     cannot be sent the report goes to the file after all);
//   - -o without -N sends nothing (the report is in the file);
//   - -B mails a notice when the job starts.
//
// The mail program runs as the job's user (LSF requires it to be
// executable by any user) with report.MailArgs, the message on its
// standard input (a pipe), its standard output /dev/null and its error
// output the shepherd's log: the exec helper gives it those three
// descriptors only. Its environment is a fresh one (PATH, HOME, USER,
// LOGNAME, LSF's variables, LSB_MAILSIZE for a report with the output):
// without the job's LSB_JOBID, what a sendmail leaves running to deliver
// is not taken for a process of the job.

// endMailKind says whether and how the end of the job is mailed.
type endMailKind int

const (
	noEndMail      endMailKind = iota
	mailWithOutput             // no -o: the report and the output
	mailReportOnly             // -N with -o (or an interactive job): the report
)

func (s *Shepherd) endMailKind() endMailKind {
	js := s.l.Spec
	switch {
	case s.p.MailProg == "":
		return noEndMail
	case js.OutFile == "" && !js.Interactive:
		return mailWithOutput
	case js.NotifyEnd:
		return mailReportOnly
	}
	return noEndMail
}

// mailTo is the recipient: bsub -u's user or address, else the submitter,
// through LSB_MAILTO.
func (s *Shepherd) mailTo() string {
	user := s.l.User
	if u := s.l.Spec.MailUser; u != "" {
		user = u
	}
	return report.Address(s.p.MailTo, user, s.l.Spec.FromHost)
}

// mailEnv is the mail program's environment.
func (s *Shepherd) mailEnv(extra ...string) []string {
	env := []string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin:/usr/lib", "HOME=" + s.p.Home, "USER=" + s.p.User, "LOGNAME=" + s.p.User}
	env = append(env, s.p.ExtraEnv...)
	return append(env, extra...)
}

// sendMail starts the mail program (kind kindMailBegin or kindMailEnd) and
// feeds it the message that write produces, from a goroutine: the
// program's end comes back as its child's completion.
func (s *Shepherd) sendMail(kind childKind, to string, env []string, write func(io.Writer) error) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	spec := s.baseSpec(append([]string{s.p.MailProg}, report.MailArgs(to)...), env)
	spec.Dirs = []string{s.p.Home, "/tmp"}
	_, err = s.spawn(kind, spec, r)
	r.Close()
	if err != nil {
		w.Close()
		return err
	}
	go func() {
		if err := write(w); err != nil {
			s.log.Warn("writing the mail", "to", to, "err", err)
		}
		w.Close()
	}()
	return nil
}

// mailBegin mails the -B notice.
func (s *Shepherd) mailBegin() {
	to := s.mailTo()
	msg := report.FormatBegin(to, s.reportJob(), s.now())
	if err := s.sendMail(kindMailBegin, to, s.mailEnv(), func(w io.Writer) error {
		_, err := w.Write(msg)
		return err
	}); err != nil {
		s.warnf("mailing the start notice to %s: %v", to, err)
	}
}

// mailEnd mails the job report of kind k; false when nothing was started
// (the report then goes to its file as without mail).
func (s *Shepherd) mailEnd(k endMailKind) bool {
	to := s.mailTo()
	j := s.reportJob()
	js := s.l.Spec
	m := report.EndMail{WithOutput: k == mailWithOutput, OutFile: s.reportTarget(),
		ErrApart: js.ErrFile != "" && s.execRes != nil && s.execRes.Stderr != "" && s.execRes.Stderr != s.execRes.Stdout}
	var out *os.File
	var size int64 = -1
	if m.WithOutput {
		m.OutFile = ""
		var err error
		out, size, err = s.openOutput()
		if err != nil {
			s.warnf("reading the output to mail: %v", err)
			j.Notes = append(j.Notes, fmt.Sprintf("Unable to read output data from the stdout buffer file <%s>: your job was probably aborted prematurely.", s.udir.Output()))
		} else if lim := s.p.MailSizeLimit; lim > 0 && size > lim*1024 {
			m.LimitKB, m.SavedAt = lim, s.savedOutput()
			if err := s.saveOutput(out, m.SavedAt); err != nil {
				s.warnf("saving the output to %s: %v", m.SavedAt, err)
				m.SavedAt = s.udir.Output()
			}
			out.Close()
			out = nil
		}
	}
	head, tail := report.FormatMail(to, j, m)
	env := s.mailEnv()
	if m.WithOutput {
		// LSB_MAILSIZE: the mail's size in KB; -1 when the output could
		// not be read.
		kb := int64(-1)
		switch {
		case out != nil:
			kb = report.SizeKB(int64(len(head)+len(tail)) + size)
		case size >= 0:
			kb = report.SizeKB(int64(len(head) + len(tail)))
		}
		env = append(env, "LSB_MAILSIZE="+strconv.FormatInt(kb, 10))
	}
	err := s.sendMail(kindMailEnd, to, env, func(w io.Writer) error {
		if out != nil {
			defer out.Close()
		}
		if _, err := w.Write(head); err != nil {
			return err
		}
		if out != nil {
			if _, err := io.Copy(w, out); err != nil {
				return err
			}
		}
		_, err := w.Write(tail)
		return err
	})
	if err != nil {
		if out != nil {
			out.Close()
		}
		s.warnf("mailing the job report to %s: %v", to, err)
		return false
	}
	s.mailing = k
	return true
}

// openOutput opens this run's part of the spool's output file as the job
// user (its size from there: earlier runs' output is before OutStart).
func (s *Shepherd) openOutput() (*os.File, int64, error) {
	f, err := openAs(s.udir.Output(), os.O_RDONLY|syscall.O_NOFOLLOW, 0, s.userCred())
	if err != nil {
		return nil, -1, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, -1, err
	}
	from := min(s.st.OutStart, st.Size())
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		f.Close()
		return nil, -1, err
	}
	return f, st.Size() - from, nil
}

// savedOutput is where output too large to mail is kept: the job's
// .lsbatch directory in the user's home, as LSF's default job output
// directory.
func (s *Shepherd) savedOutput() string {
	name := strconv.FormatInt(s.l.JobID, 10)
	if s.l.Index > 0 {
		name += "." + strconv.Itoa(int(s.l.Index))
	}
	return filepath.Join(s.p.Home, ".lsbatch", name+".out")
}

// saveOutput copies the rest of out to path, created as the job user.
func (s *Shepherd) saveOutput(out *os.File, path string) error {
	c := s.userCred()
	if err := s.host.mkdirAs(filepath.Dir(path), 0o700, c); err != nil {
		return err
	}
	f, err := openAs(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600, c)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, out)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// mkdirAs makes dir (and its parents) as c, as appendFile writes.
func (h *Host) mkdirAs(dir string, perm os.FileMode, c *cred) error {
	var err error
	if terr := h.onThread(func() bool {
		if c == nil {
			err = os.MkdirAll(dir, perm)
			return true
		}
		restore, cerr := threadAs(c.uid, c.gid, c.groups)
		if cerr == nil {
			err = os.MkdirAll(dir, perm)
		} else {
			err = cerr
		}
		return restore() == nil
	}); terr != nil {
		return terr
	}
	return err
}

// endMailed takes the end of the mail program that sent the job report:
// a report mailed with its output also stays in the spool's output file,
// as without mail; one that could not be sent goes to its file.
func (s *Shepherd) endMailed(res *sbdwire.ExecResult, ws syscall.WaitStatus) {
	k := s.mailing
	s.mailing = noEndMail
	ok := (res == nil || res.Err == "") && ws.Exited() && ws.ExitStatus() == 0
	if !ok {
		s.warnf("mail program %s failed (status %#x): the report goes to its file", s.p.MailProg, int(ws))
	}
	if ok && k == mailReportOnly {
		s.runPosts()
		return
	}
	s.reportToFile()
}

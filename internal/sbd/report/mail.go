package report

import (
	"fmt"
	"strings"
	"time"
)

// MailArgs are the arguments LSB_MAILPROG gets after its own name, as
// sendmail takes them: -oi (a line holding only a period does not end the
// message: the end of input does), the sender's full name, and the
// recipient's address. The message, headers first, is its standard input.
func MailArgs(to string) []string { return []string{"-oi", "-FLSF", to} }

// DefaultMailProg is LSB_MAILPROG's default.
const DefaultMailProg = "/usr/lib/sendmail"

// Address is where mail to user goes: format is LSB_MAILTO ("!U" when
// empty), in which "!U" (or "^U") stands for the user and "!H" (or "^H")
// for the submission host; every other character is copied. A user that
// is an address already (bsub -u name@domain) is used as it is.
func Address(format, user, fromHost string) string {
	if strings.Contains(user, "@") {
		return user
	}
	if format == "" {
		format = "!U"
	}
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if (c == '!' || c == '^') && i+1 < len(format) {
			switch format[i+1] {
			case 'U':
				b.WriteString(user)
				i++
				continue
			case 'H':
				b.WriteString(fromHost)
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// mailHeader is what every mail starts with: the recipient and the sender
// (the report's Sender and Subject lines follow, as headers too).
func mailHeader(b *strings.Builder, to string, j *Job) {
	admin := j.Admin
	if admin == "" {
		admin = "lsfadmin"
	}
	fmt.Fprintf(b, "To: %s\nFrom: LSF <%s>\n", to, admin)
}

// EndMail says what the job report sent by mail carries beside the report.
type EndMail struct {
	// WithOutput: the job had no -o file, its output follows the report
	// (LSF's default).
	WithOutput bool
	// OutFile is the -o file the output went to (bsub -N with -o): the
	// mail says where to read it (nothing for /dev/null).
	OutFile string
	// ErrApart: the error output went to an -e file of its own (a note
	// of the report says which).
	ErrApart bool
	// LimitKB and SavedAt: the output was larger than LSB_MAILSIZE_LIMIT
	// (KB), and was saved at SavedAt instead of mailed.
	LimitKB int64
	SavedAt string
}

// FormatMail returns the job report as LSF mails it to to, in two parts:
// head goes before the job's output and tail after it (with WithOutput
// the output is streamed in between; otherwise head and tail are the
// whole mail). The mail is the report of Format without its leading line
// of dashes (its Sender and Subject lines are headers), ending with where
// the output is.
func FormatMail(to string, j *Job, m EndMail) (head, tail []byte) {
	var b strings.Builder
	mailHeader(&b, to, j)
	body(&b, j)
	switch {
	case m.WithOutput && m.SavedAt != "":
		fmt.Fprintf(&b, "\nOutput is larger than limit of %d KB set by administrator.\nOutput will be saved at %s.\n", m.LimitKB, m.SavedAt)
	case m.WithOutput:
		b.WriteString("\nThe output (if any) follows:\n\n")
	case m.OutFile != "" && m.OutFile != "/dev/null":
		what := "stdout and stderr"
		if m.ErrApart {
			what = "stdout"
		}
		fmt.Fprintf(&b, "\nRead file <%s> for %s output of this job.\n", m.OutFile, what)
	}
	head = []byte(b.String())
	b.Reset()
	notes(&b, j)
	return head, []byte(b.String())
}

// SizeKB is LSB_MAILSIZE: the size of a mail of n bytes in KB, rounded up.
func SizeKB(n int64) int64 { return (n + 1023) / 1024 }

// FormatBegin is the notice mailed to to when the job starts (bsub -B):
// the report's lines about the job's submission and start, and when the
// notice was sent.
func FormatBegin(to string, j *Job, now time.Time) []byte {
	var b strings.Builder
	mailHeader(&b, to, j)
	sender(&b, j)
	hosts := hostList(j.Hosts)
	on := ""
	for i, h := range hosts {
		if i > 0 {
			on += " "
		}
		on += "<" + h + ">"
	}
	fmt.Fprintf(&b, "Subject: Job %s: <%s> in cluster <%s> was started on host(s) %s\n\n", j.id(), j.JobName, j.Cluster, on)
	where(&b, j)
	fmt.Fprintf(&b, "Notification reported at %s\n", when(now))
	return []byte(b.String())
}

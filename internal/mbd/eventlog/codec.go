package eventlog

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrFormat is the class of every parse error (LSF's LSBE_EVENT_FORMAT,
// "Bad event format").
var ErrFormat = errors.New("bad event format")

// ParseError is a positioned error in an event log file.
type ParseError struct {
	File  string // file name; "" for a single line
	Line  int    // 1-based; 0 for a single line
	Field int    // 1-based field number: 1 is the event type, 3 the event time
	Col   int    // 1-based byte column of the field
	Name  string // the field's name in LSF's documentation ("jobId")
	Msg   string
}

func (e *ParseError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
	}
	fmt.Fprintf(&b, "%d: field %d", e.Col, e.Field)
	if e.Name != "" {
		fmt.Fprintf(&b, " (%s)", e.Name)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap makes every ParseError an ErrFormat.
func (e *ParseError) Unwrap() error { return ErrFormat }

// coder visits a record's fields in file order. The same per-type field
// list (layout.go) drives both the encoder and the decoder, so the two can
// never disagree on an order. Conditional fields read values the decoder has
// already set (options bits, counts), exactly as lsb.log.c does.
type coder interface {
	int(name string, p *int64)
	str(name string, p *string)
	// float writes p with prec decimals, right-aligned in width (C's
	// "%<width>.<prec>f").
	float(name string, p *float64, width, prec int)
	// strs is a count followed by that many strings.
	strs(name string, p *[]string)
	// more reports whether fields remain: always true when encoding; when
	// decoding, false at the end of the line. Trailing fields that older or
	// other writers omit are read only if more() is true.
	more() bool
	// ext codes Basalt's extension list: the marker "BASALT", a count and
	// key/value string pairs. It is always a record's last part. The encoder
	// writes nothing for an empty list; the decoder reads the list only if
	// the next field is the marker, and otherwise ignores the rest of the
	// line (another writer's trailing fields).
	ext(p *[]KV)
	// ibm reports whether the record's version has the IBM/Platform layout
	// (LSF 5 and later) rather than OpenLava's.
	ibm() bool
	decoding() bool
}

// extMarker introduces Basalt's extension list in a record.
const extMarker = "BASALT"

// kvs is a count followed by that many key/value string pairs.
func kvs(c coder, name string, p *[]KV) {
	n := int64(len(*p))
	c.int(name, &n)
	if c.decoding() {
		if !c.(*decoder).checkCount(n, 2) {
			return
		}
		*p = nil
		if n > 0 {
			*p = make([]KV, n)
		}
	}
	for i := range *p {
		c.str("key", &(*p)[i].Key)
		c.str("value", &(*p)[i].Value)
	}
}

// count codes a list length, allocating the list when decoding. min is
// the number of fields each element takes, for the sanity check.
func count[T any](c coder, name string, p *[]T, min int) bool {
	n := int64(len(*p))
	c.int(name, &n)
	if c.decoding() {
		if !c.(*decoder).checkCount(n, min) {
			return false
		}
		*p = nil
		if n > 0 {
			*p = make([]T, n)
		}
	}
	return true
}

// rusage codes the 19 numbers of lsfRusage: utime and stime "%1.6f", the
// rest "%1.0f" (lsf/lib lsfRu2Str).
func rusage(c coder, r *Rusage) {
	c.float("ru_utime", &r.UTime, 1, 6)
	c.float("ru_stime", &r.STime, 1, 6)
	for _, f := range []struct {
		n string
		p *float64
	}{
		{"ru_maxrss", &r.MaxRSS}, {"ru_ixrss", &r.IXRSS}, {"ru_ismrss", &r.ISMRSS},
		{"ru_idrss", &r.IDRSS}, {"ru_isrss", &r.ISRSS}, {"ru_minflt", &r.MinFlt},
		{"ru_majflt", &r.MajFlt}, {"ru_nswap", &r.NSwap}, {"ru_inblock", &r.InBlock},
		{"ru_oublock", &r.OuBlock}, {"ru_ioch", &r.IOCh}, {"ru_msgsnd", &r.MsgSnd},
		{"ru_msgrcv", &r.MsgRcv}, {"ru_nsignals", &r.NSignals}, {"ru_nvcsw", &r.NVCSW},
		{"ru_nivcsw", &r.NIVCSW}, {"ru_exutime", &r.ExUTime},
	} {
		c.float(f.n, f.p, 1, 0)
	}
}

// IsIBMVersion reports whether a record version string names an
// IBM/Platform LSF layout (major version 5 or later: "6.2", "9.13", "10.1")
// rather than an OpenLava-lineage one ("1.0" ... "4.0", volclava "2.x").
// The layouts differ in the middle of JOB_NEW, JOB_START, JOB_STATUS and
// JOB_FINISH; see layout.go.
func IsIBMVersion(v string) bool {
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 5
}

// ---- encoding ----

// encoder appends a record to a byte slice in LSF's format: fields separated
// by one blank, strings in double quotes with each quote doubled
// (lsb.log.c addQStr), integers "%d".
type encoder struct {
	b     []byte
	isIBM bool
}

func (e *encoder) int(_ string, p *int64) {
	e.b = append(e.b, ' ')
	e.b = strconv.AppendInt(e.b, *p, 10)
}

func (e *encoder) str(_ string, p *string) {
	e.b = append(e.b, ' ')
	e.b = AppendQuoted(e.b, *p)
}

// AppendQuoted appends `"s"` with quotes doubled, as LSF's log files
// quote strings (lsb.events, lsb.acct, RES's lsf.acct). A record is one
// line, so newlines are dropped, as OpenLava's subNewLine_ does for the
// strings that can hold them (commands, dependencies, pre-exec).
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b = append(b, '"', '"')
		case '\n':
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func (e *encoder) float(_ string, p *float64, width, prec int) {
	v := *p
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		v = 0 // also turns -0 into 0, which C prints as "0.00" too
	}
	e.b = append(e.b, ' ')
	start := len(e.b)
	e.b = strconv.AppendFloat(e.b, v, 'f', prec, 64)
	if e.b[start] == '-' && strings.Trim(string(e.b[start+1:]), "0.") == "" {
		// -0.1 rounds to "-0" in C; write "0", which reads back the same.
		e.b = append(e.b[:start], e.b[start+1:]...)
	}
	if pad := width - (len(e.b) - start); pad > 0 {
		e.b = append(e.b, make([]byte, pad)...)
		copy(e.b[start+pad:], e.b[start:len(e.b)-pad])
		for i := start; i < start+pad; i++ {
			e.b[i] = ' '
		}
	}
}

func (e *encoder) strs(name string, p *[]string) {
	n := int64(len(*p))
	e.int(name, &n)
	for i := range *p {
		e.str(name, &(*p)[i])
	}
}

func (e *encoder) ext(p *[]KV) {
	if len(*p) == 0 {
		return
	}
	m := extMarker
	e.str("", &m)
	kvs(e, "numExt", p)
}

func (e *encoder) more() bool     { return true }
func (e *encoder) ibm() bool      { return e.isIBM }
func (e *encoder) decoding() bool { return false }

// AppendRecord appends r's line, with its trailing newline, to b.
func AppendRecord(b []byte, r *Record) []byte {
	e := encoder{b: AppendQuoted(b, r.Type), isIBM: IsIBMVersion(r.Version)}
	e.str("version", &r.Version)
	e.int("eventTime", &r.Time)
	if r.Log != nil {
		r.Log.fields(&e)
	}
	return append(e.b, '\n')
}

// Format returns r as one line, without the newline.
func (r *Record) Format() string {
	b := AppendRecord(nil, r)
	return string(b[:len(b)-1])
}

// ---- decoding ----

// decoder reads the fields of one line. The first error sticks: later calls
// return zero values, so the field lists need no error checks.
type decoder struct {
	line  string
	pos   int // byte offset of the next field
	field int // number of fields read
	// tokStart is the offset of the last field read.
	tokStart int
	isIBM    bool
	err      *ParseError
}

// maxListLen bounds list counts: each element takes at least one field,
// which takes at least two bytes, so a longer count cannot be honest.
func (d *decoder) checkCount(n int64, min int) bool {
	if d.err != nil {
		return false
	}
	if n < 0 || n > int64(len(d.line)-d.pos)/int64(2*min)+1 {
		d.pos = d.tokStart
		d.fail("", fmt.Sprintf("list of %d entries does not fit the rest of the line", n))
		return false
	}
	return true
}

func (d *decoder) fail(name, msg string) {
	if d.err == nil {
		d.err = &ParseError{Field: d.field, Col: d.pos + 1, Name: name, Msg: msg}
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (d *decoder) skipBlanks() {
	for d.pos < len(d.line) && isBlank(d.line[d.pos]) {
		d.pos++
	}
}

func (d *decoder) more() bool {
	if d.err != nil {
		return false
	}
	d.skipBlanks()
	return d.pos < len(d.line)
}

// next returns the next field: a quoted string (quoted true, quotes
// undoubled) or a bare word.
func (d *decoder) next(name string) (tok string, quoted bool, ok bool) {
	if d.err != nil {
		return "", false, false
	}
	d.skipBlanks()
	d.field++
	d.tokStart = d.pos
	if d.pos >= len(d.line) {
		d.fail(name, "missing field at end of record")
		return "", false, false
	}
	if d.line[d.pos] != '"' {
		start := d.pos
		for d.pos < len(d.line) && !isBlank(d.line[d.pos]) {
			d.pos++
		}
		return d.line[start:d.pos], false, true
	}
	start := d.pos
	var b []byte // allocated only for strings with doubled quotes
	i := d.pos + 1
	seg := i
	for {
		j := strings.IndexByte(d.line[i:], '"')
		if j < 0 {
			d.pos = start
			d.fail(name, "unterminated quoted string")
			return "", false, false
		}
		i += j
		if i+1 < len(d.line) && d.line[i+1] == '"' {
			b = append(b, d.line[seg:i+1]...)
			i += 2
			seg = i
			continue
		}
		d.pos = i + 1
		if b == nil {
			return d.line[seg:i], true, true
		}
		return string(append(b, d.line[seg:i]...)), true, true
	}
}

func (d *decoder) int(name string, p *int64) {
	start := d.pos
	tok, quoted, ok := d.next(name)
	if !ok {
		return
	}
	v, err := strconv.ParseInt(tok, 10, 64)
	if quoted || err != nil {
		d.pos = start
		d.skipBlanks()
		d.fail(name, fmt.Sprintf("expected an integer, found %s", shorten(tok, quoted)))
		return
	}
	*p = v
}

func (d *decoder) float(name string, p *float64, _, _ int) {
	start := d.pos
	tok, quoted, ok := d.next(name)
	if !ok {
		return
	}
	v, err := strconv.ParseFloat(tok, 64)
	if quoted || err != nil || math.IsNaN(v) || math.IsInf(v, 0) || !isDecimal(tok) {
		d.pos = start
		d.skipBlanks()
		d.fail(name, fmt.Sprintf("expected a number, found %s", shorten(tok, quoted)))
		return
	}
	*p = v
}

// isDecimal accepts what C's "%f" writes: an optional sign, digits, an
// optional fraction (and an exponent, which sscanf also reads); it rejects
// Go-only forms such as hexadecimal floats and underscores.
func isDecimal(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return false
		}
	}
	return true
}

// str reads a string field. Bare words are accepted too (some writers leave
// numeric-looking strings unquoted, e.g. IBM's timeEvent).
func (d *decoder) str(name string, p *string) {
	tok, _, ok := d.next(name)
	if ok {
		*p = tok
	}
}

func (d *decoder) strs(name string, p *[]string) {
	var n int64
	d.int(name, &n)
	if !d.checkCount(n, 1) {
		return
	}
	*p = nil
	if n > 0 {
		*p = make([]string, n)
	}
	for i := range *p {
		d.str(name, &(*p)[i])
	}
}

func (d *decoder) ext(p *[]KV) {
	if !d.more() {
		return
	}
	if !strings.HasPrefix(d.line[d.pos:], `"`+extMarker+`"`) {
		d.pos = len(d.line) // another writer's fields: ignored
		return
	}
	var m string
	d.str("", &m)
	kvs(d, "numExt", p)
}

// soft runs fn, a part of a record whose layout is known only for some
// versions of some writers (IBM fields after the documented prefix). A
// decoding error inside it is not an error of the record: the rest of the
// line is ignored. soft parts always end a record.
func soft(c coder, fn func()) {
	d, ok := c.(*decoder)
	if !ok {
		fn()
		return
	}
	if d.err != nil {
		return
	}
	fn()
	if d.err != nil {
		d.err = nil
		d.pos = len(d.line)
	}
}

func (d *decoder) ibm() bool      { return d.isIBM }
func (d *decoder) decoding() bool { return true }

func shorten(tok string, quoted bool) string {
	if len(tok) > 40 {
		tok = tok[:40] + "..."
	}
	if quoted {
		return strconv.Quote(tok)
	}
	if tok == "" {
		return "nothing"
	}
	return fmt.Sprintf("%q", tok)
}

// ParseRecord parses one record line (without its newline). Records of
// unknown types come back as *Unknown. Fields after the last one this
// package knows for the record's type and version are ignored, so files of
// later LSF versions read. Errors are *ParseError with Line 0.
func ParseRecord(line string) (*Record, error) {
	d := decoder{line: line}
	r := &Record{}
	d.str("type", &r.Type)
	if d.err == nil && !validType(r.Type) {
		d.pos = 0
		d.skipBlanks()
		if r.Type == "" {
			d.fail("type", "empty event type")
		} else {
			d.fail("type", fmt.Sprintf("bad event type %s", shorten(r.Type, true)))
		}
	}
	d.skipBlanks()
	verPos := d.pos
	d.str("version", &r.Version)
	if d.err == nil && !versionOK(r.Version) {
		d.pos = verPos
		d.fail("version", fmt.Sprintf("bad version %s", shorten(r.Version, true)))
	}
	d.int("eventTime", &r.Time)
	if d.err != nil {
		return nil, d.err
	}
	d.isIBM = IsIBMVersion(r.Version)
	r.Log = newLog(r.Type)
	if u, ok := r.Log.(*Unknown); ok {
		for d.more() {
			var s string
			d.str("", &s)
			u.Fields = append(u.Fields, s)
		}
	} else {
		r.Log.fields(&d)
	}
	if d.err != nil {
		return nil, d.err
	}
	return r, nil
}

// validType accepts event type names: letters, digits and underscores
// (JOB_NEW, JOB_START_ACCEPT...).
func validType(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// versionOK is lsb.log.c's check: the version must read as a positive
// number (atof(version) > 0).
func versionOK(v string) bool {
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && f > 0 && !math.IsInf(f, 0) && isDecimal(v)
}

func newLog(typ string) Log {
	switch typ {
	case TypeJobNew:
		return new(JobNew)
	case TypeJobStart:
		return new(JobStart)
	case TypeJobStartAccept:
		return new(JobStartAccept)
	case TypeJobExecute:
		return new(JobExecute)
	case TypeJobStatus:
		return new(JobStatus)
	case TypeJobSwitch:
		return new(JobSwitch)
	case TypeJobMove:
		return new(JobMove)
	case TypeQueueCtrl:
		return new(QueueCtrl)
	case TypeHostCtrl:
		return new(HostCtrl)
	case TypeMbdStart:
		return new(MbdStart)
	case TypeMbdDie:
		return new(MbdDie)
	case TypeJobSignal:
		return new(JobSignal)
	case TypeJobRequeue:
		return new(JobRequeue)
	case TypeJobClean:
		return new(JobClean)
	case TypeJobForce:
		return new(JobForce)
	case TypeJobForward:
		return new(JobForward)
	case TypeJobSigAct:
		return new(JobSigAct)
	case TypeChkpnt:
		return new(Chkpnt)
	case TypeMig:
		return new(Mig)
	case TypeJobResizeNotifyStart:
		return new(JobResizeNotifyStart)
	case TypeJobResizeRelease:
		return new(JobResizeRelease)
	case TypeJobResizeCancel:
		return new(JobResizeCancel)
	case TypeLogSwitch:
		return new(LogSwitch)
	case TypeJobModify2:
		return new(JobModify2)
	case TypeJobFinish:
		return new(JobFinish)
	}
	return new(Unknown)
}

// Unknown records re-encode their fields as quoted strings.
func (u *Unknown) fields(c coder) {
	for i := range u.Fields {
		c.str("", &u.Fields[i])
	}
}

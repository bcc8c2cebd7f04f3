package lex

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/config/timewin"
)

// maxIncludeDepth bounds #INCLUDE nesting (and so include cycles).
const maxIncludeDepth = 8

// Options select the directives a file supports.
type Options struct {
	// Includes enables #INCLUDE "path" lines. A relative path is relative to
	// the directory of the including file.
	Includes bool
	// IncludesFirst allows #INCLUDE only before the first section (LSF's
	// rule for lsf.shared).
	IncludesFirst bool
	// ReadFile reads included files; nil means os.ReadFile.
	ReadFile func(path string) ([]byte, error)
	// TimeBlocks enables #if time(...) / #elif / #else / #endif blocks,
	// evaluated at Now. Without it such directives are errors, so that a
	// file is never misread.
	TimeBlocks bool
	Now        time.Time
}

// File is a lexed configuration file.
type File struct {
	Name     string
	Sections []*Section
	// Windows holds the time windows of every #if/#elif time() expression,
	// whether or not its block was taken, so that callers can reload the
	// configuration when one of them opens or closes (NextChange).
	Windows []timewin.Window
}

// NextChange returns the first instant after t at which a time() expression
// of the file changes value, or the zero Time if none ever does.
func (f *File) NextChange(t time.Time) time.Time {
	var best time.Time
	for _, w := range f.Windows {
		n := w.Next(t)
		if !n.IsZero() && (best.IsZero() || n.Before(best)) {
			best = n
		}
	}
	return best
}

// Section is one Begin/End block.
type Section struct {
	// Name is the section name as written after Begin.
	Name string
	Pos  Pos // of the Begin line
	// Lines are the logical lines between Begin and End.
	Lines []Line
}

// Is reports whether the section is named name (case-insensitively, as LSF
// compares section names).
func (s *Section) Is(name string) bool { return strings.EqualFold(s.Name, name) }

// segment maps a piece of a logical line to its physical position.
type segment struct {
	off int // offset in Line.Text where the piece starts
	pos Pos // position of that byte
}

// Line is a logical line: continuation lines joined, comment removed,
// leading and trailing blanks trimmed.
type Line struct {
	Text string
	Pos  Pos // of the first byte of Text
	segs []segment
}

// PosAt returns the position of byte off of the line's text.
func (l Line) PosAt(off int) Pos {
	if len(l.segs) == 0 {
		return l.Pos.Add(off)
	}
	s := l.segs[0]
	for _, seg := range l.segs[1:] {
		if seg.off > off {
			break
		}
		s = seg
	}
	return s.pos.Add(off - s.off)
}

// Parse lexes src, the contents of the file called name.
func Parse(name string, src []byte, opts Options) (*File, Diagnostics) {
	r := &reader{opts: opts}
	if r.opts.ReadFile == nil {
		r.opts.ReadFile = os.ReadFile
	}
	f := &File{Name: name}
	r.file(name, src, 0)
	f.Windows = r.windows
	f.Sections = r.sections()
	return f, r.diags
}

type cond struct {
	active bool // lines in the current branch are used
	taken  bool // a branch of this #if has been taken
	parent bool // the enclosing block is active
	inElse bool
	pos    Pos
}

type reader struct {
	opts       Options
	diags      Diagnostics
	lines      []Line
	windows    []timewin.Window
	sawSection bool
}

// physical splits src into lines without their terminators.
func physical(src []byte) []string {
	s := string(src)
	lines := strings.Split(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

func (r *reader) file(name string, src []byte, depth int) {
	var conds []cond
	active := func() bool { return len(conds) == 0 || conds[len(conds)-1].active }
	var cur *Line // logical line being continued
	flush := func() {
		if cur != nil {
			cur.Text = strings.TrimRight(cur.Text, " \t")
			if cur.Text != "" {
				if w := firstWord(cur.Text); strings.EqualFold(w, "Begin") {
					r.sawSection = true
				}
				r.lines = append(r.lines, *cur)
			}
			cur = nil
		}
	}
	for i, raw := range physical(src) {
		lineNo := i + 1
		trimmed := strings.TrimLeft(raw, " \t")
		col := len(raw) - len(trimmed) + 1
		pos := Pos{File: name, Line: lineNo, Col: col}
		if cur == nil && strings.HasPrefix(trimmed, "#") {
			if d, ok := directive(trimmed); ok {
				r.directive(d, pos, name, depth, &conds, active())
			}
			continue
		}
		if cur == nil && trimmed == "" {
			continue
		}
		if !active() {
			continue // a line of an inactive #if branch
		}
		if cur != nil {
			// A continuation line keeps its leading blanks: the backslash
			// and the newline are all that is removed.
			trimmed, pos = raw, Pos{File: name, Line: lineNo, Col: 1}
		}
		text := strings.TrimRight(stripComment(trimmed), " \t")
		cont := strings.HasSuffix(text, "\\")
		if cont {
			text = text[:len(text)-1]
		}
		if cur == nil {
			cur = &Line{Pos: pos}
		}
		cur.segs = append(cur.segs, segment{off: len(cur.Text), pos: pos})
		cur.Text += text
		if !cont {
			flush()
		}
	}
	flush()
	for _, c := range conds {
		r.diags.Errorf(c.pos, "#if without #endif")
	}
}

// directiveLine is a recognised directive: its keyword and the rest.
type directiveLine struct {
	kw   string // include, if, elif, else, endif
	rest string
	off  int // offset of rest in the trimmed line
}

// directive recognises #INCLUDE, #if, #elif, #else and #endif lines; other
// '#' lines are comments. #if and #elif are directives only when followed by
// an expression (time(, ! or a parenthesis), so that prose comments such as
// "#if you change this..." stay comments.
func directive(line string) (directiveLine, bool) {
	body := line[1:]
	n := 0
	for n < len(body) && isLetter(body[n]) {
		n++
	}
	kw := strings.ToLower(body[:n])
	rest := body[n:]
	off := 1 + n
	restTrim := strings.TrimLeft(rest, " \t")
	off += len(rest) - len(restTrim)
	switch kw {
	case "include":
		if len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t' || rest[0] == '"') {
			return directiveLine{kw, restTrim, off}, true
		}
	case "if", "elif":
		if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '(' && rest[0] != '!' {
			return directiveLine{}, false
		}
		if strings.HasPrefix(strings.ToLower(restTrim), "time") || strings.HasPrefix(restTrim, "!") || strings.HasPrefix(restTrim, "(") {
			return directiveLine{kw, restTrim, off}, true
		}
	case "else", "endif":
		if restTrim == "" || strings.HasPrefix(restTrim, "#") || rest[0] == ' ' || rest[0] == '\t' {
			return directiveLine{kw, restTrim, off}, true
		}
	}
	return directiveLine{}, false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func (r *reader) directive(d directiveLine, pos Pos, name string, depth int, conds *[]cond, active bool) {
	switch d.kw {
	case "include":
		if !active {
			return
		}
		if !r.opts.Includes {
			r.diags.Errorf(pos, "#INCLUDE is not supported in %s", filepath.Base(name))
			return
		}
		if r.opts.IncludesFirst && r.sawSection {
			r.diags.Errorf(pos, "#INCLUDE must come before any section in %s", filepath.Base(name))
			return
		}
		path, ok := includePath(d.rest)
		if !ok {
			r.diags.Errorf(pos.Add(d.off), "bad #INCLUDE line: expected #INCLUDE \"path\"")
			return
		}
		if depth >= maxIncludeDepth {
			r.diags.Errorf(pos, "#INCLUDE \"%s\": includes nested more than %d deep", path, maxIncludeDepth)
			return
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(name), path)
		}
		src, err := r.opts.ReadFile(path)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			r.diags.Errorf(pos, "#INCLUDE \"%s\": %v", path, err)
			return
		}
		r.file(path, src, depth+1)
	case "if", "elif", "else", "endif":
		if !r.opts.TimeBlocks {
			r.diags.Errorf(pos, "#%s time() blocks are not supported in %s", d.kw, filepath.Base(name))
			return
		}
		r.timeBlock(d, pos, conds, active)
	}
}

func includePath(rest string) (string, bool) {
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "\"") {
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return "", false
		}
		path := rest[1 : 1+end]
		tail := strings.TrimSpace(rest[2+end:])
		if path == "" || (tail != "" && !strings.HasPrefix(tail, "#")) {
			return "", false
		}
		return path, true
	}
	path := firstWord(rest)
	tail := strings.TrimSpace(rest[len(path):])
	if path == "" || (tail != "" && !strings.HasPrefix(tail, "#")) {
		return "", false
	}
	return path, true
}

func (r *reader) timeBlock(d directiveLine, pos Pos, conds *[]cond, active bool) {
	top := func() *cond {
		if len(*conds) == 0 {
			return nil
		}
		return &(*conds)[len(*conds)-1]
	}
	eval := func() bool {
		e, err := parseTimeExpr(stripComment(d.rest))
		if err != nil {
			r.diags.Errorf(pos.Add(d.off+err.off), "bad #%s expression: %s", d.kw, err.msg)
			return false
		}
		r.windows = append(r.windows, e.windows()...)
		return e.eval(r.opts.Now)
	}
	switch d.kw {
	case "if":
		c := cond{parent: active, pos: pos}
		v := eval()
		c.active = active && v
		c.taken = v
		*conds = append(*conds, c)
	case "elif":
		c := top()
		if c == nil || c.inElse {
			r.diags.Errorf(pos, "#elif without #if")
			return
		}
		v := eval()
		c.active = c.parent && !c.taken && v
		c.taken = c.taken || v
	case "else":
		c := top()
		if c == nil || c.inElse {
			r.diags.Errorf(pos, "#else without #if")
			return
		}
		c.inElse = true
		c.active = c.parent && !c.taken
		c.taken = true
	case "endif":
		if top() == nil {
			r.diags.Errorf(pos, "#endif without #if")
			return
		}
		*conds = (*conds)[:len(*conds)-1]
	}
}

// stripComment removes a '#' comment: a '#' at the start of a word (at the
// start of the text or after a blank) outside double quotes.
func stripComment(s string) string {
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			inQuote = !inQuote
		case c == '#' && !inQuote && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return s[:i]
		}
	}
	return s
}

func firstWord(s string) string {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s
	}
	return s[:i]
}

// sections groups the logical lines into Begin/End sections.
func (r *reader) sections() []*Section {
	var out []*Section
	var cur *Section
	skipping := false // inside a Begin with no name, until End
	for _, l := range r.lines {
		w := firstWord(l.Text)
		rest := strings.TrimSpace(l.Text[len(w):])
		name := firstWord(rest)
		switch {
		case strings.EqualFold(w, "Begin"):
			if cur != nil {
				r.diags.Warnf(cur.Pos, "section %s has no End before the Begin at line %d; section ignored", cur.Name, l.Pos.Line)
			}
			cur = nil
			skipping = false
			if name == "" {
				r.diags.Warnf(l.Pos, "Begin without a section name; section ignored")
				skipping = true
				continue
			}
			if extra := strings.TrimSpace(rest[len(name):]); extra != "" {
				r.diags.Warnf(l.PosAt(strings.Index(l.Text, extra)), "unexpected text %q after Begin %s; ignored", extra, name)
			}
			cur = &Section{Name: name, Pos: l.Pos}
		case strings.EqualFold(w, "End"):
			switch {
			case skipping:
				skipping = false
			case cur == nil:
				r.diags.Warnf(l.Pos, "End %s without Begin; ignored", name)
			default:
				if name != "" && !strings.EqualFold(name, cur.Name) {
					r.diags.Warnf(l.Pos, "End %s does not match Begin %s at line %d", name, cur.Name, cur.Pos.Line)
				}
				out = append(out, cur)
				cur = nil
			}
		case cur != nil:
			cur.Lines = append(cur.Lines, l)
		case skipping:
		default:
			r.diags.Warnf(l.Pos, "line outside any section; ignored")
		}
	}
	if cur != nil {
		r.diags.Warnf(cur.Pos, "section %s has no End; section ignored", cur.Name)
	}
	return out
}

package cli

import (
	"fmt"
	"strings"
)

// The values of the debug subcommands' options (lsadmin limdebug,
// limtime, resdebug, restime; badmin mbddebug, mbdtime, schddebug,
// schdtime, sbddebug, sbdtime): -l's level, -c's log classes, -f's file
// name, checked as LSF's lsadmin and badmin check them, with their
// "Command denied." messages (lsadmin's and badmin's differ slightly).

// debugValueError is a value refused: Msg is LSF's message, Opt the
// option ("l", "c", "f") and Pos the byte offset in its value where the
// fault is.
type debugValueError struct {
	Opt string
	Pos int
	Msg string
}

func (e *debugValueError) Error() string { return e.Msg }

// debugTool is the command whose messages are printed: "lsadmin" or
// "badmin".
type debugTool string

// debugMessages are each tool's texts.
var debugMessages = map[debugTool]struct{ level, debugRange, timingRange, class string }{
	"lsadmin": {"Command denied. Invalid level value", "Command denied. Valid debug level value is [0-3]",
		"Command denied. Valid timing level value is [1-5]", "Command denied. Invalid class name"},
	"badmin": {"Command denied. Invalid level value", "Command denied. Valid debug level is [0-3] ",
		"Command denied. Valid timing level is [1-5]", "Command denied.Invalid class name"},
}

// logClasses are LSF 10.1's log class names (lsf.conf LSB_DEBUG_CMD,
// LSF_DEBUG_LIM); each is also valid as LC2_<name>.
var logClasses = map[string]bool{
	"ADVRSV": true, "AFS": true, "AUTH": true, "CHKPNT": true, "COMM": true, "DCE": true, "EEVENTD": true,
	"ELIM": true, "EXEC": true, "FAIR": true, "FILE": true, "FLEX": true, "HANG": true, "JARRAY": true,
	"JGRP": true, "JLIMIT": true, "LICENCE": true, "LICENSE": true, "LICSCHED": true, "LOADINDX": true,
	"M_LOG": true, "MEMORY": true, "MPI": true, "MULTI": true, "PEND": true, "PERFM": true, "PIM": true,
	"PREEMPT": true, "RESOURCE": true, "RESREQ": true, "SCHED": true, "SIGNAL": true, "SYS": true,
	"TRACE": true, "XDR": true, "XDRVERSION": true, "LIVECONF": true, "G_FAIR": true,
}

// parseDebugLevel reads -l's value: digits only, 0-3 for a debug level,
// 1-5 for a timing level.
func parseDebugLevel(tool debugTool, timing bool, s string) (int32, error) {
	msgs := debugMessages[tool]
	if s == "" {
		return 0, &debugValueError{Opt: "l", Pos: 0, Msg: msgs.level}
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, &debugValueError{Opt: "l", Pos: i, Msg: msgs.level}
		}
		if n < 1000 {
			n = n*10 + int(c-'0')
		}
	}
	switch {
	case !timing && n > 3:
		return 0, &debugValueError{Opt: "l", Pos: 0, Msg: msgs.debugRange}
	case timing && (n < 1 || n > 5):
		return 0, &debugValueError{Opt: "l", Pos: 0, Msg: msgs.timingRange}
	}
	return int32(n), nil
}

// parseLogClasses reads -c's value: blank-separated log class names
// (LC_TRACE, LC2_COMM ...); an unknown one is refused at its offset.
func parseLogClasses(tool debugTool, s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		word := s[i:j]
		name, ok := strings.CutPrefix(word, "LC_")
		if !ok {
			name, ok = strings.CutPrefix(word, "LC2_")
		}
		if !ok || !logClasses[name] {
			return nil, &debugValueError{Opt: "c", Pos: i, Msg: debugMessages[tool].class}
		}
		out = append(out, word)
		i = j
	}
	if len(out) == 0 {
		return nil, &debugValueError{Opt: "c", Pos: 0, Msg: debugMessages[tool].class}
	}
	return out, nil
}

// checkLogFileName checks -f's value: a name, with or without a path,
// that does not mix / and \ and does not end in a directory separator.
func checkLogFileName(s string) error {
	if s == "" {
		return &debugValueError{Opt: "f", Pos: 0, Msg: "Command denied. Invalid file name"}
	}
	if strings.Contains(s, "/") && strings.Contains(s, `\`) {
		return &debugValueError{Opt: "f", Pos: strings.IndexAny(s, `\`), Msg: "Command denied. Invalid file name"}
	}
	if strings.ContainsRune(s, 0) {
		return &debugValueError{Opt: "f", Pos: strings.IndexByte(s, 0), Msg: "Command denied. Invalid file name"}
	}
	if c := s[len(s)-1]; c == '/' || c == '\\' {
		return &debugValueError{Opt: "f", Pos: len(s) - 1, Msg: "Command denied. File name is needed after the path"}
	}
	return nil
}

// debugSettings is a debug subcommand's request, its hosts aside.
type debugSettings struct {
	level   int32
	classes []string
	file    string
	reset   bool
}

// debugOptionValues checks the values given (nil: the option is absent)
// and returns the settings: without -l, LOG_DEBUG for a debug subcommand
// and no timing for a timing one.
func debugOptionValues(tool debugTool, timing bool, level, classes, file *string, reset bool) (debugSettings, error) {
	d := debugSettings{reset: reset}
	var err error
	if level != nil {
		if d.level, err = parseDebugLevel(tool, timing, *level); err != nil {
			return d, err
		}
	}
	if classes != nil {
		if timing {
			return d, fmt.Errorf("-c is not an option of a timing subcommand")
		}
		if d.classes, err = parseLogClasses(tool, *classes); err != nil {
			return d, err
		}
	}
	if file != nil {
		if err := checkLogFileName(*file); err != nil {
			return d, err
		}
		d.file = *file
	}
	return d, nil
}

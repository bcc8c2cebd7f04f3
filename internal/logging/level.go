package logging

import (
	"fmt"
	"log/slog"
	"strings"
)

// LSF's levels beyond slog's four.
const (
	LevelDebug3 slog.Level = slog.LevelDebug - 3 // LOG_DEBUG3
	LevelDebug2 slog.Level = slog.LevelDebug - 2 // LOG_DEBUG2
	LevelDebug1 slog.Level = slog.LevelDebug - 1 // LOG_DEBUG1
	LevelCrit   slog.Level = slog.LevelError + 4 // LOG_CRIT
	LevelAlert  slog.Level = slog.LevelError + 8 // LOG_ALERT
	LevelEmerg  slog.Level = slog.LevelError + 12
)

// DefaultMask is LSF's LSF_LOG_MASK when it is not set or not valid.
const DefaultMask = "LOG_WARNING"

// masks are LSF's log mask names (lsf.conf LSF_LOG_MASK), most severe
// first.
var masks = []struct {
	name  string
	level slog.Level
}{
	{"LOG_EMERG", LevelEmerg},
	{"LOG_ALERT", LevelAlert},
	{"LOG_CRIT", LevelCrit},
	{"LOG_ERR", slog.LevelError},
	{"LOG_WARNING", slog.LevelWarn},
	{"LOG_NOTICE", slog.LevelInfo},
	{"LOG_INFO", slog.LevelInfo},
	{"LOG_DEBUG", slog.LevelDebug},
	{"LOG_DEBUG1", LevelDebug1},
	{"LOG_DEBUG2", LevelDebug2},
	{"LOG_DEBUG3", LevelDebug3},
}

// ParseMask maps an LSF log mask (LOG_ERR, LOG_WARNING, ..., LOG_DEBUG3;
// case and surrounding blanks ignored) to the least severe slog level a
// daemon logs. An empty or unknown mask gives LOG_WARNING's level and,
// for an unknown one, an error naming it.
func ParseMask(mask string) (slog.Level, error) {
	m := strings.ToUpper(strings.TrimSpace(mask))
	if m == "" {
		return slog.LevelWarn, nil
	}
	for _, e := range masks {
		if e.name == m {
			return e.level, nil
		}
	}
	return slog.LevelWarn, fmt.Errorf("%q is not a log mask (LOG_EMERG, LOG_ALERT, LOG_CRIT, LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG, LOG_DEBUG1, LOG_DEBUG2, LOG_DEBUG3): %s used", mask, DefaultMask)
}

// LevelName is the level as a log line shows it: slog's names for its
// four, DEBUG1-3 and CRIT, ALERT, EMERG for LSF's, else slog's
// "BASE+n" form.
func LevelName(l slog.Level) string {
	switch l {
	case LevelDebug3:
		return "DEBUG3"
	case LevelDebug2:
		return "DEBUG2"
	case LevelDebug1:
		return "DEBUG1"
	case LevelCrit:
		return "CRIT"
	case LevelAlert:
		return "ALERT"
	case LevelEmerg:
		return "EMERG"
	}
	return l.String()
}

// Params is what the mask lookup reads of lsf.conf (*lsfconf.Conf).
type Params interface {
	Get(name string) string
}

// maskChain is the parameters that set a daemon's mask, the first set
// one winning (LSF 10.1 lsf.conf), before LSF_LOG_MASK.
var maskChain = map[string][]string{
	"mbatchd": {"LSB_LOG_MASK_MBD", "LSB_LOG_MASK"},
	"sbatchd": {"LSB_LOG_MASK_SBD", "LSB_LOG_MASK"},
	"mbschd":  {"LSB_LOG_MASK_SCH", "LSB_LOG_MASK"},
	"lim":     {"LSF_LOG_MASK_LIM"},
	"melim":   {"LSF_LOG_MASK_LIM"},
	"res":     {"LSF_LOG_MASK_RES"},
}

// MaskParam is the lsf.conf parameter that sets daemon's log mask and
// its value: for mbatchd LSB_LOG_MASK_MBD, else LSB_LOG_MASK (sbatchd:
// LSB_LOG_MASK_SBD, else LSB_LOG_MASK; the LIM and its MELIM:
// LSF_LOG_MASK_LIM; RES: LSF_LOG_MASK_RES), else LSF_LOG_MASK;
// DefaultMask when none is set.
func MaskParam(p Params, daemon string) (name, value string) {
	for _, n := range append(maskChain[daemon], "LSF_LOG_MASK") {
		if v := strings.TrimSpace(p.Get(n)); v != "" {
			return n, v
		}
	}
	return "LSF_LOG_MASK", DefaultMask
}

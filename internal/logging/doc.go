// Package logging is the one way Basalt's daemons log: a log/slog logger
// built from lsf.conf, with LSF's levels, a line format an administrator
// reads, and log files that can be reopened after logrotate moved them.
//
// Levels. LSF_LOG_MASK names a syslog priority; a daemon logs what is at
// least as severe. LSF 10.1's per-daemon masks override it when set:
// LSB_LOG_MASK_MBD, then LSB_LOG_MASK for mbatchd (LSB_LOG_MASK_SBD, then
// LSB_LOG_MASK for sbatchd), LSF_LOG_MASK_LIM for the LIM and its MELIM,
// LSF_LOG_MASK_RES for RES. ParseMask maps
// LSF's names onto slog levels:
//
//	LOG_EMERG, LOG_ALERT, LOG_CRIT  LevelEmerg, LevelAlert, LevelCrit (above Error)
//	LOG_ERR                         slog.LevelError
//	LOG_WARNING                     slog.LevelWarn (LSF's default)
//	LOG_NOTICE, LOG_INFO            slog.LevelInfo
//	LOG_DEBUG                       slog.LevelDebug
//	LOG_DEBUG1 .. LOG_DEBUG3        LevelDebug1 .. LevelDebug3 (below Debug)
//
// A value that is none of these gives LOG_WARNING and a warning on the log
// naming the parameter and its value. LSF's class masks (LSB_DEBUG_MBD,
// LSF_DEBUG_LIM, ...) and LSB_DEBUG's foreground mode are not implemented.
//
// Lines. One line per record (a message with new lines in it, a stack
// trace, continues on the next lines):
//
//	2026-11-28 16:50:36.123 WARN mbatchd[4242]: dispatch rejected job=12 err="host closed"
//
// the local time to the millisecond, the level (ERROR, WARN, INFO, DEBUG,
// DEBUG1-3, CRIT, ALERT, EMERG), the name (daemon[pid] for the daemons),
// the message, and the attributes as key=value, values quoted (Go syntax)
// when they hold a space, a quote, '=' or a control character.
//
// Files. Daemon opens LSF_LOGDIR/<daemon>.log.<host>; when LSF_LOGDIR is
// unset, or the file cannot be created, the daemon logs to its standard
// error instead (LSF uses syslog and /tmp) and says so there. The file is
// reopened on SIGHUP (logrotate's "postrotate kill -HUP"): the new file is
// opened first, then swapped under the lock every line is written under,
// so no line is lost, split or written to the old file after the swap.
// The shepherd host, for which SIGHUP means "retire", reopens on SIGUSR1.
//
// Raft. HCLog adapts hashicorp/go-hclog (hashicorp/raft's logger) onto a
// slog.Handler: raft's lines go to the daemon's log, at mapped levels
// (Trace to LOG_DEBUG3, Debug to LOG_DEBUG), and respect the mask.
package logging

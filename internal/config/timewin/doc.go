// Package timewin parses and evaluates LSF time windows, the building block of
// queue RUN_WINDOW and DISPATCH_WINDOW, host DISPATCH_WINDOW (lsb.hosts),
// RUNWINDOW (lsf.cluster), time-based Limit values and #if time() blocks.
//
// A window specification is one or more time windows separated by blanks:
//
//	begin_time-end_time [begin_time-end_time ...]
//
// with each time written [day:]hour[:minute] (one field is an hour, two are
// hour:minute, three are day:hour:minute; days 0-6 with 0 = Sunday, hours
// 0-23, minutes 0-59). Without a day a window recurs daily, and wraps past
// midnight when begin is later than end (20:00-8:30). With days it recurs
// weekly and wraps past the end of the week (5:19:00-1:8:30 is Friday 19:00
// to Monday 08:30). The specification is open when any of its windows is.
//
// A Window is evaluated at minute resolution in the location of the time it
// is given: Open(t) says whether it is open at t and Next(t) gives the next
// instant after t at which it opens or closes, so schedulers can sleep until
// the next transition instead of polling.
package timewin

package output

import (
	"fmt"
	"time"
)

// ShortTime formats a time stamp as the SUBMIT_TIME column and the -o/-json
// time fields do: "Oct  1 11:14" (ctime's month, space-padded day and
// hour:minute, as OpenLava's CTIME_FORMAT_b_d_H_M slices it). A time in
// another year than o.Now gets the year appended ("Dec 31 23:59 2025"); this
// follows IBM LSF 10.1, which shows the year only when it is not the current
// one [inferred from 10.1 output; OpenLava never shows it]. Zero is "-".
func ShortTime(t int64, o *Options) string {
	if t <= 0 {
		return "-"
	}
	tm := time.Unix(t, 0).In(o.loc())
	s := tm.Format("Jan _2 15:04")
	if o != nil && !o.Now.IsZero() && tm.Year() != o.Now.Year() {
		s += tm.Format(" 2006")
	}
	return s
}

// LongTime formats a time stamp as bjobs -l, bhist -l and bacct -l print it
// before an event: "Mon Oct  1 11:14:04" (ctime without the year), with the
// year appended when LSB_DISPLAY_YEAR is set or the time is not in the
// current year ("Mon Oct 28 13:08:11 2009", as in IBM's bjobs -l example).
func LongTime(t int64, o *Options) string {
	tm := time.Unix(t, 0).In(o.loc())
	s := tm.Format("Mon Jan _2 15:04:05")
	if o != nil && (o.DisplayYear || (!o.Now.IsZero() && tm.Year() != o.Now.Year())) {
		s += tm.Format(" 2006")
	}
	return s
}

// WideTime formats a time stamp as bjobs -W does: "03/31-14:46:42"
// (volclava bjobs.c Time2String). Zero is "-".
func WideTime(t int64, o *Options) string {
	if t <= 0 {
		return "-"
	}
	return time.Unix(t, 0).In(o.loc()).Format("01/02-15:04:05")
}

// CPUClock formats CPU seconds as bjobs -W's CPU_USED column:
// "000:00:01.50" (hours, minutes, seconds, hundredths; volclava Timer2String).
func CPUClock(sec float64) string {
	if sec < 0 {
		sec = 0
	}
	hund := int64(sec*100+0.5) % 100
	whole := int64(sec)
	return fmt.Sprintf("%03d:%02d:%02d.%02d", whole/3600, whole%3600/60, whole%60, hund)
}

// HMS formats seconds as hh:mm:ss (bjobs -hms), rounding up to the next
// second as IBM documents for cpu_used.
func HMS(sec float64) string {
	if sec < 0 {
		sec = 0
	}
	s := int64(sec)
	if float64(s) < sec {
		s++
	}
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s%3600/60, s%60)
}

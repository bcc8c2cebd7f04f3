package output

import "time"

// Options are the settings every formatter shares.
type Options struct {
	// Now is the current time: it decides whether a time stamp shows its
	// year and is the end of elapsed times (RUN_TIME of a running job).
	// Its location is the time zone every time stamp is printed in.
	Now time.Time
	// Wide is -w: no truncation of names.
	Wide bool
	// NoHeader is -noheader.
	NoHeader bool
	// DisplayYear is LSB_DISPLAY_YEAR=Y: long time stamps always show the
	// year (otherwise only when it is not the current year).
	DisplayYear bool
	// JobIDWidth is LSB_JOBID_DISP_LENGTH (7 to 10); 0 means 7.
	JobIDWidth int
	// Unformatted is bjobs -UF: long output without line wrapping.
	Unformatted bool
	// HMS is bjobs -hms: durations in -o output as hh:mm:ss.
	HMS bool
	// Unit is LSB_UNIT_FOR_JOBS_DISPLAY: the unit prefix of the memory
	// fields of bjobs -o that give none ("G", "MB", "S"; "" scales with a
	// "bytes" suffix).
	Unit string
}

// ValidUnit reports whether u (upper case) is a unit prefix of bjobs -o
// and LSB_UNIT_FOR_JOBS_DISPLAY: KB or K ... ZB or Z, or S.
func ValidUnit(u string) bool { return units[u] }

func (o *Options) loc() *time.Location {
	if o == nil || o.Now.IsZero() {
		return time.UTC
	}
	return o.Now.Location()
}

func (o *Options) jobIDWidth() int {
	if o == nil || o.JobIDWidth < 7 {
		return 7
	}
	if o.JobIDWidth > 10 {
		return 10
	}
	return o.JobIDWidth
}

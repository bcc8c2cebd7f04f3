package sched

import "time"

func unixTime(s int64) time.Time { return time.Unix(s, 0) }

func durationMul(n int) time.Duration { return time.Duration(n) }

// Package loadsusp decides, each SBD_SLEEP_TIME, which job sbatchd
// suspends, resumes or terminates because of the host's load and the
// queues' run windows: the host and queue thresholds (loadStop to suspend,
// loadSched to resume), STOP_COND and RESUME_COND, at most one job
// suspended per turn (lowest priority queue first) and one resumed (highest
// first), the seed's three special cases (the only job on an interactively
// idle host is left alone; pg is ignored once the host has been idle for
// PG_SUSP_IT; brun -f jobs are exempt), TERMINATE_WHEN, and run windows.
// Decide is a pure function of the host's load and the jobs.
package loadsusp

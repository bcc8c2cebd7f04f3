package eventlog

// termNames are LSF's job termination reasons (the exitInfo of JOB_STATUS
// and lsb.acct), indexed by code: IBM LSF 10.1 lsbatch.h TERM_*, the same
// numbering bacct and bhist print by keyword (lsf-clients.md §2c lists
// TERM_PREEMPT 1, TERM_RUNLIMIT 5, TERM_FORCE_OWNER 8, TERM_OWNER 14,
// TERM_MEMLIMIT 16, TERM_CWD_NOTEXIST 25...).
var termNames = [...]string{
	"TERM_UNKNOWN", "TERM_PREEMPT", "TERM_WINDOW", "TERM_LOAD", "TERM_OTHER",
	"TERM_RUNLIMIT", "TERM_DEADLINE", "TERM_PROCESSLIMIT", "TERM_FORCE_OWNER",
	"TERM_FORCE_ADMIN", "TERM_REQUEUE_OWNER", "TERM_REQUEUE_ADMIN",
	"TERM_CPULIMIT", "TERM_CHKPNT", "TERM_OWNER", "TERM_ADMIN", "TERM_MEMLIMIT",
	"TERM_EXTERNAL_SIGNAL", "TERM_RMS", "TERM_ZOMBIE", "TERM_SWAP",
	"TERM_THREADLIMIT", "TERM_SLURM", "TERM_BUCKET_KILL", "TERM_CTRL_PID",
	"TERM_CWD_NOTEXIST", "TERM_REMOVE_HUNG_JOB", "TERM_ORPHAN_SYSTEM",
	"TERM_PRE_EXEC_FAIL", "TERM_DATA", "TERM_MC_RECALL", "TERM_RC_RECLAIM",
	"TERM_CSM_ALLOC", "TERM_KUBE", "TERM_RC",
}

// TermCode returns the exitInfo code of a TERM_* keyword; 0 (TERM_UNKNOWN)
// for "" and for keywords it does not know.
func TermCode(keyword string) int64 {
	for i, n := range termNames {
		if n == keyword {
			return int64(i)
		}
	}
	return 0
}

// TermName returns the TERM_* keyword of an exitInfo code; "" for 0
// (TERM_UNKNOWN, which LSF logs but does not display) and unknown codes.
func TermName(code int64) string {
	if code <= 0 || code >= int64(len(termNames)) {
		return ""
	}
	return termNames[code]
}

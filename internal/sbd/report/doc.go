// Package report formats LSF's job report, the summary sbatchd appends to a
// job's output file when the job ends ("Sender: LSF System ...", "Subject:
// Job N: <name> in cluster <c> Done", the execution details, "Your job
// looked like:", the termination reason, "Successfully completed." or
// "Exited with exit code N.", the resource usage summary and "The output (if
// any) is above this job summary."), and holds LSF's termination reason and
// signal tables that the report and post-execution commands use.
package report

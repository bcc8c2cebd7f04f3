// Package eventlog renders mbatchd's committed events as LSF's own files,
// lsb.events and lsb.acct, and reads them back for bhist and bacct.
//
// mbatchd's truth is its raft log of api.LogEntry values; the files here are
// derived from it, for the programs that read LSF's files directly
// (HTCondor BLAH and the Snakemake LSF plugin tail lsb.events; accounting
// tools parse lsb.acct) and for bhist and bacct.
//
// # Records
//
// A file holds one record per line: "EVENT_TYPE" "version" eventTime, then
// the fields of that type, blank-separated; strings in double quotes with
// each quote doubled; integers "%d"; floats in LSF's C formats (hostFactor
// "%6.2f" in JOB_NEW, "%3.1f" in JOB_START and JOB_FINISH, cpuTime
// "%4.4f", rusage "%1.6f" twice then "%1.0f" 17 times). A [Record] holds a
// typed payload ([JobNew], [JobStatus], [JobFinish]...). [AppendRecord] and
// [Record.Format] write it; [ParseRecord] and [Reader] read it, keyed on
// the version string: Basalt writes "10.1" in IBM LSF's layout (which
// keeps OpenLava's field prefix, the part clients index by position) and
// reads OpenLava-era files ("1.0" to "4.0") too. Fields after the last known
// one are ignored, so records of later LSF versions read; errors are
// [*ParseError]s naming file, line, column and field. layout.go cites the
// source of every field order.
//
// # Rendering
//
// [Render] turns one api.Event, with the [Job] context mbatchd's state
// holds after the entry was applied, into lsb.events records and, when a
// job run ends, a JOB_FINISH for lsb.acct.
//
// # Writing
//
// A [Writer] appends the records of each committed entry (Append, called by
// the FSM goroutine after the state applied the entry), switches
// lsb.events after MAX_JOB_NUM finished jobs (lsb.events.N to N+1, the old
// file's history to lsb.events.1, the live jobs re-logged above the new
// file's history seek position) and survives crashes: a checkpoint file
// records the last raft index rendered and each file's size, Open cuts the
// files back to it, and the caller replays the entries after
// [Writer.LastIndex]. See [Writer] for the fsync policy.
//
// # Reading
//
// [ReadHistory] folds event files (bhist -n, -f) into api.JobHistory values;
// [ReadAcct] reads lsb.acct into api.JobRecord values, both filtered by a
// [Filter] (jobs, users, queues, hosts, projects, names, states, -S -D -C
// time windows).
package eventlog

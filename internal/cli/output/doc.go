// Package output formats the batch commands' output exactly as LSF prints
// it: bjobs (default, -w, -W, -p, -s, -A, -l, -o, -json), bqueues, bhosts,
// busers, bparams, bugroup, bmgroup, bhist and bacct.
//
// Every function is pure: it takes wire records from package api, an
// Options value carrying "now" and the time zone, and writes to an
// io.Writer. Nothing here reads the clock, the environment or a file, so the
// golden tests in testdata/ pin the bytes scripts and workflow managers
// parse (see /work/shared/spec/lsf-clients.md).
//
// Sources, in order of authority: the LSF documentation excerpts (seeds),
// IBM Spectrum LSF 10.1 documentation and real 10.1 output for the formats
// clients parse, then the OpenLava/volclava sources (lsbatch/cmd/bjobs.c,
// cmd.job.c, cmd.prt.c, lsb.reason.c) for column formats IBM does not
// document. Where they disagree the choice is recorded next to the code.
//
// The -o format specification has its own parser, ParseFormat, with
// positioned errors and a fuzz target; bjobs, bhosts, bqueues, lsload and
// lshosts share it and the listing writers of tables.go, each command with
// its field set (tablefields.go for the host, queue and load tables).
package output

// Package esub runs LSF's external submission executables for bsub (and
// bmod): LSF_SERVERDIR/esub and esub.<method> for each method of
// LSB_ESUB_METHOD and bsub -a. Each esub gets the job's parameters in a
// Bourne-shell file (LSB_SUB_PARM_FILE: LSB_SUB_QUEUE="normal" ...), may
// reject the submission by exiting with LSB_SUB_ABORT_VALUE (97), may change
// parameters by writing LSB_SUB_MODIFY_FILE and the job's environment by
// writing LSB_SUB_MODIFY_ENVFILE; its standard output is kept for eexec's
// standard input on the execution host ("esub | eexec").
//
// The entry point for bsub is Run; ParamFile, ParseAssignments and Apply are
// its pieces.
package esub

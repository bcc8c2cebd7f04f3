// Package resreq is LSF's resource requirement language: the strings of
// bsub -R, queue RES_REQ, STOP_COND/RESUME_COND, lsload/lshosts/lsplace/
// lsrun/bhosts -R.
//
// # Resource table
//
// A [Table] holds the cluster's resources: the built-in load indices at LSF's
// load index numbers (r15s=0 ... mem=10), then the static built-ins (ncpus
// ... maxslots), then the lsf.shared resources given to [NewTable]. Every name
// in a requirement is resolved against it; evaluation uses table indices only.
package resreq

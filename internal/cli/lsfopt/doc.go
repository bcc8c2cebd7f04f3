// Package lsfopt parses command lines the way LSF's commands do.
//
// LSF options do not follow GNU conventions: option names may have several
// letters (-noheader, -json, -Is, -oo, -Ep), a value may be attached to its
// option (-n4, -qnormal) or given as the next word, single-letter flags may be
// combined (bjobs -pl), and bsub stops at the first word that is not an option
// because everything after it is the job's command line, untouched.
//
// A Spec lists the options a command accepts; Parse returns them in the order
// given, so that repeated options (bsub -R ... -R ...) keep every value.
package lsfopt

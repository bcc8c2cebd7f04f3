// Package authsetup builds a process's authentication from the cluster's
// configuration: lsf.conf's LSF_AUTH selects ident or eauth; Server gives a
// daemon its Authenticator (and its own credentials for the daemons it
// dials), Client a command's credentials.
package authsetup

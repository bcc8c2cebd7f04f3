// Package hostsfile reads LSF's own host name and address file,
// LSF_CONFDIR/hosts, which has the /etc/hosts format:
//
//	address official_name [alias ...]   # comment
//
// LSF consults it before the system resolver. Basalt's local clusters use it
// to give hosts host1..hostN loopback addresses 127.0.1.1..N.
package hostsfile

// Package defaults holds Basalt's embedded default cluster configuration
// and writes it out (basalt config write): LSF's files for a cluster of N
// hosts named host1..hostN on loopback addresses 127.0.1.1..N (through
// LSF's hosts file), so that a whole multi-host cluster runs on one machine
// and several clusters can run at once on different port bases.
//
// Layout under the directory given to Write:
//
//	conf/lsf.conf, lsf.shared, lsf.cluster.<name>, hosts   LSF_ENVDIR = LSF_CONFDIR
//	conf/lsbatch/<name>/configdir/lsb.*                    LSB_CONFDIR
//	work/<name>/logdir                                      LSB_SHAREDIR
//	log                                                     LSF_LOGDIR
//	sbin                                                    LSF_SERVERDIR (elim, egroup...)
//	local/<host>                                            per-host LSB_LOCALDIR
package defaults

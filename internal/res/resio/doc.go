// Package resio is the client side of RES's file streams (RES.Fetch and
// RES.Store), shared by lsrcp and the shepherd's bsub -f copies. It needs
// only the wire schema and the rpc client, so the command binary can use it
// without the RES daemon.
package resio

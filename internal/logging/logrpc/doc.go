// Package logrpc serves the debug methods (LIM.Debug, RES.Debug,
// MBatchd.Debug, SBatchd.Debug) of lsadmin limdebug/limtime/resdebug/
// restime and badmin mbddebug/mbdtime/schddebug/schdtime/sbddebug/sbdtime:
// it checks the caller may, then changes the daemon's logging.Log, and
// makes the daemon's rpc server time its calls for the timing level.
package logrpc

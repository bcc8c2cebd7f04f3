// Package lsfmt formats the output of LSF's base commands (lsload,
// lshosts, lsinfo, lsclusters, lsid and the -s shared resource tables)
// from a LIM cluster picture, with LSF's column widths, value formats,
// truncation and -w wide layouts (OpenLava lstools layouts, IBM examples).
// Every function is pure: it writes what it is given.
package lsfmt

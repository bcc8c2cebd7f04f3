// Package lsfconf reads lsf.conf, LSF's shell-like NAME=VALUE file, and
// gives typed access to the parameters Basalt uses. Every parameter, known
// or not, is kept in file order (Params) so that showconf can print it.
package lsfconf

// Package lex is the shared lexer for LSF's section-structured configuration
// files: lsf.shared, lsf.cluster.<name> and the lsb.* files (lsf.conf, which
// is shell-like, has its own parser in package lsfconf).
//
// Parse reads a file into logical lines (a trailing backslash continues a
// line, '#' starts a comment) grouped into Begin/End sections, handling the
// #INCLUDE "path" and #if time(...)/#elif/#else/#endif directives where the
// caller enables them. Every line, token and diagnostic carries its position
// (file, line, column). Section bodies come in two layouts, which the file
// parsers read through two helpers:
//
//   - horizontal: KEY = value lines (Queue, Parameters, Limit,
//     HostPartition, ClusterAdmins), read with Section.KeyValues;
//   - vertical: a header line of column names and one row per entry (Host,
//     HostGroup, User, UserGroup, Resource, ResourceMap...), read with
//     Section.Table. A field is a word, a parenthesised or bracketed group
//     (which may contain blanks) or a double-quoted string.
//
// Problems are collected as Diagnostics, each a warning (the line or section
// is ignored and the rest is used, as LSF does) or an error (the file cannot
// be used). The lexer never panics and never stops at the first problem.
package lex

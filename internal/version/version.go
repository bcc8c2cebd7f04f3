// Package version holds Basalt's version and the banner commands print.
package version

// Version is Basalt's release version.
const Version = "0.1.0"

// Date is the release date shown in banners, in LSF's "Mon DD YYYY" style.
const Date = "Nov 22 2026"

// LSFCompat is the LSF release whose interfaces Basalt follows. It is the
// first dotted number of the banner: clients read the LSF version that way
// (dask-jobqueue takes the first one in lsid's output, LSF exporters the
// first four-part one).
const LSFCompat = "10.1.0.13"

// Banner is the first line of lsid and of every command's -V output, laid out
// like LSF's ("IBM Spectrum LSF Standard 10.1.0.13, <date>") but naming Basalt.
func Banner() string { return "Basalt (LSF " + LSFCompat + " compatible), " + Date }

// Header is the banner with the two lines that follow it in LSF's lsid and
// -V output (LSF's are a copyright notice): three lines, no final newline.
// With lsid's blank line and its two "My ... is" lines, lsid prints six
// lines, as LSF's does (IBM's LSF exporter reads the cluster and master
// names only from output of at least six lines).
func Header() string {
	return Banner() + "\nBasalt " + Version + ": an open replacement for LSF, not an IBM product.\n" +
		"Copyright 2026 The Basalt Authors."
}

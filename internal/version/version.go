// Package version holds Basalt's version and the banner commands print.
package version

// Version is Basalt's release version.
const Version = "0.1.0"

// Date is the release date shown in banners, in LSF's "Mon DD YYYY" style.
const Date = "Nov 22 2026"

// LSFCompat is the LSF release whose interfaces Basalt follows.
const LSFCompat = "10.1.0"

// Banner is the first line of lsid and of every command's -V output, laid out
// like LSF's ("IBM Spectrum LSF Standard 10.1.0.13, <date>") but naming Basalt.
func Banner() string { return "Basalt " + Version + " (LSF " + LSFCompat + " compatible), " + Date }

package cli

import (
	"fmt"
	"strings"
)

// rcpArg is an lsrcp file argument: [[user@]host:]file.
type rcpArg struct {
	User, Host, Path string
}

// remote reports whether the argument names a file on a host.
func (a rcpArg) remote() bool { return a.Host != "" }

func (a rcpArg) String() string {
	switch {
	case a.User != "":
		return a.User + "@" + a.Host + ":" + a.Path
	case a.Host != "":
		return a.Host + ":" + a.Path
	}
	return a.Path
}

// rcpArgError is a positioned error in an lsrcp argument (Col from 1).
type rcpArgError struct {
	Arg string
	Col int
	Msg string
}

func (e *rcpArgError) Error() string {
	return fmt.Sprintf("%q, column %d: %s", e.Arg, e.Col, e.Msg)
}

// parseRcpArg reads [[user@]host:]file. A colon after a slash belongs to a
// local path (./a:b); a colon first is an empty host name.
func parseRcpArg(s string) (rcpArg, error) {
	if s == "" {
		return rcpArg{}, &rcpArgError{s, 1, "empty file name"}
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 || strings.IndexByte(s[:colon], '/') >= 0 {
		return rcpArg{Path: s}, nil
	}
	a := rcpArg{Host: s[:colon], Path: s[colon+1:]}
	if at := strings.LastIndexByte(a.Host, '@'); at >= 0 {
		a.User, a.Host = a.Host[:at], a.Host[at+1:]
		if a.User == "" {
			return rcpArg{}, &rcpArgError{s, 1, "empty user name before '@'"}
		}
		if a.Host == "" {
			return rcpArg{}, &rcpArgError{s, at + 2, "empty host name after '@'"}
		}
	}
	if a.Host == "" {
		return rcpArg{}, &rcpArgError{s, 1, "empty host name before ':'"}
	}
	if a.Path == "" {
		return rcpArg{}, &rcpArgError{s, colon + 2, "empty file name after ':'"}
	}
	return a, nil
}

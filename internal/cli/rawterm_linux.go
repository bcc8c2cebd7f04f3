package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// rawTerm is a local terminal put in raw mode, to be restored.
type rawTerm struct {
	fd   int
	orig unix.Termios
	done bool
}

// makeRaw puts the terminal f in raw mode (cfmakeraw); with keepSignals
// ^C, ^Z and ^\ still raise signals locally (lsrun -P forwards them),
// without (lsrun -S, shell mode) they go to the remote terminal as bytes.
func makeRaw(f *os.File, keepSignals bool) (*rawTerm, error) {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	r := &rawTerm{fd: fd, orig: *t}
	raw := *t
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Oflag &^= unix.OPOST
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.IEXTEN
	if !keepSignals {
		raw.Lflag &^= unix.ISIG
	}
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rawTerm) restore() {
	if r.done {
		return
	}
	r.done = true
	_ = unix.IoctlSetTermios(r.fd, unix.TCSETS, &r.orig)
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// termSize is the terminal's size; false when f is not a terminal.
func termSize(f *os.File) (uint32, uint32, bool) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Row == 0 || ws.Col == 0 {
		return 0, 0, false
	}
	return uint32(ws.Row), uint32(ws.Col), true
}

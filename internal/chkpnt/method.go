package chkpnt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Built-in method names.
const (
	MethodDefault = "default" // application-level: the job saves its own state
	MethodCRIU    = "criu"
)

// Method is a checkpoint method: its echkpnt and erestart programs, or a
// built-in one (Path empty).
type Method struct {
	Name     string
	Echkpnt  string // echkpnt.<name>; "" built-in
	Erestart string // erestart.<name>; "" built-in
}

// Builtin reports whether m is run by this package.
func (m Method) Builtin() bool { return m.Echkpnt == "" }

// ErrNoMethod is returned by Find for a method with no program and no
// built-in implementation.
var ErrNoMethod = errors.New("checkpoint method not found")

// Find resolves a method name: echkpnt.<name> and erestart.<name> in
// methodDir (LSB_ECHKPNT_METHOD_DIR) when set, else in serverDir
// (LSF_SERVERDIR); else a built-in method of that name. An empty name is
// "default".
func Find(name, methodDir, serverDir string) (Method, error) {
	if name == "" {
		name = MethodDefault
	}
	if !ValidMethod(name) {
		return Method{}, fmt.Errorf("%w: bad method name %q", ErrNoMethod, name)
	}
	dir := methodDir
	if dir == "" {
		dir = serverDir
	}
	if dir != "" {
		e := filepath.Join(dir, "echkpnt."+name)
		r := filepath.Join(dir, "erestart."+name)
		if executable(e) {
			m := Method{Name: name, Echkpnt: e, Erestart: r}
			if !executable(r) {
				return Method{}, fmt.Errorf("%w: %s has no %s", ErrNoMethod, e, r)
			}
			return m, nil
		}
	}
	switch name {
	case MethodDefault, MethodCRIU:
		return Method{Name: name}, nil
	}
	if dir == "" {
		return Method{}, fmt.Errorf("%w: echkpnt.%s: LSF_SERVERDIR is not defined", ErrNoMethod, name)
	}
	return Method{}, fmt.Errorf("%w: %s", ErrNoMethod, filepath.Join(dir, "echkpnt."+name))
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

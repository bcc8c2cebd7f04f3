package depend

import "github.com/basalt-lsf/basalt/api"

// JobInfo is what evaluation needs to know of one referenced job or element.
type JobInfo struct {
	State      api.JobState
	ExitCode   int // exit value of a finished job
	PostDone   bool
	PostFailed bool
	Started    bool // has run at some point
}

// Resolver finds the jobs a reference names (for the submitting user).
type Resolver interface {
	// Resolve returns the jobs ref names: one job, or every element of an
	// array, or every job of the user with that name (name* a prefix).
	Resolve(ref Ref) []JobInfo
}

// Result of an evaluation.
type Result int

const (
	// Satisfied: the job may start.
	Satisfied Result = iota
	// Waiting: not yet (PEND_JOB_DEPEND).
	Waiting
	// Never: cannot become true any more (PEND_JOB_DEP_INVALID).
	Never
)

// Eval evaluates e. A condition on jobs that no longer exist can never
// become true.
func Eval(e *Expr, r Resolver) Result {
	switch e.Op {
	case "&&":
		a, b := Eval(e.X, r), Eval(e.Y, r)
		switch {
		case a == Never || b == Never:
			return Never
		case a == Satisfied && b == Satisfied:
			return Satisfied
		}
		return Waiting
	case "||":
		a, b := Eval(e.X, r), Eval(e.Y, r)
		switch {
		case a == Satisfied || b == Satisfied:
			return Satisfied
		case a == Never && b == Never:
			return Never
		}
		return Waiting
	case "!":
		// The negation is judged now: a condition not (yet) true makes it
		// true, and a condition that became true stays true, so its
		// negation can never hold again.
		if Eval(e.X, r) == Satisfied {
			return Never
		}
		return Satisfied
	}
	jobs := r.Resolve(e.Ref)
	if len(jobs) == 0 {
		return Never
	}
	if e.Func >= NumDone {
		return evalNum(e, jobs)
	}
	res := Satisfied
	for _, j := range jobs {
		switch c := cond(e, j); c {
		case Never:
			return Never
		case Waiting:
			res = Waiting
		}
	}
	return res
}

func finished(s api.JobState) bool { return s == api.StateDone || s == api.StateExit }

func cond(e *Expr, j JobInfo) Result {
	switch e.Func {
	case Done:
		switch {
		case j.State == api.StateDone:
			return Satisfied
		case j.State == api.StateExit:
			return Never
		}
	case Ended:
		if finished(j.State) {
			return Satisfied
		}
	case ExitF:
		switch {
		case j.State == api.StateExit:
			if e.CmpOp == "" || compare(int64(j.ExitCode), e.CmpOp, e.Value) {
				return Satisfied
			}
			return Never
		case j.State == api.StateDone:
			if e.CmpOp != "" && compare(0, e.CmpOp, e.Value) {
				return Satisfied
			}
			return Never
		}
	case Started:
		if j.Started || j.State == api.StateRun || j.State == api.StateUSusp || j.State == api.StateSSusp || finished(j.State) {
			return Satisfied
		}
	case PostDone:
		if j.PostDone {
			return Satisfied
		}
		if j.PostFailed {
			return Never
		}
	case PostErr:
		if j.PostFailed {
			return Satisfied
		}
		if j.PostDone {
			return Never
		}
	case External:
		return Waiting // set by bsetjobmsg-style tools, not supported yet
	}
	return Waiting
}

func compare(a int64, op string, b int64) bool {
	switch op {
	case "==", "":
		return a == b
	case "!=":
		return a != b
	case ">":
		return a > b
	case ">=":
		return a >= b
	case "<":
		return a < b
	case "<=":
		return a <= b
	}
	return false
}

func evalNum(e *Expr, jobs []JobInfo) Result {
	n := int64(0)
	for _, j := range jobs {
		var in bool
		switch e.Func {
		case NumDone:
			in = j.State == api.StateDone
		case NumEnded:
			in = finished(j.State)
		case NumExit:
			in = j.State == api.StateExit
		case NumHold:
			in = j.State == api.StatePSusp
		case NumPend:
			in = j.State == api.StatePend || j.State == api.StatePSusp
		case NumRun:
			in = j.State == api.StateRun
		case NumStart:
			in = j.State == api.StateRun || j.State == api.StateSSusp || j.State == api.StateUSusp || finished(j.State) && j.Started
		}
		if in {
			n++
		}
	}
	ok := false
	if e.All {
		ok = n == int64(len(jobs))
	} else {
		ok = compare(n, e.CmpOp, e.Value)
	}
	if ok {
		return Satisfied
	}
	allFinished := true
	for _, j := range jobs {
		if !finished(j.State) {
			allFinished = false
		}
	}
	if allFinished {
		return Never
	}
	return Waiting
}

package job

import (
	"errors"
	"fmt"
	"sync"

	"github.com/basalt-lsf/basalt/api"
)

// State is a job state; the values are LSF's JOB_STAT_* bits.
type State = api.JobState

// The job states.
const (
	Pend  = api.StatePend
	PSusp = api.StatePSusp
	Run   = api.StateRun
	SSusp = api.StateSSusp
	USusp = api.StateUSusp
	Exit  = api.StateExit
	Done  = api.StateDone
	Unkwn = api.StateUnkwn
	Zombi = api.StateZombi
)

// Name returns LSF's name for s (PEND, RUN, ...).
func Name(s State) string {
	switch s {
	case Pend:
		return "PEND"
	case PSusp:
		return "PSUSP"
	case Run:
		return "RUN"
	case SSusp:
		return "SSUSP"
	case USusp:
		return "USUSP"
	case Exit:
		return "EXIT"
	case Done:
		return "DONE"
	case Unkwn:
		return "UNKWN"
	case Zombi:
		return "ZOMBI"
	case api.StatePDone:
		return "PDONE"
	case api.StatePErr:
		return "PERR"
	case api.StateWait:
		return "WAIT"
	}
	return fmt.Sprintf("STATE(%d)", int32(s))
}

// Finished reports whether s is terminal (DONE or EXIT).
func Finished(s State) bool { return s == Done || s == Exit }

// Pending reports whether s is PEND or PSUSP.
func Pending(s State) bool { return s == Pend || s == PSusp }

// Started reports whether the job holds hosts: RUN, SSUSP, USUSP, UNKWN, ZOMBI.
func Started(s State) bool {
	return s == Run || s == SSusp || s == USusp || s == Unkwn || s == Zombi
}

// Suspended reports whether s is a suspended state.
func Suspended(s State) bool { return s == PSusp || s == SSusp || s == USusp }

// Input is something that happens to a job.
type Input int

// Inputs.
const (
	Dispatch      Input = iota + 1 // scheduler (or brun) starts the job
	UserStop                       // bstop by the owner or an administrator
	SystemSuspend                  // load, run window, preemption
	UserResume                     // bresume
	SystemResume                   // load back under thresholds, window open, slots free
	Finish                         // job exited 0
	Fail                           // job exited non-zero or was killed
	KillPending                    // bkill of a job that never ran
	Requeue                        // back to pending (requeue exit value, brequeue, pre-exec failure, migration)
	RequeueHold                    // brequeue -H
	HostLost                       // execution host unreachable
	HostBack                       // execution host reachable again
	Zombie                         // killed on an unreachable host: waiting to confirm
)

var inputNames = [...]string{"", "dispatch", "user stop", "system suspend", "user resume", "system resume",
	"finish", "fail", "kill pending", "requeue", "requeue hold", "host lost", "host back", "zombie"}

func (i Input) String() string {
	if i > 0 && int(i) < len(inputNames) {
		return inputNames[i]
	}
	return fmt.Sprintf("input(%d)", int(i))
}

// ErrIllegalTransition is returned (wrapped) for an input a state does not
// accept.
var ErrIllegalTransition = errors.New("illegal job state transition")

// table maps state and input to the next state. HostBack's target depends on
// the state before HostLost, which the caller passes to Next. (Built at its
// first use, not at every command's start.)
var table = sync.OnceValue(func() map[State]map[Input]State {
	return map[State]map[Input]State{
		Pend: {
			Dispatch:    Run,
			UserStop:    PSusp,
			KillPending: Exit,
			Requeue:     Pend,
			RequeueHold: PSusp,
			Finish:      Done, // a job may finish before mbatchd saw it start
			Fail:        Exit,
		},
		PSusp: {
			UserResume:  Pend,
			KillPending: Exit,
			UserStop:    PSusp,
			Requeue:     Pend,
			RequeueHold: PSusp,
		},
		Run: {
			UserStop:      USusp,
			SystemSuspend: SSusp,
			SystemResume:  Run,
			Finish:        Done,
			Fail:          Exit,
			Requeue:       Pend,
			RequeueHold:   PSusp,
			HostLost:      Unkwn,
			Zombie:        Zombi,
		},
		USusp: {
			UserStop:      USusp,
			UserResume:    SSusp, // LSF: bresume makes a USUSP job SSUSP; load decides when it runs
			SystemSuspend: USusp, // stays user-suspended
			Finish:        Done,
			Fail:          Exit,
			Requeue:       Pend,
			RequeueHold:   PSusp,
			HostLost:      Unkwn,
			Zombie:        Zombi,
		},
		SSusp: {
			UserStop:      USusp,
			SystemSuspend: SSusp,
			SystemResume:  Run,
			UserResume:    SSusp,
			Finish:        Done,
			Fail:          Exit,
			Requeue:       Pend,
			RequeueHold:   PSusp,
			HostLost:      Unkwn,
			Zombie:        Zombi,
		},
		Unkwn: {
			Finish:  Done,
			Fail:    Exit,
			Requeue: Pend,
			Zombie:  Zombi,
		},
		Zombi: {
			Finish:  Done,
			Fail:    Exit,
			Requeue: Pend,
		},
		Done: {},
		Exit: {},
	}
})

// Next returns the state after input in state s. For HostBack, before is the
// state the job had when its host was lost.
func Next(s State, in Input, before State) (State, error) {
	if in == HostBack {
		if s == Unkwn && Started(before) && before != Unkwn {
			return before, nil
		}
		return s, fmt.Errorf("%w: %s on %s", ErrIllegalTransition, in, Name(s))
	}
	next, ok := table()[s][in]
	if !ok {
		return s, fmt.Errorf("%w: %s on %s", ErrIllegalTransition, in, Name(s))
	}
	return next, nil
}

// States lists every state the table knows, for tests and documentation.
func States() []State { return []State{Pend, PSusp, Run, USusp, SSusp, Unkwn, Zombi, Done, Exit} }

// Inputs lists every input.
func Inputs() []Input {
	return []Input{Dispatch, UserStop, SystemSuspend, UserResume, SystemResume, Finish, Fail, KillPending,
		Requeue, RequeueHold, HostLost, HostBack, Zombie}
}

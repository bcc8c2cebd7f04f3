// Package lsberr holds LSF's batch error numbers (LSBE_*) and their texts,
// which mbatchd returns and the commands print ("<text>. Job not submitted.",
// "Job <N>: <text>").
package lsberr

import "fmt"

// Code is an LSBE_* number.
type Code int32

// Batch error numbers, as in lsbatch.h.
const (
	OK            Code = 0
	NoJob         Code = 1  // No matching job found
	NotStarted    Code = 2  // Job has not started yet
	JobStarted    Code = 3  // Job has already started
	JobFinished   Code = 4  // Job has already finished
	DependSyntax  Code = 6  // Dependency condition syntax error
	Exclusive     Code = 7  // Queue does not accept EXCLUSIVE jobs
	RootDenied    Code = 8  // Root job submission is disabled
	Migration     Code = 9  // Job is already being migrated
	NotChkpntable Code = 10 // Job is not checkpointable
	NoOutput      Code = 11 // No output so far
	NoJobID       Code = 12 // No job Id can be used now
	OnlyInteract  Code = 13 // Queue only accepts interactive jobs
	NoInteractive Code = 14 // Queue does not accept interactive jobs
	NoUser        Code = 15
	BadUser       Code = 16 // Unknown user
	Permission    Code = 17 // User permission denied
	BadQueue      Code = 18 // No such queue
	QueueName     Code = 19 // Queue name must be specified
	QueueClosed   Code = 20 // Queue has been closed
	QueueWindow   Code = 21 // Not activated because queue windows are closed
	QueueUse      Code = 22 // User cannot use the queue
	BadHost       Code = 23 // Bad host name, host group name or cluster name
	ProcNum       Code = 24 // Too many processors requested
	NoGroup       Code = 27
	BadGroup      Code = 28 // No such user/host group
	QueueHost     Code = 29 // Host or host group is not used by the queue
	UJobLimit     Code = 30
	BadArg        Code = 35 // Bad argument
	BadTime       Code = 36 // Bad time specification
	StartTime     Code = 37 // Start time is later than termination time
	BadLimit      Code = 38 // Bad CPU limit specification
	OverLimit     Code = 39 // Cannot exceed queue's hard limit(s)
	BadCmd        Code = 40 // Empty job
	BadSignal     Code = 41 // Signal not supported
	BadJob        Code = 42 // Bad job name
	QJobLimit     Code = 43 // The destination queue has reached its job limit
	MbdInternal   Code = 47 // Master batch daemon internal error
	ConnTimeout   Code = 60
	ConnRefused   Code = 62
	NotConnected  Code = 64
	NotRunning    Code = 65 // Unable to contact execution host
	JobModify     Code = 68
	BadResReq     Code = 75 // Bad resource requirement syntax
	NoEligible    Code = 76 // Not enough host(s) currently eligible
	BadResource   Code = 80 // Bad resource name
	NotInGroup    Code = 85 // User not in the specified user group
	OverRusage    Code = 86 // Cannot exceed queue's resource reservation
	BadHostSpec   Code = 87 // Bad host specification
	BadUGroup     Code = 88 // Bad user group name
	EsubAbort     Code = 89 // Request aborted by esub
	BadAction     Code = 90
	HasDependents Code = 91
	NoArray       Code = 94 // Cannot operate on job array
	ArrayIndex    Code = 97 // Job array index error
	ArrayTooLarge Code = 98 // Job array index too large
	ArrayNone     Code = 99 // Job array does not exist
	JobExists     Code = 100
	BadJobID      Code = 102 // Bad jobId
	ArrayRename   Code = 103
	BadPriority   Code = 118 // Bad user priority
	NoPriority    Code = 119 // Job priority control undefined
	Requeued      Code = 120 // Job has already been requeued
	TooFewProcs   Code = 125 // Too few processors requested
	RunningModify Code = 126
	NoCommand     Code = 136 // No command is specified
	BadApp        Code = 200 // Application profile does not exist (bsub -app)
	// RsvNoHost is LSF 10's LSBE_RSV_NO_HOST (217): brsvadd -m/-R left
	// no host; its text is lsbatch.h's comment for it.
	RsvNoHost Code = 217
)

var text = map[Code]string{
	OK:            "No error",
	BadApp:        "Application profile does not exist",
	NoJob:         "No matching job found",
	NotStarted:    "Job has not started yet",
	JobStarted:    "Job has already started",
	JobFinished:   "Job has already finished",
	DependSyntax:  "Dependency condition syntax error",
	Exclusive:     "Queue does not accept EXCLUSIVE jobs",
	RootDenied:    "Root job submission is disabled",
	Migration:     "Job is already being migrated",
	NotChkpntable: "Job is not checkpointable",
	NoOutput:      "No output so far",
	NoJobID:       "No job Id can be used now",
	OnlyInteract:  "Queue only accepts interactive jobs",
	NoInteractive: "Queue does not accept interactive jobs",
	NoUser:        "No user is defined in the lsb.users file",
	BadUser:       "Unknown user",
	Permission:    "User permission denied",
	BadQueue:      "No such queue",
	QueueName:     "Queue name must be specified",
	QueueClosed:   "Queue has been closed",
	QueueWindow:   "Not activated because queue windows are closed",
	QueueUse:      "User cannot use the queue",
	BadHost:       "Bad host name, host group name or cluster name",
	ProcNum:       "Too many processors requested",
	NoGroup:       "No user/host group defined in the system",
	BadGroup:      "No such user/host group",
	QueueHost:     "Host or host group is not used by the queue",
	UJobLimit:     "Queue does not have enough per-user job slots",
	BadArg:        "Bad argument",
	BadTime:       "Bad time specification",
	StartTime:     "Start time is later than termination time",
	BadLimit:      "Bad CPU limit specification",
	OverLimit:     "Cannot exceed queue's hard limit(s)",
	BadCmd:        "Empty job",
	BadSignal:     "Signal not supported",
	BadJob:        "Bad job name",
	QJobLimit:     "The destination queue has reached its job limit",
	MbdInternal:   "Master batch daemon internal error",
	ConnTimeout:   "Contacting batch daemon: Communication timeout",
	ConnRefused:   "Connection refused by server",
	NotConnected:  "Server is not connected",
	NotRunning:    "Unable to contact execution host",
	JobModify:     "Job parameters cannot be changed now; non-repetitive job is running",
	BadResReq:     "Bad resource requirement syntax",
	NoEligible:    "Not enough host(s) currently eligible",
	BadResource:   "Bad resource name",
	NotInGroup:    "User not in the specified user group",
	OverRusage:    "Cannot exceed queue's resource reservation",
	BadHostSpec:   "Bad host specification",
	BadUGroup:     "Bad user group name",
	EsubAbort:     "Request aborted by esub",
	BadAction:     "Bad or invalid action specification",
	HasDependents: "Has dependent jobs",
	NoArray:       "Cannot operate on job array",
	ArrayIndex:    "Job array index error",
	ArrayTooLarge: "Job array index too large",
	ArrayNone:     "Job array does not exist",
	JobExists:     "Job exists",
	BadJobID:      "Bad jobId",
	ArrayRename:   "Change job name is not allowed for job array",
	BadPriority:   "Bad user priority",
	NoPriority:    "Job priority control undefined",
	Requeued:      "Job has already been requeued",
	TooFewProcs:   "Too few processors requested",
	RunningModify: "Only the following parameters can be used to modify a running job: -c, -M, -W, -o, -e, -r",
	NoCommand:     "No command is specified",
	RsvNoHost:     "There are no qualified host found in cluster",
}

// Text returns LSF's message for c.
func (c Code) Text() string {
	if t, ok := text[c]; ok {
		return t
	}
	return fmt.Sprintf("Unknown batch system error number %d", int32(c))
}

// Error is an LSBE error with an optional detail that replaces LSF's text
// where LSF prints something more specific.
type Error struct {
	Code   Code
	Detail string
}

func (e *Error) Error() string {
	if e.Detail != "" {
		return e.Detail
	}
	return e.Code.Text()
}

// New returns an *Error for c.
func New(c Code) *Error { return &Error{Code: c} }

// Errorf returns an *Error for c with a specific message.
func Errorf(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Detail: fmt.Sprintf(format, args...)}
}

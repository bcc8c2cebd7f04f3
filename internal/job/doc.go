// Package job is the batch job state machine: LSF's job states and the
// inputs that move a job between them, in one transition table.
//
//	PEND  --dispatch-->  RUN  --finish-->  DONE | EXIT
//	PEND  --stop-->      PSUSP --resume--> PEND
//	RUN   --user stop--> USUSP --resume--> SSUSP --load ok--> RUN
//	RUN   --system suspend (load, window, preemption)--> SSUSP --resume--> RUN
//	RUN|SUSP --requeue/back to pending--> PEND      any unfinished --kill pending--> EXIT
//	RUN|SUSP --host lost--> UNKWN --host back--> previous state
//
// mbatchd's state (internal/mbd) applies events only through Next, so an
// illegal move is caught in one place and reported as ErrIllegalTransition.
package job

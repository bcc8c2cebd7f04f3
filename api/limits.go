package api

// LimitsRequest asks mbatchd for the Limit sections of lsb.resources and
// their usage as the scheduler's last pass counted it (blimits).
type LimitsRequest struct {
	// All asks for every limit, also those no running job counts against
	// (blimits -a).
	All bool `wire:"1"`
	// Config asks for the Limit sections as configured instead
	// (bresources): LimitsReply.Sections.
	Config bool `wire:"2"`
}

// LimitsReply answers a LimitsRequest.
type LimitsReply struct {
	Limits []*LimitUsage `wire:"1"`
	// Sections are the Limit sections in force, each as lsb.resources
	// text ("Begin Limit" ... "End Limit"), in file order.
	Sections []string `wire:"2"`
}

// LimitUsage is one row of blimits: a limit, or with PER_* consumers one
// consumer of it, and its resources as used/limit. A consumer field holds
// the consumer the row counts (PER_USER: the user), or the limit's
// configured list ("all", "user1 user2"), "" when the limit has none. A
// resource the limit does not set has its Has bit clear.
type LimitUsage struct {
	Name     string `wire:"1"`
	Users    string `wire:"2"`
	Queues   string `wire:"3"`
	Hosts    string `wire:"4"`
	Projects string `wire:"5"`

	Slots    float64 `wire:"6"`
	SlotsMax float64 `wire:"7"`
	HasSlots bool    `wire:"8"`
	Jobs     float64 `wire:"9"`
	JobsMax  float64 `wire:"10"`
	HasJobs  bool    `wire:"11"`
	Mem      float64 `wire:"12"` // MB
	MemMax   float64 `wire:"13"`
	HasMem   bool    `wire:"14"`
	Tmp      float64 `wire:"15"`
	TmpMax   float64 `wire:"16"`
	HasTmp   bool    `wire:"17"`
	Swp      float64 `wire:"18"`
	SwpMax   float64 `wire:"19"`
	HasSwp   bool    `wire:"20"`
	// Resources are the RESOURCE limits (shared resources): EXTERNAL
	// RESOURCE LIMITS.
	Resources []*LimitAmount `wire:"21"`
	// InUse: running jobs count against the row (blimits without -a
	// shows only these).
	InUse bool `wire:"22"`
}

// LimitAmount is a named resource's usage against its limit.
type LimitAmount struct {
	Name string  `wire:"1"`
	Used float64 `wire:"2"`
	Max  float64 `wire:"3"`
}

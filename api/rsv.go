package api

// RsvRequest is brsvadd, brsvmod or brsvdel (Op as EvRsv's).
type RsvRequest struct {
	Op RsvOp `wire:"1"`
	// ID names the reservation (brsvmod, brsvdel); brsvadd -N names the
	// new one (otherwise "<user or group>#<n>").
	ID    string   `wire:"2"`
	Type  RsvType  `wire:"3"`
	Users []string `wire:"4"` // -u users, or -g's one user group
	Slots int32    `wire:"5"` // -n
	Hosts []string `wire:"6"` // -m, in order
	// ResReq is -R: only its select section is used.
	ResReq string `wire:"7"`
	// Begin and End are -b and -e as the client resolved them (Unix
	// seconds); Window is -t.
	Begin  int64  `wire:"8"`
	End    int64  `wire:"9"`
	Window string `wire:"10"`
	Open   bool   `wire:"11"` // -o
	Closed bool   `wire:"12"` // brsvmod -on
	Desc   string `wire:"13"` // -d
	// HasDesc, HasUsers, HasTime: what brsvmod changes.
	HasDesc  bool `wire:"14"`
	HasUsers bool `wire:"15"`
	HasTime  bool `wire:"16"`
	// BeginShift and EndShift are brsvmod -b/-e "+minutes" or
	// "-minutes": seconds added to the current begin and end.
	BeginShift int64 `wire:"17"`
	EndShift   int64 `wire:"18"`
}

// RsvReply answers an RsvRequest: the reservation's ID, or why not.
type RsvReply struct {
	Status *Status `wire:"1"`
	ID     string  `wire:"2"`
}

// RsvsRequest is brsvs: the named reservations, or all.
type RsvsRequest struct {
	IDs []string `wire:"1"`
}

// RsvInfo is one reservation as brsvs shows it.
type RsvInfo struct {
	Rsv *EvRsv `wire:"1"`
	// Used are the slots its jobs use on each of Rsv.Hosts, in order.
	Used []int32 `wire:"2"`
	// Active: the window is open now; Next is the current or next window
	// (Unix seconds).
	Active    bool  `wire:"3"`
	NextBegin int64 `wire:"4"`
	NextEnd   int64 `wire:"5"`
	// Jobs of the reservation by state (brsvs -l).
	Pend   []int64 `wire:"6"`
	Run    []int64 `wire:"7"`
	Susp   []int64 `wire:"8"`
	Finish []int64 `wire:"9"`
}

// RsvsReply answers an RsvsRequest, reservations in ID order.
type RsvsReply struct {
	Rsvs []*RsvInfo `wire:"1"`
}

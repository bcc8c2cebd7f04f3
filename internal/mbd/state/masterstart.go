package state

// MasterStart is when the latest master recorded its start (MBD_START),
// Unix seconds; 0 before any.
func (v *View) MasterStart() int64 { return v.s.masterStart }

package cli

// For the script tests, which are package cli_test so that they can link
// the daemons (internal/daemon imports this package).
var (
	DialMbd     = dialMbd
	ParseJobIDs = parseJobIDs
)

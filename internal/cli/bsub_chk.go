package cli

// bsubCheckResReq implements BSUB_CHK_RESREQ. Owned by the resource
// requirement work (internal/resreq); until it lands the check is refused
// rather than answered falsely.
func bsubCheckResReq(env *Env, reqs []string) int {
	env.Errorf("Resource requirement checking is not available in this build. Job not submitted.")
	return ExitUsage
}

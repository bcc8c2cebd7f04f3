package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// bsubCheckResReq implements BSUB_CHK_RESREQ: check the select section of
// each -R string against the strict syntax, with the cluster's resource
// table, without contacting any daemon. No -R is an empty, valid
// requirement.
func bsubCheckResReq(env *Env, reqs []string) int {
	o := resreqOptions(context.Background(), env, resreq.CtxBsub)
	if err := resreq.CheckSelect(reqs, o); err != nil {
		fmt.Fprintf(env.Stderr, "%v. Job not submitted.\n", err)
		return ExitUsage
	}
	fmt.Fprintln(env.Stdout, "Resource requirement string is valid.")
	return 0
}

// resreqOptions returns the parsing options of the local configuration:
// lsf.shared's resources, LSF_STRICT_RESREQ and LSF_UNIT_FOR_LIMITS from
// LSF_ENVDIR/lsf.conf. Without a readable configuration it falls back to the
// built-in resources and the defaults, as a client host without LSF files
// would check only what it can.
func resreqOptions(ctx context.Context, env *Env, c resreq.Context) resreq.Options {
	o := resreq.Options{Context: c, Table: resreq.BuiltinTable()}
	copts := config.Options{EnvDir: env.Getenv("LSF_ENVDIR"), Getenv: env.Getenv}
	conf, _, err := config.LoadConf(copts)
	if err != nil || conf == nil {
		return o
	}
	o.Strict = conf.StrictResReq()
	if u, ok := conf.Lookup("LSF_UNIT_FOR_LIMITS"); ok && u != "" {
		o.Unit = conf.UnitForLimits()
	}
	if b, err := config.LoadBase(ctx, copts); err == nil && b.ResourceTable() != nil {
		o.Table = b.ResourceTable()
	}
	return o
}

package cli

import (
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

// formatSpec resolves the -o of a listing command (bjobs, bhosts, bqueues,
// lsload, lshosts): the option's value, else the command's format variable
// (LSB_BJOBS_FORMAT...) when no other layout was asked for. -json without
// either is refused, as LSF does: ok=false once the error was printed (the
// command exits 255).
func formatSpec(env *Env, cmd string, res *lsfopt.Result, formatVar string, otherLayout bool, usage func(*Env)) (spec string, has, ok bool) {
	spec, has = res.Last("o")
	if !has && !otherLayout {
		if v := env.Getenv(formatVar); v != "" {
			spec, has = v, true
		}
	}
	if res.Has("json") && !has {
		env.Errorf("%s: -json must be used with -o", cmd)
		usage(env)
		return "", false, false
	}
	return spec, has, true
}

// listFormat is formatSpec parsed with the command's fields: nil when there
// is no -o, ok=false once an error was printed.
func listFormat(env *Env, cmd string, res *lsfopt.Result, formatVar string, otherLayout bool,
	fields *output.FieldSet, usage func(*Env)) (*output.Format, bool) {
	spec, has, ok := formatSpec(env, cmd, res, formatVar, otherLayout, usage)
	if !ok || !has {
		return nil, ok
	}
	return parseFormat(env, spec, fields)
}

// parseFormat parses a -o specification; an error (LSF's message for an
// unknown field) is printed.
func parseFormat(env *Env, spec string, fields *output.FieldSet) (*output.Format, bool) {
	f, err := output.ParseFormat(spec, fields)
	if err != nil {
		env.Errorf("%v", err)
		return nil, false
	}
	return f, true
}

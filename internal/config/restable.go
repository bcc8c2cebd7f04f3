package config

import (
	"errors"
	"strings"

	"github.com/basalt-lsf/basalt/internal/resreq"
)

// ResourceDefs returns lsf.shared's resources as resource requirement
// definitions, Shared set from the ResourceMap.
func (b *Base) ResourceDefs() []resreq.ResourceDef {
	var defs []resreq.ResourceDef
	if b.Shared == nil {
		return nil
	}
	for _, r := range b.Shared.Resources {
		def := resreq.ResourceDef{
			Name: r.Name, Type: r.Type, Interval: r.Interval, Increasing: r.Increasing,
			Release: r.Release, Consumable: r.Consumable, Description: r.Description,
		}
		if b.Cluster != nil {
			if m := b.Cluster.Mapping(r.Name); m != nil {
				def.Shared = m.Shared()
			}
		}
		defs = append(defs, def)
	}
	return defs
}

func buildResourceTable(b *Base, d *Diagnostics) *resreq.Table {
	t, err := resreq.NewTable(b.ResourceDefs())
	if err == nil {
		return t
	}
	// lsf.shared's checks mirror NewTable's, so this is a safety net: report
	// and fall back to the built-in resources.
	var msgs []string
	for _, e := range unwrapAll(err) {
		msgs = append(msgs, e.Error())
	}
	d.Errorf(Pos{File: b.Shared.Path}, "resource table: %s", strings.Join(msgs, "; "))
	return resreq.BuiltinTable()
}

func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// resReqOptions returns the options for validating a queue-level
// requirement string.
func (b *Base) resReqOptions(ctx resreq.Context) resreq.Options {
	unit := ""
	if u, ok := b.Conf.Lookup("LSF_UNIT_FOR_LIMITS"); ok && u != "" {
		unit = b.Conf.UnitForLimits()
	}
	return resreq.Options{Strict: b.Conf.StrictResReq(), Context: ctx, Table: b.table, Unit: unit}
}

// checkResReq validates a requirement string and records the result.
func (b *Base) checkResReq(rt *ResReqText, key, where string, ctx resreq.Context, d *Diagnostics) {
	if strings.TrimSpace(rt.Text) == "" {
		return
	}
	r, err := resreq.Parse(rt.Text, b.resReqOptions(ctx))
	if err == nil {
		rt.Parsed = r
		return
	}
	var first *resreq.Error
	var list resreq.ErrorList
	pos := rt.Pos
	switch {
	case errors.As(err, &list) && len(list) > 0:
		first = list[0]
	case errors.As(err, &first):
	}
	msg := err.Error()
	if first != nil {
		pos = pos.Add(first.Pos)
		msg = first.Error()
	}
	d.Warnf(pos, "%s: %s <%s> is not a valid resource requirement: %s; ignored", where, key, rt.Text, msg)
	*rt = ResReqText{}
}

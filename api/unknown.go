package api

import (
	"errors"
	"sort"

	"github.com/basalt-lsf/basalt/api/wire"
)

// schemaMessage and schemaField make up wireSchema (schema_wire.go,
// written by wiregen).
type schemaMessage struct {
	name   string
	fields []schemaField
}

type schemaField struct {
	num int32
	msg int16 // index in wireSchema of the message held; -1 for scalars
}

// UnknownFields walks b, an encoded message of type msg ("LogEntry",
// "SnapRecord"...), and calls fn for every field the codecs skip because
// this version does not know its number (a newer version wrote it): the
// message it appeared in and the number. For an Event, a number of 10 and
// more is an event kind. It returns an error only for bytes that do not
// decode, or an unknown msg.
func UnknownFields(msg string, b []byte, fn func(message string, num int)) error {
	i := sort.Search(len(wireSchema), func(i int) bool { return wireSchema[i].name >= msg })
	if i == len(wireSchema) || wireSchema[i].name != msg {
		return errors.New("api: no message " + msg)
	}
	return walkUnknown(i, b, fn, 0)
}

func walkUnknown(mi int, b []byte, fn func(string, int), depth int) error {
	m := &wireSchema[mi]
	if depth > 64 {
		return errors.New("api: " + m.name + " nested too deep")
	}
	j := 0 // fields come in number order: look on from the last one
	for off := 0; off < len(b); {
		num, typ, n := wire.ConsumeTag(b[off:])
		if n < 0 {
			return wire.Errorf(m.name, 0, off, n)
		}
		off += n
		if j >= len(m.fields) || m.fields[j].num > int32(num) {
			j = 0 // out of order: from the start
		}
		for j < len(m.fields) && m.fields[j].num < int32(num) {
			j++
		}
		known := j < len(m.fields) && m.fields[j].num == int32(num)
		if known && m.fields[j].msg >= 0 && typ == wire.BytesType {
			v, n := wire.ConsumeBytes(b[off:])
			if n < 0 {
				return wire.Errorf(m.name, num, off, n)
			}
			if err := walkUnknown(int(m.fields[j].msg), v, fn, depth+1); err != nil {
				return err
			}
			off += n
			continue
		}
		if !known {
			fn(m.name, int(num))
		}
		n = wire.ConsumeFieldValue(typ, b[off:])
		if n < 0 {
			return wire.Errorf(m.name, num, off, n)
		}
		off += n
	}
	return nil
}

package wireschema

import "fmt"

// Check compares a new schema with the locked one and returns every
// incompatible change: a field number whose type or name changed (a number
// is never retyped or reused), a field removed without reserving its
// number, a reserved number used again or no longer reserved, a message
// removed. Additions are compatible.
func Check(old, cur *Schema) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, om := range old.Messages {
		nm := cur.Lookup(om.Name)
		if nm == nil {
			bad("message %s removed: old records may hold it; keep the struct (fields can be reserved)", om.Name)
			continue
		}
		for _, of := range om.Fields {
			nf := nm.Field(of.Num)
			switch {
			case nf == nil && !nm.IsReserved(of.Num):
				bad("%s.%s (%d) removed without reserving its number: add `// reserved: %d (%s)` to %s", om.Name, of.Name, of.Num, of.Num, of.Name, om.Name)
			case nf == nil:
			case nf.Type != of.Type:
				bad("%s.%s (%d): type changed from %s to %s: a field number is never retyped; reserve it and add a new field", om.Name, of.Name, of.Num, of.Type, nf.Type)
			case nf.Name != of.Name:
				bad("%s field %d: was %s, now %s: a field number is never reused (to rename a field, keep its name here and document the new meaning)", om.Name, of.Num, of.Name, nf.Name)
			}
		}
		for _, n := range om.Reserved {
			if f := nm.Field(n); f != nil {
				bad("%s.%s uses field number %d, which is reserved", om.Name, f.Name, n)
			} else if !nm.IsReserved(n) {
				bad("%s: reserved number %d is no longer reserved", om.Name, n)
			}
		}
	}
	return errs
}

// Added lists the fields and messages of cur that old does not have.
func Added(old, cur *Schema) []string {
	var out []string
	for _, nm := range cur.Messages {
		om := old.Lookup(nm.Name)
		if om == nil {
			out = append(out, "message "+nm.Name)
			continue
		}
		for _, f := range nm.Fields {
			if om.Field(f.Num) == nil {
				out = append(out, fmt.Sprintf("%s.%s (%d)", nm.Name, f.Name, f.Num))
			}
		}
		for _, n := range nm.Reserved {
			if !om.IsReserved(n) && om.Field(n) == nil {
				out = append(out, fmt.Sprintf("%s reserved %d", nm.Name, n))
			}
		}
	}
	return out
}

package sched

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/basalt-lsf/basalt/internal/resreq"
)

// TestRenewedFields: a host view kept from the last pass (Input.SameHosts)
// starts the new pass as buildHosts makes a view afresh: every field but
// what the host alone gave it is back to its start. A field added to
// hostCtx and not renewed fails here.
func TestRenewedFields(t *testing.T) {
	kept := map[string]bool{"Host": true, "idx": true, "vals": true, "max": true, "unlimited": true,
		"slotsSet": true, "lastFree": true, "nextGen": true, "recGen": true}
	hc := &hostCtx{Host: &Host{Values: &resreq.Host{Num: []float64{1, 2}}}, vals: resreq.Host{Num: []float64{9, 9}}}
	v := reflect.ValueOf(hc).Elem()
	field := func(i int) reflect.Value {
		f := v.Field(i)
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	}
	for i := range v.NumField() {
		if kept[v.Type().Field(i).Name] {
			continue
		}
		f := field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int32:
			f.SetInt(7)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
		case reflect.Slice:
			s := reflect.MakeSlice(f.Type(), 3, 3)
			if s.Index(0).Kind() == reflect.Int32 {
				s.Index(0).SetInt(5)
			}
			f.Set(s)
		default:
			t.Fatalf("field %s (%s): teach this test to fill it", v.Type().Field(i).Name, f.Kind())
		}
	}
	hc.jobsShared = false
	hc.renew(2, true)
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if kept[name] {
			continue
		}
		f := field(i)
		switch f.Kind() {
		case reflect.Slice:
			for k := range f.Len() {
				if !f.Index(k).IsZero() {
					t.Errorf("%s[%d] not emptied by renew", name, k)
				}
			}
		default:
			if !f.IsZero() {
				t.Errorf("%s = %v after renew, want its zero value", name, f.Interface())
			}
		}
	}
	if len(hc.queueSlots) != 2 || len(hc.preRun) != 2 {
		t.Errorf("queueSlots %v, preRun %v: want one per queue", hc.queueSlots, hc.preRun)
	}
	if !reflect.DeepEqual(hc.vals.Num, []float64{1, 2}) {
		t.Errorf("values changed by rusage not copied again: %v", hc.vals.Num)
	}
}

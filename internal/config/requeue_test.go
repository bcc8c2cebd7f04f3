package config

import (
	"reflect"
	"testing"
)

func TestParseRequeueExitValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want RequeueExitValues
		err  string
	}{
		{in: "", want: RequeueExitValues{}},
		{in: "3", want: RequeueExitValues{Codes: []int{3}}},
		{in: " 1  2 ", want: RequeueExitValues{Codes: []int{1, 2}}},
		{in: "7 EXCLUDE(8 9)", want: RequeueExitValues{Codes: []int{7}, Exclude: []int{8, 9}}},
		{in: "exclude(4)5", want: RequeueExitValues{Codes: []int{5}, Exclude: []int{4}}},
		{in: "256", err: "bad exit value <256> (0-255)"},
		{in: "-1", err: "bad exit value <-1> (0-255)"},
		{in: "EXCLUDE(3", err: "EXCLUDE( without )"},
		{in: "EXCLUDE(x)", err: "bad exit value <x> (0-255)"},
	} {
		got, err := ParseRequeueExitValues(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseRequeueExitValues(f *testing.F) {
	for _, s := range []string{"3", "7 EXCLUDE(8 9)", "EXCLUDE(", "1 2 3", "exclude()"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRequeueExitValues(s)
		if err != nil {
			return
		}
		for _, c := range append(r.Codes, r.Exclude...) {
			if c < 0 || c > 255 {
				t.Fatalf("%q gave exit value %d", s, c)
			}
		}
	})
}

package job

import (
	"fmt"
	"testing"
)

func TestParseName(t *testing.T) {
	tests := []struct {
		in      string
		name    string
		indices string
		limit   int32
		err     string
	}{
		{"plain", "plain", "", 0, ""},
		{"", "", "", 0, ""},
		{"arr[1-5]", "arr", "[1 2 3 4 5]", 0, ""},
		{"arr[1-10:3]%2", "arr", "[1 4 7 10]", 2, ""},
		{"a[1,3,5-7]", "a", "[1 3 5 6 7]", 0, ""},
		{"a[5,1,5]", "a", "[1 5]", 0, ""},
		{"[1-3]", "", "[1 2 3]", 0, ""},
		{"a[1-1000]%50", "a", "", 50, ""},
		{"a[1-3", "", "", 0, "column 6: missing ] after the index list"},
		{"a[]", "", "", 0, "column 3: empty index list"},
		{"a[0-3]", "", "", 0, `column 3: bad index "0"`},
		{"a[3-1]", "", "", 0, "column 3: range 3-1 ends before it starts"},
		{"a[1-x]", "", "", 0, `column 5: bad index "x"`},
		{"a[2:2]", "", "", 0, "column 4: a step needs a range"},
		{"a[1-4]x", "", "", 0, "column 7: expected %limit after ]"},
		{"a[1-4]%0", "", "", 0, `column 8: bad job limit "0"`},
		{"a[1-1001]", "", "", 0, "column 3: index 1001 exceeds MAX_JOB_ARRAY_SIZE 1000"},
		{"bad]name", "", "", 0, `column 4: unexpected ']' in job name`},
	}
	for _, tc := range tests {
		ns, err := ParseName(tc.in, 1000)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if ns.Name != tc.name || ns.Limit != tc.limit || (tc.indices != "" && fmt.Sprint(ns.Indices) != tc.indices) {
			t.Errorf("%q: got %+v", tc.in, ns)
		}
	}
	if ns, _ := ParseName("a[1-1000]", 1000); len(ns.Indices) != 1000 || !ns.Array || ns.Spec != "1-1000" {
		t.Errorf("big array: %d elements, spec %q", len(ns.Indices), ns.Spec)
	}
	if _, err := ParseName("a[1-1001]", 1000); err.(*NameError).TooLarge != true {
		t.Error("too large not flagged")
	}
}

func FuzzParseName(f *testing.F) {
	for _, s := range []string{"a[1-10:2]%3", "x[1,2,3]", "plain", "a[", "a[1-99999999999]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, err := ParseName(s, 1000)
		if err != nil {
			return
		}
		if len(ns.Indices) > 1000 {
			t.Fatalf("%d indices", len(ns.Indices))
		}
		for i := 1; i < len(ns.Indices); i++ {
			if ns.Indices[i] <= ns.Indices[i-1] {
				t.Fatalf("indices not strictly ascending: %v", ns.Indices)
			}
		}
	})
}

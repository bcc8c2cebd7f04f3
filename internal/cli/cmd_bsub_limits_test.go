package cli

import "testing"

// TestParseSizeKB: limits in LSF_UNIT_FOR_LIMITS or with their own unit,
// and the values LSF refuses; a value too large to hold is refused, not
// wrapped into a negative number and dropped (-M 99999999999999999).
func TestParseSizeKB(t *testing.T) {
	for _, tc := range []struct {
		v, unit string
		want    int64
		err     string
	}{
		{v: "20", unit: "MB", want: 20 << 10},
		{v: "20", unit: "", want: 20},
		{v: "1.5G", unit: "MB", want: 3 << 19},
		{v: "2T", unit: "KB", want: 2 << 30},
		{v: "0", unit: "MB", err: "0: MEMLIMIT value should be a positive integer"},
		{v: "-5", unit: "MB", err: "-5: MEMLIMIT value should be a positive integer"},
		{v: "x", unit: "MB", err: "x: MEMLIMIT value should be a positive integer"},
		{v: "99999999999999999", unit: "MB", err: "99999999999999999: MEMLIMIT value is too large"},
		{v: "8E", unit: "MB", err: "8E: MEMLIMIT value is too large"},
		{v: "7E", unit: "MB", want: 7 << 50},
	} {
		got, err := parseSizeKB(tc.v, tc.unit, "MEMLIMIT")
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("parseSizeKB(%q, %q) = %d, %v; want error %q", tc.v, tc.unit, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseSizeKB(%q, %q) = %d, %v; want %d", tc.v, tc.unit, got, err, tc.want)
		}
	}
}

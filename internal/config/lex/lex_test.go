package lex

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// dump renders a lexed file compactly: one line per section and logical
// line, with positions.
func dump(f *File) string {
	var b strings.Builder
	for _, s := range f.Sections {
		fmt.Fprintf(&b, "[%s@%d]\n", s.Name, s.Pos.Line)
		for _, l := range s.Lines {
			fmt.Fprintf(&b, "%s %q\n", l.Pos, l.Text)
		}
	}
	return b.String()
}

func diagStrings(ds Diagnostics) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return strings.Join(out, "\n")
}

// Sunday 2024-01-07 10:00 UTC.
var sunday10 = time.Date(2024, 1, 7, 10, 0, 0, 0, time.UTC)

func TestParse(t *testing.T) {
	files := map[string]string{
		"/c/inc.queues":  "Begin Queue\nQUEUE_NAME = inc\nEnd Queue\n",
		"/c/sub/a":       "#INCLUDE \"b\"\n",
		"/c/sub/b":       "Begin X\nfrom_b\nEnd X\n",
		"/c/loop":        "#INCLUDE \"/c/loop\"\n",
		"/c/inc.badif":   "#if time(8-9)\n",
		"/c/inc.section": "A = 1\n",
	}
	readFile := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	all := Options{Includes: true, ReadFile: readFile, TimeBlocks: true, Now: sunday10}
	tests := []struct {
		name  string
		opts  Options
		src   string
		want  string
		diags string
	}{
		{
			name: "sections comments blanks",
			src:  "# header comment\n\nBegin Queue   # trailing\nQUEUE_NAME = normal # comment\n  PRIORITY=30\n\n#x\nEnd Queue\nbegin host\nHOST_NAME MXJ\nEND HOST\n",
			want: "[Queue@3]\n/f:4:1 \"QUEUE_NAME = normal\"\n/f:5:3 \"PRIORITY=30\"\n[host@9]\n/f:10:1 \"HOST_NAME MXJ\"\n",
		},
		{
			name: "continuation keeps positions",
			src:  "Begin Queue\nDESCRIPTION = For normal \\\n  low priority \\\njobs.\nEnd Queue\n",
			want: "[Queue@1]\n/f:2:1 \"DESCRIPTION = For normal   low priority jobs.\"\n",
		},
		{
			name: "hash inside a word or quotes is not a comment",
			src:  "Begin Queue\nPRE_EXEC = echo \"a # b\" c#d # real\nEnd Queue\n",
			want: "[Queue@1]\n/f:2:1 \"PRE_EXEC = echo \\\"a # b\\\" c#d\"\n",
		},
		{
			name:  "structure problems",
			src:   "stray\nBegin A\na\nBegin B\nb\nEnd C\nEnd D\nBegin\nx\nEnd\nBegin E extra\nEnd E\nBegin F\nf\n",
			want:  "[B@4]\nf:5:1 \"b\"\n[E@11]\n",
			diags: "f:1:1: warning: line outside any section; ignored\nf:2:1: warning: section A has no End before the Begin at line 4; section ignored\nf:6:1: warning: End C does not match Begin B at line 4\nf:7:1: warning: End D without Begin; ignored\nf:8:1: warning: Begin without a section name; section ignored\nf:11:9: warning: unexpected text \"extra\" after Begin E; ignored\nf:13:1: warning: section F has no End; section ignored",
		},
		{
			name: "include",
			opts: all,
			src:  "#INCLUDE \"/c/inc.queues\" # the queues\nBegin Queue\nQUEUE_NAME = local\nEnd Queue\n#include \"sub/a\"\n",
			want: "[Queue@1]\n/c/inc.queues:2:1 \"QUEUE_NAME = inc\"\n[Queue@2]\n/c/lsb.queues:3:1 \"QUEUE_NAME = local\"\n[X@1]\n/c/sub/b:2:1 \"from_b\"\n",
		},
		{
			name:  "include errors",
			opts:  all,
			src:   "#INCLUDE \"/c/missing\"\n#INCLUDE \"/c/loop\"\n#INCLUDE\n#INCLUDE \"x\" y\n#INCLUDE \"/c/inc.badif\"\n",
			diags: "/c/lsb.queues:1:1: error: #INCLUDE \"/c/missing\": file does not exist\n/c/loop:1:1: error: #INCLUDE \"/c/loop\": includes nested more than 8 deep\n/c/lsb.queues:4:10: error: bad #INCLUDE line: expected #INCLUDE \"path\"\n/c/inc.badif:1:1: error: #if without #endif",
		},
		{
			name:  "include only before sections",
			opts:  Options{Includes: true, IncludesFirst: true, ReadFile: readFile},
			src:   "#INCLUDE \"/c/inc.queues\"\nBegin Cluster\nEnd Cluster\n#INCLUDE \"/c/inc.queues\"\n",
			want:  "[Queue@1]\n/c/inc.queues:2:1 \"QUEUE_NAME = inc\"\n[Cluster@2]\n",
			diags: "/c/lsb.queues:4:1: error: #INCLUDE must come before any section in lsb.queues",
		},
		{
			name: "time blocks",
			opts: all,
			src: "Begin Parameters\n#if time(12-17)\nA = day\n#elif time(0:8:00-0:12:00)\nA = sunday morning\n#else\nA = night\n#endif\n" +
				"#if !time(12-17) && (time(0:0:0-0:23:59) || time(6:0:0-6:23:59))\nB = weekend\n#if time(10:30-11)\nC = nested\n#endif\n#endif\nEnd Parameters\n",
			want: "[Parameters@1]\n/c/lsb.queues:5:1 \"A = sunday morning\"\n/c/lsb.queues:10:1 \"B = weekend\"\n",
		},
		{
			name:  "time block errors",
			opts:  all,
			src:   "#else\n#endif\n#elif time(1-2)\n#if time(25-2)\n#endif\n#if time(1-2) junk\n#endif\n#if (time(1-2)\n#endif\n#if time(8-9)\n#else\n#else\n#endif\n#if\n#endif\n#if time(1-2\n#endif\n#if\ttime()\n#endif\n#if 2\n",
			diags: "/c/lsb.queues:1:1: error: #else without #if\n/c/lsb.queues:2:1: error: #endif without #if\n/c/lsb.queues:3:1: error: #elif without #if\n/c/lsb.queues:4:10: error: bad #if expression: bad time window <25-2>: begin time: hour 25 out of range 0-23\n/c/lsb.queues:6:15: error: bad #if expression: unexpected \"junk\"\n/c/lsb.queues:8:15: error: bad #if expression: missing ')'\n/c/lsb.queues:12:1: error: #else without #if\n/c/lsb.queues:15:1: error: #endif without #if\n/c/lsb.queues:16:10: error: bad #if expression: missing ')' after time(\n/c/lsb.queues:18:10: error: bad #if expression: empty time()",
		},
		{
			name:  "directives disabled",
			src:   "#INCLUDE \"x\"\n#if time(8-9)\n#else\n#endif\n#if you change this, restart\n#include-like comment\n#endif2\n",
			diags: "f:1:1: error: #INCLUDE is not supported in f\nf:2:1: error: #if time() blocks are not supported in f\nf:3:1: error: #else time() blocks are not supported in f\nf:4:1: error: #endif time() blocks are not supported in f",
		},
		{
			name: "crlf and no final newline",
			src:  "Begin A\r\nx = 1\r\nEnd A",
			want: "[A@1]\nf:2:1 \"x = 1\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "f"
			if tt.opts.ReadFile != nil {
				name = "/c/lsb.queues"
			}
			if tt.name == "sections comments blanks" || strings.HasPrefix(tt.name, "continuation") || strings.HasPrefix(tt.name, "hash") {
				name = "/f"
			}
			f, d := Parse(name, []byte(tt.src), tt.opts)
			if got := dump(f); got != tt.want {
				t.Errorf("sections:\n%s\nwant:\n%s", got, tt.want)
			}
			if got := diagStrings(d); got != tt.diags {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", got, tt.diags)
			}
		})
	}
}

func TestNextChange(t *testing.T) {
	src := "#if time(9-17)\n#elif time(0:12:00-0:12:30)\n#endif\n#if time(1-2)\n#endif\n"
	f, d := Parse("f", []byte(src), Options{TimeBlocks: true, Now: sunday10})
	if len(d) != 0 {
		t.Fatal(d)
	}
	if len(f.Windows) != 3 {
		t.Fatalf("windows = %d", len(f.Windows))
	}
	want := time.Date(2024, 1, 7, 12, 0, 0, 0, time.UTC)
	if got := f.NextChange(sunday10); !got.Equal(want) {
		t.Errorf("NextChange = %s, want %s", got, want)
	}
	empty, _ := Parse("f", []byte("Begin A\nEnd A\n"), Options{})
	if !empty.NextChange(sunday10).IsZero() {
		t.Error("file without time blocks must not change")
	}
}

func TestFields(t *testing.T) {
	tests := []struct {
		in    string
		want  []string
		diags string
	}{
		{"a  b\tc", []string{"a", "b", "c"}, ""},
		{"hostA (fs cs) () - (5:19:00-1:8:30 20:00-8:30)", []string{"hostA", "(fs cs)", "()", "-", "(5:19:00-1:8:30 20:00-8:30)"}, ""},
		{"nio ([hostA hostB] [others]) 2@[all ~h3] [all]", []string{"nio", "([hostA hostB] [others])", "2@[all ~h3]", "[all]"}, ""},
		{`x "a b" (c "d)" e)`, []string{"x", `"a b"`, `(c "d)" e)`}, ""},
		{"(a b", []string{"(a b"}, "f:1:1: warning: missing ')'"},
		{"a) b", []string{"a)", "b"}, "f:1:2: warning: unbalanced ')'"},
		{`"open`, []string{`"open`}, "f:1:1: warning: unterminated quoted string"},
		{"(a]", []string{"(a]"}, "f:1:3: warning: unbalanced ']'\nf:1:1: warning: missing ')'"},
	}
	for _, tt := range tests {
		var d Diagnostics
		toks := Fields(tt.in, func(off int) Pos { return Pos{File: "f", Line: 1, Col: off + 1} }, &d)
		var got []string
		for _, tk := range toks {
			got = append(got, tk.Text)
			if tt.in[tk.Pos.Col-1:][:len(tk.Text)] != tk.Text {
				t.Errorf("%q: token %q at wrong column %d", tt.in, tk.Text, tk.Pos.Col)
			}
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Fields(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if diagStrings(d) != tt.diags {
			t.Errorf("Fields(%q) diags = %q, want %q", tt.in, diagStrings(d), tt.diags)
		}
	}
}

func TestTokenHelpers(t *testing.T) {
	tok := Token{Pos: Pos{File: "f", Line: 3, Col: 10}, Text: "( fs  [a b] )"}
	in := tok.Inner()
	if in.Text != "fs  [a b]" || in.Pos.Col != 12 {
		t.Errorf("Inner = %+v", in)
	}
	words := tok.Words(nil)
	if len(words) != 2 || words[0].Text != "fs" || words[1].Text != "[a b]" || words[1].Pos.Col != 16 {
		t.Errorf("Words = %+v", words)
	}
	for text, def := range map[string]bool{"()": true, "( )": true, "-": true, "(x)": false, "--": false, "": false} {
		if (Token{Text: text}).IsDefault() != def {
			t.Errorf("IsDefault(%q) != %v", text, def)
		}
	}
	if (Token{Text: `"a b"`}).Inner().Text != "a b" || (Token{Text: "x"}).Inner().Text != "x" {
		t.Error("Inner of quoted/plain token")
	}
}

func TestKeyValues(t *testing.T) {
	src := "Begin Queue\nQUEUE_NAME=normal\nRES_REQ = select[mem>10] rusage[mem=100]\nEMPTY =\nno equals here\n = x\nBAD KEY = 1\nEnd Queue\n"
	f, d := Parse("q", []byte(src), Options{})
	if len(d) != 0 {
		t.Fatal(d)
	}
	kvs := f.Sections[0].KeyValues(&d)
	var got []string
	for _, kv := range kvs {
		got = append(got, fmt.Sprintf("%s@%d:%d=%q@%d", kv.Key, kv.KeyPos.Line, kv.KeyPos.Col, kv.Value, kv.ValuePos.Col))
	}
	want := []string{`QUEUE_NAME@2:1="normal"@12`, `RES_REQ@3:1="select[mem>10] rusage[mem=100]"@11`, `EMPTY@4:1=""@8`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("KeyValues = %v\nwant %v", got, want)
	}
	wantDiags := "q:5:1: warning: section Queue: expected KEY = value, found \"no equals here\"; line ignored\nq:6:2: warning: section Queue: bad keyword \"\"; line ignored\nq:7:1: warning: section Queue: bad keyword \"BAD KEY\"; line ignored"
	if diagStrings(d) != wantDiags {
		t.Errorf("diags:\n%s\nwant:\n%s", diagStrings(d), wantDiags)
	}
	if !f.Sections[0].Horizontal() {
		t.Error("Queue section should be horizontal")
	}
}

func TestTable(t *testing.T) {
	src := "Begin Host\nHOST_NAME MXJ JL/U r1m mxj\nhostA 1 - 0.6/1.6 x\nhostB ! () ()\ndefault ! () () ()\nEnd Host\nBegin Empty\nEnd Empty\n"
	f, d := Parse("h", []byte(src), Options{})
	tab := f.Sections[0].Table(&d)
	if f.Sections[0].Horizontal() {
		t.Error("Host section should be vertical")
	}
	if len(tab.Columns) != 5 || len(tab.Rows) != 2 {
		t.Fatalf("table = %d columns, %d rows", len(tab.Columns), len(tab.Rows))
	}
	if tab.Col("jl/u") != 2 || tab.Col("MXJ") != 1 || tab.Col("nope") != -1 {
		t.Error("Col lookup")
	}
	if v, ok := tab.Rows[0].Get(3); !ok || v.Text != "0.6/1.6" || v.Pos.Col != 11 {
		t.Errorf("Get = %+v %v", v, ok)
	}
	if _, ok := tab.Rows[0].Get(2); ok {
		t.Error("'-' must read as default")
	}
	if _, ok := tab.Rows[1].Get(-1); ok {
		t.Error("missing column must read as default")
	}
	want := "h:2:24: warning: section Host: column mxj appears twice; the first one is used\nh:4:1: warning: section Host: values do not match keys (4 values for 5 columns); line ignored"
	if diagStrings(d) != want {
		t.Errorf("diags:\n%s\nwant:\n%s", diagStrings(d), want)
	}
	if e := f.Sections[1].Table(&d); len(e.Columns) != 0 || f.Sections[1].Horizontal() {
		t.Error("empty section")
	}
}

func TestDiagnostics(t *testing.T) {
	var d Diagnostics
	d.Warnf(Pos{File: "b", Line: 2, Col: 1}, "w1")
	d.Errorf(Pos{File: "a", Line: 9}, "e1 %d", 1)
	d.Errorf(Pos{File: "a", Line: 3, Col: 4}, "e2")
	if !d.HasErrors() || d.Count(Error) != 2 || d.Count(Warning) != 1 {
		t.Fatal("counts")
	}
	if got := d.Err().Error(); got != "a:9: error: e1 1 (and 1 more error)" {
		t.Errorf("Err = %q", got)
	}
	d.Sort()
	if d.String() != "a:3:4: error: e2\na:9: error: e1 1\nb:2:1: warning: w1\n" {
		t.Errorf("sorted:\n%s", d)
	}
	if (Diagnostics{{Severity: Warning, Msg: "x"}}).Err() != nil {
		t.Error("warnings only must not be an error")
	}
	if (Pos{File: "f"}).String() != "f" || (Diagnostic{Msg: "m"}).String() != "warning: m" {
		t.Error("rendering of positionless diagnostics")
	}
	three := Diagnostics{{Severity: Error, Msg: "a"}, {Severity: Error, Msg: "b"}, {Severity: Error, Msg: "c"}}
	if three.Err().Error() != "error: a (and 2 more errors)" {
		t.Errorf("Err = %q", three.Err())
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"Begin Queue\nQUEUE_NAME = normal\nDESCRIPTION = a \\\nb\nEnd Queue\n",
		"Begin Host\nHOST_NAME MXJ\nhostA (a b [c d])\nEnd Host\n",
		"#if time(8-9) && !(time(1:0:0-2:0:0) || time(3-4))\nx\n#elif time(9-10)\n#else\n#endif\n",
		"#INCLUDE \"self\"\n#INCLUDE \"other\"\nBegin\nEnd\n",
		"Begin A\n\"unterminated (\nEnd A\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	readFile := func(p string) ([]byte, error) {
		if strings.HasSuffix(p, "self") {
			return []byte("#INCLUDE \"self\"\nBegin S\nx\nEnd S\n"), nil
		}
		return nil, fs.ErrNotExist
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, d := Parse("f", []byte(src), Options{Includes: true, ReadFile: readFile, TimeBlocks: true, Now: sunday10})
		_ = file.NextChange(sunday10)
		for _, s := range file.Sections {
			if s.Name == "" {
				t.Fatal("section without name")
			}
			_ = s.KeyValues(&d)
			tab := s.Table(&d)
			for _, r := range tab.Rows {
				if len(r.Fields) != len(tab.Columns) {
					t.Fatal("row width")
				}
				for _, fl := range r.Fields {
					_ = fl.Words(&d)
				}
			}
			for _, l := range s.Lines {
				if l.Text == "" || l.Text != strings.TrimSpace(l.Text) {
					t.Fatalf("untrimmed or empty line %q", l.Text)
				}
				_ = l.PosAt(len(l.Text))
			}
		}
		for _, x := range d {
			if x.Msg == "" {
				t.Fatal("empty diagnostic")
			}
		}
	})
}

// BenchmarkParse lexes a 100-queue lsb.queues and reads every section.
func BenchmarkParse(b *testing.B) {
	var src strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&src, "Begin Queue\nQUEUE_NAME = q%d # comment\nPRIORITY = %d\nRES_REQ = select[mem>100] rusage[mem=10]\nDESCRIPTION = a long \\\n description\nEnd Queue\n\n", i, i)
	}
	data := []byte(src.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f, d := Parse("lsb.queues", data, Options{})
		for _, s := range f.Sections {
			_ = s.KeyValues(&d)
		}
		if len(f.Sections) != 100 || len(d) != 0 {
			b.Fatal("bad parse")
		}
	}
}

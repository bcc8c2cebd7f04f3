package lsfconf

import (
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/internal/config/lex"
)

func diagText(d lex.Diagnostics) string { return strings.TrimSuffix(d.String(), "\n") }

func TestParse(t *testing.T) {
	src := `# lsf.conf
LSF_CONFDIR=/opt/lsf/conf
LSF_MASTER_LIST="hostA hostB"   # candidates
LSF_LOG_MASK='LOG_DEBUG'
EMPTY=
  INDENTED=yes
QUOTED="a \"b\" \$c"
LSB_MAILTO=!U@example.com
SITE_PARAM=42
LSF_CONFDIR=/opt/lsf/conf2
bad line
NAME = spaced
NAME2= spaced
NAME3 =x
A=b c
OPEN="unterminated
1BAD=x
`
	c, d := Parse("/e/lsf.conf", []byte(src))
	want := []struct{ name, value string }{
		{"LSF_CONFDIR", "/opt/lsf/conf2"},
		{"LSF_MASTER_LIST", "hostA hostB"},
		{"LSF_LOG_MASK", "LOG_DEBUG"},
		{"EMPTY", ""},
		{"INDENTED", "yes"},
		{"QUOTED", `a "b" $c`},
		{"LSB_MAILTO", "!U@example.com"},
		{"SITE_PARAM", "42"},
	}
	params := c.Params()
	if len(params) != len(want) {
		t.Fatalf("params = %+v", params)
	}
	for i, w := range want {
		if params[i].Name != w.name || params[i].Value != w.value {
			t.Errorf("param %d = %s=%q, want %s=%q", i, params[i].Name, params[i].Value, w.name, w.value)
		}
	}
	if p := c.Pos("LSF_CONFDIR"); p.Line != 10 || p.Col != 1 {
		t.Errorf("Pos(LSF_CONFDIR) = %v", p)
	}
	if p := c.Pos("INDENTED"); p.Line != 6 || p.Col != 3 {
		t.Errorf("Pos(INDENTED) = %v", p)
	}
	wantDiags := `/e/lsf.conf:10:1: warning: LSF_CONFDIR is defined more than once; the last value </opt/lsf/conf2> is used
/e/lsf.conf:11:4: warning: expected '=' after bad; line ignored
/e/lsf.conf:12:5: warning: blank before '=' in the definition of NAME; line ignored
/e/lsf.conf:13:7: warning: blank after '=' in the definition of NAME2; line ignored
/e/lsf.conf:14:6: warning: blank before '=' in the definition of NAME3; line ignored
/e/lsf.conf:15:5: warning: unexpected text "c" after the value of A (quote values with blanks); line ignored
/e/lsf.conf:16:6: warning: unterminated " quote in the value of OPEN; line ignored
/e/lsf.conf:17:1: warning: expected NAME=VALUE, found "1BAD=x"; line ignored`
	if got := diagText(d); got != wantDiags {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, wantDiags)
	}
	if got := strings.Join(c.Names(), " "); got != "EMPTY INDENTED LSB_MAILTO LSF_CONFDIR LSF_LOG_MASK LSF_MASTER_LIST QUOTED SITE_PARAM" {
		t.Errorf("Names = %s", got)
	}
	if _, ok := c.Lookup("EMPTY"); !ok {
		t.Error("EMPTY= must be defined")
	}
	if _, ok := c.Lookup("NAME"); ok {
		t.Error("an ignored line must not define its name")
	}
	// A definition repeated with the same value is not worth a warning.
	if _, d := Parse("f", []byte("A=1\nA=1\n")); len(d) != 0 {
		t.Errorf("repeated identical definition: %v", d)
	}
}

func TestTypedDefaults(t *testing.T) {
	c := New("lsf.conf", Param{Name: "LSF_CONFDIR", Value: "/c"})
	checks := []struct {
		name      string
		got, want any
	}{
		{"LSBConfDir", c.LSBConfDir(), "/c/lsbatch"},
		{"ShareDir", c.ShareDir(), ""},
		{"LogMask", c.LogMask(), "LOG_WARNING"},
		{"LIMPort", c.LIMPort(), 6879},
		{"RESPort", c.RESPort(), 6878},
		{"MBDPort", c.MBDPort(), 6881},
		{"SBDPort", c.SBDPort(), 6882},
		{"StrictResReq", c.StrictResReq(), false},
		{"UnitForLimits", c.UnitForLimits(), "KB"},
		{"MailTo", c.MailTo(), "!U"},
		{"ELIMBlockTime", c.ELIMBlockTime(), -1},
		{"ELIMRestarts", c.ELIMRestarts(), -1},
		{"JobCPULimit", c.JobCPULimit(), Undefined},
		{"JobMemLimit", c.JobMemLimit(), false},
		{"MasterList", len(c.MasterList()), 0},
		{"StripDomain", c.StripDomain("host.example.com"), "host.example.com"},
		{"Auth", c.Auth(), ""},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestTypedValues(t *testing.T) {
	src := `LSF_CONFDIR=/opt/lsf/conf
LSB_CONFDIR=/opt/lsf/conf/batch
LSB_SHAREDIR=/opt/lsf/work
LSF_SERVERDIR=/opt/lsf/sbin
LSF_LOGDIR=/opt/lsf/log
LSF_LOG_MASK=LOG_DEBUG
LSF_MASTER_LIST="hostA hostB"
LSF_SERVER_HOSTS="hostC  hostD"
LSF_LIM_PORT=7869
LSF_RES_PORT=7878
LSB_MBD_PORT=7881
LSB_SBD_PORT=7882
LSF_STRICT_RESREQ=Y
LSF_AUTH=eauth
LSF_UNIT_FOR_LIMITS=gb
LSB_LOCALDIR=/var/lsf
LSF_STRIP_DOMAIN=.foo.com:.bar.com
LSF_ELIM_DEBUG=y
LSF_ELIM_RESTARTS=5
LSB_JOB_CPULIMIT=n
LSB_JOB_MEMLIMIT=y
LSB_MEMLIMIT_ENFORCE=Y
LSB_MAILTO=!U@!H
LSF_JOB_STARTER=/bin/starter
LSB_ESUB_METHOD="a b"
`
	c, d := Parse("lsf.conf", []byte(src))
	if len(d) != 0 {
		t.Fatal(d)
	}
	if v := c.Validate(); len(v) != 0 {
		t.Fatalf("Validate: %v", v)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"ConfDir", c.ConfDir(), "/opt/lsf/conf"},
		{"LSBConfDir", c.LSBConfDir(), "/opt/lsf/conf/batch"},
		{"ShareDir", c.ShareDir(), "/opt/lsf/work"},
		{"ServerDir", c.ServerDir(), "/opt/lsf/sbin"},
		{"LogDir", c.LogDir(), "/opt/lsf/log"},
		{"LogMask", c.LogMask(), "LOG_DEBUG"},
		{"MasterList", strings.Join(c.MasterList(), ","), "hostA,hostB"},
		{"ServerHosts", strings.Join(c.ServerHosts(), ","), "hostC,hostD"},
		{"LIMPort", c.LIMPort(), 7869},
		{"RESPort", c.RESPort(), 7878},
		{"MBDPort", c.MBDPort(), 7881},
		{"SBDPort", c.SBDPort(), 7882},
		{"StrictResReq", c.StrictResReq(), true},
		{"Auth", c.Auth(), "eauth"},
		{"UnitForLimits", c.UnitForLimits(), "GB"},
		{"LocalDir", c.LocalDir(), "/var/lsf"},
		{"StripDomains", strings.Join(c.StripDomains(), ","), ".foo.com,.bar.com"},
		{"StripDomain", c.StripDomain("hostA.BAR.com"), "hostA"},
		{"StripDomain other", c.StripDomain("hostA.baz.com"), "hostA.baz.com"},
		{"ELIMDebug", c.ELIMDebug(), true},
		{"ELIMBlockTime", c.ELIMBlockTime(), 2},
		{"ELIMRestarts", c.ELIMRestarts(), 5},
		{"JobCPULimit", c.JobCPULimit(), No},
		{"JobMemLimit", c.JobMemLimit(), true},
		{"MemLimitEnforce", c.MemLimitEnforce(), true},
		{"MailTo", c.MailTo(), "!U@!H"},
		{"JobStarter", c.JobStarter(), "/bin/starter"},
		{"ESubMethod", strings.Join(c.ESubMethod(), ","), "a,b"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestValidate(t *testing.T) {
	src := `LSF_LIM_PORT=abc
LSF_RES_PORT=70000
LSB_MBD_PORT=6000
LSB_SBD_PORT=6000
LSF_STRICT_RESREQ=maybe
LSF_UNIT_FOR_LIMITS=XB
LSF_STRIP_DOMAIN=foo.com
LSF_AUTH=kerberos
LSF_ELIM_RESTARTS=3
LSF_ELIM_BLOCKTIME=-2
LSF_LOGDIR=relative/log
`
	c, d := Parse("lsf.conf", []byte(src))
	if len(d) != 0 {
		t.Fatal(d)
	}
	want := `lsf.conf: error: LSF_CONFDIR is missing or has a syntax error in lsf.conf file
lsf.conf:1:1: warning: LSF_LIM_PORT=abc is not an integer; ignored
lsf.conf:2:1: warning: LSF_RES_PORT=70000 is not a valid port number; ignored
lsf.conf:10:1: warning: LSF_ELIM_BLOCKTIME=-2 must not be negative; ignored
lsf.conf:4:1: warning: LSB_MBD_PORT and LSB_SBD_PORT are both 6000
lsf.conf:5:1: warning: LSF_STRICT_RESREQ=maybe must be y or n; ignored
lsf.conf:6:1: warning: LSF_UNIT_FOR_LIMITS=XB is not one of KB, MB, GB, TB, PB, EB; KB is used
lsf.conf:7:1: warning: LSF_STRIP_DOMAIN: domain <foo.com> must start with '.'
lsf.conf:8:1: warning: LSF_AUTH=kerberos is not eauth, setuid or ident
lsf.conf:11:1: warning: LSF_LOGDIR=relative/log is not an absolute path`
	if got := diagText(c.Validate()); got != want {
		t.Errorf("Validate:\n%s\nwant:\n%s", got, want)
	}
	if c.LIMPort() != DefaultLIMPort || c.StrictResReq() || c.UnitForLimits() != "KB" {
		t.Error("bad values must fall back to defaults")
	}
	// LSF_ELIM_RESTARTS alone has no effect.
	c2 := New("f", Param{Name: "LSF_CONFDIR", Value: "/c"}, Param{Name: "LSF_ELIM_RESTARTS", Value: "3"})
	if c2.ELIMRestarts() != -1 || !strings.Contains(diagText(c2.Validate()), "has no effect") {
		t.Error("LSF_ELIM_RESTARTS without debug or blocktime")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("LSF_CONFDIR=/c\nA=\"x y\" # c\nB='z'\n# comment\nC=1 2\n")
	f.Add("X=\"\\\"\\\\\"\nY=\"open\n")
	f.Fuzz(func(t *testing.T, src string) {
		c, d := Parse("f", []byte(src))
		_ = c.Validate()
		for _, p := range c.Params() {
			if p.Name == "" || p.Pos.Line < 1 {
				t.Fatalf("bad param %+v", p)
			}
			if v, ok := c.Lookup(p.Name); !ok || v != p.Value {
				t.Fatalf("lookup %s", p.Name)
			}
		}
		for _, x := range d {
			if x.Pos.Line < 1 || x.Msg == "" {
				t.Fatalf("bad diagnostic %+v", x)
			}
		}
		_ = c.UnitForLimits()
		_ = c.StripDomain("a.b.c")
	})
}

func TestMasterReplicas(t *testing.T) {
	for _, tc := range []struct {
		list, replicas string
		want           string
		warn           string
	}{
		{list: "", want: ""},
		{list: "h1", want: "h1"},
		{list: "h1 h2", want: "h1"},
		{list: "h1 h2 h3", want: "h1 h2 h3"},
		{list: "h1 h2 h3 h4", want: "h1 h2 h3"},
		{list: "h1 h2 h3 h4 h5 h6", want: "h1 h2 h3 h4 h5"},
		{list: "h1 h2 h3 h4 h5", replicas: "3", want: "h1 h2 h3"},
		{list: "h1 h2 h3", replicas: "1", want: "h1"},
		{list: "h1 h2 h3", replicas: "2", want: "h1 h2 h3",
			warn: "lsf.conf:2:1: warning: BASALT_MASTER_REPLICAS=2 must be 1, 3 or 5 and at most the 3 hosts of LSF_MASTER_LIST; 3 is used"},
		{list: "h1 h2", replicas: "3", want: "h1",
			warn: "lsf.conf:2:1: warning: BASALT_MASTER_REPLICAS=3 must be 1, 3 or 5 and at most the 2 hosts of LSF_MASTER_LIST; 1 is used"},
		{list: "h1 h2 h3", replicas: "x", want: "h1 h2 h3",
			warn: "lsf.conf:2:1: warning: BASALT_MASTER_REPLICAS=x must be 1, 3 or 5 and at most the 3 hosts of LSF_MASTER_LIST; 3 is used"},
	} {
		src := "LSF_CONFDIR=/c\n"
		if tc.replicas != "" {
			src += "BASALT_MASTER_REPLICAS=" + tc.replicas + "\n"
		}
		src += "LSF_MASTER_LIST=\"" + tc.list + "\"\n"
		c, _ := Parse("lsf.conf", []byte(src))
		if got := strings.Join(c.MasterReplicas(), " "); got != tc.want {
			t.Errorf("%q, %q: replicas %q, want %q", tc.list, tc.replicas, got, tc.want)
		}
		if got := c.Replicated(); got != strings.Contains(tc.want, " ") {
			t.Errorf("%q, %q: Replicated %v", tc.list, tc.replicas, got)
		}
		if got := diagText(c.Validate()); got != tc.warn {
			t.Errorf("%q, %q: diagnostics %q, want %q", tc.list, tc.replicas, got, tc.warn)
		}
	}
}

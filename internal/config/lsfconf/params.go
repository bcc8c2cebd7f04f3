package lsfconf

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/lex"
)

// Default port numbers (lsf.conf(5), Linux).
const (
	DefaultLIMPort = 6879
	DefaultRESPort = 6878
	DefaultMBDPort = 6881
	DefaultSBDPort = 6882
)

// ConfDir is LSF_CONFDIR, the directory of lsf.shared and lsf.cluster.<name>.
func (c *Conf) ConfDir() string { return c.Get("LSF_CONFDIR") }

// LSBConfDir is LSB_CONFDIR (default LSF_CONFDIR/lsbatch): the batch files
// are in LSB_CONFDIR/<cluster>/configdir.
func (c *Conf) LSBConfDir() string {
	if v := c.Get("LSB_CONFDIR"); v != "" {
		return v
	}
	if d := c.ConfDir(); d != "" {
		return filepath.Join(d, "lsbatch")
	}
	return ""
}

// ShareDir is LSB_SHAREDIR (default LSF_INDEP/work): lsb.events and lsb.acct
// are in LSB_SHAREDIR/<cluster>/logdir.
func (c *Conf) ShareDir() string {
	if v := c.Get("LSB_SHAREDIR"); v != "" {
		return v
	}
	if d := c.Get("LSF_INDEP"); d != "" {
		return filepath.Join(d, "work")
	}
	return ""
}

// ServerDir is LSF_SERVERDIR: daemons and site executables (elim, egroup,
// esub, eexec, eauth).
func (c *Conf) ServerDir() string { return c.Get("LSF_SERVERDIR") }

// LogDir is LSF_LOGDIR; "" means daemons log to syslog.
func (c *Conf) LogDir() string { return c.Get("LSF_LOGDIR") }

// LogMask is LSF_LOG_MASK (default LOG_WARNING).
func (c *Conf) LogMask() string { return c.getDefault("LSF_LOG_MASK", "LOG_WARNING") }

// MasterList is LSF_MASTER_LIST: the master candidates, in order.
func (c *Conf) MasterList() []string { return c.List("LSF_MASTER_LIST") }

// MasterReplicas is the hosts that run an mbatchd replica each: the first
// N hosts of LSF_MASTER_LIST, N being BASALT_MASTER_REPLICAS (1, 3 or 5,
// at most the number of candidates) or, by default, the largest of 1, 3
// and 5 that the list holds. One host means a single raft node: the log
// lives in LSB_SHAREDIR and the batch master moves between the candidates
// over it, as LSF's does; more replicate the master's log between the
// replicas' own disks.
func (c *Conf) MasterReplicas() []string {
	list := c.MasterList()
	if len(list) == 0 {
		return nil
	}
	n := defaultReplicas(len(list))
	if v, ok := c.Lookup("BASALT_MASTER_REPLICAS"); ok && v != "" {
		if m, err := strconv.Atoi(v); err == nil && validReplicas(m, len(list)) {
			n = m
		}
	}
	return list[:n]
}

// Replicated reports whether the master's log is replicated between
// several mbatchd replicas (MasterReplicas holds more than one host).
func (c *Conf) Replicated() bool { return len(c.MasterReplicas()) > 1 }

func defaultReplicas(candidates int) int {
	switch {
	case candidates >= 5:
		return 5
	case candidates >= 3:
		return 3
	}
	return 1
}

func validReplicas(n, candidates int) bool {
	return (n == 1 || n == 3 || n == 5) && n <= candidates
}

// ServerHosts is LSF_SERVER_HOSTS, for client hosts without a LIM.
func (c *Conf) ServerHosts() []string { return c.List("LSF_SERVER_HOSTS") }

// LIMPort is LSF_LIM_PORT (default 6879).
func (c *Conf) LIMPort() int { return c.Int("LSF_LIM_PORT", DefaultLIMPort) }

// RESPort is LSF_RES_PORT (default 6878).
func (c *Conf) RESPort() int { return c.Int("LSF_RES_PORT", DefaultRESPort) }

// MBDPort is LSB_MBD_PORT (default 6881).
func (c *Conf) MBDPort() int { return c.Int("LSB_MBD_PORT", DefaultMBDPort) }

// SBDPort is LSB_SBD_PORT (default 6882).
func (c *Conf) SBDPort() int { return c.Int("LSB_SBD_PORT", DefaultSBDPort) }

// StrictResReq is LSF_STRICT_RESREQ=Y (default N).
func (c *Conf) StrictResReq() bool { return c.Bool("LSF_STRICT_RESREQ", false) }

// Auth is LSF_AUTH: "eauth", "setuid" (or "ident"); "" when undefined.
func (c *Conf) Auth() string { return c.Get("LSF_AUTH") }

// UnitForLimits is LSF_UNIT_FOR_LIMITS normalised to KB, MB, GB, TB, PB
// or EB; KB when undefined (LSF's default for limits).
func (c *Conf) UnitForLimits() string {
	if u, ok := normUnit(c.Get("LSF_UNIT_FOR_LIMITS")); ok {
		return u
	}
	return "KB"
}

func normUnit(v string) (string, bool) {
	switch strings.ToUpper(v) {
	case "K", "KB":
		return "KB", true
	case "M", "MB":
		return "MB", true
	case "G", "GB":
		return "GB", true
	case "T", "TB":
		return "TB", true
	case "P", "PB":
		return "PB", true
	case "E", "EB":
		return "EB", true
	}
	return "", false
}

// LocalDir is LSB_LOCALDIR ("" when undefined).
func (c *Conf) LocalDir() string { return c.Get("LSB_LOCALDIR") }

// StripDomains is LSF_STRIP_DOMAIN split at ':' (each with its leading dot).
func (c *Conf) StripDomains() []string {
	var out []string
	for _, d := range strings.Split(c.Get("LSF_STRIP_DOMAIN"), ":") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// StripDomain removes the first LSF_STRIP_DOMAIN suffix that name ends with.
func (c *Conf) StripDomain(name string) string {
	for _, d := range c.StripDomains() {
		if len(name) > len(d) && strings.HasSuffix(strings.ToLower(name), strings.ToLower(d)) {
			return name[:len(name)-len(d)]
		}
	}
	return name
}

// ELIMDebug is LSF_ELIM_DEBUG=y.
func (c *Conf) ELIMDebug() bool { return c.Bool("LSF_ELIM_DEBUG", false) }

// ELIMBlockTime is LSF_ELIM_BLOCKTIME in seconds: how long LIM waits for a
// complete load update line. -1 means forever (undefined), except that with
// LSF_ELIM_DEBUG=y the default is 2 seconds.
func (c *Conf) ELIMBlockTime() int {
	def := -1
	if c.ELIMDebug() {
		def = 2
	}
	return c.Int("LSF_ELIM_BLOCKTIME", def)
}

// ELIMRestarts is LSF_ELIM_RESTARTS, the cap on ELIM restarts; -1 is no
// cap. It takes effect only with LSF_ELIM_DEBUG or LSF_ELIM_BLOCKTIME.
func (c *Conf) ELIMRestarts() int {
	if _, ok := c.Lookup("LSF_ELIM_BLOCKTIME"); !ok && !c.ELIMDebug() {
		return -1
	}
	return c.Int("LSF_ELIM_RESTARTS", -1)
}

// Tristate is a y/n parameter that may be undefined.
type Tristate int

const (
	Undefined Tristate = iota
	Yes
	No
)

func (c *Conf) tristate(name string) Tristate {
	b, ok := parseBool(c.Get(name))
	switch {
	case !ok:
		return Undefined
	case b:
		return Yes
	default:
		return No
	}
}

// JobCPULimit is LSB_JOB_CPULIMIT: Yes = LSF enforces the per-job CPU limit
// only, No = the OS per-process limit only, Undefined = both.
func (c *Conf) JobCPULimit() Tristate { return c.tristate("LSB_JOB_CPULIMIT") }

// JobMemLimit is LSB_JOB_MEMLIMIT=y: LSF enforces the per-job memory limit
// (and the OS per-process limit is not set).
func (c *Conf) JobMemLimit() bool { return c.Bool("LSB_JOB_MEMLIMIT", false) }

// MemLimitEnforce is LSB_MEMLIMIT_ENFORCE=y: LSF enforces the per-job memory
// limit and the OS limit is kept.
func (c *Conf) MemLimitEnforce() bool { return c.Bool("LSB_MEMLIMIT_ENFORCE", false) }

// MailTo is LSB_MAILTO (default "!U": the job's user; !H is the submission
// host).
func (c *Conf) MailTo() string { return c.getDefault("LSB_MAILTO", "!U") }

// JobStarter is LSF_JOB_STARTER, the job starter of interactive remote
// tasks ("" when undefined).
func (c *Conf) JobStarter() string { return c.Get("LSF_JOB_STARTER") }

// ESubMethod is LSB_ESUB_METHOD: the esub.<name> programs run besides esub.
func (c *Conf) ESubMethod() []string { return c.List("LSB_ESUB_METHOD") }

var (
	intParams = []string{"LSF_LIM_PORT", "LSF_RES_PORT", "LSB_MBD_PORT", "LSB_SBD_PORT",
		"LSF_ELIM_BLOCKTIME", "LSF_ELIM_RESTARTS"}
	boolParams = []string{"LSF_STRICT_RESREQ", "LSF_ELIM_DEBUG", "LSB_JOB_CPULIMIT",
		"LSB_JOB_MEMLIMIT", "LSB_MEMLIMIT_ENFORCE"}
	portParams = map[string]bool{"LSF_LIM_PORT": true, "LSF_RES_PORT": true, "LSB_MBD_PORT": true, "LSB_SBD_PORT": true}
)

// Validate checks the values of the known parameters. Bad values are
// warnings (the default is used instead), except a missing LSF_CONFDIR,
// without which nothing else can be found.
func (c *Conf) Validate() lex.Diagnostics {
	var d lex.Diagnostics
	if c.ConfDir() == "" {
		d.Errorf(c.Pos("LSF_CONFDIR"), "LSF_CONFDIR is missing or has a syntax error in lsf.conf file")
	}
	for _, name := range intParams {
		v, ok := c.Lookup(name)
		if !ok || v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			d.Warnf(c.Pos(name), "%s=%s is not an integer; ignored", name, v)
		case portParams[name] && (n <= 0 || n > 65535):
			d.Warnf(c.Pos(name), "%s=%s is not a valid port number; ignored", name, v)
		case !portParams[name] && n < 0:
			d.Warnf(c.Pos(name), "%s=%s must not be negative; ignored", name, v)
		}
	}
	ports := map[int]string{}
	for _, name := range []string{"LSF_LIM_PORT", "LSF_RES_PORT", "LSB_MBD_PORT", "LSB_SBD_PORT"} {
		if _, ok := c.Lookup(name); !ok {
			continue
		}
		p := c.Int(name, 0)
		if other, dup := ports[p]; dup && p > 0 {
			d.Warnf(c.Pos(name), "%s and %s are both %d", other, name, p)
		}
		ports[p] = name
	}
	for _, name := range boolParams {
		if v, ok := c.Lookup(name); ok && v != "" {
			if _, ok := parseBool(v); !ok {
				d.Warnf(c.Pos(name), "%s=%s must be y or n; ignored", name, v)
			}
		}
	}
	if v, ok := c.Lookup("LSF_UNIT_FOR_LIMITS"); ok {
		if _, ok := normUnit(v); !ok {
			d.Warnf(c.Pos("LSF_UNIT_FOR_LIMITS"), "LSF_UNIT_FOR_LIMITS=%s is not one of KB, MB, GB, TB, PB, EB; KB is used", v)
		}
	}
	if v, ok := c.Lookup("BASALT_MASTER_REPLICAS"); ok && v != "" {
		if n, err := strconv.Atoi(v); err != nil || !validReplicas(n, len(c.MasterList())) {
			d.Warnf(c.Pos("BASALT_MASTER_REPLICAS"), "BASALT_MASTER_REPLICAS=%s must be 1, 3 or 5 and at most the %d hosts of LSF_MASTER_LIST; %d is used",
				v, len(c.MasterList()), defaultReplicas(len(c.MasterList())))
		}
	}
	for _, dom := range c.StripDomains() {
		if !strings.HasPrefix(dom, ".") {
			d.Warnf(c.Pos("LSF_STRIP_DOMAIN"), "LSF_STRIP_DOMAIN: domain <%s> must start with '.'", dom)
		}
	}
	if v, ok := c.Lookup("LSF_AUTH"); ok && v != "" {
		switch v {
		case "eauth", "setuid", "ident":
		default:
			d.Warnf(c.Pos("LSF_AUTH"), "LSF_AUTH=%s is not eauth, setuid or ident", v)
		}
	}
	if _, ok := c.Lookup("LSF_ELIM_RESTARTS"); ok {
		if _, bt := c.Lookup("LSF_ELIM_BLOCKTIME"); !bt && !c.ELIMDebug() {
			d.Warnf(c.Pos("LSF_ELIM_RESTARTS"), "LSF_ELIM_RESTARTS has no effect without LSF_ELIM_DEBUG or LSF_ELIM_BLOCKTIME")
		}
	}
	for _, name := range []string{"LSF_CONFDIR", "LSB_CONFDIR", "LSB_SHAREDIR", "LSF_SERVERDIR", "LSF_LOGDIR", "LSB_LOCALDIR"} {
		if v := c.Get(name); v != "" && !filepath.IsAbs(v) {
			d.Warnf(c.Pos(name), "%s=%s is not an absolute path", name, v)
		}
	}
	return d
}

package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config/hostsfile"
	"github.com/basalt-lsf/basalt/internal/config/lex"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// DefaultEnvDir is where lsf.conf is looked for when LSF_ENVDIR is unset.
const DefaultEnvDir = "/etc"

// ErrorList is the error Load and LoadBase return for a configuration with
// errors; its Diags hold every problem found, warnings included.
type ErrorList = lex.ErrorList

// Options control loading.
type Options struct {
	// EnvDir is LSF_ENVDIR, the directory of lsf.conf; "" means /etc.
	EnvDir string
	// Clock evaluates #if time() blocks; nil means the wall clock.
	Clock clock.Clock
	// EGroup resolves external groups; nil runs LSF_SERVERDIR/egroup.
	EGroup EGroupFunc
	// ReadFile reads configuration files; nil means os.ReadFile.
	ReadFile func(path string) ([]byte, error)
	// LocalHost chooses the cluster when lsf.shared names several (the one
	// whose lsf.cluster file lists it); "" means LocalHostName.
	LocalHost string
	// Getenv is used for BASALT_HOST; nil means os.Getenv.
	Getenv func(string) string
}

func (o *Options) fill() {
	if o.EnvDir == "" {
		o.EnvDir = DefaultEnvDir
	}
	if o.Clock == nil {
		o.Clock = clock.Real()
	}
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
}

// Base is what LIM needs: lsf.conf, lsf.shared, lsf.cluster.<name> and
// LSF's hosts file. A Base is immutable.
type Base struct {
	EnvDir string
	Conf   *lsfconf.Conf
	Shared *Shared
	// Cluster is lsf.cluster.<name>; Cluster.Name is the cluster's name.
	Cluster *ClusterFile
	// HostsFile is LSF_CONFDIR/hosts; nil when there is none.
	HostsFile *hostsfile.File
	// Warnings are the problems that did not stop the load.
	Warnings Diagnostics

	table *resreq.Table
}

// ClusterName returns the cluster's name.
func (b *Base) ClusterName() string { return b.Cluster.Name }

// ResourceTable returns the resource table of the resource requirement
// language: the built-in resources and lsf.shared's, Shared set from the
// ResourceMap (any LOCATION other than [default]).
func (b *Base) ResourceTable() *resreq.Table { return b.table }

// LSFConfPath returns the path of lsf.conf in envDir.
func LSFConfPath(envDir string) string {
	if envDir == "" {
		envDir = DefaultEnvDir
	}
	return filepath.Join(envDir, "lsf.conf")
}

// LoadConf reads and validates lsf.conf alone (commands that only need
// ports and directories).
func LoadConf(opts Options) (*lsfconf.Conf, Diagnostics, error) {
	opts.fill()
	var d Diagnostics
	c := readConf(opts, &d)
	if d.HasErrors() {
		return c, d, d.Err()
	}
	return c, d, nil
}

func readConf(opts Options, d *Diagnostics) *lsfconf.Conf {
	path := LSFConfPath(opts.EnvDir)
	src, err := opts.ReadFile(path)
	if err != nil {
		d.Errorf(Pos{File: path}, "cannot read lsf.conf: %v", plainErr(err))
		return lsfconf.New(path)
	}
	c, cd := lsfconf.Parse(path, src)
	*d = append(*d, cd...)
	*d = append(*d, c.Validate()...)
	return c
}

// plainErr drops the path an *fs.PathError repeats.
func plainErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// lexFile reads and lexes one file. missing reports a file that does not
// exist (not a diagnostic: whether that matters is the caller's business).
func lexFile(path string, opts Options, lo lex.Options, d *Diagnostics) (f *lex.File, missing bool) {
	src, err := opts.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &lex.File{Name: path}, true
		}
		d.Errorf(Pos{File: path}, "cannot read %s: %v", filepath.Base(path), plainErr(err))
		return &lex.File{Name: path}, false
	}
	lo.ReadFile = opts.ReadFile
	f, ld := lex.Parse(path, src, lo)
	*d = append(*d, ld...)
	return f, false
}

// LoadBase loads lsf.conf, lsf.shared, lsf.cluster.<name> and the hosts
// file. With errors it returns a nil Base and an *ErrorList.
func LoadBase(ctx context.Context, opts Options) (*Base, error) {
	opts.fill()
	b, d := loadBase(ctx, opts)
	if d.HasErrors() {
		return nil, d.Err()
	}
	return b, nil
}

func loadBase(ctx context.Context, opts Options) (*Base, Diagnostics) {
	var d Diagnostics
	b := &Base{EnvDir: opts.EnvDir}
	b.Conf = readConf(opts, &d)
	confDir := b.Conf.ConfDir()
	if confDir == "" {
		return b, d
	}
	sharedFile, missing := lexFile(filepath.Join(confDir, "lsf.shared"), opts, lex.Options{Includes: true, IncludesFirst: true}, &d)
	if missing {
		d.Errorf(Pos{File: sharedFile.Name}, "cannot read lsf.shared: file does not exist")
		return b, d
	}
	b.Shared = parseShared(sharedFile, &d)
	if len(b.Shared.Clusters) == 0 {
		return b, d
	}
	name, clusterFile := chooseCluster(b, opts, &d)
	if clusterFile == nil {
		return b, d
	}
	b.Cluster = parseCluster(clusterFile, name, b.Shared, b.Conf, &d)
	if src, err := opts.ReadFile(filepath.Join(confDir, "hosts")); err == nil {
		hf, hd := hostsfile.Parse(filepath.Join(confDir, "hosts"), src)
		b.HostsFile = hf
		d = append(d, hd...)
	} else if !errors.Is(err, fs.ErrNotExist) {
		d.Warnf(Pos{File: filepath.Join(confDir, "hosts")}, "cannot read hosts: %v", plainErr(err))
	}
	b.table = buildResourceTable(b, &d)
	b.Warnings = d
	return b, d
}

// chooseCluster picks the cluster: the only one of lsf.shared, or else the
// first whose lsf.cluster file lists the local host, or else the first whose
// file exists.
func chooseCluster(b *Base, opts Options, d *Diagnostics) (string, *lex.File) {
	confDir := b.Conf.ConfDir()
	lo := lex.Options{Includes: true}
	names := b.Shared.ClusterNames()
	if len(names) == 1 {
		f, missing := lexFile(filepath.Join(confDir, "lsf.cluster."+names[0]), opts, lo, d)
		if missing {
			d.Errorf(Pos{File: f.Name}, "cannot read lsf.cluster.%s: file does not exist", names[0])
			return "", nil
		}
		return names[0], f
	}
	local := opts.LocalHost
	if local == "" {
		local, _ = LocalHostName(b.Conf, opts.Getenv, nil)
	}
	var firstName string
	var first *lex.File
	var firstDiags Diagnostics
	for _, n := range names {
		var fd Diagnostics
		f, missing := lexFile(filepath.Join(confDir, "lsf.cluster."+n), opts, lo, &fd)
		if missing {
			continue
		}
		if first == nil {
			firstName, first, firstDiags = n, f, fd
		}
		if listsHost(f, local) {
			*d = append(*d, fd...)
			return n, f
		}
	}
	if first == nil {
		d.Errorf(Pos{File: b.Shared.Path}, "no lsf.cluster.<name> file in %s for any cluster of lsf.shared (%s)", confDir, strings.Join(names, " "))
		return "", nil
	}
	*d = append(*d, firstDiags...)
	return firstName, first
}

// listsHost reports whether a lexed lsf.cluster file's Host section names
// host.
func listsHost(f *lex.File, host string) bool {
	if host == "" {
		return false
	}
	for _, s := range f.Sections {
		if !s.Is("Host") {
			continue
		}
		for i, l := range s.Lines {
			if i == 0 {
				continue
			}
			if fl := l.Fields(nil); len(fl) > 0 && strings.EqualFold(fl[0].Text, host) {
				return true
			}
		}
	}
	return false
}

// Config is the whole configuration: the Base and the batch files
// (LSB_CONFDIR/<cluster>/configdir/lsb.*), with groups expanded and cross
// references resolved. A Config is immutable: daemons share it between
// goroutines and replace it as a whole (Store).
type Config struct {
	*Base
	BatchDir string
	Params   *Params
	// Queues in lsb.queues order.
	Queues   []*Queue
	LSBHosts *LSBHosts
	Users    *LSBUsers
	Limits   []*Limit
	// Applications are lsb.applications' profiles (none when the optional
	// file does not exist).
	Applications []*Application
	// BatchHosts are the cluster's server hosts with their lsb.hosts
	// parameters, in lsf.cluster order.
	BatchHosts []*BatchHost
	Pools      []*Pool
	// Warnings are every problem that did not stop the load (base and
	// batch).
	Warnings Diagnostics
	// NextChange is when an #if time() block of the batch files changes
	// value (the zero Time if never): the configuration is to be reloaded
	// then.
	NextChange time.Time
}

// LoadBatch loads the batch files on top of a loaded Base.
func LoadBatch(ctx context.Context, b *Base, opts Options) (*Config, error) {
	opts.fill()
	c, d := loadBatch(ctx, b, opts)
	if d.HasErrors() {
		all := append(append(Diagnostics{}, b.Warnings...), d...)
		return nil, all.Err()
	}
	return c, nil
}

// Load loads the base and the batch configuration.
func Load(ctx context.Context, opts Options) (*Config, error) {
	opts.fill()
	b, d := loadBase(ctx, opts)
	if d.HasErrors() {
		return nil, d.Err()
	}
	return LoadBatch(ctx, b, opts)
}

// Check loads everything (the batch files too when batch is set) and
// returns every diagnostic, for lsadmin and badmin ckconfig. Every problem
// of a file is reported; the batch files are checked when the base files
// (which they depend on) have no errors, as mbatchd would only read them
// then.
func Check(ctx context.Context, opts Options, batch bool) Diagnostics {
	opts.fill()
	b, d := loadBase(ctx, opts)
	if !batch || d.HasErrors() {
		return d
	}
	_, bd := loadBatch(ctx, b, opts)
	return append(d, bd...)
}

func loadBatch(ctx context.Context, b *Base, opts Options) (*Config, Diagnostics) {
	var d Diagnostics
	c := &Config{Base: b}
	if b.Conf.ShareDir() == "" {
		d.Errorf(b.Conf.Pos("LSB_SHAREDIR"), "LSB_SHAREDIR is missing or has a syntax error in lsf.conf file")
	}
	c.BatchDir = filepath.Join(b.Conf.LSBConfDir(), b.ClusterName(), "configdir")
	now := opts.Clock.Now()
	lo := lex.Options{Includes: true, TimeBlocks: true, Now: now}
	var files []*lex.File
	read := func(name string) (*lex.File, bool) {
		f, missing := lexFile(filepath.Join(c.BatchDir, name), opts, lo, &d)
		files = append(files, f)
		return f, missing
	}

	pf, missing := read("lsb.params")
	if missing {
		d.Warnf(Pos{File: pf.Name}, "lsb.params does not exist; default parameters are used")
	}
	c.Params = parseParams(pf, &d)

	hf, _ := read("lsb.hosts")
	c.LSBHosts = parseLSBHosts(hf, &d)
	uf, _ := read("lsb.users")
	c.Users = parseLSBUsers(uf, &d)

	qf, missing := read("lsb.queues")
	c.Queues = parseQueues(qf, b.Conf.UnitForLimits(), &d)
	if len(c.Queues) == 0 {
		why := "defines no valid queue"
		if missing {
			why = "does not exist"
		}
		d.Warnf(Pos{File: qf.Name}, "lsb.queues %s; the queue <default> is created", why)
		c.Queues = []*Queue{DefaultQueue()}
	}

	af, _ := read("lsb.applications")
	c.Applications = parseApplications(af, b.Conf.UnitForLimits(), &d)

	rf, _ := read("lsb.resources")
	memScale := 1.0
	if u, ok := b.Conf.Lookup("LSF_UNIT_FOR_LIMITS"); ok && u != "" {
		memScale = float64(unitKB[b.Conf.UnitForLimits()]) / 1024
	}
	c.Limits = parseLimits(rf, memScale, &d)

	r := &resolver{c: c, d: &d, ctx: ctx, egroup: opts.EGroup}
	if r.egroup == nil {
		r.egroup = ExecEGroup(b.Conf.ServerDir(), DefaultEGroupTimeout)
	}
	r.resolve()

	for _, f := range files {
		if n := f.NextChange(now); !n.IsZero() && (c.NextChange.IsZero() || n.Before(c.NextChange)) {
			c.NextChange = n
		}
	}
	c.Warnings = append(append(Diagnostics{}, b.Warnings...), d...)
	return c, d
}

// Queue returns the queue named name, or nil.
func (c *Config) Queue(name string) *Queue {
	for _, q := range c.Queues {
		if q.Name == name {
			return q
		}
	}
	return nil
}

// DefaultQueues returns the queues a job without -q goes to, in order:
// lsb.params' DEFAULT_QUEUE, else the queue named "default" if it exists.
func (c *Config) DefaultQueues() []string {
	if len(c.Params.DefaultQueue) > 0 {
		return c.Params.DefaultQueue
	}
	if c.Queue("default") != nil {
		return []string{"default"}
	}
	return nil
}

// Admins returns the cluster administrators (root when lsf.cluster has no
// ClusterAdmins section).
func (c *Config) Admins() []string {
	if len(c.Cluster.Admins) == 0 {
		return []string{"root"}
	}
	return c.Cluster.Admins
}

// String summarises the configuration.
func (c *Config) String() string {
	return fmt.Sprintf("cluster %s: %d hosts, %d queues, %d warnings", c.ClusterName(), len(c.BatchHosts), len(c.Queues), len(c.Warnings))
}

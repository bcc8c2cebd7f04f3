package defaults

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
)

func load(t *testing.T, envDir string) *config.Config {
	t.Helper()
	c, err := config.Load(context.Background(), config.Options{EnvDir: envDir, Clock: clock.NewFake(time.Date(2024, 1, 10, 12, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestWriteDefault(t *testing.T) {
	dir := t.TempDir()
	envDir, err := Write(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if envDir != filepath.Join(dir, "conf") || EnvDir(dir) != envDir {
		t.Fatalf("envDir = %s", envDir)
	}
	c := load(t, envDir)
	if len(c.Warnings) != 0 {
		t.Fatalf("the default configuration has diagnostics:\n%s", c.Warnings)
	}
	if c.ClusterName() != "basalt" || len(c.BatchHosts) != 3 {
		t.Fatalf("cluster %s with %d hosts", c.ClusterName(), len(c.BatchHosts))
	}
	conf := c.Conf
	if conf.RESPort() != 6878 || conf.LIMPort() != 6879 || conf.MBDPort() != 6881 || conf.SBDPort() != 6882 {
		t.Errorf("ports %d %d %d %d", conf.RESPort(), conf.LIMPort(), conf.MBDPort(), conf.SBDPort())
	}
	if got := strings.Join(conf.MasterList(), " "); got != "host1" {
		t.Errorf("LSF_MASTER_LIST = %s", got)
	}
	if conf.ShareDir() != filepath.Join(dir, "work") || conf.LogDir() != filepath.Join(dir, "log") || conf.LocalDir() != filepath.Join(dir, "local") || conf.ServerDir() != filepath.Join(dir, "sbin") {
		t.Errorf("directories: %s %s %s %s", conf.ShareDir(), conf.LogDir(), conf.LocalDir(), conf.ServerDir())
	}
	for _, d := range []string{"work/basalt/logdir", "log", "sbin", "local/host1", "local/host3"} {
		if st, err := os.Stat(filepath.Join(dir, d)); err != nil || !st.IsDir() {
			t.Errorf("directory %s: %v", d, err)
		}
	}
	for i, h := range c.BatchHosts {
		if h.Name != HostName(i+1) || h.MXJ != DefaultSlots {
			t.Errorf("host %d = %+v", i, h)
		}
		a, err := c.Resolver().Resolve(context.Background(), h.Name)
		if err != nil || a != HostAddr(i+1) {
			t.Errorf("%s resolves to %v %v", h.Name, a, err)
		}
	}
	for _, q := range []string{"normal", "interactive", "priority", "owners", "night", "short", "idle"} {
		if c.Queue(q) == nil {
			t.Errorf("queue %s missing", q)
		}
	}
	if got := strings.Join(c.DefaultQueues(), " "); got != "normal" {
		t.Errorf("default queue %s", got)
	}
	night := c.Queue("night")
	if night.RunWindow.String() != "5:19:00-1:8:30 20:00-8:30" || night.RunWindow.Open(time.Date(2024, 1, 10, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("night window %q", night.RunWindow)
	}
	if got := prefs(c.Queue("priority").Preempts); got != "idle normal interactive short night" {
		t.Errorf("priority preempts %q", got)
	}
	if c.Queue("owners").Users.Names[0] != DefaultAdmin || c.Admins()[0] != DefaultAdmin {
		t.Error("administrator")
	}
	if c.Cluster.Host("host1").HasResource("mg") == false || c.Cluster.Host("host2").HasResource("mg") {
		t.Error("mg marks the master candidates")
	}
	if i, ok := c.ResourceTable().Index("licA"); !ok || !c.ResourceTable().Def(i).Shared {
		t.Error("licA is a shared resource")
	}
}

func prefs(ps []config.QueuePref) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Queue)
	}
	return strings.Join(out, " ")
}

func TestWriteOptions(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Hosts: 300, Slots: 2, Cluster: "big.test", PortBase: 20000, Masters: 3, Admin: "me"}
	envDir, err := Write(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := load(t, envDir)
	if len(c.Warnings) != 0 {
		t.Fatal(c.Warnings)
	}
	if c.ClusterName() != "big.test" || len(c.BatchHosts) != 300 || c.BatchHosts[0].MXJ != 2 {
		t.Fatalf("cluster %s", c)
	}
	if c.Conf.RESPort() != 20000 || c.Conf.LIMPort() != 20001 || c.Conf.MBDPort() != 20003 || c.Conf.SBDPort() != 20004 {
		t.Error("ports")
	}
	if got := strings.Join(c.Conf.MasterList(), " "); got != "host1 host2 host3" {
		t.Errorf("masters %s", got)
	}
	if a, _ := c.Resolver().Resolve(context.Background(), "host255"); a.String() != "127.0.2.1" {
		t.Errorf("host255 = %s", a)
	}
	if c.Admins()[0] != "me" {
		t.Error("admin")
	}
	// An existing configuration is not overwritten without Force.
	if _, err := Write(dir, opts); !errors.Is(err, ErrExists) {
		t.Errorf("second Write = %v", err)
	}
	opts.Force, opts.Hosts, opts.Masters = true, 2, 1
	if _, err := Write(dir, opts); err != nil {
		t.Fatal(err)
	}
	if c := load(t, envDir); len(c.BatchHosts) != 2 {
		t.Error("Force must overwrite")
	}
}

func TestOptionErrors(t *testing.T) {
	bad := []struct {
		opts Options
		msg  string
	}{
		{Options{Hosts: -1}, "--hosts -1"},
		{Options{Hosts: MaxHosts + 1}, "must be between 1"},
		{Options{Slots: -2}, "--slots -2"},
		{Options{PortBase: 65533}, "--port-base 65533"},
		{Options{Hosts: 2, Masters: 3}, "--masters 3"},
		{Options{Cluster: "a b"}, "--cluster"},
		{Options{Admin: "x y"}, "administrator"},
	}
	for _, b := range bad {
		if _, err := Write(t.TempDir(), b.opts); err == nil || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%+v: %v", b.opts, err)
		}
	}
}

func TestHostsAndFiles(t *testing.T) {
	if HostAddr(1).String() != "127.0.1.1" || HostAddr(254).String() != "127.0.1.254" || HostAddr(255).String() != "127.0.2.1" {
		t.Error("HostAddr")
	}
	hs := Hosts(Options{Hosts: 3, Masters: 2})
	if len(hs) != 3 || !hs[1].Master || hs[2].Master || hs[2].Name != "host3" {
		t.Errorf("Hosts = %+v", hs)
	}
	if got := strings.Join(Files(), " "); got != "hosts lsb.hosts lsb.params lsb.queues lsb.resources lsb.users lsf.cluster lsf.conf lsf.shared" {
		t.Errorf("Files = %s", got)
	}
	res, lim, mbd, sbd := Ports(DefaultPortBase)
	if res != 6878 || lim != 6879 || mbd != 6881 || sbd != 6882 {
		t.Error("default ports are LSF's")
	}
}

// TestWriteKey: the configuration selects eauth and its lsf.sudoers holds
// a new random key, readable by its owner only.
func TestWriteKey(t *testing.T) {
	var keys []string
	for i := 0; i < 2; i++ {
		dir := t.TempDir()
		env, err := Write(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		conf, _ := os.ReadFile(filepath.Join(env, "lsf.conf"))
		if !strings.Contains(string(conf), "\nLSF_AUTH=eauth\n") {
			t.Fatalf("lsf.conf does not select eauth:\n%s", conf)
		}
		p := filepath.Join(env, "lsf.sudoers")
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("lsf.sudoers mode %v, want 0600", st.Mode().Perm())
		}
		b, _ := os.ReadFile(p)
		m := regexp.MustCompile(`(?m)^LSF_EAUTH_KEY=([0-9a-f]{64})$`).FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("no 256-bit LSF_EAUTH_KEY in:\n%s", b)
		}
		keys = append(keys, m[1])
	}
	if keys[0] == keys[1] {
		t.Fatal("two configurations got the same key")
	}
}

// TestHostPrefix: a cluster's hosts may be named with another prefix
// (clusters that know each other share no host names) in every file;
// a prefix that is no name, or ends in a digit (c1 + 1 would read as
// c11), is refused.
func TestHostPrefix(t *testing.T) {
	dir := t.TempDir()
	env, err := Write(dir, Options{Hosts: 2, HostPrefix: "east-h", PortBase: 30000})
	if err != nil {
		t.Fatal(err)
	}
	hosts, _ := os.ReadFile(filepath.Join(env, "hosts"))
	cluster, _ := os.ReadFile(filepath.Join(env, "lsf.cluster."+DefaultCluster))
	conf, _ := os.ReadFile(filepath.Join(env, "lsf.conf"))
	for name, text := range map[string]string{"hosts": string(hosts), "lsf.cluster": string(cluster)} {
		if !strings.Contains(text, "east-h1") || !strings.Contains(text, "east-h2") || strings.Contains(text, "host1") {
			t.Errorf("%s:\n%s", name, text)
		}
	}
	if !strings.Contains(string(conf), "east-h1") {
		t.Errorf("lsf.conf names no east-h1:\n%s", conf)
	}
	if _, err := os.Stat(filepath.Join(dir, "local", "east-h2")); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"c1", "a b", "x/y"} {
		if _, err := Write(t.TempDir(), Options{HostPrefix: bad}); err == nil || !strings.Contains(err.Error(), "host prefix") {
			t.Errorf("prefix %q: %v", bad, err)
		}
	}
	if PrefixedHostName("", 3) != "host3" || PrefixedHostName("b-host", 12) != "b-host12" {
		t.Error("PrefixedHostName")
	}
}

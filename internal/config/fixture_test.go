package config

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config/lex"
)

// A small in-memory cluster "t" for table tests. Each test replaces or adds
// files; a file set to "" is removed.
var baseFiles = map[string]string{
	"/c/lsf.conf": "LSF_CONFDIR=/c\nLSB_SHAREDIR=/w\nLSF_SERVERDIR=/s\n",
	"/c/lsf.shared": `Begin Cluster
ClusterName
t
End Cluster
Begin HostType
TYPENAME
LINUX
End HostType
Begin HostModel
MODELNAME CPUFACTOR ARCHITECTURE
M1 100 ()
M2 50 ()
End HostModel
Begin Resource
RESOURCENAME TYPE INTERVAL INCREASING DESCRIPTION
lic Numeric () N (licences)
dyn Numeric 60 Y (dynamic)
bres Boolean () () (a boolean)
sres String () () (a string)
End Resource
`,
	"/c/lsf.cluster.t": `Begin Host
HOSTNAME model type server RESOURCES
h1 M1 LINUX 1 (bres)
h2 ! ! 1 ()
h3 M2 LINUX 1 ()
c1 ! ! 0 ()
End Host
Begin ResourceMap
RESOURCENAME LOCATION
lic (5@[all])
End ResourceMap
`,
	"/c/lsbatch/t/configdir/lsb.params": "Begin Parameters\nEnd Parameters\n",
	"/c/lsbatch/t/configdir/lsb.queues": "Begin Queue\nQUEUE_NAME = normal\nEnd Queue\n",
}

const batchDir = "/c/lsbatch/t/configdir/"

type memFS map[string]string

func (m memFS) read(p string) ([]byte, error) {
	if s, ok := m[p]; ok {
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

func fixture(overrides map[string]string) memFS {
	m := memFS{}
	for k, v := range baseFiles {
		m[k] = v
	}
	for k, v := range overrides {
		if !strings.HasPrefix(k, "/") {
			k = batchDir + k
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

func fixtureOptions(m memFS) Options {
	return Options{EnvDir: "/c", Clock: clock.NewFake(wednesdayNoon), EGroup: fakeEGroup(nil), ReadFile: m.read}
}

// render prints diagnostics with base file names, sorted by position.
func render(ds Diagnostics) []string {
	ds = append(Diagnostics{}, ds...)
	for i := range ds {
		ds[i].Pos.File = filepath.Base(ds[i].Pos.File)
	}
	ds.Sort()
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

func loadFixture(t *testing.T, overrides map[string]string) *Config {
	t.Helper()
	c, err := Load(context.Background(), fixtureOptions(fixture(overrides)))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestFixtureIsClean(t *testing.T) {
	c := loadFixture(t, nil)
	if len(c.Warnings) != 0 {
		t.Fatalf("fixture has diagnostics:\n%s", c.Warnings)
	}
	if c.ClusterName() != "t" || len(c.BatchHosts) != 3 || len(c.Queues) != 1 {
		t.Fatalf("fixture: %s", c)
	}
}

// lexParse lexes one file of m as the loader does for lsb.* files.
func lexParse(path string, m memFS, d *Diagnostics) (*lex.File, error) {
	src, err := m.read(path)
	if err != nil {
		return nil, err
	}
	f, ld := lex.Parse(path, src, lex.Options{Includes: true, TimeBlocks: true, ReadFile: m.read, Now: wednesdayNoon})
	*d = append(*d, ld...)
	return f, nil
}

func must(f *lex.File, err error) *lex.File {
	if err != nil {
		panic(err)
	}
	return f
}

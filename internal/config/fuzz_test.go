package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzFile fuzzes one file of the fixture cluster through the whole loader
// (lexing, parsing, resolution, resource requirement validation): it must
// never panic, and every diagnostic must say where and what.
func fuzzFile(f *testing.F, name string, seeds ...string) {
	example := filepath.Join(exampleRoot, "conf", name)
	if !strings.HasPrefix(name, "lsf.") && name != "hosts" {
		example = filepath.Join(exampleRoot, "conf/lsbatch/orion/configdir", name)
	}
	if src, err := os.ReadFile(example); err == nil {
		f.Add(string(src))
	}
	key := name
	if strings.HasPrefix(name, "lsf.") {
		key = "/c/" + name
	}
	if src, ok := baseFiles[key]; ok {
		f.Add(src)
	}
	for _, s := range seeds {
		f.Add(s)
	}
	bad, _ := filepath.Glob("testdata/bad/*.txtar")
	for _, p := range bad {
		src, _ := os.ReadFile(p)
		for _, af := range parseArchive(string(src)).files {
			if af.name == name {
				f.Add(af.data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		m := fixture(map[string]string{key: src + "\n"})
		opts := fixtureOptions(m)
		d := Check(context.Background(), opts, true)
		for _, x := range d {
			if x.Msg == "" || x.Pos.File == "" {
				t.Fatalf("diagnostic without message or file: %+v", x)
			}
		}
		if !d.HasErrors() {
			c, err := Load(context.Background(), opts)
			if err != nil || c == nil {
				t.Fatalf("Check found no error but Load failed: %v", err)
			}
			_ = c.Dump()
			for _, q := range c.Queues {
				_ = c.ShareTree(q.Fairshare)
			}
		}
	})
}

func FuzzShared(f *testing.F) {
	fuzzFile(f, "lsf.shared", "Begin Cluster\nClusterName\nt\nEnd Cluster\nBegin Resource\nRESOURCENAME TYPE DESCRIPTION\nx Numeric (d)\nEnd Resource\n")
}

func FuzzCluster(f *testing.F) {
	fuzzFile(f, "lsf.cluster.t", "Begin Host\nHOSTNAME r1m RESOURCES\nh1 1/2 (bres !lic=2)\nEnd Host\nBegin ResourceMap\nRESOURCENAME LOCATION\ndyn ([all ~h1] [others])\nEnd ResourceMap\n")
}

func FuzzParams(f *testing.F) {
	fuzzFile(f, "lsb.params", "Begin Parameters\n#if time(8-9)\nMBD_SLEEP_TIME = 5\n#else\nDEFAULT_QUEUE = normal\n#endif\nEnd Parameters\n")
}

func FuzzQueues(f *testing.F) {
	fuzzFile(f, "lsb.queues", queuesFile("QUEUE_NAME=a\nPREEMPTION=PREEMPTIVE[b+1]\nPRIORITY=5", "QUEUE_NAME=b\nSLOT_POOL=p\nSLOT_SHARE=10\nRES_REQ=select[mem>1] rusage[lic=1]"))
}

func FuzzLSBHosts(f *testing.F) {
	fuzzFile(f, "lsb.hosts", "Begin HostGroup\nGROUP_NAME GROUP_MEMBER\ng (h[1-3] ~h2 h*)\nx (!)\nEnd HostGroup\n")
}

func FuzzUsers(f *testing.F) {
	fuzzFile(f, "lsb.users", "Begin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\ng1 (a b) ([a, 1])\ng2 (g1 c) ([g1, 2] [default, 1])\nEnd UserGroup\n")
}

func FuzzResources(f *testing.F) {
	fuzzFile(f, "lsb.resources", "Begin Limit\nPER_HOST = all\nSLOTS = [1 8-9] [2 9-8]\nMEM = 10%\nEnd Limit\n")
}

func FuzzApplications(f *testing.F) {
	fuzzFile(f, "lsb.applications", "Begin Application\nNAME = a\nRUNLIMIT = 10\nEnd Application\n")
}

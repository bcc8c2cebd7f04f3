package config

import (
	"context"
	"strings"
	"testing"
)

// mcShared is the fixture's lsf.shared with two more clusters.
var mcShared = strings.Replace(baseFiles["/c/lsf.shared"], "ClusterName\nt\n", "ClusterName Servers\nt (h1)\neast (e1 e2:7003)\nwest (w1)\n", 1)

func TestMCQueues(t *testing.T) {
	tests := []struct {
		name   string
		queue  string
		snd    string // queue@cluster ...
		rcv    string
		rsched int
		bklg   int
		warn   string // a diagnostic that must appear, with its position
	}{
		{"defaults", "QUEUE_NAME=q", "", "", 20, 50, ""},
		{"send", "QUEUE_NAME=q\nSNDJOBS_TO = r1@east r2@west", "r1@east r2@west", "", 20, 50, ""},
		{"receive", "QUEUE_NAME=q\nRCVJOBS_FROM = east west", "", "east west", 20, 50, ""},
		{"allclusters", "QUEUE_NAME=q\nRCVJOBS_FROM = allclusters", "", "allclusters", 20, 50, ""},
		{"infinit", "QUEUE_NAME=q\nMAX_RSCHED_TIME = infinit\nIMPT_JOBBKLG = 7", "", "", -1, 7, ""},
		{"bad rsched", "QUEUE_NAME=q\nMAX_RSCHED_TIME = soon", "", "", 20, 50, "lsb.queues:6:19: warning: Queue <q>: MAX_RSCHED_TIME value <soon> is not an integer; ignored"},
		{"not queue@cluster", "QUEUE_NAME=q\nSNDJOBS_TO = r1 r2@east", "r2@east", "", 20, 50, "lsb.queues:6:14: warning: Queue <q>: SNDJOBS_TO: <r1> is not queue_name@cluster_name; ignored"},
		{"unknown cluster", "QUEUE_NAME=q\nSNDJOBS_TO = r1@north r2@east", "r2@east", "", 20, 50, "lsb.queues:6:14: warning: Queue <q>: SNDJOBS_TO: cluster <north> is not defined in lsf.shared; ignored"},
		{"local cluster", "QUEUE_NAME=q\nSNDJOBS_TO = r1@t", "", "", 20, 50, "lsb.queues:6:14: warning: Queue <q>: SNDJOBS_TO: <r1@t> names the local cluster; ignored"},
		{"unknown receive", "QUEUE_NAME=q\nRCVJOBS_FROM = north east", "", "east", 20, 50, "RCVJOBS_FROM: cluster <north> is not defined in lsf.shared; ignored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fixture(map[string]string{"/c/lsf.shared": mcShared, "lsb.queues": queuesFile("QUEUE_NAME=normal", tt.queue)})
			c, err := Load(context.Background(), fixtureOptions(m))
			if err != nil {
				t.Fatal(err)
			}
			q := c.Queue("q")
			var snd []string
			for _, s := range q.MC.SndJobsTo {
				snd = append(snd, s.String())
			}
			if got := strings.Join(snd, " "); got != tt.snd {
				t.Errorf("SNDJOBS_TO %q, want %q", got, tt.snd)
			}
			if got := strings.Join(q.MC.RcvJobsFrom, " "); got != tt.rcv {
				t.Errorf("RCVJOBS_FROM %q, want %q", got, tt.rcv)
			}
			if q.MC.MaxRschedTime != tt.rsched || q.MC.ImptJobBklg != tt.bklg {
				t.Errorf("MAX_RSCHED_TIME %d IMPT_JOBBKLG %d, want %d %d", q.MC.MaxRschedTime, q.MC.ImptJobBklg, tt.rsched, tt.bklg)
			}
			diags := strings.Join(render(c.Warnings), "\n")
			if tt.warn == "" && diags != "" {
				t.Errorf("unexpected diagnostics:\n%s", diags)
			}
			if tt.warn != "" && !strings.Contains(diags, tt.warn) {
				t.Errorf("diagnostics\n%s\nlack %q", diags, tt.warn)
			}
			if q.Sends() != (tt.snd != "") {
				t.Errorf("Sends() = %v", q.Sends())
			}
		})
	}
}

func TestMCPeers(t *testing.T) {
	c := loadFixture(t, map[string]string{"/c/lsf.shared": mcShared})
	var names []string
	for _, p := range c.Peers() {
		names = append(names, p.Name+"="+strings.Join(p.Servers, ","))
	}
	if got := strings.Join(names, " "); got != "east=e1,e2:7003 west=w1" {
		t.Fatalf("peers %s", got)
	}
	if _, ok := c.Peer("t"); ok {
		t.Error("the local cluster is its own peer")
	}
	for _, tt := range []struct {
		in   string
		host string
		port int
	}{{"e1", "e1", 0}, {"e2:7003", "e2", 7003}, {"e2:x", "e2:x", 0}, {"e2:70000", "e2:70000", 0}} {
		if h, p := ServerAddr(tt.in); h != tt.host || p != tt.port {
			t.Errorf("ServerAddr(%q) = %q %d", tt.in, h, p)
		}
	}
	q := &Queue{MC: MCQueue{RcvJobsFrom: []string{"east"}}}
	if !q.Receives("east") || q.Receives("west") {
		t.Error("Receives")
	}
}

func FuzzMCQueues(f *testing.F) {
	f.Add("QUEUE_NAME=q\nSNDJOBS_TO = r1@east r2@west\nMAX_RSCHED_TIME=infinit")
	f.Add("QUEUE_NAME=q\nRCVJOBS_FROM = allclusters east @ x@\nIMPT_JOBBKLG=-3")
	f.Fuzz(func(t *testing.T, src string) {
		m := fixture(map[string]string{"/c/lsf.shared": mcShared, "lsb.queues": queuesFile(src)})
		for _, x := range Check(context.Background(), fixtureOptions(m), true) {
			if x.Msg == "" || x.Pos.File == "" {
				t.Fatalf("diagnostic without message or file: %+v", x)
			}
		}
	})
}

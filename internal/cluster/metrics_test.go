package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/testutil"
)

// TestMetrics: every daemon of a local cluster serves /metrics; mbatchd's
// count the running job; each output passes `promtool check metrics`; a
// real Prometheus scraping mbatchd answers a PromQL query with the running
// job.
func TestMetrics(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the job runs as a test user's job would, in a cgroup)")
	}
	c := up(t, 2, 2)
	mbd := c.MetricsURL()
	if mbd == "" {
		t.Fatal("no BASALT_HTTP_PORT in the default lsf.conf")
	}
	bsubSleep(t, c)
	running := regexp.MustCompile(`(?m)^basalt_jobs\{queue="normal",state="RUN"\} 1$`)
	testutil.Eventually(t, 30*time.Second, "basalt_jobs RUN 1 at "+mbd, func() bool {
		return running.MatchString(scrape(t, mbd))
	})
	outputs := map[string]string{"mbatchd": scrape(t, mbd)}
	// mbatchd shows RUN once the dispatch is committed; the sbatchd counts
	// the start once the job's shepherd is up.
	starts := 0
	testutil.Eventually(t, 20*time.Second, "one job start counted by the sbatchds", func() bool {
		starts = 0
		for i := 1; i <= 2; i++ {
			s := scrape(t, c.HostMetricsURL(i, 1))
			outputs[fmt.Sprintf("sbatchd host%d", i)] = s
			starts += metricValue(t, s, "basalt_sbatchd_job_starts_total")
		}
		return starts == 1
	})
	for i := 1; i <= 2; i++ {
		lim := c.HostMetricsURL(i, 2)
		testutil.Eventually(t, 20*time.Second, "master LIM reachable from "+lim, func() bool {
			return strings.Contains(scrape(t, lim), "\nbasalt_lim_master_reachable 1\n")
		})
		outputs[fmt.Sprintf("lim host%d", i)] = scrape(t, lim)
	}
	for name, out := range outputs {
		if !strings.Contains(out, "basalt_build_info{version=") {
			t.Errorf("%s: no basalt_build_info", name)
		}
	}
	t.Run("promtool", func(t *testing.T) {
		promtool, err := exec.LookPath("promtool")
		if err != nil {
			t.Skip("promtool not installed (Debian's prometheus package; scripts/setup-test-env.sh installs it)")
		}
		for name, out := range outputs {
			cmd := exec.Command(promtool, "check", "metrics")
			cmd.Stdin = strings.NewReader(out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("promtool check metrics on %s: %v\n%s", name, err, b)
			}
		}
	})
	t.Run("prometheus", func(t *testing.T) {
		prom, err := exec.LookPath("prometheus")
		if err != nil {
			t.Skip("prometheus not installed (Debian's prometheus package; scripts/setup-test-env.sh installs it)")
		}
		queryRunning(t, prom, mbd)
	})
}

// queryRunning runs Prometheus scraping target every second and waits for
// basalt_jobs{state="RUN"} to answer 1 through its HTTP API.
func queryRunning(t *testing.T, prom, target string) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "prometheus.yml")
	yml := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: basalt\n    static_configs:\n      - targets: [%q]\n", u.Host)
	if err := os.WriteFile(conf, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	web := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	var log bytes.Buffer
	cmd := exec.CommandContext(ctx, prom, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+web, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = cmd.Wait()
	}()
	q := "http://" + web + "/api/v1/query?query=" + url.QueryEscape(`sum(basalt_jobs{state="RUN"})`)
	var last string
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		if v, ok := promValue(q); ok {
			last = v
			if v == "1" {
				return
			}
		}
		time.Sleep(500 * time.Millisecond) // Prometheus scrapes every second
	}
	t.Fatalf("Prometheus never answered sum(basalt_jobs{state=\"RUN\"}) = 1 (last %q); its log:\n%s", last, log.String())
}

// promValue is the value of an instant query's single sample.
func promValue(q string) (string, bool) {
	resp, err := http.Get(q)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" || len(r.Data.Result) != 1 {
		return "", false
	}
	s, ok := r.Data.Result[0].Value[1].(string)
	return s, ok
}

func scrape(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", u, resp.Status, err)
	}
	return string(b)
}

// metricValue is the integer value of an unlabelled sample.
func metricValue(t *testing.T, out, name string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s in:\n%s", name, out)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return int(v)
}

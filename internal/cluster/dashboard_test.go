package cluster_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var screenshots = flag.String("dashboard.screenshots", "", "directory TestDashboardBrowser saves its screenshots in (e.g. ../../docs)")

// TestDashboardBrowser loads every page of mbatchd's dashboard of a real
// local cluster in headless Chromium, submits a job with bsub and watches
// it appear in the open jobs table (server-sent events, no reload), logs
// in with a token from basalt web-token, kills the job from its page and
// watches it become EXIT.
func TestDashboardBrowser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the job runs as a test user's job would, in a cgroup)")
	}
	chromium := chromiumPath()
	if chromium == "" {
		t.Skip("chromium not installed (Debian's chromium package; scripts/setup-test-env.sh installs it)")
	}
	c := up(t, 2, 2)
	dash := c.DashboardURL()
	if dash == "" {
		t.Fatal("no BASALT_HTTP_PORT in the default lsf.conf")
	}
	b := startBrowser(t, chromium)

	b.open(dash)
	b.waitFor("the overview", `document.querySelector('a[href="/host/host1"]') && document.querySelector('a[href="/queue/normal"]') && document.getElementById('states')`, 10*time.Second)
	b.waitFor("live updates connected", `document.getElementById('live').className === 'on'`, 10*time.Second)
	b.open(dash + "jobs")
	if got := b.eval(`document.getElementById('total').textContent`); got != `"0"` {
		t.Fatalf("jobs before any bsub: %s", got)
	}
	b.waitFor("live updates connected", `document.getElementById('live').className === 'on'`, 10*time.Second)

	id := bsub(t, c.EnvDir, "-J", "dashjob", "-o", filepath.Join(t.TempDir(), "out"), "echo dash-output-line; sleep 120")
	// The open page shows it without a reload, then running.
	row := fmt.Sprintf(`document.querySelector('tr[data-job="%s"]')`, id)
	b.waitFor("job "+id+" in the open table", row, 20*time.Second)
	b.waitFor("job "+id+" RUN in the open table", row+` && `+row+`.textContent.includes('RUN')`, 30*time.Second)
	if !strings.Contains(b.text(), "dashjob") {
		t.Errorf("the jobs table does not name the job:\n%s", b.text())
	}
	b.open(dash + "jobs?state=RUN&name=dashjob")
	b.waitFor("the filtered table", row, 5*time.Second)
	b.open(dash + "jobs?state=PEND")
	if b.eval(row) != "null" {
		t.Errorf("a running job in the PEND filter")
	}
	b.screenshot(*screenshots, "dashboard-jobs.png")

	b.open(dash + "host/host1")
	b.waitFor("the host page", `document.getElementById('hoststatus') && document.getElementById('load')`, 5*time.Second)
	b.open(dash + "queue/normal")
	b.waitFor("the queue page", `document.body.innerText.includes('Queue normal')`, 5*time.Second)
	b.open(dash + "job/" + id)
	b.waitFor("the job page", `document.getElementById('jobstate').textContent === 'RUN'`, 5*time.Second)
	if cmd := b.eval(`document.getElementById('command').textContent`); cmd != `"(hidden)"` {
		t.Errorf("anonymous viewer sees the command %s", cmd)
	}
	if note := b.eval(`document.getElementById('outputnote').textContent`); !strings.Contains(note, "Log in") {
		t.Errorf("anonymous viewer's output section: %s", note)
	}
	if b.eval(`!!document.getElementById('kill')`) != "false" {
		t.Errorf("anonymous viewer has a kill button")
	}
	b.waitFor("the history", `document.getElementById('history').textContent.includes('JOB_NEW')`, 5*time.Second)

	// Log in with a token from basalt web-token, as the commands
	// authenticate.
	tok := webToken(t, c.EnvDir)
	b.open(dash + "login")
	// The form is submitted after the evaluation returns: a navigation
	// that starts during it ends it with "Inspected target navigated".
	submit := `document.getElementById('token').value = %q; setTimeout(() => document.getElementById('login').submit(), 0); 1`
	b.eval(fmt.Sprintf(submit, "forged."+tok[strings.Index(tok, ".")+1:]))
	b.waitFor("the forged token refused", `location.pathname === '/login' && document.getElementById('error')`, 10*time.Second)
	b.eval(fmt.Sprintf(submit, tok))
	b.waitFor("logged in", `location.pathname === '/' && document.getElementById('viewer')`, 10*time.Second)
	b.screenshot(*screenshots, "dashboard-overview.png")

	b.open(dash + "job/" + id)
	b.waitFor("the command shown to its owner", `document.getElementById('command').textContent.includes('sleep 120')`, 5*time.Second)
	b.waitFor("the output as bpeek shows it", `document.getElementById('output') && document.getElementById('output').textContent.includes('dash-output-line')`, 15*time.Second)
	b.screenshot(*screenshots, "dashboard-job.png")
	b.eval(`document.getElementById('kill').click(); 1`)
	b.waitFor("the kill's answer", `document.getElementById('msg') && document.getElementById('msg').textContent.includes('<`+id+`>')`, 20*time.Second)
	b.waitFor("job "+id+" EXIT on its page", `document.getElementById('jobstate').textContent === 'EXIT'`, 30*time.Second)
	b.waitFor("the kill in the history", `document.getElementById('history').textContent.includes('JOB_SIGNAL')`, 10*time.Second)

	// Readable on a phone.
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true})
	b.open(dash + "jobs?state=all")
	if w := b.eval(`document.documentElement.scrollWidth <= window.innerWidth`); w != "true" {
		t.Errorf("the jobs page scrolls sideways on a phone (%s wide)", b.eval(`document.documentElement.scrollWidth`))
	}
	b.screenshot(*screenshots, "dashboard-phone.png")
}

var submittedRE = regexp.MustCompile(`Job <(\d+)> is submitted`)

// bsub runs bsub as the test's user on host1 and returns the job's ID.
func bsub(t *testing.T, envDir string, args ...string) string {
	t.Helper()
	out := command(t, envDir, "bsub", args...)
	m := submittedRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("bsub: %s", out)
	}
	return m[1]
}

func webToken(t *testing.T, envDir string) string {
	t.Helper()
	out := strings.TrimSpace(command(t, envDir, "basalt", "web-token"))
	if !strings.Contains(out, ".") {
		t.Fatalf("basalt web-token: %q", out)
	}
	return out
}

func command(t *testing.T, envDir, name string, args ...string) string {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = name
	cmd.Env = append(os.Environ(), "LSF_ENVDIR="+envDir, "BASALT_HOST=host1")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s %q: %v: %s%s", name, args, err, out, stderr)
	}
	return string(out)
}

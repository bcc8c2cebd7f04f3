package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
)

// Policies are the variants of the embedded configuration's default queue
// (normal) that WriteDefault knows. LSF's installed queue ("firstfit")
// reserves nothing: a job that fits starts whatever waits before it, and a
// wide job may wait for ever. "fcfs" makes every job reserve the slots it
// finds until it can start (SLOT_RESERVE), so that nothing overtakes it in
// the slots it holds; "backfill" lets jobs with run limits use reserved
// slots they leave before the reserving job's predicted start (EASY
// backfilling); "fairshare" orders the queue by user fairshare (equal
// shares) with backfill.
var Policies = map[string]string{
	"firstfit":  "",
	"fcfs":      slotReserve,
	"backfill":  slotReserve + "BACKFILL     = Y\n",
	"fairshare": slotReserve + "BACKFILL     = Y\nFAIRSHARE    = USER_SHARES[[default, 1]]\n",
}

// slotReserve keeps reservations for up to about four months of
// MBD_SLEEP_TIME = 10 s dispatch intervals.
const slotReserve = "SLOT_RESERVE = MAX_RESERVE_TIME[1000000]\n"

// WriteDefault writes the embedded default configuration of hosts hosts of
// slots slots each (MXJ) into dir, its queue normal changed by policy (a
// key of Policies), and returns its LSF_ENVDIR.
func WriteDefault(dir string, hosts, slots int, policy string) (string, error) {
	extra, ok := Policies[policy]
	if !ok {
		return "", fmt.Errorf("unknown policy %q (firstfit, fcfs, backfill or fairshare)", policy)
	}
	env, err := defaults.Write(dir, defaults.Options{Hosts: hosts, Slots: slots, Force: true})
	if err != nil {
		return "", err
	}
	if extra == "" {
		return env, nil
	}
	p := filepath.Join(env, "lsbatch", defaults.DefaultCluster, "configdir", "lsb.queues")
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	const anchor = "QUEUE_NAME   = normal\n"
	s := string(b)
	if !strings.Contains(s, anchor) {
		return "", fmt.Errorf("%s: no queue normal to change", p)
	}
	s = strings.Replace(s, anchor, anchor+extra, 1)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		return "", err
	}
	return env, nil
}

// LoadConfig loads the configuration of envDir as mbatchd would on its
// first host, with #if time() blocks evaluated at the trace's start.
func LoadConfig(ctx context.Context, envDir string, at time.Time) (*config.Config, error) {
	cfg, err := config.Load(ctx, config.Options{EnvDir: envDir, Clock: clock.NewFake(at), LocalHost: "",
		Getenv: func(string) string { return "" }})
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

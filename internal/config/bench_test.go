package config_test

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
)

var benchHosts = flag.String("benchhosts", "10,100,1000", "cluster sizes (hosts) of BenchmarkLoadDefault")

// BenchmarkLoadDefault loads the default cluster configuration written for
// clusters of several sizes: what mbatchd does at start and on reconfig.
func BenchmarkLoadDefault(b *testing.B) {
	for _, s := range strings.Split(*benchHosts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			b.Fatalf("-benchhosts: %v", err)
		}
		b.Run(fmt.Sprintf("hosts=%d", n), func(b *testing.B) {
			envDir, err := defaults.Write(b.TempDir(), defaults.Options{Hosts: n, Admin: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			opts := config.Options{EnvDir: envDir, Clock: clock.NewFake(time.Date(2024, 1, 10, 12, 0, 0, 0, time.UTC))}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c, err := config.Load(context.Background(), opts)
				if err != nil || len(c.BatchHosts) != n {
					b.Fatal(err)
				}
			}
		})
	}
}

package cluster

import (
	"net"
	"strconv"
)

// MetricsURL is mbatchd's /metrics address (the master host's address at
// lsf.conf's BASALT_HTTP_PORT), "" when HTTP is off.
func (c *Cluster) MetricsURL() string {
	port := c.httpPort()
	if port == 0 {
		return ""
	}
	return "http://" + net.JoinHostPort(c.HostAddr(1).String(), strconv.Itoa(port)) + "/metrics"
}

// HostMetricsURL is host i's (1-based) sbatchd (offset 1) or LIM (offset
// 2) /metrics address, "" when HTTP is off.
func (c *Cluster) HostMetricsURL(i, offset int) string {
	port := c.httpPort()
	if port == 0 {
		return ""
	}
	return "http://" + net.JoinHostPort(c.HostAddr(i).String(), strconv.Itoa(port+offset)) + "/metrics"
}

func (c *Cluster) httpPort() int {
	conf, err := c.lsfConf()
	if err != nil {
		return 0
	}
	return conf.Int("BASALT_HTTP_PORT", 0)
}

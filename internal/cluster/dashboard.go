package cluster

import (
	"net"
	"strconv"
)

// DashboardURL is the address of mbatchd's dashboard (served beside its
// metrics by the master, host 1 of a cluster started here), "" when HTTP
// is off.
func (c *Cluster) DashboardURL() string {
	port := c.httpPort()
	if port == 0 {
		return ""
	}
	return "http://" + net.JoinHostPort(c.HostAddr(1).String(), strconv.Itoa(port)) + "/"
}

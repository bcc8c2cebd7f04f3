package sbd

import (
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// notServingWindow: an sbatchd whose accepting failed this recently (real
// time, as the rpc server records it) cannot serve.
const notServingWindow = 5 * time.Second

// acceptFailing reports whether sbatchd's RPC server cannot take new
// connections (descriptors run out, ...).
func (d *Daemon) acceptFailing() bool {
	srv := d.server.Load()
	return srv != nil && srv.AcceptFailing(time.Now(), notServingWindow)
}

// checkHealth tells mbatchd when sbatchd's ability to serve changes, so a
// host whose sbatchd cannot take connections shows unreach in bhosts
// instead of ok.
func (d *Daemon) checkHealth() {
	bad := d.acceptFailing()
	if bad == d.notServing {
		return
	}
	d.notServing = bad
	if bad {
		d.cfg.Log.Error("sbatchd cannot accept connections; mbatchd is told (host unreach)")
	} else {
		d.cfg.Log.Info("sbatchd accepts connections again")
	}
	if d.sess != nil {
		d.sendMbd(&api.SbdMessage{Health: &api.SbdHealth{NotServing: bad}})
	}
}

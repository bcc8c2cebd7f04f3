package lim

import (
	"context"
	"net"

	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
)

// setupAuth sets the LIM's Authenticator and credentials from LSF_AUTH
// unless Options gave them, and under Basalt's eauth starts this host's
// signing agent: the users' commands of the host get their credentials
// from it.
func (l *LIM) setupAuth(ctx context.Context) error {
	if l.opts.Auth != nil {
		if l.opts.Creds == nil {
			l.opts.Creds = authsetup.Client(l.base.Conf, l.base.EnvDir, l.host, auth.KindLIM)
		}
		return nil
	}
	d, err := authsetup.Server(l.base, l.host, auth.KindLIM, StateDir(l.base, l.host), l.log)
	if err != nil {
		return err
	}
	l.opts.Auth = d.Auth
	if l.opts.Creds == nil {
		l.opts.Creds = d.Creds
	}
	closers := []func(){d.Close}
	if d.Keys != nil {
		addr := eauth.AgentAddr(l.host, l.base.Conf.LIMPort())
		ln, err := net.Listen("unix", addr)
		if err != nil {
			// Another process holds the name: users of this host cannot
			// authenticate until it is free; the LIM serves the others.
			l.log.Error("eauth: the signing agent cannot listen; users' commands on this host will be refused", "addr", addr, "err", err)
		} else {
			actx, stop := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				if err := (&eauth.Agent{Keys: d.Keys, Host: l.host, Log: l.log}).Serve(actx, ln); err != nil {
					l.log.Error("eauth: the signing agent stopped", "err", err)
				}
			}()
			closers = append([]func(){func() { stop(); <-done }}, closers...)
		}
	}
	l.authClose = func() {
		for _, c := range closers {
			c()
		}
	}
	return nil
}

func (l *LIM) closeAuth() {
	if l.authClose != nil {
		l.authClose()
		l.authClose = nil
	}
}

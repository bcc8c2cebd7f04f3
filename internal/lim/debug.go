package lim

import (
	"context"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/logging/logrpc"
)

// registerDebug serves LIM.Debug (lsadmin limdebug, limtime) for the
// LIM's administrators (see admin), on lim.log.<host>.
func (l *LIM) registerDebug() {
	if l.logFile == nil {
		return
	}
	logrpc.Register(l.srv, api.LIMDebug, l.host, l.logFile, func(ctx context.Context, id auth.Identity) (bool, error) {
		var ok bool
		err := l.do(ctx, func() { ok = l.admin(id) })
		return ok, err
	})
}

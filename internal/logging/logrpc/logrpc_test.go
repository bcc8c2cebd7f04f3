package logrpc

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/logging"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

func TestServe(t *testing.T) {
	var buf bytes.Buffer
	l := logging.New(logging.Config{Daemon: "sbatchd", Host: "h1", Stderr: &buf})
	admins := func(_ context.Context, id auth.Identity) (bool, error) { return id.User == "lsfadmin", nil }
	req := &api.DebugRequest{Op: api.DebugOpLog, Level: 1, Daemon: "sbatchd"}
	for _, id := range []auth.Identity{{User: "alice", UID: 1001, Host: "h2"}, {User: "root", Daemon: "mbatchd"}, {}} {
		_, err := Serve(context.Background(), id, req, "h1", l, admins)
		var re *rpc.Error
		if !errors.As(err, &re) || re.Code != rpc.PermissionDenied || re.Msg != "User permission denied" {
			t.Errorf("%+v: %v, want User permission denied", id, err)
		}
	}
	if l.Enabled(context.Background(), slog.LevelDebug) {
		t.Fatal("a refused request changed the level")
	}
	if !strings.Contains(buf.String(), "WARN sbatchd[") || !strings.Contains(buf.String(), "debug request refused peer=alice@h2 uid=1001 daemon=sbatchd") {
		t.Errorf("refusal not logged:\n%s", buf.String())
	}
	r, err := Serve(context.Background(), auth.Identity{User: "lsfadmin", Host: "h2"}, req, "h1", l, admins)
	if err != nil || r.Host != "h1" || r.Path != "" {
		t.Fatalf("admin: %+v, %v", r, err)
	}
	if !l.Enabled(context.Background(), logging.LevelDebug1) || l.Enabled(context.Background(), logging.LevelDebug2) {
		t.Error("level is not LOG_DEBUG1")
	}
	_, err = Serve(context.Background(), auth.Identity{User: "lsfadmin"}, &api.DebugRequest{Op: api.DebugOpTiming, Level: 7}, "h1", l, admins)
	var re *rpc.Error
	if !errors.As(err, &re) || re.Code != rpc.InvalidArgument {
		t.Errorf("timing level 7: %v", err)
	}
}

package authsetup_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
)

func base(t *testing.T, conf string) *config.Base {
	t.Helper()
	dir := t.TempDir()
	env, err := defaults.Write(dir, defaults.Options{Hosts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if conf != "" {
		f, _ := os.OpenFile(filepath.Join(env, "lsf.conf"), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(conf + "\n")
		f.Close()
	}
	b, err := config.LoadBase(context.Background(), config.Options{EnvDir: env, LocalHost: "host1"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestServerScheme: LSF_AUTH selects the scheme; the default
// configuration's is eauth with its key; a bad value or an unsafe key file
// stops the daemon with a message naming it.
func TestServerScheme(t *testing.T) {
	b := base(t, "")
	d, err := authsetup.Server(b, "host1", auth.KindMbatchd, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, ok := d.Auth.(*eauth.Authenticator); !ok || d.Scheme != "eauth" || d.Keys == nil {
		t.Fatalf("default configuration: scheme %s, %T", d.Scheme, d.Auth)
	}
	h, err := d.Creds.Hello(context.Background(), auth.KindLIM, "host2")
	if err != nil || h.Daemon != auth.KindMbatchd || len(h.Credential) == 0 {
		t.Fatalf("daemon hello %+v %v", h, err)
	}

	d, err = authsetup.Server(base(t, "LSF_AUTH=ident"), "host1", auth.KindMbatchd, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Auth.(*auth.Ident); !ok {
		t.Fatalf("LSF_AUTH=ident: %T", d.Auth)
	}
	if h, _ := d.Creds.Hello(context.Background(), auth.KindLIM, "host2"); h.Scheme != "ident" || len(h.Credential) != 0 {
		t.Fatalf("ident hello %+v", h)
	}

	if _, err := authsetup.Server(base(t, "LSF_AUTH=kerberos"), "host1", auth.KindMbatchd, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "LSF_AUTH=kerberos") {
		t.Fatalf("LSF_AUTH=kerberos: %v", err)
	}
	b = base(t, "")
	key := filepath.Join(b.EnvDir, "lsf.sudoers")
	os.Chmod(key, 0o604)
	if _, err := authsetup.Server(b, "host1", auth.KindMbatchd, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), key) {
		t.Fatalf("key file of mode 0604: %v", err)
	}
}

package gpu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func show(gs []*api.GPUDevice) string {
	var b strings.Builder
	for _, g := range gs {
		fmt.Fprintf(&b, "%d %s %d;", g.Index, g.Model, g.MemTotal)
	}
	return b.String()
}

func TestParseInventory(t *testing.T) {
	in := "# fake GPUs\nhost1 2 TeslaV100 16\nHOST2 1 TeslaK80 8 # comment\nhost2 1 Tesla-P100 4\n\n"
	g, err := ParseInventory(strings.NewReader(in), "host2")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := show(g), "0 TeslaK80 8;1 Tesla_P100 4;"; got != want {
		t.Errorf("host2 = %q, want %q", got, want)
	}
	g, _ = ParseInventory(strings.NewReader(in), "host3")
	if len(g) != 0 {
		t.Errorf("host3 has %d GPUs", len(g))
	}
	for _, bad := range []string{"host1 2 x", "host1 two x 1", "host1 2 x -1", "host1 2000 x 1"} {
		if _, err := ParseInventory(strings.NewReader(bad), "host1"); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

func TestParseSMI(t *testing.T) {
	g, err := ParseSMI([]byte("0, Tesla V100-SXM2-16GB, 6\n1, Tesla V100-SXM2-16GB, [N/A]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := show(g), "0 TeslaV100_SXM2_16GB 6;1 TeslaV100_SXM2_16GB 0;"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := ParseSMI([]byte("garbage\n")); err == nil {
		t.Error("garbage parsed")
	}
	if g, err := ParseSMI(nil); err != nil || len(g) != 0 {
		t.Errorf("empty output: %v %v", g, err)
	}
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	inv := filepath.Join(dir, "inv")
	if err := os.WriteFile(inv, []byte("h 3 M 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := Detect(context.Background(), Options{Host: "h", Inventory: inv})
	if err != nil || len(g) != 3 {
		t.Fatalf("inventory: %d GPUs, %v", len(g), err)
	}
	if _, err := Detect(context.Background(), Options{Host: "h", Inventory: filepath.Join(dir, "none")}); err == nil {
		t.Error("missing inventory: no error")
	}
	// A fake nvidia-smi checks the arguments LIM passes.
	smi := filepath.Join(dir, "nvidia-smi")
	script := "#!/bin/sh\n[ \"$1 $2\" = \"--query-gpu=index,name,memory.total --format=csv,noheader,nounits\" ] || exit 3\necho '0, Tesla T4, 5'\n"
	if err := os.WriteFile(smi, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	g, err = Detect(context.Background(), Options{Host: "h", NvidiaSMI: smi})
	if err != nil || show(g) != "0 TeslaT4 5;" {
		t.Fatalf("nvidia-smi: %q, %v", show(g), err)
	}
	t.Setenv("PATH", dir+"/nowhere")
	if g, err := Detect(context.Background(), Options{Host: "h"}); err != nil || g != nil {
		t.Errorf("no nvidia-smi: %v, %v", g, err)
	}
}

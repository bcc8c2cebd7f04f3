package gpu

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// InventoryParam is the lsf.conf parameter naming the fake inventory file.
const InventoryParam = "BASALT_GPU_INVENTORY"

// Options say where to look.
type Options struct {
	Host string
	// Inventory is BASALT_GPU_INVENTORY: a file; "" to ask nvidia-smi.
	Inventory string
	// NvidiaSMI is the program to run ("" looks nvidia-smi up in PATH).
	NvidiaSMI string
	Timeout   time.Duration // default 10 s
}

// Detect returns the host's GPUs in index order; none (and no error)
// when there is no inventory and no nvidia-smi.
func Detect(ctx context.Context, o Options) ([]*api.GPUDevice, error) {
	if o.Inventory != "" {
		f, err := os.Open(o.Inventory)
		if err != nil {
			return nil, fmt.Errorf("gpu inventory: %w", err)
		}
		defer f.Close()
		return ParseInventory(f, o.Host)
	}
	prog := o.NvidiaSMI
	if prog == "" {
		p, err := exec.LookPath("nvidia-smi")
		if err != nil {
			return nil, nil
		}
		prog = p
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, prog, "--query-gpu=index,name,memory.total", "--format=csv,noheader,nounits").Output()
	if err != nil {
		return nil, fmt.Errorf("gpu: %s: %w", prog, err)
	}
	return ParseSMI(out)
}

// ParseInventory reads the fake inventory's lines for host: "HOST NGPUS
// MODEL MEMORY_MB" ('#' starts a comment; several lines of one host add
// GPUs after the ones before).
func ParseInventory(r io.Reader, host string) ([]*api.GPUDevice, error) {
	var out []*api.GPUDevice
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if i := strings.IndexByte(t, '#'); i >= 0 {
			t = t[:i]
		}
		f := strings.Fields(t)
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("gpu inventory line %d: want HOST NGPUS MODEL MEMORY_MB, got %d fields", line, len(f))
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 || n > 1024 {
			return nil, fmt.Errorf("gpu inventory line %d: bad number of GPUs %q", line, f[1])
		}
		mem, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil || mem < 0 {
			return nil, fmt.Errorf("gpu inventory line %d: bad memory %q", line, f[3])
		}
		if !strings.EqualFold(f[0], host) {
			continue
		}
		for range n {
			out = append(out, &api.GPUDevice{Index: int32(len(out)), Model: ModelName(f[2]), MemTotal: mem, Vendor: "Nvidia"})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("gpu inventory: %w", err)
	}
	return out, nil
}

// ParseSMI reads nvidia-smi's "index, name, memory.total" CSV lines.
func ParseSMI(b []byte) ([]*api.GPUDevice, error) {
	var out []*api.GPUDevice
	for i, l := range bytes.Split(b, []byte("\n")) {
		t := strings.TrimSpace(string(l))
		if t == "" {
			continue
		}
		f := strings.Split(t, ",")
		if len(f) != 3 {
			return nil, fmt.Errorf("nvidia-smi line %d: want index, name, memory.total: %q", i+1, t)
		}
		idx, err := strconv.Atoi(strings.TrimSpace(f[0]))
		if err != nil || idx < 0 {
			return nil, fmt.Errorf("nvidia-smi line %d: bad index %q", i+1, f[0])
		}
		mem, err := strconv.ParseInt(strings.TrimSpace(f[2]), 10, 64)
		if err != nil {
			mem = 0 // "[N/A]"
		}
		out = append(out, &api.GPUDevice{Index: int32(idx), Model: ModelName(f[1]), MemTotal: mem, Vendor: "Nvidia"})
	}
	if len(out) == 0 && len(bytes.TrimSpace(b)) > 0 {
		return nil, errors.New("nvidia-smi: no GPU lines")
	}
	return out, nil
}

// ModelName is LSF's gpu_model of a product name: blanks removed, '-'
// turned to '_' ("Tesla V100-SXM2-16GB" -> "TeslaV100_SXM2_16GB").
func ModelName(s string) string {
	s = strings.Join(strings.Fields(s), "")
	return strings.ReplaceAll(s, "-", "_")
}

package eventlog

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCheckpoint: any checkpoint file reads as a checkpoint or ErrDamaged,
// never a panic, and a checkpoint read back after writing is the same.
func FuzzCheckpoint(f *testing.F) {
	f.Add([]byte("basalt-eventlog/1 index=7 events=551 acct=0 seek=4 finished=1 lastjob=2 lasttime=1700000000 switching=false archives=0 newsize=0 relog=true\n"))
	f.Add([]byte("basalt-eventlog/1 index=x\n"))
	f.Add([]byte("garbage"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, checkpointFile)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ck, found, err := readCheckpoint(p)
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("readCheckpoint: %v, want ErrDamaged", err)
			}
			return
		}
		if !found {
			t.Fatal("an existing checkpoint file not found")
		}
		w := &Writer{dir: dir, ck: ck}
		if err := w.writeCheckpoint(); err != nil {
			t.Fatal(err)
		}
		again, _, err := readCheckpoint(p)
		if err != nil || again != ck {
			t.Fatalf("checkpoint %+v read back as %+v (%v)", ck, again, err)
		}
	})
}

package clock

import (
	"testing"
	"time"
)

func TestFakeTimerFiresInOrder(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	f := NewFake(start)
	a := f.NewTimer(2 * time.Second)
	b := f.NewTimer(1 * time.Second)
	f.Advance(500 * time.Millisecond)
	select {
	case <-a.C():
		t.Fatal("timer a fired early")
	case <-b.C():
		t.Fatal("timer b fired early")
	default:
	}
	f.Advance(time.Second)
	if got := <-b.C(); !got.Equal(start.Add(time.Second)) {
		t.Fatalf("b fired at %v", got)
	}
	select {
	case <-a.C():
		t.Fatal("timer a fired early")
	default:
	}
	f.Advance(time.Second)
	if got := <-a.C(); !got.Equal(start.Add(2 * time.Second)) {
		t.Fatalf("a fired at %v", got)
	}
	if f.Pending() != 0 {
		t.Fatalf("pending = %d, want 0", f.Pending())
	}
}

func TestFakeTickerAndStop(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	tk := f.NewTicker(10 * time.Second)
	f.Advance(10 * time.Second)
	<-tk.C()
	f.Advance(25 * time.Second) // two more ticks; buffer holds one
	<-tk.C()
	select {
	case <-tk.C():
		t.Fatal("ticker buffered more than one tick")
	default:
	}
	tk.Stop()
	f.Advance(time.Hour)
	select {
	case <-tk.C():
		t.Fatal("stopped ticker fired")
	default:
	}
	tm := f.NewTimer(time.Minute)
	if !tm.Stop() {
		t.Fatal("Stop on active timer returned false")
	}
	if tm.Stop() {
		t.Fatal("second Stop returned true")
	}
	if tm.Reset(time.Second) {
		t.Fatal("Reset of stopped timer reported active")
	}
	f.Advance(time.Second)
	<-tm.C()
	if got, want := f.Now(), time.Unix(0, 0).Add(10*time.Second+25*time.Second+time.Hour+time.Second); !got.Equal(want) {
		t.Fatalf("Now = %v, want %v", got, want)
	}
}

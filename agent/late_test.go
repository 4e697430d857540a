package agent

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLateRecords: held records are written by the pass's flusher
// while the pass goes on, each app's claim ended once its record is
// written, and stop returns the errors of every write.
func TestLateRecords(t *testing.T) {
	l := &lateRecords{}
	var mu sync.Mutex
	ended := map[string]bool{}
	stop := l.run(2, time.Hour, 5*time.Millisecond, func(app string) {
		mu.Lock()
		defer mu.Unlock()
		ended[app] = true
	})
	l.hold("a", func() error { return nil })
	l.hold("b", func() error { return errors.New("push refused") })
	if !l.owns("a") || !l.owns("b") || l.owns("x") {
		t.Fatal("held records' apps not handed over, or an app with none was")
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		both := ended["a"] && ended["b"]
		mu.Unlock()
		if both {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("held records not written while the pass goes on")
		}
	}
	if l.owns("a") || l.owns("b") {
		t.Error("written records are still held")
	}
	l.hold("c", func() error { return nil })
	l.owns("c")
	err := stop()
	if err == nil || !strings.Contains(err.Error(), "app b: push refused") {
		t.Errorf("stop: %v, want b's error", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !ended["c"] {
		t.Error("stop did not write what was still held")
	}
}

package httpserve

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// ticker is an event stream: a comment every 50 ms until its context
// ends; ended is closed when it returns.
func ticker(ended chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(ended)
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for {
			if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
				return
			}
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// TestStreamsOutliveTheReadTimeoutAndEndAtTheirLife: a stream runs past
// the server's read and write timeouts, ends at its Life, and one past
// Max gets 503.
func TestStreamsOutliveTheReadTimeoutAndEndAtTheirLife(t *testing.T) {
	ended := make(chan struct{})
	streams := NewStreams(ticker(ended), StreamOptions{Max: 1, Life: 2 * time.Second, WriteTimeout: time.Second})
	addr, _ := serve(t, streams, Options{ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond})
	start := time.Now()
	resp, err := http.Get("http://" + addr + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if code, _ := get(t, "http://"+addr+"/events"); code != http.StatusServiceUnavailable {
		t.Errorf("a second stream past Max 1: %d, want 503", code)
	}
	pings := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), ": ping") {
			pings++
		}
	}
	took := time.Since(start)
	if took < time.Second {
		t.Errorf("the stream ended after %s, %d pings: the server's 300 ms timeouts ended it", took, pings)
	}
	if took > 10*time.Second {
		t.Errorf("the stream ended after %s, want about its 2 s life", took)
	}
	<-ended
}

// TestStreamsCutOffAReaderThatStopsReading: a stream whose reader reads
// nothing ends once a write has waited WriteTimeout, long before its
// Life.
func TestStreamsCutOffAReaderThatStopsReading(t *testing.T) {
	ended := make(chan struct{})
	chunk := strings.Repeat("x", 64<<10)
	flood := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(ended)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	addr, _ := serve(t, NewStreams(flood, StreamOptions{Life: time.Hour, WriteTimeout: 200 * time.Millisecond}), Options{})
	resp, err := http.Get("http://" + addr + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() // never read
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("a stream nobody reads still runs after 30 s (write timeout 200 ms)")
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

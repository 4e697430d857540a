package sources

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/roleout/roleout/internal/testgit"
)

// The benchmark repository: benchFiles files in directories of 100, and
// benchCommits commits, the first writing every file and each later one
// changing one.
const (
	benchFiles   = 50000
	benchCommits = 2000
)

func benchFileName(i int) string { return fmt.Sprintf("apps/d%03d/f%05d.yaml", i/100, i) }

// newBenchRepo builds the benchmark repository on a test git server with
// git fast-import.
func newBenchRepo(b *testing.B) (*testgit.Server, *testgit.Repo) {
	b.Helper()
	srv := testgit.New(b, testgit.Options{})
	repo := srv.MustRepo(b, "big")
	_, err := repo.Import("main", benchCommits, func(i int) map[string]string {
		if i > 0 {
			n := (i * 7919) % benchFiles
			return map[string]string{benchFileName(n): fmt.Sprintf("name: f%05d\nvalue: %d\n", n, i)}
		}
		files := make(map[string]string, benchFiles)
		for n := range benchFiles {
			files[benchFileName(n)] = fmt.Sprintf("name: f%05d\nvalue: 0\n", n)
		}
		return files
	})
	if err != nil {
		b.Fatal(err)
	}
	return srv, repo
}

// BenchmarkBigRepository measures, on a repository of 50,000 files and
// 2,000 commits served by git http-backend: the peak RSS of a first
// clone (in a child process), an idle poll, and the fetch of one new
// commit. Run: go test -run '^$' -bench BigRepository ./sources/
func BenchmarkBigRepository(b *testing.B) {
	srv, repo := newBenchRepo(b)
	url := srv.RepoURL("big")
	b.Run("first-clone", func(b *testing.B) {
		var peak, heap float64
		for range b.N {
			rss, sys := cloneInChild(b, url, b.TempDir())
			peak, heap = max(peak, rss), max(heap, sys)
		}
		b.ReportMetric(peak, "peak-RSS-MiB")
		b.ReportMetric(heap, "go-sys-MiB")
	})
	src, err := NewGitSource(Options{URL: url, Ref: Ref{Branch: "main"}, CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := src.Fetch(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("idle-poll", func(b *testing.B) {
		srv.ResetCounts()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := src.Fetch(ctx); err != nil {
				b.Fatal(err)
			}
		}
		if n := srv.Count("big", testgit.UploadPack); n != 0 {
			b.Fatalf("idle polls made %d upload-pack requests, want none", n)
		}
		reportHeap(b)
	})
	b.Run("fetch-one-commit", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			b.StopTimer()
			n := (i * 104729) % benchFiles
			if _, err := repo.Import("main", 1, func(int) map[string]string {
				return map[string]string{benchFileName(n): fmt.Sprintf("name: f%05d\nvalue: new-%d\n", n, i)}
			}); err != nil {
				b.Fatal(err)
			}
			srv.ResetCounts()
			b.StartTimer()
			if _, err := src.Fetch(ctx); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if got := srv.Count("big", testgit.UploadPack); got != 1 {
				b.Fatalf("a new commit made %d upload-pack requests, want 1", got)
			}
			b.StartTimer()
		}
		reportHeap(b)
	})
}

// reportHeap reports the live heap after a collection, in MiB.
func reportHeap(b *testing.B) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-inuse-MiB")
}

// cloneInChild runs the first Fetch of url into cacheDir in a child
// process (this test binary, TestBenchCloneChild) and returns the
// child's peak RSS (VmHWM) and the memory its Go runtime took from the
// system, in MiB.
func cloneInChild(b *testing.B, url, cacheDir string) (rss, sys float64) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchCloneChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ROLEOUT_BENCH_CLONE_URL="+url, "ROLEOUT_BENCH_CLONE_CACHE="+cacheDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("clone in a child process: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "bench-clone:" {
			rss, _ = strconv.ParseFloat(f[1], 64)
			sys, _ = strconv.ParseFloat(f[2], 64)
			return rss / 1024, sys / (1 << 20)
		}
	}
	b.Fatalf("the clone child printed no figures:\n%s", out)
	return 0, 0
}

// TestBenchCloneChild is BenchmarkBigRepository's child process: with
// ROLEOUT_BENCH_CLONE_URL set it fetches that repository once and prints
// its peak RSS (kB) and Go runtime Sys (bytes); without, it does
// nothing.
func TestBenchCloneChild(t *testing.T) {
	url := os.Getenv("ROLEOUT_BENCH_CLONE_URL")
	if url == "" {
		return
	}
	src, err := NewGitSource(Options{URL: url, Ref: Ref{Branch: "main"}, CacheDir: os.Getenv("ROLEOUT_BENCH_CLONE_CACHE")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Fetch(context.Background()); err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	var hwm string
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			hwm = strings.TrimSuffix(strings.TrimSpace(v), " kB")
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Printf("bench-clone: %s %d\n", hwm, m.Sys)
}

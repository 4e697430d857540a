package statusstore

import (
	"github.com/roleout/roleout/sources"

	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/google/go-cmp/cmp"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// pushLarge commits a file of n bytes at rel on the status branch, as
// anyone with push rights can: random (incompressible) bytes, or zeros
// (a few hundred KiB in a pack, n bytes inflated).
func pushLarge(t *testing.T, repo *testgit.Repo, rel string, n int, random bool) {
	t.Helper()
	_, err := repo.Edit("roleout/status", "pushed: a large file", func(work string) error {
		p := filepath.Join(work, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		buf := make([]byte, 1<<20)
		for range n >> 20 {
			if random {
				_, _ = rand.Read(buf)
			}
			if _, err := f.Write(buf); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// allocated returns the bytes f allocated on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestStatusBranchLargeFile pushes a 24 MiB file to the status branch,
// beside an app's records (the attack of the second hostile round, at a
// twentieth of its size): reading the app and committing on top of the file
// inflate none of it, so the agent's heap does not grow by the file; the
// 64 MiB of zeros (a small pack) under the app's own folder is refused
// by the read budget, named, before it is inflated; and a branch larger than the fetch bound is
// refused while it is fetched, with nothing left in the temporary
// directory.
func TestStatusBranchLargeFile(t *testing.T) {
	ctx := context.Background()
	srv, repo := testgit.Fixture(t, testgit.Options{})
	tmp := t.TempDir()
	opts := Options{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "r@example.com", TempDir: tmp}
	b := New(opts)
	defer b.Close()
	if _, err := b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Succeeded\n")}, "roleout: web"); err != nil {
		t.Fatal(err)
	}
	const size = 24 << 20
	pushLarge(t, repo, "evil/blob.bin", size, true)

	var read status.Read
	var err error
	if n := allocated(func() { read, err = b.Read(ctx, "web") }); err != nil || n > size/4 {
		t.Fatalf("reading web beside a %d MiB file allocated %d MiB (%v), want well under the file's size", size>>20, n>>20, err)
	}
	if string(read.Files["web/status.yaml"]) != "phase: Succeeded\n" || len(read.Files) != 1 {
		t.Errorf("read %v, want web's status only", asStrings(read.Files))
	}
	if n := allocated(func() {
		_, err = b.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("phase: Failed\n")}, "roleout: web again")
	}); err != nil || n > size/4 {
		t.Fatalf("committing beside a %d MiB file allocated %d MiB (%v), want well under the file's size", size>>20, n>>20, err)
	}
	if got, err := repo.Show("roleout/status", "web/status.yaml"); err != nil || got != "phase: Failed\n" {
		t.Errorf("web/status.yaml after the commit = %q, %v", got, err)
	}
	if _, err := repo.Show("roleout/status", "evil/blob.bin"); err != nil {
		t.Errorf("the commit dropped another path of the tree it was made on: %v", err)
	}

	pushLarge(t, repo, "web/zeros.bin", 64<<20, false)
	small := opts
	small.Limits = sources.CheckoutLimits{MaxBytes: 40 << 20}
	var limit *LimitError
	if n := allocated(func() { sb := New(small); _, err = sb.Read(ctx, "web"); sb.Close() }); !errors.As(err, &limit) || limit.What != "bytes" ||
		limit.At != "web/zeros.bin" || !strings.Contains(err.Error(), "source.maxCheckoutBytes") || n > size/4 {
		t.Errorf("64 MiB of zeros in the app's folder under a 40 MiB budget: %v after %d MiB allocated, want a LimitError at web/zeros.bin before it is inflated", err, n>>20)
	}
	small.Limits = sources.CheckoutLimits{MaxBytes: 8 << 20}
	refused := New(small)
	_, err = refused.Commit(ctx, map[string][]byte{"web/status.yaml": []byte("x\n")}, "roleout: refused")
	refused.Close()
	if !errors.As(err, &limit) || limit.At != "the fetched objects" {
		t.Errorf("a branch larger than the fetch bound: %v, want a LimitError while fetching", err)
	}
	if got, _ := repo.Show("roleout/status", "web/status.yaml"); got != "phase: Failed\n" {
		t.Errorf("a refused commit wrote %q", got)
	}
	b.Close()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("clones left in the temporary directory: %v", left)
	}
}

// TestStatusBranchEntriesLimit lists more files under the app's folder
// than a read may take: the read is refused and names the limit.
func TestStatusBranchEntriesLimit(t *testing.T) {
	ctx := context.Background()
	srv, _ := testgit.Fixture(t, testgit.Options{})
	opts := Options{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "r@example.com"}
	files := map[string][]byte{}
	for _, n := range []string{"a", "b", "c", "d"} {
		files["web/revisions/"+n+".yaml"] = []byte(n)
	}
	if _, err := New(opts).Commit(ctx, files, "roleout: web"); err != nil {
		t.Fatal(err)
	}
	opts.Limits = sources.CheckoutLimits{MaxEntries: 3}
	var limit *LimitError
	if _, err := New(opts).Read(ctx, "web"); !errors.As(err, &limit) || limit.What != "entries" || !strings.Contains(err.Error(), "source.maxCheckoutEntries") {
		t.Errorf("four files under a limit of three: %v, want a LimitError on entries", err)
	}
	opts.Limits = sources.CheckoutLimits{MaxEntries: 4}
	if r, err := New(opts).Read(ctx, "web"); err != nil || len(r.Files) != 4 {
		t.Errorf("four files under a limit of four: %d files, %v", len(r.Files), err)
	}
}

// TestIndexPack indexes a pack git made with deltas (similar files, one
// made on another) and gets git's own index: every object's hash, offset
// and CRC. Under a bound smaller than the objects its deltas make, the
// same pack is refused before a delta is applied.
func TestIndexPack(t *testing.T) {
	_, repo := testgit.Fixture(t, testgit.Options{})
	block := make([]byte, 256<<10)
	_, _ = rand.Read(block)
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("web/revisions/r%d.yaml", i)] = string(block) + strings.Repeat("x", i+1)
	}
	repo.MustCommit(t, "roleout/status", "similar files", files)
	pack := gitPack(t, repo.BarePath())
	f, err := os.Open(pack)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, idx, err := indexPack(f, "roleout/status", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(pack), "pack-"), ".pack"); sum.String() != want {
		t.Errorf("checksum %s, want %s", sum, want)
	}
	got, want := indexEntries(t, idx), gitIndexEntries(t, strings.TrimSuffix(pack, ".pack")+".idx")
	if diff := cmp.Diff(want, got); diff != "" || len(got) < 9 {
		t.Errorf("index of %d objects differs from git's (-git +ours)\n%s", len(got), diff)
	}
	var limit *LimitError
	if _, _, err := indexPack(f, "roleout/status", 128<<10); !errors.As(err, &limit) || !strings.Contains(limit.At, "an object made from a delta") {
		t.Errorf("deltas making 256 KiB objects under a 128 KiB bound: %v, want a LimitError", err)
	}
}

// gitPack repacks the bare repository at dir into one pack, deltas
// allowed, and returns its path.
func gitPack(t *testing.T, dir string) string {
	t.Helper()
	if out, err := exec.Command("git", "-C", dir, "repack", "-adf", "--window=10").CombinedOutput(); err != nil {
		t.Fatalf("git repack: %v\n%s", err, out)
	}
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs after git repack: %v", packs)
	}
	return packs[0]
}

// indexEntries returns an index's entries as "hash offset crc".
func indexEntries(t *testing.T, idx *idxfile.MemoryIndex) []string {
	t.Helper()
	it, err := idx.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		e, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %08x", e.Hash, e.Offset, e.CRC32))
	}
	sort.Strings(out)
	return out
}

// gitIndexEntries decodes the index file git wrote.
func gitIndexEntries(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(f).Decode(idx); err != nil {
		t.Fatal(err)
	}
	return indexEntries(t, idx)
}

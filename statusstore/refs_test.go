package statusstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"
)

// TestSetReferenceIsAtomic writes a ref through the store: the file holds
// the new hash and nothing else is left in its folder; a check against
// an old hash that is no longer there is refused and changes nothing.
func TestSetReferenceIsAtomic(t *testing.T) {
	s := newStatusStoreIn(t.TempDir(), "roleout/status", 1<<20)
	name := plumbing.NewBranchReferenceName("roleout/status")
	first := plumbing.NewHashReference(name, plumbing.NewHash("1111111111111111111111111111111111111111"))
	second := plumbing.NewHashReference(name, plumbing.NewHash("2222222222222222222222222222222222222222"))
	if err := s.CheckAndSetReference(first, second); err != nil {
		t.Fatalf("check against a ref that does not exist yet: %v", err)
	}
	if err := s.CheckAndSetReference(second, first); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckAndSetReference(first, first); !errors.Is(err, storage.ErrReferenceHasChanged) {
		t.Errorf("check against a stale hash = %v, want %v", err, storage.ErrReferenceHasChanged)
	}
	got, err := s.Reference(name)
	if err != nil || got.Hash() != second.Hash() {
		t.Fatalf("ref = %v, %v; want %s", got, err, second.Hash())
	}
	dir := filepath.Join(s.dir, "refs", "heads", "roleout")
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "status" {
		t.Errorf("%s holds %v (%v), want only the ref", dir, entries, err)
	}
	if err := s.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, name)); err != nil {
		t.Fatal(err)
	}
	if head, err := s.Reference(plumbing.HEAD); err != nil || head.Target() != name {
		t.Errorf("HEAD = %v, %v", head, err)
	}
	if err := s.SetReference(plumbing.NewHashReference("refs/heads/../x", second.Hash())); err == nil {
		t.Error("a ref name with .. was written")
	}
}

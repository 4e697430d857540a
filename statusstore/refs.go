package statusstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// A local copy outlives the process that wrote it, and a process can be
// killed at any instruction. go-git writes a ref by truncating its file
// and then writing the hash, so a kill between the two leaves an empty
// ref that every later fetch trips on. The store writes refs as git
// does: the new content into a file of its own beside the ref, then a
// rename over it, so that a ref is always the old hash or the new one.
// A copy damaged before this (or by anything else) is found by damaged
// and fetched anew.

// SetReference writes ref atomically.
func (s *statusStore) SetReference(ref *plumbing.Reference) error {
	return s.setReference(ref, nil)
}

// CheckAndSetReference writes ref atomically when the stored ref is still
// old (or does not exist); else it returns storage.ErrReferenceHasChanged.
// One process uses a copy at a time (its directory's lock) and every use
// holds the copy's mutex, so the check and the write do not race.
func (s *statusStore) CheckAndSetReference(ref, old *plumbing.Reference) error {
	return s.setReference(ref, old)
}

func (s *statusStore) setReference(ref, old *plumbing.Reference) error {
	if err := ref.Name().Validate(); err != nil {
		return err
	}
	if old != nil {
		cur, err := s.Storage.Reference(old.Name())
		switch {
		case errors.Is(err, plumbing.ErrReferenceNotFound):
		case err != nil:
			return err
		case cur.Hash() != old.Hash():
			return storage.ErrReferenceHasChanged
		}
	}
	var content string
	switch ref.Type() {
	case plumbing.SymbolicReference:
		content = fmt.Sprintf("ref: %s\n", ref.Target())
	case plumbing.HashReference:
		content = ref.Hash().String() + "\n"
	default:
		return fmt.Errorf("reference %s has no target", ref.Name())
	}
	path := filepath.Join(s.dir, filepath.FromSlash(ref.Name().String()))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".ref-")
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// emptyRef reports whether err is a ref file found empty: what a process
// killed in go-git's ref write leaves.
func emptyRef(err error) bool {
	return errors.Is(err, dotgit.ErrEmptyRefFile)
}

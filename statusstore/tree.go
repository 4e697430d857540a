package statusstore

import (
	"github.com/roleout/roleout/sources"

	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// The status branch is untrusted input (whoever can push to the source
// repository can push to it), so it is read the way a checkout is: on
// disk, never in memory as a whole, and bounded. A clone keeps its
// objects in a temporary directory (statusStore) and has no work tree; a
// read walks only the trees down to the folder asked for and inflates a
// blob only after its size, read from its header, fits what is left of
// the read's budget (treeReader); a commit builds its trees directly on
// the trusted tree (treeEdit). A large file pushed to the branch costs
// disk up to the fetch bound and no memory unless it is read.

// LimitError is a status branch over one of its read's limits:
// nothing of it is read and nothing is written on top of it.
type LimitError struct {
	Branch string
	What   string // "bytes" or "entries"
	Limit  int64
	At     string // what passed the limit: a path, or "the fetched objects"
}

func (e *LimitError) Error() string {
	field := "source.maxCheckoutBytes"
	if e.What == "entries" {
		field = "source.maxCheckoutEntries"
	}
	return fmt.Sprintf("status branch %s holds more than %d %s (at %s): refused, nothing read or written; "+
		"the branch holds only this agent's records, so remove what was pushed there, or raise %s if the records are meant to be this large",
		e.Branch, e.Limit, e.What, e.At, field)
}

// statusStore is the object storage of one clone of the status branch:
// a temporary directory whose fetched objects are bounded as they arrive
// (PackfileWriter) and whose large objects are read lazily.
type statusStore struct {
	*filesystem.Storage
	dir    string
	branch string
	// max bounds the bytes fetched; maxObject the size of an object
	// resolved from a delta, the only kind held in memory while a pack is
	// indexed.
	max, maxObject int64
}

// newStatusStore makes a storage in a new directory under tmp ("" for the
// system's).
func newStatusStore(tmp, branch string, max int64) (*statusStore, error) {
	dir, err := os.MkdirTemp(tmp, "roleout-status-")
	if err != nil {
		return nil, fmt.Errorf("make a directory for the status branch: %w", err)
	}
	return newStatusStoreIn(dir, branch, max), nil
}

// newStatusStoreIn makes a storage in dir.
func newStatusStoreIn(dir, branch string, max int64) *statusStore {
	st := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(8*cache.MiByte),
		filesystem.Options{LargeObjectThreshold: 1 << 20})
	return &statusStore{Storage: st, dir: dir, branch: branch, max: max, maxObject: max / 8}
}

// remove deletes the storage's directory.
func (s *statusStore) remove() {
	if s != nil {
		_ = os.RemoveAll(s.dir)
	}
}

// PackfileWriter receives a fetched pack: bounded to max bytes, and
// indexed without holding its objects (pack.go).
func (s *statusStore) PackfileWriter() (io.WriteCloser, error) {
	return newIncomingPack(s)
}

// treeReader reads trees and blobs of a statusStore within a budget of
// bytes (distinct objects) and entries (files read).
type treeReader struct {
	store   *statusStore
	lim     sources.CheckoutLimits
	bytes   int64
	entries int
	read    map[plumbing.Hash][]byte
}

func newTreeReader(s *statusStore, lim sources.CheckoutLimits) *treeReader {
	return &treeReader{store: s, lim: lim.WithDefaults(), read: map[plumbing.Hash][]byte{}}
}

// object returns the content of object h of type t, read at path at, once
// its size fits the budget; an object read before costs nothing again.
func (r *treeReader) object(t plumbing.ObjectType, h plumbing.Hash, at string) ([]byte, error) {
	if data, ok := r.read[h]; ok {
		return data, nil
	}
	size, err := r.store.EncodedObjectSize(h)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", at, err)
	}
	if r.bytes += size; r.bytes > r.lim.MaxBytes {
		return nil, &LimitError{Branch: r.store.branch, What: "bytes", Limit: r.lim.MaxBytes, At: at}
	}
	o, err := r.store.EncodedObject(t, h)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", at, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", at, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, size))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", at, err)
	}
	r.read[h] = data
	return data, nil
}

// tree returns tree h, read at path at.
func (r *treeReader) tree(h plumbing.Hash, at string) (*object.Tree, error) {
	data, err := r.object(plumbing.TreeObject, h, at)
	if err != nil {
		return nil, err
	}
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.TreeObject)
	if _, err := o.Write(data); err != nil {
		return nil, err
	}
	t := &object.Tree{}
	if err := t.Decode(o); err != nil {
		return nil, fmt.Errorf("read tree %s: %w", at, err)
	}
	return t, nil
}

// subtree returns the tree at dir (slash-separated) below root, nil when
// there is none.
func (r *treeReader) subtree(root plumbing.Hash, dir string) (*object.Tree, error) {
	t, err := r.tree(root, "/")
	if err != nil {
		return nil, err
	}
	at := ""
	for _, name := range splitPath(dir) {
		at = path.Join(at, name)
		e, ok := entry(t, name)
		if !ok || e.Mode != filemode.Dir {
			return nil, nil
		}
		if t, err = r.tree(e.Hash, at); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// files reads every regular file of t, at rel, into out by path.
func (r *treeReader) files(t *object.Tree, rel string, out map[string][]byte) error {
	for _, e := range t.Entries {
		p := path.Join(rel, e.Name)
		switch {
		case e.Mode == filemode.Dir:
			sub, err := r.tree(e.Hash, p)
			if err != nil {
				return err
			}
			if err := r.files(sub, p, out); err != nil {
				return err
			}
		case e.Mode == filemode.Regular || e.Mode == filemode.Executable:
			if r.entries++; r.entries > r.lim.MaxEntries {
				return &LimitError{Branch: r.store.branch, What: "entries", Limit: int64(r.lim.MaxEntries), At: p}
			}
			data, err := r.object(plumbing.BlobObject, e.Hash, p)
			if err != nil {
				return err
			}
			out[p] = data
		}
	}
	return nil
}

// file returns the content of the regular file at name below root, and
// false when there is none.
func (r *treeReader) file(root plumbing.Hash, name string) ([]byte, bool, error) {
	t, err := r.subtree(root, path.Dir(path.Clean("/"+name)))
	if err != nil || t == nil {
		return nil, false, err
	}
	e, ok := entry(t, path.Base(name))
	if !ok || e.Mode != filemode.Regular && e.Mode != filemode.Executable {
		return nil, false, nil
	}
	data, err := r.object(plumbing.BlobObject, e.Hash, name)
	return data, err == nil, err
}

// entry returns t's entry called name.
func entry(t *object.Tree, name string) (object.TreeEntry, bool) {
	for _, e := range t.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return object.TreeEntry{}, false
}

// splitPath returns the names of a slash-separated path, none for the
// root.
func splitPath(p string) []string {
	p = strings.Trim(path.Clean("/"+p), "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// treeEdit is a set of changes to one tree: files written (nil content
// deletes) and edits of subtrees, by name.
type treeEdit struct {
	files map[string][]byte
	dirs  map[string]*treeEdit
}

// newTreeEdit groups files (slash-separated path → content) by folder.
func newTreeEdit(files map[string][]byte) (*treeEdit, error) {
	root := &treeEdit{files: map[string][]byte{}, dirs: map[string]*treeEdit{}}
	for name, content := range files {
		names := splitPath(name)
		if len(names) == 0 {
			return nil, fmt.Errorf("status file %q: not a file path", name)
		}
		e := root
		for _, dir := range names[:len(names)-1] {
			if e.dirs[dir] == nil {
				e.dirs[dir] = &treeEdit{files: map[string][]byte{}, dirs: map[string]*treeEdit{}}
			}
			e = e.dirs[dir]
		}
		e.files[names[len(names)-1]] = content
	}
	return root, nil
}

// apply writes the tree that is base (nil for none) with the edit made,
// and returns its hash; zero when it holds nothing.
func (e *treeEdit) apply(r *treeReader, base *object.Tree, at string) (plumbing.Hash, error) {
	entries := map[string]object.TreeEntry{}
	if base != nil {
		for _, en := range base.Entries {
			entries[en.Name] = en
		}
	}
	for name, content := range e.files {
		if content == nil {
			if en, ok := entries[name]; ok && en.Mode != filemode.Dir {
				delete(entries, name)
			}
			continue
		}
		h, err := writeObject(r.store, plumbing.BlobObject, content)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h}
	}
	for name, sub := range e.dirs {
		p := path.Join(at, name)
		var subBase *object.Tree
		if en, ok := entries[name]; ok && en.Mode == filemode.Dir {
			t, err := r.tree(en.Hash, p)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			subBase = t
		}
		h, err := sub.apply(r, subBase, p)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h.IsZero() {
			delete(entries, name)
			continue
		}
		entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	return writeTree(r.store, entries)
}

// writeTree stores a tree of entries in git's order (a folder sorts as
// its name with a trailing slash).
func writeTree(s *statusStore, entries map[string]object.TreeEntry) (plumbing.Hash, error) {
	t := &object.Tree{Entries: make([]object.TreeEntry, 0, len(entries))}
	for _, e := range entries {
		t.Entries = append(t.Entries, e)
	}
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(t.Entries, func(i, j int) bool { return key(t.Entries[i]) < key(t.Entries[j]) })
	o := s.NewEncodedObject()
	if err := t.Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(o)
}

// writeObject stores content as an object of type t.
func writeObject(s *statusStore, t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	o := s.NewEncodedObject()
	o.SetType(t)
	w, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(content); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(o)
}

// emptyTree returns the hash of the tree that holds nothing, stored.
func emptyTree(s *statusStore) (plumbing.Hash, error) {
	return writeTree(s, nil)
}

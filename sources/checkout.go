package sources

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// checkout writes the tree of commit into dir, atomically: the files go
// to a temporary directory that is renamed into place when complete.
// A file whose blob and mode are the same as in prev (the snapshot
// checked out before, or a zero Snapshot) is a hard link to prev's copy,
// so a commit that changes one file of a large tree reads and writes
// one blob. Snapshots are read-only, which makes the sharing safe.
// Symlinks are written as symlinks; whether one may be followed is the
// renderer's decision.
//
// A checkout is bounded (docs/design.md, "Every untrusted input has a
// size"): lim's entries and bytes written, each blob's size read from its
// header before it is inflated. One blob under many paths is written
// once and linked to the others, so it costs its size once.
func checkout(repo *git.Repository, commit plumbing.Hash, dir string, prev Snapshot, lim CheckoutLimits) error {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return fmt.Errorf("read commit %s: %w", commit, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return fmt.Errorf("read tree of %s: %w", commit, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".checkout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	w := treeWriter{repo: repo, root: tmp, prev: prev, lim: lim.WithDefaults(), written: map[writtenKey]string{}}
	if err := w.writeTree(tree, ""); err != nil {
		return fmt.Errorf("check out %s: %w", commit, err)
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(dir); statErr != nil {
			return err
		}
	}
	return nil
}

// CheckoutLimits bound one checkout; zero takes the default.
type CheckoutLimits struct {
	// MaxBytes bounds the bytes written (default 512 MiB).
	MaxBytes int64
	// MaxEntries bounds the files, links and directories (default 100,000).
	MaxEntries int
}

// WithDefaults fills the zero limits.
func (l CheckoutLimits) WithDefaults() CheckoutLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = 512 << 20
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = 100_000
	}
	return l
}

// CheckoutLimitError is a tree over its checkout's limits: nothing of it
// is handed on.
type CheckoutLimitError struct {
	What  string // "bytes" or "entries"
	Limit int64
	At    string // the path where the limit was passed
}

func (e *CheckoutLimitError) Error() string {
	field := "source.maxCheckoutBytes"
	if e.What == "entries" {
		field = "source.maxCheckoutEntries"
	}
	return fmt.Sprintf("the tree holds more than %d %s (at %s): refused, nothing checked out; raise %s if the repository is meant to be this large",
		e.Limit, e.What, e.At, field)
}

// writtenKey names a written file's content: its blob and mode.
type writtenKey struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// treeWriter writes a tree's files under root.
type treeWriter struct {
	repo *git.Repository
	root string
	prev Snapshot
	lim  CheckoutLimits
	// entries and bytes are what was written so far; written maps each
	// blob written to the path of its copy.
	entries int
	bytes   int64
	written map[writtenKey]string
}

// count adds one entry of n bytes at rel, or returns the limit it passes.
func (w *treeWriter) count(rel string, n int64) error {
	w.entries++
	w.bytes += n
	if w.entries > w.lim.MaxEntries {
		return &CheckoutLimitError{What: "entries", Limit: int64(w.lim.MaxEntries), At: rel}
	}
	if w.bytes > w.lim.MaxBytes {
		return &CheckoutLimitError{What: "bytes", Limit: w.lim.MaxBytes, At: rel}
	}
	return nil
}

// writeTree writes tree t, at rel (slash-separated; "" for the root).
func (w *treeWriter) writeTree(t *object.Tree, rel string) error {
	for _, e := range t.Entries {
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.ContainsAny(e.Name, `/\`) {
			return fmt.Errorf("tree %s holds the unsafe name %q", rel, e.Name)
		}
		p := path.Join(rel, e.Name)
		if err := w.count(p, 0); err != nil {
			return err
		}
		switch e.Mode {
		case filemode.Dir:
			sub, err := w.repo.TreeObject(e.Hash)
			if err != nil {
				return fmt.Errorf("read tree %s: %w", p, err)
			}
			if err := os.Mkdir(w.path(p), 0o755); err != nil {
				return err
			}
			if err := w.writeTree(sub, p); err != nil {
				return err
			}
		case filemode.Submodule:
			// A submodule's commit is not in this repository.
		default:
			if err := w.writeFile(p, e); err != nil {
				return fmt.Errorf("write %s: %w", p, err)
			}
		}
	}
	return nil
}

func (w *treeWriter) path(rel string) string { return filepath.Join(w.root, filepath.FromSlash(rel)) }

// writeFile writes the blob of entry e at rel, or links the previous
// snapshot's copy when it has the same blob and mode.
func (w *treeWriter) writeFile(rel string, e object.TreeEntry) error {
	dst := w.path(rel)
	if src, ok := w.reusable(rel, e); ok && os.Link(src, dst) == nil {
		return nil
	}
	key := writtenKey{e.Hash, e.Mode}
	if src, ok := w.written[key]; ok && e.Mode != filemode.Symlink && os.Link(src, dst) == nil {
		return nil
	}
	blob, err := w.repo.BlobObject(e.Hash)
	if err != nil {
		return err
	}
	if err := w.count(rel, blob.Size); err != nil {
		return err
	}
	w.entries-- // counted by writeTree
	w.written[key] = dst
	r, err := blob.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	if e.Mode == filemode.Symlink {
		target, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		return os.Symlink(string(target), dst)
	}
	perm := os.FileMode(0o644)
	if e.Mode == filemode.Executable {
		perm = 0o755
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// reusable returns the previous snapshot's copy of rel when it holds the
// same blob as e with the same mode: a regular file, executable or not
// as e is.
func (w *treeWriter) reusable(rel string, e object.TreeEntry) (string, bool) {
	if w.prev.Dir == "" || e.Mode == filemode.Symlink {
		return "", false
	}
	if h, ok := w.prev.Index.Hash(rel); !ok || h != e.Hash.String() {
		return "", false
	}
	src := filepath.Join(w.prev.Dir, filepath.FromSlash(rel))
	fi, err := os.Lstat(src)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return src, (fi.Mode().Perm()&0o111 != 0) == (e.Mode == filemode.Executable)
}

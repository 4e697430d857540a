package render

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// repoFS is the read-only file system a render sees: the repository's
// checkout and nothing outside it. Every path is resolved through
// symlinks and refused when it leaves the root (or, for an allowed remote
// base, kustomize's own clone directory). It enforces the render's limits
// on bytes read and time, and records every path it was asked about, so
// the render can be cached by the git hashes of exactly its inputs.
type repoFS struct {
	root   string // absolute, symlinks resolved
	disk   filesys.FileSystem
	limits Limits
	// clones is where kustomize clones remote bases; reads there are
	// allowed only when a remote base is.
	clones    string
	bytesRead int64
	// docs counts the YAML documents read, to stop a render that would
	// produce more than MaxObjects objects before kustomize spends
	// time on them.
	docs int
	// inputs are the paths (relative to root, slash-separated) the render
	// touched: read, listed or checked for existence, and every symlink
	// passed through on the way, so that retargeting one changes the
	// render's inputs.
	inputs map[string]bool
	// external is set when the render reads outside the repository (an
	// allowed remote base or file); such a render is never cached.
	external bool
	// customSchema is set when a kustomization of the render gives an
	// OpenAPI schema of its own (its openapi field), which a warm sandbox
	// process must not build with (spare.go).
	customSchema bool
	// origins, when set, is the overlay's directory (resolved): its
	// kustomization file is served asking for origin annotations
	// (origin.go). userOrigins says that file asked for them itself.
	origins     string
	userOrigins bool
	// pulled, when set, is where this render's helm pulls charts
	// (helm.go): a path of the repository that does not exist is served
	// from the same path under pulled, when it exists there.
	pulled string
}

var _ filesys.FileSystem = (*repoFS)(nil)

func newRepoFS(root string, limits Limits, allowClones bool) (*repoFS, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, err
	}
	fs := &repoFS{root: abs, disk: filesys.MakeFsOnDisk(), limits: limits, inputs: map[string]bool{}}
	if allowClones {
		if fs.clones, err = filepath.EvalSymlinks(os.TempDir()); err != nil {
			return nil, err
		}
	}
	return fs, nil
}

// errOutside is the error for a path that leaves the repository.
type errOutside struct{ path string }

func (e *errOutside) Error() string {
	return fmt.Sprintf("%s is outside the repository: a render may only read files inside it", e.path)
}

// check resolves path (through symlinks, as far as it exists) and returns
// the resolved absolute path when it lies inside the repository. It
// records the path, and the symlinks passed, as inputs.
func (fs *repoFS) check(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	resolved := fs.resolve(abs)
	if rel, ok := fs.rel(resolved); ok {
		if p, ok := fs.pulledChart(resolved, rel); ok {
			return p, nil
		}
		fs.inputs[rel] = true
		return resolved, nil
	}
	if fs.clones != "" && within(fs.clones, resolved) && strings.Contains(resolved, "kustomize-") {
		fs.external = true
		return resolved, nil
	}
	return "", &errOutside{path: fs.display(abs)}
}

// pulledChart returns where a chart this render pulled serves resolved
// (rel in the repository), when the repository has nothing there. Pulled
// charts hold only what helm's untar wrote: files and directories.
func (fs *repoFS) pulledChart(resolved, rel string) (string, bool) {
	if fs.pulled == "" {
		return "", false
	}
	if _, err := os.Lstat(resolved); err == nil {
		return "", false
	}
	p := filepath.Join(fs.pulled, filepath.FromSlash(rel))
	if _, err := os.Lstat(p); err != nil {
		return "", false
	}
	fs.external = true
	return p, true
}

// rel returns p relative to the root, slash-separated ("" for the root),
// when p is inside it.
func (fs *repoFS) rel(p string) (string, bool) {
	if !within(fs.root, p) {
		return "", false
	}
	r, err := filepath.Rel(fs.root, p)
	if err != nil {
		return "", false
	}
	if r == "." {
		r = ""
	}
	return filepath.ToSlash(r), true
}

// display shows p relative to the root when it can, so that errors never
// show the cache directory.
func (fs *repoFS) display(p string) string {
	if r, err := filepath.Rel(fs.root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// maxLinks is how many symlinks one path may pass through, as Linux's
// own limit.
const maxLinks = 40

// resolve resolves symlinks in the longest existing prefix of p (an
// absolute path), component by component as the kernel does, appends the
// rest unchanged, and records every symlink inside the repository it
// passes as an input. Past maxLinks it stops resolving; the access then
// fails.
func (fs *repoFS) resolve(p string) string {
	todo := strings.Split(filepath.Clean(p), string(filepath.Separator))
	cur, links := string(filepath.Separator), 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		info, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, todo...)...)
		}
		if info.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if rel, ok := fs.rel(next); ok {
			fs.inputs[rel] = true
		}
		target, err := os.Readlink(next)
		if links++; err != nil || links > maxLinks {
			return filepath.Join(append([]string{next}, todo...)...)
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		todo = append(strings.Split(target, string(filepath.Separator)), todo...)
	}
	return cur
}

func (fs *repoFS) readOnly(path string) error {
	return fmt.Errorf("%s: the render's file system is read-only", fs.display(path))
}

// Create refuses: renders do not write.
func (fs *repoFS) Create(path string) (filesys.File, error) { return nil, fs.readOnly(path) }

// Mkdir refuses: renders do not write.
func (fs *repoFS) Mkdir(path string) error { return fs.readOnly(path) }

// MkdirAll refuses: renders do not write.
func (fs *repoFS) MkdirAll(path string) error { return fs.readOnly(path) }

// RemoveAll removes only kustomize's own clone directories.
func (fs *repoFS) RemoveAll(path string) error {
	if fs.clones != "" && within(fs.clones, fs.resolve(path)) && strings.Contains(path, "kustomize-") {
		return fs.disk.RemoveAll(path)
	}
	return fs.readOnly(path)
}

// WriteFile refuses: renders do not write.
func (fs *repoFS) WriteFile(path string, _ []byte) error { return fs.readOnly(path) }

// Open opens a file inside the repository.
func (fs *repoFS) Open(path string) (filesys.File, error) {
	p, err := fs.check(path)
	if err != nil {
		return nil, err
	}
	if err := fs.account(p); err != nil {
		return nil, err
	}
	return fs.disk.Open(p)
}

// ReadFile reads a file inside the repository, within the byte limits.
func (fs *repoFS) ReadFile(path string) ([]byte, error) {
	p, err := fs.check(path)
	if err != nil {
		return nil, err
	}
	if err := fs.account(p); err != nil {
		return nil, err
	}
	data, err := fs.disk.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if !isKustomization(p) {
		fs.docs += countDocuments(data)
	}
	data = fs.serveKustomization(path, data)
	if max := fs.limits.MaxObjects; max > 0 && fs.docs > max {
		return nil, fmt.Errorf("render reads more than %d YAML documents, at %s (limit maxObjects)", max, fs.display(p))
	}
	return data, nil
}

func isKustomization(p string) bool {
	base := filepath.Base(p)
	for _, k := range KustomizationFiles {
		if base == k {
			return true
		}
	}
	return false
}

// countDocuments returns how many YAML documents data holds: one, plus
// one per "---" separator line.
func countDocuments(data []byte) int {
	n := 1
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if t := bytes.TrimSpace(line); bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- ")) {
			n++
		}
	}
	return n
}

// account adds a file's size to the bytes read and enforces the limits.
func (fs *repoFS) account(p string) error {
	info, err := os.Stat(p)
	if err != nil || info.IsDir() {
		return nil // the read itself reports it
	}
	if max := fs.limits.MaxFileBytes; max > 0 && info.Size() > max {
		return fmt.Errorf("%s is %d bytes, over the limit of %d bytes per file (limit maxFileBytes)", fs.display(p), info.Size(), max)
	}
	fs.bytesRead += info.Size()
	if max := fs.limits.MaxBytes; max > 0 && fs.bytesRead > max {
		return fmt.Errorf("render read more than %d bytes (limit maxBytes), at %s", max, fs.display(p))
	}
	return nil
}

// IsDir reports whether path is a directory inside the repository.
func (fs *repoFS) IsDir(path string) bool {
	p, err := fs.check(path)
	return err == nil && fs.disk.IsDir(p)
}

// ReadDir lists a directory inside the repository.
func (fs *repoFS) ReadDir(path string) ([]string, error) {
	p, err := fs.check(path)
	if err != nil {
		return nil, err
	}
	return fs.disk.ReadDir(p)
}

// CleanedAbs cleans path and confirms it is inside the repository.
func (fs *repoFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	p, err := fs.check(path)
	if err != nil {
		return "", "", err
	}
	return fs.disk.CleanedAbs(p)
}

// Exists reports whether path exists inside the repository.
func (fs *repoFS) Exists(path string) bool {
	p, err := fs.check(path)
	return err == nil && fs.disk.Exists(p)
}

// Glob returns the matches of pattern that lie inside the repository.
func (fs *repoFS) Glob(pattern string) ([]string, error) {
	if _, err := fs.check(filepath.Dir(pattern)); err != nil {
		return nil, err
	}
	matches, err := fs.disk.Glob(pattern)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		if _, err := fs.check(m); err == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// Walk walks a directory inside the repository, refusing entries that
// resolve outside it.
func (fs *repoFS) Walk(path string, walkFn filepath.WalkFunc) error {
	p, err := fs.check(path)
	if err != nil {
		return err
	}
	return fs.disk.Walk(p, func(q string, info os.FileInfo, err error) error {
		if err == nil {
			_, err = fs.check(q)
		}
		return walkFn(q, info, err)
	})
}

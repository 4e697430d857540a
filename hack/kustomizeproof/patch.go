package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The patch is roleout's change to the release as a unified diff (git's
// format), kept beside the tree it makes: third_party/kustomize-api.patch.
// The tree is what roleout builds; the patch is what a move to a new
// release applies.

// patchFile returns the patch's path beside fork.
func patchFile(fork string) string {
	return filepath.Clean(fork) + ".patch"
}

// makePatch returns the diff that turns the tree at stock into the tree
// at fork, every changed, added and removed file in git's format with
// paths relative to the module's root.
func makePatch(stock, fork string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "kustomize-patch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// git diff --no-index names files by the paths it is given: copies
	// named a and b, with no prefixes, give a/<path> and b/<path>.
	if err := copyTree(stock, filepath.Join(tmp, "a")); err != nil {
		return nil, err
	}
	if err := copyTree(fork, filepath.Join(tmp, "b")); err != nil {
		return nil, err
	}
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "--no-ext-diff", "--binary", "--full-index",
		"--src-prefix=", "--dst-prefix=", "a", "b")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// git diff --no-index exits 1 when the trees differ.
	if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("git diff: %w: %s", err, stderr.String())
	}
	return out, nil
}

// applyPatch copies the release at stock to into (which must not exist)
// and applies patch there. Hunks that do not apply are left beside their
// files as .rej files and named in the error, with the rest applied.
func applyPatch(stock, patch, into string) error {
	if _, err := os.Stat(into); err == nil {
		return fmt.Errorf("%s exists: name a directory to create", into)
	}
	if err := copyTree(stock, into); err != nil {
		return err
	}
	abs, err := filepath.Abs(patch)
	if err != nil {
		return err
	}
	cmd := exec.Command("git", "apply", "--reject", "--whitespace=nowarn", "-p1", abs)
	cmd.Dir = into
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CEILING_DIRECTORIES="+filepath.Dir(into))
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	var rejected []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Rejected hunk") || strings.HasPrefix(line, "error:") {
			rejected = append(rejected, line)
		}
	}
	return fmt.Errorf("the patch does not apply whole to %s (%v); the rest is applied, each rejected hunk is in a .rej file beside its file:\n  %s",
		into, err, strings.Join(rejected, "\n  "))
}

// copyTree copies the regular files under src to dst, writable (the
// module cache's are not).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// checkPatch checks that the release at stock with the patch beside fork
// applied is fork, byte for byte, file for file.
func checkPatch(stock, fork string) error {
	patch := patchFile(fork)
	tmp, err := os.MkdirTemp("", "kustomize-applied-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	applied := filepath.Join(tmp, "api")
	if err := applyPatch(stock, patch, applied); err != nil {
		return fmt.Errorf("%s: %w", patch, err)
	}
	diff, err := changedFiles(applied, fork)
	if err != nil {
		return err
	}
	if len(diff) > 0 {
		return fmt.Errorf("the release with %s applied differs from %s in %s: run `make kustomize-patch-write` after changing the tree", patch, fork, strings.Join(diff, ", "))
	}
	return nil
}

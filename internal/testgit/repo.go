package testgit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Repo is a fixture repository: a bare repository the server serves and a
// work tree next to it where commits are made and pushed (over the file
// system, so fixture setup never shows in the request counts).
type Repo struct {
	// Name is the repository's name without .git.
	Name string

	server *Server
	bare   string
	work   string
	home   string
}

// NewRepo creates an empty bare repository name.git that accepts pushes
// over HTTP, and its fixture work tree.
func (s *Server) NewRepo(name string) (*Repo, error) {
	name = strings.TrimSuffix(name, ".git")
	r := &Repo{
		Name:   name,
		server: s,
		bare:   s.barePath(name),
		work:   filepath.Join(s.Root, ".work", name),
		home:   filepath.Join(s.Root, ".home"),
	}
	if err := os.MkdirAll(r.home, 0o755); err != nil {
		return nil, err
	}
	steps := [][]string{
		{"init", "-q", "--bare", "-b", "main", r.bare},
		{"-C", r.bare, "config", "http.receivepack", "true"},
		{"init", "-q", "-b", "main", r.work},
		{"-C", r.work, "remote", "add", "origin", r.bare},
	}
	for _, args := range steps {
		if _, err := r.git(args...); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// URL returns the repository's HTTP URL.
func (r *Repo) URL() string { return r.server.RepoURL(r.Name) }

// BarePath returns the directory of the bare repository.
func (r *Repo) BarePath() string { return r.bare }

// Commit writes files (path → content, relative to the repository root)
// on top of branch, commits them with message msg and pushes the branch.
// A branch that does not exist yet starts empty. It returns the new
// commit's hash.
func (r *Repo) Commit(branch, msg string, files map[string]string) (string, error) {
	return r.change(branch, msg, nil, r.writeFiles(files))
}

// writeFiles returns an edit that writes files into the work tree.
func (r *Repo) writeFiles(files map[string]string) func() error {
	return func() error {
		paths := make([]string, 0, len(files))
		for p := range files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			full := filepath.Join(r.work, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(full, []byte(files[p]), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}

// CommitDir copies the files under dir (a fixture tree) onto branch at
// prefix (slash-separated, "" for the root) in one commit and pushes it.
func (r *Repo) CommitDir(branch, msg, dir, prefix string) (string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[path.Join(prefix, filepath.ToSlash(rel))] = string(data)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read fixture %s: %w", dir, err)
	}
	return r.Commit(branch, msg, files)
}

// Edit runs edit on the work tree (its directory is passed) checked out
// at branch, commits whatever it changed (modes and symlinks included)
// and pushes the branch.
func (r *Repo) Edit(branch, msg string, edit func(workTree string) error) (string, error) {
	return r.change(branch, msg, nil, func() error { return edit(r.work) })
}

// Delete removes paths from branch in one commit and pushes it.
func (r *Repo) Delete(branch, msg string, paths ...string) (string, error) {
	return r.change(branch, msg, nil, func() error {
		for _, p := range paths {
			if err := os.RemoveAll(filepath.Join(r.work, filepath.FromSlash(p))); err != nil {
				return err
			}
		}
		return nil
	})
}

// change edits the work tree on branch, commits (signed with key when
// it is not nil) and pushes.
func (r *Repo) change(branch, msg string, key *SigningKey, edit func() error) (string, error) {
	if err := r.checkout(branch); err != nil {
		return "", err
	}
	if err := edit(); err != nil {
		return "", fmt.Errorf("edit %s: %w", r.Name, err)
	}
	if _, err := r.git("-C", r.work, "add", "-A"); err != nil {
		return "", err
	}
	commit := []string{"-C", r.work, "commit", "-q", "--allow-empty", "-m", msg}
	var env []string
	if key != nil {
		commit = append(append(key.gitConfig(), commit...), "-S")
		env = key.env()
	}
	if _, err := r.gitEnv(env, commit...); err != nil {
		return "", err
	}
	if _, err := r.git("-C", r.work, "push", "-q", "-f", "origin", "HEAD:refs/heads/"+branch); err != nil {
		return "", err
	}
	return r.Rev("refs/heads/" + branch)
}

// checkout puts the work tree on branch as the bare repository has it, or
// on a new empty branch.
func (r *Repo) checkout(branch string) error {
	if _, err := r.git("-C", r.work, "fetch", "-q", "-f", "origin", "+refs/heads/*:refs/remotes/origin/*", "--prune"); err != nil {
		return err
	}
	if _, err := r.git("-C", r.work, "rev-parse", "-q", "--verify", "refs/remotes/origin/"+branch); err == nil {
		_, err := r.git("-C", r.work, "checkout", "-q", "-f", "-B", branch, "refs/remotes/origin/"+branch)
		if err == nil {
			_, err = r.git("-C", r.work, "clean", "-q", "-f", "-d", "-x")
		}
		return err
	}
	if _, err := r.git("-C", r.work, "checkout", "-q", "-f", "--orphan", branch); err != nil {
		return err
	}
	_, _ = r.git("-C", r.work, "rm", "-r", "-q", "-f", "--ignore-unmatch", ".")
	_, err := r.git("-C", r.work, "clean", "-q", "-f", "-d", "-x")
	return err
}

// Rev returns the commit hash that rev (a ref or hash) names in the bare
// repository.
func (r *Repo) Rev(rev string) (string, error) {
	out, err := r.git("-C", r.bare, "rev-parse", "--verify", rev+"^{commit}")
	return strings.TrimSpace(out), err
}

// SetRef points ref (for example refs/pull/7/head or refs/heads/main) at
// commit in the bare repository, as a forge or a force-push would.
func (r *Repo) SetRef(ref, commit string) error {
	_, err := r.git("-C", r.bare, "update-ref", ref, commit)
	return err
}

// DeleteRef removes ref from the bare repository.
func (r *Repo) DeleteRef(ref string) error {
	_, err := r.git("-C", r.bare, "update-ref", "-d", ref)
	return err
}

// Tag creates an annotated tag name at commit in the bare repository.
func (r *Repo) Tag(name, commit string) error {
	_, err := r.git("-C", r.bare, "tag", "-a", "-m", "tag "+name, name, commit)
	return err
}

// PullRequest points refs/pull/N/head at commit, as a forge does for pull
// request N.
func (r *Repo) PullRequest(n int, commit string) error {
	return r.SetRef(fmt.Sprintf("refs/pull/%d/head", n), commit)
}

// ForcePush rewrites branch: it commits files on top of parent (a commit
// of the branch's history, for example its first one) and moves the
// branch there, dropping the commits after parent.
func (r *Repo) ForcePush(branch, parent, msg string, files map[string]string) (string, error) {
	tmp := "roleout-forcepush-tmp"
	if err := r.SetRef("refs/heads/"+tmp, parent); err != nil {
		return "", err
	}
	commit, err := r.Commit(tmp, msg, files)
	if err != nil {
		return "", err
	}
	if err := r.SetRef("refs/heads/"+branch, commit); err != nil {
		return "", err
	}
	return commit, r.DeleteRef("refs/heads/" + tmp)
}

// Show returns the content of path at rev (for example
// "roleout/status:llm/status.yaml") in the bare repository.
func (r *Repo) Show(rev, path string) (string, error) {
	return r.git("-C", r.bare, "show", rev+":"+path)
}

// Grep returns the lines of every file at rev that contain text, as
// "rev:path:line".
func (r *Repo) Grep(rev, text string) ([]string, error) {
	out, err := r.git("-C", r.bare, "grep", "-F", "-e", text, rev)
	if err != nil && out == "" {
		return nil, nil // git grep exits 1 when nothing matches
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines, nil
}

// Log returns the subjects of the commits reachable from rev, newest
// first.
func (r *Repo) Log(rev string) ([]string, error) {
	out, err := r.git("-C", r.bare, "log", "--format=%s", rev)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(out, "\n"), "\n"), nil
}

// Messages returns the commits reachable from rev, newest first, each as
// its hash, a space and its whole message.
func (r *Repo) Messages(rev string) ([]string, error) {
	out, err := r.git("-C", r.bare, "log", "-z", "--format=%H %B", rev)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(out, "\x00"), "\x00"), nil
}

// git runs the git program with a fixed identity and no user or system
// configuration, and returns its standard output.
func (r *Repo) git(args ...string) (string, error) { return r.gitEnv(nil, args...) }

// gitEnv is git with extra environment variables.
func (r *Repo) gitEnv(env []string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
	cmd.Env = append(append(os.Environ(), env...),
		"HOME="+r.home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=roleout-fixture", "GIT_AUTHOR_EMAIL=fixture@roleout.dev",
		"GIT_COMMITTER_NAME=roleout-fixture", "GIT_COMMITTER_EMAIL=fixture@roleout.dev",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// MergeCommit makes, in the bare repository, an unsigned merge commit
// with first parent first and second parent second, holding second's
// tree, and moves branch to it: what a writer with push rights can push
// without a force-push.
func (r *Repo) MergeCommit(branch, first, second, msg string) (string, error) {
	out, err := r.git("-C", r.bare, "commit-tree", second+"^{tree}", "-p", first, "-p", second, "-m", msg)
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(out)
	return commit, r.SetRef("refs/heads/"+branch, commit)
}

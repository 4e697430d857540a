// Command initcorpus tries `roleout init` as a new user would on public
// repositories nobody on the project wrote: for each repository of a
// list (repository and commit, repos.tsv), it checks the commit out of a
// local copy of the repository into a git repository of its own, runs
// `roleout init` there, then `roleout plan --config --app` for every app
// init proposed, and checks the two promises of init:
//
//   - an app plans offline unless its needs say why not;
//   - no workload comes in a later wave than an object it needs (the
//     plan's order warnings).
//
// It prints one line per app and a table per repository, and exits 1 when
// a promise is broken.
//
//	go run ./hack/initcorpus -mirrors DIR [-roleout bin/roleout] [-only lws]
//
// DIR holds each repository as OWNER+NAME/repo, a git directory (a bare
// clone, or a snapshot whose files over some size are missing: those are
// left out of the checkout).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	list := flag.String("list", "hack/initcorpus/repos.tsv", "repositories: OWNER/NAME, a tab, the commit (then anything)")
	mirrors := flag.String("mirrors", os.Getenv("ROLEOUT_CORPUS_MIRRORS"), "directory of the repositories' git directories, as OWNER+NAME/repo")
	work := flag.String("work", "", "work directory (default: a new temporary one, removed at the end)")
	roleout := flag.String("roleout", "bin/roleout", "the roleout binary")
	only := flag.String("only", "", "only repositories whose name contains this")
	verbose := flag.Bool("v", false, "print each app's needs and warnings")
	flag.Parse()
	if *mirrors == "" {
		fatalf("-mirrors (or ROLEOUT_CORPUS_MIRRORS) is required: the directory of the repositories' git directories")
	}
	bin, err := filepath.Abs(*roleout)
	if err != nil {
		fatalf("%v", err)
	}
	repos, err := readList(*list)
	if err != nil {
		fatalf("%v", err)
	}
	dir := *work
	if dir == "" {
		if dir, err = os.MkdirTemp("", "initcorpus-"); err != nil {
			fatalf("%v", err)
		}
		defer os.RemoveAll(dir)
	}
	r := runner{bin: bin, work: dir, verbose: *verbose}
	var totals tally
	broken := false
	for _, repo := range repos {
		if *only != "" && !strings.Contains(repo.name, *only) {
			continue
		}
		t, err := r.try(repo, filepath.Join(*mirrors, strings.ReplaceAll(repo.name, "/", "+"), "repo"))
		if err != nil {
			fmt.Printf("%-45s error: %v\n", repo.name, err)
			broken = true
			continue
		}
		fmt.Printf("%-45s %s\n", repo.name, t)
		totals.add(t)
		broken = broken || t.broken > 0 || t.late > 0
	}
	fmt.Printf("%-45s %s\n", "total", totals)
	if broken {
		os.Exit(1)
	}
}

// repo is one line of the list.
type repo struct{ name, commit string }

func readList(path string) ([]repo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []repo
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 2 || len(f[1]) != 40 {
			return nil, fmt.Errorf("%s: %q is not OWNER/NAME, a tab and a 40-hex commit", path, line)
		}
		out = append(out, repo{f[0], f[1]})
	}
	return out, sc.Err()
}

// tally counts apps by outcome.
type tally struct {
	apps, planned, needs, broken, late, seconds int
}

func (t *tally) add(o tally) {
	t.apps += o.apps
	t.planned += o.planned
	t.needs += o.needs
	t.broken += o.broken
	t.late += o.late
	t.seconds += o.seconds
}

func (t tally) String() string {
	return fmt.Sprintf("%4d apps: %4d plan, %4d need something first (and say what), %d fail unexplained, %d with a late need (%ds)",
		t.apps, t.planned, t.needs, t.broken, t.late, t.seconds)
}

// runner runs roleout on checkouts under work.
type runner struct {
	bin, work string
	verbose   bool
}

// initApp is what init --output json says of one app.
type initApp struct {
	Name  string   `json:"name"`
	Needs []string `json:"needs"`
}

// try checks repo's commit out of gitDir, inits it and plans every app.
func (r runner) try(rp repo, gitDir string) (tally, error) {
	start := time.Now()
	tree := filepath.Join(r.work, strings.ReplaceAll(rp.name, "/", "+"))
	if err := checkout(gitDir, rp.commit, tree); err != nil {
		return tally{}, err
	}
	out, err := r.roleout(tree, "init", ".", "--output", "json")
	if err != nil {
		return tally{}, fmt.Errorf("roleout init: %w", err)
	}
	var res struct {
		Config string    `json:"config"`
		Apps   []initApp `json:"apps"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return tally{}, fmt.Errorf("roleout init --output json: %w", err)
	}
	cfg := filepath.Join(r.work, strings.ReplaceAll(rp.name, "/", "+")+".yaml")
	if err := os.WriteFile(cfg, []byte(res.Config), 0o644); err != nil {
		return tally{}, err
	}
	t := tally{apps: len(res.Apps)}
	for _, a := range res.Apps {
		plan, err := r.roleout(tree, "plan", "--config", cfg, "--app", a.Name, "--output", "json")
		var p struct {
			Warnings []string `json:"warnings"`
		}
		if err == nil {
			err = json.Unmarshal(plan, &p)
		}
		switch {
		case err == nil:
			t.planned++
		case len(a.Needs) > 0:
			t.needs++
		default:
			t.broken++
			fmt.Printf("  %s: plan fails and its needs are empty: %v\n", a.Name, err)
		}
		if len(p.Warnings) > 0 {
			t.late++
			for _, w := range p.Warnings {
				fmt.Printf("  %s: %s\n", a.Name, w)
			}
		}
		if r.verbose {
			for _, n := range a.Needs {
				fmt.Printf("  %s needs: %s\n", a.Name, n)
			}
		}
	}
	t.seconds = int(time.Since(start).Seconds())
	return t, nil
}

// roleout runs the binary in dir with a cache of the work directory's.
func (r runner) roleout(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command(r.bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(r.work, ".cache"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: %s", err, firstLine(stderr.String()))
	}
	return stdout.Bytes(), nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// checkout writes commit of gitDir into tree, a new git repository of one
// commit on main whose origin is itself: the files the snapshot lacks are
// left out.
func checkout(gitDir, commit, tree string) error {
	if _, err := os.Stat(tree); err == nil {
		if err := os.RemoveAll(tree); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return err
	}
	ls, err := gitEnv(gitDir, nil, nil, "ls-tree", "-r", "-z", commit)
	if err != nil {
		return err
	}
	var paths, shas []string
	for _, entry := range bytes.Split(ls, []byte{0}) {
		meta, p, ok := strings.Cut(string(entry), "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "blob" {
			paths, shas = append(paths, p), append(shas, f[2])
		}
	}
	check, err := gitEnv(gitDir, nil, bytes.NewBufferString(strings.Join(shas, "\n")+"\n"), "cat-file", "--batch-check")
	if err != nil {
		return err
	}
	var present bytes.Buffer
	for i, line := range strings.Split(strings.TrimSpace(string(check)), "\n") {
		if i < len(paths) && !strings.HasSuffix(line, " missing") {
			present.WriteString(paths[i])
			present.WriteByte(0)
		}
	}
	index := filepath.Join(tree, ".git-index-tmp")
	env := []string{"GIT_INDEX_FILE=" + index, "GIT_WORK_TREE=" + tree}
	if _, err := gitEnv(gitDir, env, &present, "checkout", commit, "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return err
	}
	if err := os.Remove(index); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=initcorpus", "-c", "user.email=initcorpus@localhost", "commit", "-q", "-m", commit},
		{"remote", "add", "origin", "file://" + tree},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = tree
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	return nil
}

// gitEnv runs git on gitDir with env added and stdin, returning its
// output.
func gitEnv(gitDir string, env []string, stdin *bytes.Buffer, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.New("git " + args[0] + ": " + err.Error() + ": " + firstLine(stderr.String()))
	}
	return out, nil
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "initcorpus: "+format+"\n", args...)
	os.Exit(2)
}

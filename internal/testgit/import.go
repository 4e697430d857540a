package testgit

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// Import appends n commits to branch with `git fast-import`, straight
// into the bare repository: commit i (0-based) writes files(i) (path →
// content) on top of the one before. It builds histories of thousands of
// commits and tens of thousands of files in seconds, where Commit takes a
// work-tree checkout per commit. It returns the last commit's hash.
func (r *Repo) Import(branch string, n int, files func(i int) map[string]string) (string, error) {
	ref := "refs/heads/" + branch
	parent, _ := r.Rev(ref) // empty when the branch does not exist yet
	cmd := exec.Command("git", "-C", r.bare, "fast-import", "--quiet", "--force")
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+r.home)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start git fast-import: %w", err)
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	start := time.Now().Add(-time.Duration(n) * time.Second).Unix()
	for i := range n {
		fmt.Fprintf(w, "commit %s\ncommitter roleout-fixture <fixture@roleout.dev> %d +0000\n", ref, start+int64(i))
		msg := fmt.Sprintf("import %d", i)
		fmt.Fprintf(w, "data %d\n%s\n", len(msg), msg)
		if i == 0 && parent != "" {
			fmt.Fprintf(w, "from %s\n", parent)
		}
		writeFileCommands(w, files(i))
		w.WriteString("\n")
	}
	err = w.Flush()
	stdin.Close()
	if werr := cmd.Wait(); werr != nil || err != nil {
		return "", fmt.Errorf("git fast-import into %s: %v %v: %s", r.Name, werr, err, strings.TrimSpace(stderr.String()))
	}
	return r.Rev(ref)
}

// writeFileCommands writes one fast-import filemodify command per file,
// in path order, with the content inline.
func writeFileCommands(w *bufio.Writer, files map[string]string) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", p, len(files[p]), files[p])
	}
}

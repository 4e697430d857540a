// Command kustomizeproof checks roleout's patched kustomize
// (third_party/kustomize-api) against the release it patches: every file
// that differs is named in the fork's ROLEOUT.md, and kustomize's own test
// suite (krusty and every other package of the module) gives the same
// result test by test on both. Tests that cannot pass on any machine
// without kustomize's source tree, helm, docker or the network fail on
// both; a test that passes on the release and fails on the fork fails
// the check. First of all, the release with the patch beside the fork
// (third_party/kustomize-api.patch) applied must be the fork, byte for
// byte: the patch is the change, and the tree is what it makes.
//
// Usage:
//
//	go run ./hack/kustomizeproof [-fork DIR]      the proof
//	go run ./hack/kustomizeproof -write-patch     the patch, from the release and the fork
//	go run ./hack/kustomizeproof -apply VERSION -into DIR
//	                                              the patch applied to another release
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// module is the kustomize module the fork patches.
const module = "sigs.k8s.io/kustomize/api"

func main() {
	fork := flag.String("fork", "third_party/kustomize-api", "the patched copy of "+module)
	write := flag.Bool("write-patch", false, "write the patch (the fork's path with .patch) from the release and the fork, and stop")
	apply := flag.String("apply", "", "apply the patch to this release of "+module+" into -into, and stop")
	into := flag.String("into", "", "with -apply: the directory to create")
	flag.Parse()
	var err error
	switch {
	case *write:
		err = writePatch(*fork)
	case *apply != "":
		err = applyRelease(*fork, *apply, *into)
	default:
		err = run(*fork)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kustomizeproof:", err)
		os.Exit(1)
	}
}

func run(fork string) error {
	version, stock, err := release(fork)
	if err != nil {
		return err
	}
	if err := checkPatch(stock, fork); err != nil {
		return err
	}
	changed, err := changedFiles(stock, fork)
	if err != nil {
		return err
	}
	fmt.Printf("fork: %s@%s with %s applied is the fork, byte for byte\n", module, version, patchFile(fork))
	doc, err := os.ReadFile(filepath.Join(fork, "ROLEOUT.md"))
	if err != nil {
		return err
	}
	for _, f := range changed {
		if f != "ROLEOUT.md" && !strings.Contains(string(doc), "`"+f+"`") {
			return fmt.Errorf("%s differs from %s@%s but ROLEOUT.md does not name it", f, module, version)
		}
	}
	fmt.Printf("fork: %d files differ from %s@%s, each named in ROLEOUT.md\n", len(changed), module, version)
	want, err := testResults(stock)
	if err != nil {
		return fmt.Errorf("the release's tests: %w", err)
	}
	got, err := testResults(fork)
	if err != nil {
		return fmt.Errorf("the fork's tests: %w", err)
	}
	var bad []string
	passed, failed, skipped := 0, 0, 0
	for name, w := range want {
		switch g, ok := got[name]; {
		case !ok:
			bad = append(bad, name+": not run on the fork")
		case w == "pass" && g != "pass":
			bad = append(bad, name+": passes on the release, "+g+" on the fork")
		case w == "pass":
			passed++
		case w == "skip":
			skipped++
		default:
			failed++
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		return fmt.Errorf("%d tests differ:\n  %s", len(bad), strings.Join(bad, "\n  "))
	}
	fmt.Printf("kustomize's test suite: %d tests pass on the release and on the fork; %d fail on the release here (plugins, helm, docker, network) and %d skip\n",
		passed, failed, skipped)
	return nil
}

// writePatch writes the patch from the release go.mod requires and the
// fork.
func writePatch(fork string) error {
	version, stock, err := release(fork)
	if err != nil {
		return err
	}
	patch, err := makePatch(stock, fork)
	if err != nil {
		return err
	}
	if err := os.WriteFile(patchFile(fork), patch, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %s@%s to %s, %d bytes\n", patchFile(fork), module, version, fork, len(patch))
	return nil
}

// applyRelease applies the patch beside fork to release version of the
// module, into a new directory.
func applyRelease(fork, version, into string) error {
	if into == "" {
		return fmt.Errorf("-apply %s needs -into DIR, a directory to create", version)
	}
	stock, err := download(module + "@" + version)
	if err != nil {
		return err
	}
	if strings.HasPrefix(filepath.Base(stock), "kustomize-release-") {
		defer os.RemoveAll(stock) // extracted for this call
	}
	if err := applyPatch(stock, patchFile(fork), into); err != nil {
		return err
	}
	fmt.Printf("%s: %s@%s with %s applied\n", into, module, version, patchFile(fork))
	return nil
}

// release returns the version of the release the fork patches (the one
// go.mod requires) and its directory in the module cache.
func release(fork string) (version, dir string, err error) {
	if version, err = forkVersion(fork); err != nil {
		return "", "", err
	}
	dir, err = download(module + "@" + version)
	return version, dir, err
}

// forkVersion returns the version of module go.mod requires.
func forkVersion(fork string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", module).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", module, err)
	}
	if _, err := os.Stat(filepath.Join(fork, "go.mod")); err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// download returns the directory of mod@version in the module cache. A
// release the go command will not extract (one that needs a newer Go
// than this machine's) is extracted from its zip into a temporary
// directory, for -apply: its patched tree can be read, not built here.
func download(modVersion string) (string, error) {
	out, _ := exec.Command("go", "mod", "download", "-json", modVersion).Output()
	var m struct{ Dir, Zip, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", modVersion, err)
	}
	if m.Dir != "" {
		return m.Dir, nil
	}
	if m.Zip == "" {
		return "", fmt.Errorf("go mod download %s: %s", modVersion, m.Error)
	}
	fmt.Fprintf(os.Stderr, "kustomizeproof: %s; extracting %s\n", m.Error, m.Zip)
	return extract(m.Zip, modVersion)
}

// extract unpacks a module zip (every file under "mod@version/") into a
// new temporary directory and returns it.
func extract(zipFile, modVersion string) (string, error) {
	r, err := zip.OpenReader(zipFile)
	if err != nil {
		return "", err
	}
	defer r.Close()
	dir, err := os.MkdirTemp("", "kustomize-release-")
	if err != nil {
		return "", err
	}
	prefix := modVersion + "/"
	for _, f := range r.File {
		rel, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || !filepath.IsLocal(rel) || strings.HasSuffix(f.Name, "/") {
			continue
		}
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		rc, err := f.Open()
		if err != nil {
			return "", err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// changedFiles returns the files of fork that are not byte for byte
// those of stock, and those stock has that fork lacks.
func changedFiles(stock, fork string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	err := filepath.WalkDir(fork, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(fork, p)
		seen[rel] = true
		a, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(stock, rel))
		if err != nil || !bytes.Equal(a, b) {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(stock, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if rel, _ := filepath.Rel(stock, p); !seen[rel] {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// testResults runs the module in dir's tests and returns each test's
// result ("pass", "fail" or "skip") by package and name.
func testResults(dir string) (map[string]string, error) {
	cmd := exec.Command("go", "test", "-json", "./...")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, _ := cmd.Output() // failing tests make go test exit 1
	res := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct{ Action, Package, Test string }
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
			res[e.Package+" "+e.Test] = e.Action
		}
	}
	if len(res) < 1000 {
		return nil, fmt.Errorf("only %d test results from %s", len(res), dir)
	}
	return res, nil
}

package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/roleout/roleout/"

// allowed maps each product package to the module packages its non-test
// files may import. A package missing from the table fails the test: a
// new package says where it stands before it lands. The table is drawn
// in docs/design.md (Packages and import rules); leaves come first.
var allowed = map[string][]string{
	// Leaves: they import nothing of roleout.
	"internal/object":      nil,
	"internal/secrets":     nil,
	"render/schema":        nil,
	"internal/testobjects": nil,
	"internal/testcluster": nil,
	"internal/testgit":     nil,
	"internal/testforge":   {"internal/testcluster"},
	"internal/testsops":    {"internal/testcluster"},
	"internal/hostile":     nil,
	"internal/layout":      nil,
	// A replica's claim on an app, checked before each write leaves.
	"internal/fence": nil,
	// Kustomize layouts of any size for render benchmarks and tests.
	"internal/shapes": nil,

	"render/validate": {"render/schema"},
	"render/predict":  {"internal/object", "render/schema"},
	// Random workloads for the prediction tests.
	"internal/workloadgen": nil,
	// The prediction helpers of other Kubernetes minors, as processes.
	"render/kubeminor": {"render/predict"},
	"render/revision":  {"internal/object", "internal/secrets"},
	// The vocabulary: what a plan, its summary, its inventory and a diff
	// are, shared by the engines and every reader. Light: it links none
	// of kustomize, Helm, go-git or k8s.io/kubernetes (TestLightVocabulary).
	"model": {"internal/object", "internal/secrets", "render/order", "render/revision", "render/schema"},
	// Variables replaced after the build (Flux's postBuild syntax).
	"render/substitute": {"internal/object"},
	// SOPS-encrypted Secrets decrypted after the build, in the agent.
	"render/decrypt": {"internal/object"},
	// CEL health rules per kind, for the wave gate.
	"apply/healthcheck": nil,
	// What an app's objects need of each other, for init's order and plan warnings.
	"render/order": {"internal/object"},
	// The build: kustomize in a sandbox process, Helm, the fetch gate.
	"render": {"internal/object", "internal/secrets"},
	// The pure plan: rendered objects and the gathered facts in, a plan out.
	"render/plan": {"internal/object", "internal/secrets", "model", "render/order", "render/predict", "render/revision", "render/schema", "render/validate"},
	"sources":     {"internal/fence", "internal/secrets"},
	"apply":       {"apply/healthcheck", "internal/object", "internal/secrets", "model"},
	// The user contract: what roleout.yaml says, parsed and explained.
	"config": {"apply/healthcheck", "internal/object", "internal/secrets", "model"},
	// What a change would do, live or offline; pure of git and of the loop.
	"diff": {"apply", "internal/object", "model", "render/revision"},
	// The status branch's files; read by the agent, the CLI and the web view.
	"status": {"diff", "internal/markdown", "internal/object", "model", "render/revision"},
	// The status branch's store: one local copy per agent, read and
	// written incrementally, verified, fenced.
	"statusstore": {"internal/fence", "sources", "status"},
	// Drift while the agent runs: the watches' baseline and state.
	"drift": {"apply", "internal/object", "model", "status"},
	// Apps spread over live replicas by Leases (sharding.mode: dynamic).
	"sharding": {"internal/fence"},
	// The agent's own objects in its namespace: the control ConfigMap
	// (suspend, resume, reconcile), the status anchor, the mask key.
	"control": {"config", "internal/object", "internal/secrets"},
	// Deliveries that trigger a poll (POST /hook), verified.
	"webhook": nil,
	// Markdown that keeps a pull request's text in its place.
	"internal/markdown": nil,
	// Pull requests where reviewers look: comments and statuses on forges.
	"forge": {"config", "diff", "internal/markdown", "internal/outbox", "model", "status"},
	// Posts made on their own time, with retries.
	"internal/backoff": nil,
	"internal/outbox":  {"internal/backoff"},
	// What /healthz reports of a loop, and its poll watchdog.
	"internal/liveness": nil,
	// The HTTP server with a bound on what each client holds: timeouts,
	// connections, bodies, streams; TLS from files reloaded on change.
	"internal/httpserve": nil,
	// Rollout events to chats and webhooks.
	"notify": {"config", "internal/outbox", "status", "webhook"},
	// The agent's loop: the only package that joins sources, render and apply.
	"agent":         {"apply", "apply/healthcheck", "config", "control", "diff", "drift", "forge", "notify", "internal/backoff", "internal/fence", "internal/liveness", "internal/object", "internal/secrets", "model", "render", "render/decrypt", "render/kubeminor", "render/plan", "render/predict", "render/revision", "render/substitute", "sharding", "sources", "status", "statusstore", "webhook"},
	"agent/starter": {"apply/healthcheck", "config", "internal/object", "model", "render", "render/order", "render/plan", "render/schema", "sources"},
	// The read-only web view: the status branch's records as pages, for
	// roleout ui and roleout run.
	"ui": {"config", "internal/object", "internal/secrets", "render/revision", "status"},
	// The CLI goes through agent; it imports the rest only for the types it
	// prints or reads.
	"cmd/roleout": {"agent", "agent/starter", "config", "control", "diff", "internal/httpserve", "model", "sharding", "status", "ui"},
}

// loggers are the packages that log (docs/design.md, "Who logs"):
// agent and cmd, and the services the agent starts, through the logger
// it hands them. Every other package returns what happened.
var loggers = []string{"agent", "cmd/roleout", "control", "drift", "forge", "internal/outbox", "notify", "sharding", "ui"}

func TestImportRules(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "hack" || d.Name() == "testdata" || d.Name() == "third_party" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		rules, known := allowed[rel]
		if !known {
			t.Errorf("%s is in package %s, which internal/layout does not know: add it to the allowed table with the packages it may import, and to docs/design.md", path, rel)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "github.com/sirupsen/logrus" && !slices.Contains(loggers, rel) {
				t.Errorf("%s imports logrus: only %v log (docs/design.md, \"Who logs\"); return what happened instead", path, loggers)
			}
			pkg, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			if !slices.Contains(rules, pkg) {
				t.Errorf("%s imports %s: %s may import only %v (docs/design.md: Packages and import rules)", path, p, rel, rules)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no product files checked: is the test running from internal/layout?")
	}
}

func TestTableIsAcyclic(t *testing.T) {
	state := map[string]int{} // 1: visiting, 2: done
	var visit func(pkg string, path []string)
	visit = func(pkg string, path []string) {
		switch state[pkg] {
		case 1:
			t.Errorf("the import table has a cycle: %s", strings.Join(append(path, pkg), " -> "))
			return
		case 2:
			return
		}
		state[pkg] = 1
		for _, dep := range allowed[pkg] {
			if _, ok := allowed[dep]; !ok {
				t.Errorf("%s may import %s, which is not in the table", pkg, dep)
			}
			visit(dep, append(path, pkg))
		}
		state[pkg] = 2
	}
	for pkg := range allowed {
		visit(pkg, nil)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "go.mod")); err != nil {
		t.Fatalf("module root not at ../..: %v", err)
	}
}

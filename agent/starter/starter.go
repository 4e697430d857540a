package starter

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/apply/healthcheck"
	"github.com/roleout/roleout/config"

	"github.com/roleout/roleout/sources"
)

// PlaceholderURL is source.url when the repository has no origin remote.
const PlaceholderURL = "https://git.example.com/CHANGE-ME/config.git"

// Result is a starter configuration and what it was made of.
type Result struct {
	// Config is the agent configuration, YAML with comments.
	Config []byte `json:"-"`
	Source Source `json:"source"`
	Apps   []App  `json:"apps"`
	// RolesCommentedOut is set when the guessed roles are written as
	// comments, because this roleout cannot select a role's objects by
	// source path (roles[].paths).
	RolesCommentedOut bool `json:"rolesCommentedOut"`
	// Warnings are what was skipped or guessed blindly.
	Warnings []string `json:"warnings,omitempty"`
	// Untranslated are the objects and fields of the repository's Flux
	// and Argo CD configuration that init could not carry over.
	Untranslated []string `json:"untranslated"`
	// Interval is the smallest interval of the Flux objects translated.
	Interval time.Duration `json:"-"`
	// Generators are the appGenerators translated from Argo CD
	// ApplicationSets.
	Generators []config.AppGenerator `json:"appGenerators,omitempty"`
}

// Source is the repository the configuration follows.
type Source struct {
	URL    string `json:"url"`
	Branch string `json:"branch"`
	// Commit is the commit the layout was read at, when known.
	Commit string `json:"commit,omitempty"`
	// Placeholder is set when URL (or Branch) could not be found and
	// must be filled in.
	Placeholder bool `json:"placeholder,omitempty"`
	// Note says what to check about the source (credentials removed,
	// detached HEAD, …).
	Note string `json:"note,omitempty"`

	// noURL and noBranch say which of URL and Branch is a placeholder.
	noURL, noBranch bool
}

// placeholders marks the URL, the branch or both as placeholders.
func (s *Source) placeholders(url, branch bool) {
	if url {
		s.URL, s.noURL = PlaceholderURL, true
	}
	if branch {
		s.Branch, s.noBranch = "main", true
	}
	s.Placeholder = s.noURL || s.noBranch
}

// App is one proposed app: an overlay.
type App struct {
	Name      string `json:"name"`
	Path      string `json:"path"`
	Namespace string `json:"namespace,omitempty"`
	Roles     []Role `json:"roles"`
	// UnorderedRoles is "Last" when the objects no role claims need the
	// roles' objects.
	UnorderedRoles string `json:"unorderedRoles,omitempty"`
	// AllowedKinds are the kinds the app renders, when the default rule
	// would refuse one (a cluster-scoped kind other than Namespace).
	AllowedKinds []config.AllowedKind `json:"allowedKinds,omitempty"`
	// AllowedNamespaces are the namespaces the app writes to, when the
	// default rule would refuse one.
	AllowedNamespaces []string `json:"allowedNamespaces,omitempty"`
	// DependsOn are the apps that hold the CRDs of custom kinds it
	// renders.
	DependsOn []string `json:"dependsOn,omitempty"`
	// RemoteHosts and EnableHelm are the render settings the app's
	// kustomizations ask for (remote bases, helmCharts).
	RemoteHosts []string `json:"remoteHosts,omitempty"`
	EnableHelm  bool     `json:"enableHelm,omitempty"`
	// Needs says what stands between the app and `roleout plan` offline;
	// an app with none plans as written.
	Needs []string `json:"needs"`
	// From names the Flux or Argo CD object the app was translated from.
	From string `json:"from,omitempty"`
	// Translated are the settings carried over from that object.
	Translated

	// notes are comments for the reader of the config; clusterKinds the
	// cluster-scoped kinds among AllowedKinds; wants the custom kinds
	// whose CRD is in other apps (chooseDependencies).
	notes        []string
	clusterKinds map[schema.GroupKind]bool
	wants        []dependency
}

// Translated are an app's settings carried over from a Flux
// Kustomization or an Argo CD Application.
type Translated struct {
	Prune          bool                         `json:"prune,omitempty"`
	Force          bool                         `json:"force,omitempty"`
	Timeout        string                       `json:"timeout,omitempty"`
	Substitute     map[string]string            `json:"substitute,omitempty"`
	SubstituteFrom []config.SubstituteReference `json:"substituteFrom,omitempty"`
	Decryption     *config.Decryption           `json:"decryption,omitempty"`
	HealthChecks   []healthcheck.Rule           `json:"healthChecks,omitempty"`
}

// Role is one proposed role: a base of the app's overlay.
type Role struct {
	Name         string   `json:"name"`
	UpgradeOrder int      `json:"upgradeOrder"`
	Paths        []string `json:"paths"`
	// Annotations claim the role's objects by annotation (Argo CD's sync
	// waves) instead of Paths.
	Annotations map[string][]string `json:"annotations,omitempty"`
	// Reason says why UpgradeOrder was guessed.
	Reason string `json:"reason"`
}

// Options are what Generate reads a repository with.
type Options struct {
	// Inspector renders and plans the proposed apps; nil proposes from
	// the layout alone.
	Inspector Inspector
}

// Generate reads the repository repo, a local directory or a git URL
// (http, https, ssh, file or user@host:path; cloned shallowly, without
// credentials, into a temporary directory removed before it returns), and
// proposes a configuration for it.
func Generate(ctx context.Context, repo string, opts Options) (*Result, error) {
	if repo == "" {
		repo = "."
	}
	remote, err := isRemote(repo)
	if err != nil {
		return nil, err
	}
	var (
		src          Source
		root, prefix string
		display      = repo
	)
	if remote {
		display = sources.RedactURL(repo)
		dir, err := os.MkdirTemp("", "roleout-init-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		if src, err = clone(ctx, repo, dir); err != nil {
			return nil, err
		}
		root, prefix = dir, "."
	} else if src, root, prefix, err = openLocal(repo); err != nil {
		return nil, err
	}
	t, err := scanTree(root)
	if err != nil {
		return nil, err
	}
	g, err := t.scanGitops(prefix)
	if err != nil {
		return nil, err
	}
	res := &Result{Source: src, Untranslated: []string{}}
	if !g.empty() {
		url := src.URL
		if src.noURL {
			url = ""
		}
		res.Apps, res.Interval, res.Untranslated = t.gitopsApps(g, url)
		var more []string
		res.Generators, more = g.argoGenerators(url)
		res.Untranslated = append(res.Untranslated, more...)
	}
	if len(res.Apps) == 0 && len(res.Generators) == 0 {
		leaves := t.leaves(prefix)
		if len(leaves) == 0 {
			if n := t.count(prefix); n > 0 {
				return nil, fmt.Errorf("no overlay found under %s: each of its %d kustomizations is a component or is referenced by another one; roleout deploys kustomize overlays (a kustomization that nothing else builds on)", display, n)
			}
			return nil, fmt.Errorf("no kustomization.yaml found under %s: roleout deploys kustomize overlays; add a kustomization.yaml to each overlay (`kustomize create --autodetect` writes one) or run roleout init on the repository that holds them", display)
		}
		res.Apps = t.apps(leaves, repoName(repo, root))
	}
	res.Warnings = t.warnings
	header := display
	if !remote {
		if abs, err := filepath.Abs(repo); err == nil {
			header = abs
		}
	}
	if opts.Inspector != nil {
		if err := res.inspect(ctx, root, opts.Inspector); err != nil {
			return nil, err
		}
		chooseDependencies(res.Apps)
	}
	if err := res.render(header); err != nil {
		return nil, err
	}
	if opts.Inspector != nil {
		if err := res.check(ctx, root, opts.Inspector); err != nil {
			return nil, err
		}
		if err := res.render(header); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// apps proposes one app per overlay.
func (t *tree) apps(leaves []*node, repoName string) []App {
	dirs := make([]string, len(leaves))
	for i, l := range leaves {
		dirs[i] = l.dir
	}
	names := uniqueNames(dirs, dnsLabel(repoName, "app"))
	apps := make([]App, len(leaves))
	for i, l := range leaves {
		apps[i] = App{Name: names[i], Path: l.dir, Roles: []Role{}, Needs: []string{}}
		if ns := l.k.Namespace; ns != "" {
			if dnsLabel(ns, "") == ns {
				apps[i].Namespace = ns
			} else {
				t.warnf("%s: namespace %q is not a valid namespace name; left out", l.dir, ns)
			}
		}
		t.fromLayout(&apps[i], l)
	}
	return apps
}

// fromLayout adds to a what the layout of its overlay n says: a role per
// base, and what its build fetches.
func (t *tree) fromLayout(a *App, n *node) {
	b := t.needsOf(n)
	a.Needs = append(a.Needs, b.needs()...)
	a.RemoteHosts, a.EnableHelm = b.hosts, b.helm
	if bases := roleBases(n); bases != nil {
		a.Roles = t.guessRoles(bases)
	}
}

// gitopsApps proposes the apps of the repository's Flux Kustomizations
// and Argo CD Applications, each with what its overlay's layout says,
// the smallest interval they ask for, and what could not be carried
// over.
func (t *tree) gitopsApps(g *gitops, sourceURL string) ([]App, time.Duration, []string) {
	apps, interval, untranslated := g.fluxApps()
	argo, argoUntranslated := g.argoApps(sourceURL)
	apps = append(apps, argo...)
	untranslated = append(untranslated, argoUntranslated...)
	for i := range apps {
		a := &apps[i]
		if n, ok := t.nodes[a.Path]; ok {
			t.fromLayout(a, n)
		} else {
			a.Needs = append(a.Needs, fmt.Sprintf("%s has no kustomization.yaml (Flux and Argo CD build such a directory from its YAML files): roleout builds kustomize overlays; add one listing them (kustomize create --autodetect --recursive)", a.Path))
		}
	}
	return apps, interval, untranslated
}

// isRemote reports whether repo is a git URL rather than a local path,
// refusing URL schemes other than http, https, ssh and file.
func isRemote(repo string) (bool, error) {
	if scheme, _, ok := strings.Cut(repo, "://"); ok {
		switch strings.ToLower(scheme) {
		case "http", "https", "ssh", "file":
			if _, err := url.Parse(repo); err != nil {
				return false, fmt.Errorf("invalid repository URL %s: %v", sources.RedactURL(repo), err)
			}
			return true, nil
		}
		return false, fmt.Errorf("unsupported URL scheme %q in %s: roleout init clones http://, https://, ssh://, user@host:path and file:// URLs, or reads a local directory", scheme, sources.RedactURL(repo))
	}
	// git's scp-like SSH syntax, user@host:path, with no slash before the
	// colon (a slash there makes it a local path, as for git).
	at, colon := strings.Index(repo, "@"), strings.Index(repo, ":")
	return at > 0 && colon > at && !strings.Contains(repo[:colon], "/"), nil
}

// clone makes a shallow clone of the remote's default branch (its HEAD)
// in dir.
func clone(ctx context.Context, rawURL, dir string) (Source, error) {
	repo, err := git.PlainCloneContext(ctx, dir, false, &git.CloneOptions{
		URL: rawURL, Depth: 1, SingleBranch: true, Tags: git.NoTags,
	})
	redacted := sources.RedactURL(rawURL)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return Source{}, fmt.Errorf("%s is an empty repository: push your overlays first", redacted)
	}
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), rawURL, redacted)
		return Source{}, fmt.Errorf("clone %s: %s (roleout init clones without credentials: for a private repository, clone it yourself and run roleout init DIR)", redacted, msg)
	}
	src := Source{}
	src.URL, src.Note = configURL(rawURL)
	if head, err := repo.Head(); err == nil {
		src.Commit = head.Hash().String()
		if head.Name().IsBranch() {
			src.Branch = head.Name().Short()
		}
	}
	if src.Branch == "" {
		src.placeholders(false, true)
		src.Note = joinNotes(src.Note, "the remote's HEAD names no branch: check source.branch")
	}
	return src, nil
}

// openLocal reads a local directory: the git work tree around it, if any,
// gives the source and the root that app paths are relative to; prefix
// is the directory itself, relative to that root.
func openLocal(dir string) (src Source, root, prefix string, err error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return Source{}, "", "", fmt.Errorf("repository %s is not a directory (nor an http(s)://, ssh:// or file:// URL)", dir)
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return Source{}, "", "", fmt.Errorf("repository %s: %w", dir, err)
	}
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		src.placeholders(true, true)
		src.Note = dir + " is not in a git work tree: fill in source.url and source.branch"
		return src, abs, ".", nil
	}
	if err != nil {
		return Source{}, "", "", fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return Source{}, "", "", fmt.Errorf("%s: %w (for a bare repository, run roleout init file://%s)", dir, err, abs)
	}
	root, err = filepath.EvalSymlinks(wt.Filesystem.Root())
	if err != nil {
		return Source{}, "", "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	src = localSource(repo)
	return src, root, filepath.ToSlash(rel), nil
}

// localSource reads origin's URL and the checked-out branch of a local
// repository.
func localSource(repo *git.Repository) Source {
	var src Source
	if r, err := repo.Remote("origin"); err == nil && len(r.Config().URLs) > 0 {
		src.URL, src.Note = configURL(r.Config().URLs[0])
	} else {
		src.placeholders(true, false)
		src.Note = "the repository has no origin remote: fill in source.url, the URL the agent clones"
	}
	if head, err := repo.Storer.Reference(plumbing.HEAD); err == nil {
		if head.Type() == plumbing.SymbolicReference && head.Target().IsBranch() {
			src.Branch = head.Target().Short()
		}
		if h, err := repo.Head(); err == nil {
			src.Commit = h.Hash().String()
		}
	}
	if src.Branch == "" {
		// Detached: the remote's default branch, as a clone records it.
		if ref, err := repo.Storer.Reference(plumbing.NewRemoteHEADReferenceName("origin")); err == nil && ref.Type() == plumbing.SymbolicReference {
			src.Branch = strings.TrimPrefix(ref.Target().String(), "refs/remotes/origin/")
		}
	}
	if src.Branch == "" {
		src.placeholders(false, true)
		src.Note = joinNotes(src.Note, "HEAD is detached: check source.branch")
	}
	return src
}

// configURL returns the URL to write as source.url: credentials in it are
// left out (they belong in source.auth), with a note saying so.
func configURL(raw string) (string, string) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return raw, ""
	}
	switch {
	case (u.Scheme == "http" || u.Scheme == "https") && (u.User != nil || u.RawQuery != ""):
		u.User, u.RawQuery = nil, ""
	case u.User != nil:
		if _, ok := u.User.Password(); !ok {
			return raw, ""
		}
		u.User = url.User(u.User.Username())
	default:
		return raw, ""
	}
	return u.String(), "credentials in the URL were left out: set them in source.auth"
}

// repoName is the name of the repository, for an app at its root.
func repoName(repo, root string) string {
	name := root
	if r, _ := isRemote(repo); r {
		name = repo
	}
	name = strings.TrimSuffix(strings.TrimRight(name, "/"), ".git")
	if i := strings.LastIndexAny(name, "/:"); i >= 0 {
		name = name[i+1:]
	}
	return name
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

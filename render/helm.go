package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/kustomize/api/krusty"
)

// Helm charts: kustomize's helmCharts run through kustomize's own
// HelmChartInflationGenerator, so that the output is what `kustomize
// build --enable-helm` makes. The "helm" program the generator runs is
// this binary again, in helm mode (sandboxEnv set to helmMode): a process
// of the render's process group, under its limits and in its network
// namespace, that serves the three commands the generator runs — `version
// --short`, `pull` and `template` — with Helm's Go library
// (helm_pull.go, helm_template.go). No helm program is needed or run.
//
// Its reads are confined as the render's are: a chart's directory, every
// file and symlink under it, and every values file must resolve inside
// the repository or inside the render's own temporary directory (the
// values files kustomize writes there, and pulled charts). Every fetch
// goes through a fetchGate of its own, so a chart repository or OCI
// registry is reached only on a host in render.remoteHosts, bounded in
// time and bytes. A pulled chart is untarred into the render's temporary
// directory, at the repository path kustomize asked for (helmRequest.
// Pulled mirrors the repository), and repoFS serves it from there: the
// checkout is never written.

// helmMode is the value of sandboxEnv that makes a process serve one
// helm command.
const helmMode = "helm"

// helmRequestEnv carries a helmRequest, as JSON, from the render to the
// helm commands kustomize runs (kustomize passes them its environment).
const helmRequestEnv = "ROLEOUT_RENDER_HELM"

// helmRequest is what a helm command knows of the render that runs it.
type helmRequest struct {
	// Root is the repository root, symlinks resolved.
	Root string `json:"root"`
	// Pulled is where pulled charts are untarred: Pulled/<path> holds
	// what kustomize asked to be pulled to Root/<path>.
	Pulled string `json:"pulled"`
	// Temp is the render's temporary directory, symlinks resolved.
	Temp        string   `json:"temp"`
	RemoteHosts []string `json:"remoteHosts,omitempty"`
	Limits      Limits   `json:"limits"`
}

// useHelm makes kopts run helmCharts with this binary in helm mode. It
// sets the process's environment, which kustomize passes to the programs
// it runs, so it runs in a sandbox child only. fs serves pulled charts.
func useHelm(kopts *krusty.Options, fs *repoFS, opts Options) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find roleout's own binary to run helm: %w", err)
	}
	temp, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		return err
	}
	req := helmRequest{Root: fs.root, Pulled: filepath.Join(temp, "helm-pulled"), Temp: temp,
		RemoteHosts: opts.RemoteHosts, Limits: opts.Limits}
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if err := os.Setenv(helmRequestEnv, string(data)); err != nil {
		return err
	}
	if err := os.Setenv(sandboxEnv, helmMode); err != nil {
		return err
	}
	fs.pulled = req.Pulled
	kopts.PluginConfig.HelmConfig.Enabled = true
	kopts.PluginConfig.HelmConfig.Command = exe
	return nil
}

// helmRun serves one helm command.
type helmRun struct {
	req  helmRequest
	gate *fetchGate
	out  io.Writer
}

// serveHelm serves the helm command args (kustomize's arguments to
// helm) and returns the process's exit code; errors go to stderr, one
// line, as helm's would.
func serveHelm(args []string, stdout, stderr io.Writer) int {
	var req helmRequest
	if err := json.Unmarshal([]byte(os.Getenv(helmRequestEnv)), &req); err != nil {
		fmt.Fprintf(stderr, "helm in the render sandbox: read the request: %v\n", err)
		return 2
	}
	limitSelf(req.Limits)
	gate := newFetchGate(req.RemoteHosts, req.Limits)
	http.DefaultTransport = gate
	http.DefaultClient = &http.Client{Transport: gate}
	boundCharts(req.Limits)
	h := &helmRun{req: req, gate: gate, out: stdout}
	// This is the top of the helm process: nothing above it holds a
	// context, and the sandbox kills its process group on timeout.
	if err := h.run(context.Background(), args); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// run dispatches args to the command they name.
func (h *helmRun) run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New("helm: no command")
	}
	switch args[0] {
	case "version":
		_, err := fmt.Fprintln(h.out, helmVersion())
		return err
	case "pull":
		return h.pull(ctx, args[1:])
	case "template":
		return h.template(ctx, args[1:])
	}
	return fmt.Errorf("helm %s: the render sandbox serves only helm version, pull and template", args[0])
}

// Versions a helm program built from the same modules reports (helm's
// Makefile sets them with -ldflags): Helm's own version, and as the
// default Kubernetes version (.Capabilities.KubeVersion without
// kubeVersion) v1.X.0 for the client-go v0.X it links. Test binaries carry
// no module versions, so they are written here; TestHelmVersions checks
// them against go.mod.
const (
	helmLibraryVersion = "v3.22.0"
	clientGoMinor      = 37
)

// helmVersion is what `helm version --short` prints.
func helmVersion() string { return helmLibraryVersion }

// boundCharts holds Helm's limits on a chart's files to the render's when
// they are lower, and sets the default capabilities as the helm program
// of the same version reports them.
func boundCharts(l Limits) {
	if l.MaxBytes > 0 && l.MaxBytes < loader.MaxDecompressedChartSize {
		loader.MaxDecompressedChartSize = l.MaxBytes
	}
	if l.MaxFileBytes > 0 && l.MaxFileBytes < loader.MaxDecompressedFileSize {
		loader.MaxDecompressedFileSize = l.MaxFileBytes
	}
	caps := chartutil.DefaultCapabilities
	caps.HelmVersion.Version = helmLibraryVersion
	minor := fmt.Sprint(clientGoMinor)
	caps.KubeVersion = chartutil.KubeVersion{Version: "v1." + minor + ".0", Major: "1", Minor: minor}
}

// display shows p as a path of the repository when it is in it, or in
// the pulled charts, which mirror it.
func (h *helmRun) display(p string) string {
	for _, base := range []string{h.req.Root, h.req.Pulled} {
		if within(base, p) {
			if r, err := filepath.Rel(base, p); err == nil {
				return filepath.ToSlash(r)
			}
		}
	}
	return p
}

// inside resolves p through symlinks and returns it when it lies in one
// of bases; else an errOutside naming p.
func (h *helmRun) inside(p string, bases ...string) (string, error) {
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("%s: %w", h.display(p), err)
	}
	for _, base := range bases {
		if within(base, resolved) {
			return resolved, nil
		}
	}
	return "", &errOutside{path: h.display(p)}
}

// chartBases are where a chart may be read from: the repository, the
// pulled charts and, when the app allows remote bases (which kustomize
// clones into the render's temporary directory), that directory.
func (h *helmRun) chartBases() []string {
	if len(h.req.RemoteHosts) > 0 {
		return []string{h.req.Root, h.req.Temp}
	}
	return []string{h.req.Root, h.req.Pulled}
}

// pulledPath returns where a chart kustomize wants at p (absolute) is
// pulled to: for a path of the repository, the same path under the
// pulled charts; in a remote base's clone, p itself. Any other p is
// refused.
func (h *helmRun) pulledPath(p string) (string, error) {
	p = filepath.Clean(p)
	if len(h.req.RemoteHosts) > 0 && within(h.req.Temp, p) && !within(h.req.Pulled, p) {
		return p, nil
	}
	if !within(h.req.Root, p) {
		return "", &errOutside{path: p}
	}
	rel, err := filepath.Rel(h.req.Root, p)
	if err != nil {
		return "", err
	}
	return filepath.Join(h.req.Pulled, rel), nil
}

// checkTree walks dir as Helm's chart loader does, through symlinks (at
// most maxLinks deep), and refuses any entry that resolves outside bases,
// and a tree larger than the render's byte limits.
func (h *helmRun) checkTree(dir string, bases []string) error {
	var total int64
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		if depth > maxLinks {
			return fmt.Errorf("%s: too many levels of symbolic links", h.display(dir))
		}
		return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type()&os.ModeSymlink != 0 {
				target, err := h.inside(p, bases...)
				if err != nil {
					return err
				}
				if info, err := os.Stat(target); err == nil && info.IsDir() {
					return walk(target, depth+1)
				}
				p = target
			} else if d.IsDir() {
				return nil
			}
			info, err := os.Stat(p)
			if err != nil {
				return err
			}
			if max := h.req.Limits.MaxFileBytes; max > 0 && info.Size() > max {
				return fmt.Errorf("%s is %d bytes, over the limit of %d bytes per file (limit maxFileBytes)", h.display(p), info.Size(), max)
			}
			if total += info.Size(); h.req.Limits.MaxBytes > 0 && total > h.req.Limits.MaxBytes {
				return fmt.Errorf("chart %s holds more than %d bytes (limit maxBytes)", h.display(dir), h.req.Limits.MaxBytes)
			}
			return nil
		})
	}
	return walk(dir, 0)
}

// helmErrorPrefix is what kustomize puts after a helm command's own
// error (its standard error) when the command fails.
const helmErrorPrefix = ": unable to run: '"

// explainHelm cuts kustomize's account of a failed helm command (the
// command line, the environment, "is it installed?") from msg, leaving
// the command's own error.
func explainHelm(msg string) string {
	if i := strings.Index(msg, helmErrorPrefix); i >= 0 {
		msg = strings.TrimSpace(msg[:i])
	}
	return msg
}

package render

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/release"
)

// templateFlags are the flags of `helm template` that kustomize's
// HelmChartInflationGenerator passes (types.HelmChart.AsHelmArgs), typed
// as helm's own.
type templateFlags struct {
	generateName bool
	namespace    string
	nameTemplate string
	valueFiles   []string
	apiVersions  []string
	kubeVersion  string
	includeCRDs  bool
	skipTests    bool
	noHooks      bool
	debug        bool
	devel        bool
}

func parseTemplateFlags(args []string) (templateFlags, []string, error) {
	var f templateFlags
	set := pflag.NewFlagSet("template", pflag.ContinueOnError)
	set.SetOutput(io.Discard)
	set.BoolVarP(&f.generateName, "generate-name", "g", false, "")
	set.StringVarP(&f.namespace, "namespace", "n", "", "")
	set.StringVar(&f.nameTemplate, "name-template", "", "")
	set.StringSliceVarP(&f.valueFiles, "values", "f", nil, "")
	set.StringSliceVarP(&f.apiVersions, "api-versions", "a", nil, "")
	set.StringVar(&f.kubeVersion, "kube-version", "", "")
	set.BoolVar(&f.includeCRDs, "include-crds", false, "")
	set.BoolVar(&f.skipTests, "skip-tests", false, "")
	set.BoolVar(&f.noHooks, "no-hooks", false, "")
	set.BoolVar(&f.debug, "debug", false, "")
	set.BoolVar(&f.devel, "devel", false, "")
	if err := set.Parse(args); err != nil {
		return f, nil, err
	}
	return f, set.Args(), nil
}

// template serves `helm template` as helm's own command does it
// (cmd/helm/template.go: action.Install with DryRun, ClientOnly and
// Replace, release name "release-name" unless one is given, the
// manifest then the hooks) for a chart in the repository or pulled by
// this render, with values files from the repository or the render's
// temporary directory.
func (h *helmRun) template(ctx context.Context, args []string) error {
	f, rest, err := parseTemplateFlags(args)
	if err != nil {
		return fmt.Errorf("helm template: %w", err)
	}
	client := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	client.GenerateName, client.NameTemplate, client.DisableHooks = f.generateName, f.nameTemplate, f.noHooks
	client.DryRun, client.DryRunOption, client.Replace, client.ClientOnly = true, "true", true, true
	client.ReleaseName = "release-name"
	client.APIVersions = chartutil.VersionSet(f.apiVersions)
	client.IncludeCRDs = f.includeCRDs
	if f.kubeVersion != "" {
		v, err := chartutil.ParseKubeVersion(f.kubeVersion)
		if err != nil {
			return fmt.Errorf("helm template: invalid kube version '%s': %s", f.kubeVersion, err)
		}
		client.KubeVersion = v
	}
	name, chartPath, err := client.NameAndChart(rest)
	if err != nil {
		return fmt.Errorf("helm template: %w", err)
	}
	client.ReleaseName = name
	client.Namespace = f.namespace
	if client.Namespace == "" {
		client.Namespace = "default" // helm's, with no kubeconfig
	}
	chrt, err := h.loadChart(chartPath)
	if err != nil {
		return fmt.Errorf("helm template %s: %w", h.display(chartPath), err)
	}
	vals, err := h.values(f.valueFiles)
	if err != nil {
		return fmt.Errorf("helm template %s: %w", h.display(chartPath), err)
	}
	rel, err := client.RunWithContext(ctx, chrt, vals)
	if err != nil {
		if f.debug && rel != nil { // helm prints what it rendered
			_, _ = io.WriteString(h.out, manifests(rel, client.DisableHooks, f.skipTests))
		}
		return fmt.Errorf("helm template %s: %w", h.display(chartPath), err)
	}
	_, err = io.WriteString(h.out, manifests(rel, client.DisableHooks, f.skipTests))
	return err
}

// manifests is what `helm template` prints of rel: its manifest, then
// each hook (but tests with skipTests) with its source.
func manifests(rel *release.Release, noHooks, skipTests bool) string {
	var b bytes.Buffer
	fmt.Fprintln(&b, strings.TrimSpace(rel.Manifest))
	if noHooks {
		return b.String()
	}
	for _, m := range rel.Hooks {
		if skipTests && isTestHook(m) {
			continue
		}
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Path, m.Manifest)
	}
	return b.String()
}

func isTestHook(h *release.Hook) bool {
	for _, e := range h.Events {
		if e == release.HookTest {
			return true
		}
	}
	return false
}

// loadChart loads the chart at path (absolute, as kustomize names it):
// from the repository when it is there, else from the charts this render
// pulled. The chart's directory and everything under it, through
// symlinks, must resolve inside chartBases;
// its dependencies must be present, as helm template requires.
func (h *helmRun) loadChart(path string) (*chart.Chart, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	bases := h.chartBases()
	if _, err := os.Lstat(abs); err != nil {
		pulled, perr := h.pulledPath(abs)
		if perr != nil {
			return nil, perr
		}
		if _, err := os.Stat(pulled); err != nil {
			return nil, fmt.Errorf("path %q not found", h.display(abs))
		}
		abs = pulled
	}
	dir, err := h.inside(abs, bases...)
	if err != nil {
		return nil, err
	}
	if err := h.checkTree(dir, bases); err != nil {
		return nil, err
	}
	chrt, err := loader.Load(dir)
	if err != nil {
		return nil, err
	}
	switch chrt.Metadata.Type {
	case "", "application":
	default:
		return nil, fmt.Errorf("%s charts are not installable", chrt.Metadata.Type)
	}
	if req := chrt.Metadata.Dependencies; req != nil {
		if err := action.CheckDependencies(chrt, req); err != nil {
			return nil, fmt.Errorf("an error occurred while checking for chart dependencies; vendor them in the chart's charts/ directory (helm dependency build): %w", err)
		}
	}
	return chrt, nil
}

// values merges the values files, in order, as helm's -f does. Each must
// resolve inside the repository or the render's temporary directory
// (where kustomize writes the chart's values merged with valuesInline),
// within the per-file byte limit; URLs are not fetched.
func (h *helmRun) values(files []string) (map[string]any, error) {
	for _, f := range files {
		p, err := h.inside(f, h.req.Root, h.req.Temp)
		if err != nil {
			return nil, err
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if max := h.req.Limits.MaxFileBytes; max > 0 && info.Size() > max {
			return nil, fmt.Errorf("%s is %d bytes, over the limit of %d bytes per file (limit maxFileBytes)", h.display(f), info.Size(), max)
		}
	}
	return (&values.Options{ValueFiles: files}).MergeValues(getter.Providers{})
}

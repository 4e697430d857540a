package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelmConfined: a chart reads nothing outside the repository, through
// any path kustomize or helm would take: a template, a chart file or the
// chart's directory that is a symlink leading out, a chartHome outside,
// a values file outside. Each is refused, naming the path, and the
// outside file's content appears nowhere.
func TestHelmConfined(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: leaked}\ndata: {token: s3cr3t}\n")
	copyTree(t, fixtureChart, filepath.Join(outside, "chart", "web"))
	chart := "helmCharts:\n- name: web\n"
	cases := []struct {
		name string
		// setup lays out the repository at root, its chart at
		// root/charts/web, and returns the overlay's kustomization.
		setup func(t *testing.T, root string) string
		want  string
	}{
		{"template symlink", func(t *testing.T, root string) string {
			copyTree(t, fixtureChart, filepath.Join(root, "charts", "web"))
			symlink(t, filepath.Join(outside, "secret.yaml"), filepath.Join(root, "charts", "web", "templates", "leak.yaml"))
			return chart
		}, "charts/web/templates/leak.yaml is outside the repository"},
		{"chart file directory symlink", func(t *testing.T, root string) string {
			copyTree(t, fixtureChart, filepath.Join(root, "charts", "web"))
			symlink(t, outside, filepath.Join(root, "charts", "web", "files", "host"))
			return chart
		}, "charts/web/files/host is outside the repository"},
		{"chart directory symlink", func(t *testing.T, root string) string {
			symlink(t, filepath.Join(outside, "chart", "web"), filepath.Join(root, "charts", "web"))
			return chart
		}, "is outside the repository"},
		{"absolute chartHome", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "values.yaml"), "replicas: 1\n")
			return "helmGlobals: {chartHome: " + filepath.Join(outside, "chart") + "}\n" + chart + "  valuesFile: values.yaml\n"
		}, "is outside the repository"},
		{"values file outside", func(t *testing.T, root string) string {
			copyTree(t, fixtureChart, filepath.Join(root, "charts", "web"))
			return chart + "  additionalValuesFiles: [" + filepath.Join(outside, "secret.yaml") + "]\n"
		}, "is outside the repository"},
		{"values file symlink", func(t *testing.T, root string) string {
			copyTree(t, fixtureChart, filepath.Join(root, "charts", "web"))
			symlink(t, filepath.Join(outside, "secret.yaml"), filepath.Join(root, "extra.yaml"))
			return chart + "  additionalValuesFiles: [extra.yaml]\n"
		}, "extra.yaml is outside the repository"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "kustomization.yaml"), tc.setup(t, root))
			res, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "", helmOptions())
			if err == nil {
				t.Fatalf("render read outside the repository: %d objects", len(res.Objects))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("error shows the outside file: %v", err)
			}
		})
	}
}

// TestHelmOff: with helm off (every preview) helmCharts are an error that
// says which setting allows them.
func TestHelmOff(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	copyTree(t, fixtureChart, filepath.Join(root, "charts", "web"))
	writeFile(t, filepath.Join(root, "kustomization.yaml"), "helmCharts:\n- name: web\n")
	_, err := (&Renderer{}).Build(context.Background(), Source{Root: root}, "", DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "render.enableHelm") {
		t.Fatalf("helmCharts with helm off: %v", err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

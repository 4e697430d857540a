package main

import (
	"bytes"
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
)

func TestKubernetesVersion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		deps []*debug.Module
		want string
	}{
		{"kubernetes module wins", []*debug.Module{
			{Path: "k8s.io/client-go", Version: "v0.37.2"},
			{Path: "k8s.io/kubernetes", Version: "v1.37.2"},
		}, "v1.37.2"},
		{"from client-go", []*debug.Module{{Path: "k8s.io/client-go", Version: "v0.37.2"}}, "v1.37.2"},
		{"replaced client-go", []*debug.Module{{Path: "k8s.io/client-go", Version: "v0.0.0",
			Replace: &debug.Module{Path: "k8s.io/client-go", Version: "v0.36.1"}}}, "v1.36.1"},
		{"from apimachinery", []*debug.Module{{Path: "k8s.io/apimachinery", Version: "v0.37.2"}}, "v1.37.2"},
		{"not a staging version", []*debug.Module{{Path: "k8s.io/client-go", Version: "v12.0.0"}}, "unknown"},
		{"none", nil, "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := kubernetesVersion(tc.deps); got != tc.want {
				t.Errorf("kubernetesVersion() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run([]string{"version", "--output", "json"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	var info versionInfo
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		t.Fatalf("version --output json: %v: %q", err, out.String())
	}
	if info.Version == "" || info.Commit == "" || !strings.HasPrefix(info.Go, "go") || !strings.HasPrefix(info.Kubernetes, "v1.") {
		t.Errorf("incomplete version info %+v", info)
	}
	out.Reset()
	if code := run([]string{"version"}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "kubernetes ") {
		t.Errorf("text version: exit %d, %q", code, out.String())
	}
}

func TestBadOutputFlag(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run([]string{"version", "--output", "yaml"}, &out, &errOut)
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	if !strings.Contains(errOut.String(), `invalid --output "yaml"`) {
		t.Errorf("stderr %q does not name the bad flag", errOut.String())
	}
}

func TestRunFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"config required", []string{"run", "--once"}, `required flag(s) "config" not set`},
		{"missing config file", []string{"run", "--once", "--config", "/nonexistent/agent.yaml"}, "read agent config"},
		{"bad log format", []string{"run", "--once", "--config", "x.yaml", "--log-format", "xml"}, `invalid --log-format "xml": use text, json or pretty`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(tc.args, &out, &errOut); code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			if !strings.Contains(errOut.String(), tc.wantErr) {
				t.Errorf("stderr %q does not contain %q", errOut.String(), tc.wantErr)
			}
		})
	}
}

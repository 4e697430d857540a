package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// Set at link time by the Makefile (-X main.version=… -X main.commit=…).
var (
	version = "dev"
	commit  = "unknown"
)

// versionInfo is what `roleout version` prints.
type versionInfo struct {
	Version    string `json:"version"`
	Commit     string `json:"commit"`
	Kubernetes string `json:"kubernetes"`
	Go         string `json:"go"`
}

func newVersionCommand(opts *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print roleout's version, commit and the Kubernetes version it was built against",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := currentVersion()
			if opts.output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				return enc.Encode(info)
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "roleout %s (commit %s)\nkubernetes %s\ngo %s\n",
				info.Version, info.Commit, info.Kubernetes, info.Go)
			return err
		},
	}
}

func currentVersion() versionInfo {
	info := versionInfo{Version: version, Commit: commit, Kubernetes: "unknown", Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.Kubernetes = kubernetesVersion(bi.Deps)
	}
	return info
}

// kubernetesVersion returns the Kubernetes release roleout was built
// against: the version of k8s.io/kubernetes when it is linked, else the
// release matching the first linked staging module (k8s.io/client-go,
// then k8s.io/apimachinery): v0.X.Y is Kubernetes v1.X.Y.
func kubernetesVersion(deps []*debug.Module) string {
	byPath := map[string]string{}
	for _, d := range deps {
		v := d.Version
		if d.Replace != nil && d.Replace.Version != "" {
			v = d.Replace.Version
		}
		byPath[d.Path] = v
	}
	if v := byPath["k8s.io/kubernetes"]; v != "" {
		return v
	}
	for _, staging := range []string{"k8s.io/client-go", "k8s.io/apimachinery"} {
		v, err := utilversion.ParseSemantic(byPath[staging])
		if err == nil && v.Major() == 0 {
			return "v1." + strings.TrimPrefix(v.String(), "0.")
		}
	}
	return "unknown"
}

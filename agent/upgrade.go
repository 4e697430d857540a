package agent

import (
	"fmt"
	"slices"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/predict"
)

// ParseVersions reads the versions roleout plan is asked to plan for:
// kubernetes a Kubernetes version (1.36, v1.36.2; "" for the one run
// now) and controllers NAME=VERSION pairs of the workload controllers
// roleout models (lws=v0.8.0). It returns nil when neither is given.
// A version that does not parse, or a controller roleout does not know,
// is an error: a plan for it would be a silent guess.
func ParseVersions(kubernetes string, controllers []string) (*object.ClusterVersions, error) {
	if kubernetes == "" && len(controllers) == 0 {
		return nil, nil
	}
	v := &object.ClusterVersions{}
	if kubernetes != "" {
		parsed, err := utilversion.ParseGeneric(kubernetes)
		if err != nil {
			return nil, fmt.Errorf("--kubernetes-version %q: not a Kubernetes version (say 1.36 or v1.36.2)", kubernetes)
		}
		v.Kubernetes = "v" + parsed.String()
	}
	var known []string
	for _, c := range predict.Controllers() {
		known = append(known, c.Name)
	}
	for _, pair := range controllers {
		name, version, ok := strings.Cut(pair, "=")
		if !ok || name == "" || version == "" {
			return nil, fmt.Errorf("--controller %q: want NAME=VERSION, say lws=v0.8.0", pair)
		}
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("--controller %q: roleout models the controllers %s, not %q", pair, strings.Join(known, ", "), name)
		}
		if _, err := utilversion.ParseSemantic(strings.TrimPrefix(version, "v")); err != nil {
			return nil, fmt.Errorf("--controller %q: %q is not a semantic version (say v0.8.0)", pair, version)
		}
		if v.Controllers == nil {
			v.Controllers = map[string]string{}
		}
		v.Controllers[name] = "v" + strings.TrimPrefix(version, "v")
	}
	return v, nil
}

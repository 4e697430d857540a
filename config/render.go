package config

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/model"
)

// PreviewsRequireIsolation reports whether the app's previews refuse to
// render without a network namespace: requireNetworkIsolation, default
// true.
func (c Render) PreviewsRequireIsolation() bool {
	return c.RequireNetworkIsolation == nil || *c.RequireNetworkIsolation
}

// RoleSpecs turns an app's roles into render role specs.
func (app App) RoleSpecs() ([]model.RoleSpec, error) {
	var out []model.RoleSpec
	for _, r := range app.Roles {
		spec := model.RoleSpec{Name: r.Name, UpgradeOrder: r.UpgradeOrder, Kinds: r.Kinds, Names: r.Names, Paths: r.Paths, Annotations: r.Annotations}
		if r.Selector != nil {
			sel, err := metav1.LabelSelectorAsSelector(r.Selector)
			if err != nil {
				return nil, err
			}
			spec.Selector = sel
		}
		out = append(out, spec)
	}
	return out, nil
}

// UsesPaths reports whether a role of app claims objects by source path:
// only then does its render record them (render.Options.Origins).
func (app App) UsesPaths() bool {
	for _, r := range app.Roles {
		if len(r.Paths) > 0 {
			return true
		}
	}
	return false
}

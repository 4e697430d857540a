package config

import (
	"fmt"

	"github.com/roleout/roleout/model"
)

// Destinations are where app's objects may go (docs/design.md, "Safety
// and trust", Destinations): its allowedNamespaces and allowedKinds, else
// the agent's defaults, else the built-in defaults of model.Destinations.
// Errors name the field the rule came from and the app's own field to
// change.
func (c *Config) Destinations(app App) model.Destinations {
	d := model.Destinations{
		App: app.Name, Namespace: app.NamespaceOrDefault(),
		NamespacesField: c.AppField(app, "allowedNamespaces"), KindsField: c.AppField(app, "allowedKinds"),
	}
	d.NamespacesFix, d.KindsFix = d.NamespacesField, d.KindsField
	defaults := c.Defaults
	switch {
	case len(app.AllowedNamespaces) > 0:
		d.Namespaces = app.AllowedNamespaces
	case len(defaults.AllowedNamespaces) > 0:
		d.Namespaces, d.NamespacesField = defaults.AllowedNamespaces, "defaults.allowedNamespaces"
	}
	kinds := app.AllowedKinds
	if len(kinds) == 0 && len(defaults.AllowedKinds) > 0 {
		kinds, d.KindsField = defaults.AllowedKinds, "defaults.allowedKinds"
	}
	for _, k := range kinds {
		d.Kinds = append(d.Kinds, model.KindRule{Group: k.Group, Kind: k.Kind})
	}
	return d
}

// AppField names a field of app in the configuration (apps[1].adopt),
// or the bare field when app is not in it.
func (c *Config) AppField(app App, field string) string {
	for i := range c.Apps {
		if c.Apps[i].Name == app.Name {
			return fmt.Sprintf("apps[%d].%s", i, field)
		}
	}
	return field
}

// NamespaceOrDefault is the namespace of app's namespaced objects that
// name none: its namespace, else default.
func (app App) NamespaceOrDefault() string {
	if app.Namespace == "" {
		return "default"
	}
	return app.Namespace
}

// Package config is roleout's user contract for the agent configuration
// (`roleout run --config agent.yaml`, docs/design.md "The user-facing
// contract"), in one place: its types (Config, App, Role, …), Load and
// Parse (strict YAML: unknown fields, duplicate keys and wrong types are
// errors), the defaults, validate (every error names the field as a path,
// apps[1].roles[0].upgradeOrder, and says what to do), and explain (the
// did-you-mean of a field misspelled or of the wrong type).
//
// Around the file: what a reload changes and what needs a restart
// (Compare, RestartFields), static shards (Shard), the settings of
// masks, cluster revisions and leader election, and the conversions of
// an app's settings into the rules and options the parts take
// (Destinations, App.RoleSpecs, Render.Options), and what the schedule
// and an app's windows mean in time (Schedule.Cadence, Windows).
//
// It reads the file and the pod's namespace, nothing else. It imports
// model for the rules it produces (RoleSpec, Destinations),
// apply/healthcheck for health rules and internal/secrets for the mask
// modes; it must not import agent, sources, apply, render or cmd (the
// agent turns Render into the sandbox's options).
package config

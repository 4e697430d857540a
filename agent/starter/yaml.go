package starter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/config"
)

// rolePathsSupported reports whether config.Role has a paths field
// (select a role's objects by where in the repository they come from); a
// variable so that tests can take either branch.
var rolePathsSupported = func() bool { return hasJSONField(reflect.TypeOf(config.Role{}), "paths") }

// hasJSONField reports whether struct type t has a field whose JSON name
// is name.
func hasJSONField(t reflect.Type, name string) bool {
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
			return true
		}
	}
	return false
}

// render writes r.Config for the repository shown as display and checks
// that it loads with config.Parse. With roles[].paths it writes the
// roles as YAML; should that not load, or without paths, it writes them
// as comments.
func (r *Result) render(display string) error {
	if rolePathsSupported() && r.hasRoles() {
		r.Config = r.text(display, false)
		_, err := config.Parse(r.Config, "the starter config")
		if err == nil {
			return nil
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("the guessed roles did not load (%v): written as comments", err))
	}
	r.RolesCommentedOut = r.hasRoles()
	r.Config = r.text(display, true)
	if _, err := config.Parse(r.Config, "the starter config"); err != nil {
		// A bug of roleout init, not of the repository.
		return fmt.Errorf("roleout init wrote a config that does not load: %w", err)
	}
	return nil
}

func (r *Result) hasRoles() bool {
	for _, a := range r.Apps {
		if len(a.Roles) > 0 {
			return true
		}
	}
	return false
}

// text is the configuration as YAML with comments.
func (r *Result) text(display string, commentRoles bool) []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	at := ""
	if r.Source.Commit != "" {
		at = " at " + shortHash(r.Source.Commit)
	}
	w("# A starter roleout agent config, written by `roleout init` from\n# %s%s.\n", oneLine(display), at)
	w("# The apps, roles and orders are proposals from the repository's layout\n")
	w("# and the objects each app renders: review them. An app whose comments\n")
	w("# list needs does not plan offline until they are met; every other app\n")
	w("# plans as written. Every other field (status, schedule, auth, prune,\n")
	w("# windows, …) is in the Configuration section of roleout's README.\n")
	if commentRoles && r.RolesCommentedOut {
		w("#\n# The guessed roles are commented out: this roleout cannot select a\n")
		w("# role's objects by source path (roles[].paths). To use them, annotate\n")
		w("# each base's objects with roleout.dev/role: NAME (commonAnnotations in\n")
		w("# the base's kustomization.yaml), then uncomment the roles.\n")
	}
	w("apiVersion: %s\nkind: %s\nsource:\n", config.APIVersion, config.Kind)
	w("  url: %s", scalar(r.Source.URL))
	if r.Source.noURL {
		w("   # TODO: the URL the agent clones")
	}
	w("\n  branch: %s", scalar(r.Source.Branch))
	if r.Source.noBranch {
		w("   # TODO: the branch to follow")
	}
	w("\n")
	if r.Source.Note != "" {
		w("  # %s\n", oneLine(r.Source.Note))
	}
	if sshURL(r.Source.URL) {
		w("  # auth: {sshKeyFile: /secrets/id_ed25519, knownHostsFile: /secrets/known_hosts}\n")
	} else {
		w("  # auth: {tokenFile: /secrets/token}   # for a private repository\n")
	}
	if r.Interval > 0 {
		w("schedule: {interval: %s}   # the shortest interval of the Flux objects translated\n", r.Interval)
	}
	w("apps:")
	if len(r.Apps) == 0 {
		w(" []")
	}
	w("\n")
	for _, a := range r.Apps {
		r.writeApp(&b, a, commentRoles)
	}
	if len(r.Generators) > 0 {
		w("# One app per directory, as the ApplicationSets' git directories generators make them:\n")
		data, _ := yaml.Marshal(map[string]any{"appGenerators": r.Generators})
		b.Write(data)
	}
	return b.Bytes()
}

// writeApp writes one app of the configuration.
func (r *Result) writeApp(b *bytes.Buffer, a App, commentRoles bool) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("- name: %s\n  path: %s\n", scalar(a.Name), scalar(a.Path))
	if a.From != "" {
		w("  # from %s\n", oneLine(a.From))
	}
	if a.Namespace != "" {
		w("  namespace: %s\n", scalar(a.Namespace))
	}
	writeTranslated(b, a.Translated)
	if len(a.DependsOn) > 0 {
		w("  dependsOn: [%s]   # apps holding the CRDs of kinds it renders: rolled out and healthy first\n", scalars(a.DependsOn))
	}
	writeRoles(b, a, commentRoles)
	for _, n := range a.notes {
		w("  # %s\n", oneLine(n))
	}
	if a.UnorderedRoles != "" {
		w("  unorderedRoles: %s\n", scalar(a.UnorderedRoles))
	}
	if len(a.AllowedKinds) > 0 {
		w("  # allowedKinds: exactly the kinds the app renders now; the cluster-scoped\n")
		w("  # ones reach beyond any namespace: review them.\n")
		w("  allowedKinds:\n")
		for _, k := range a.AllowedKinds {
			w("  - {group: %s, kind: %s}", scalar(k.Group), scalar(k.Kind))
			if a.clusterKinds[schema.GroupKind{Group: k.Group, Kind: k.Kind}] {
				w("   # cluster-scoped")
			}
			w("\n")
		}
	}
	if len(a.AllowedNamespaces) > 0 {
		w("  allowedNamespaces: [%s]   # the namespaces its objects go to\n", scalars(a.AllowedNamespaces))
	}
	if len(a.RemoteHosts) > 0 || a.EnableHelm {
		var parts []string
		if len(a.RemoteHosts) > 0 {
			parts = append(parts, "remoteHosts: ["+scalars(a.RemoteHosts)+"]")
		}
		if a.EnableHelm {
			parts = append(parts, "enableHelm: true")
		}
		w("  render: {%s}   # what its kustomizations fetch and inflate\n", strings.Join(parts, ", "))
	}
	if len(a.Needs) > 0 {
		w("  # Before `roleout plan` works offline, this app needs:\n")
		for _, n := range a.Needs {
			w("  # - %s\n", oneLine(n))
		}
	}
}

// writeTranslated writes the settings carried over from Flux or Argo CD,
// as YAML under the app.
func writeTranslated(b *bytes.Buffer, t Translated) {
	data, err := yaml.Marshal(t)
	if err != nil || strings.TrimSpace(string(data)) == "{}" {
		return
	}
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
}

// writeRoles writes the app's roles, or says why it has none.
func writeRoles(b *bytes.Buffer, a App, commentRoles bool) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if len(a.Roles) == 0 {
		w("  # No roles: %s is not made of several kustomize bases whose objects go\n", oneLine(a.Path))
		w("  # into waves. Its objects join roles by the annotations roleout.dev/role\n")
		w("  # and roleout.dev/upgrade-order, or by roles[].selector; the rest is role default.\n")
		return
	}
	w("  # Roles from the bases %s is made of, one per base; each upgradeOrder\n", oneLine(a.Path))
	w("  # puts a role after the roles whose objects it needs (its ServiceAccount,\n")
	w("  # ConfigMaps, Secrets, the pods a webhook calls, a controller), then 1\n")
	w("  # stateful, 2 cache, 3 back end, 4 front end (`roleout init --help`): check them.\n")
	if commentRoles {
		w("  # roles:\n")
		for _, role := range a.Roles {
			w("  # - {name: %s, upgradeOrder: %d}   # %s: %s\n", scalar(role.Name), role.UpgradeOrder, oneLine(strings.Join(role.Paths, ", ")), oneLine(role.Reason))
		}
		return
	}
	w("  roles:\n")
	for _, role := range a.Roles {
		w("  - name: %s\n    upgradeOrder: %d   # %s\n", scalar(role.Name), role.UpgradeOrder, oneLine(role.Reason))
		if len(role.Paths) > 0 {
			w("    paths: [%s]\n", scalars(role.Paths))
		}
		keys := make([]string, 0, len(role.Annotations))
		for k := range role.Annotations {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			quoted := make([]string, len(role.Annotations[k]))
			for i, v := range role.Annotations[k] {
				q, _ := json.Marshal(v)
				quoted[i] = string(q)
			}
			w("    annotations: {%s: [%s]}\n", scalar(k), strings.Join(quoted, ", "))
		}
	}
}

// scalars writes a flow list's items.
func scalars(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = scalar(s)
	}
	return strings.Join(out, ", ")
}

// plainRE is what may be written as a plain YAML scalar, in block and flow
// context alike.
var plainRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/-]*$`)

// notPlain are plain scalars YAML would read as something else than a
// string.
var notPlain = regexp.MustCompile(`^(?i:y|n|yes|no|on|off|true|false|null|~|[-+]?[0-9][0-9._]*(e[-+]?[0-9]+)?|0x[0-9a-f]+|0o[0-7]+)$`)

// scalar writes s as a YAML string: plain when that reads back the same,
// else double-quoted (a JSON string is a YAML one).
func scalar(s string) string {
	if plainRE.MatchString(s) && !notPlain.MatchString(s) {
		return s
	}
	q, _ := json.Marshal(s)
	return string(q)
}

// oneLine keeps text from a repository from ending a YAML comment.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r < ' ' {
			return ' '
		}
		return r
	}, s)
}

// sshURL reports whether a source URL uses git's SSH transport.
func sshURL(u string) bool {
	if strings.HasPrefix(u, "ssh://") {
		return true
	}
	at, colon := strings.Index(u, "@"), strings.Index(u, ":")
	return !strings.Contains(u, "://") && at > 0 && colon > at
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

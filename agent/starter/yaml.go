package starter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

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
	w("# The apps and roles are guesses from the repository's layout: check\n")
	w("# them. Every other field (status, schedule, auth, prune, windows, …) is\n")
	w("# in the Configuration section of roleout's README.\n")
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
	w("apps:\n")
	for _, a := range r.Apps {
		r.writeApp(&b, a, commentRoles)
	}
	return b.Bytes()
}

// writeApp writes one app of the configuration.
func (r *Result) writeApp(b *bytes.Buffer, a App, commentRoles bool) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("- name: %s\n  path: %s\n", scalar(a.Name), scalar(a.Path))
	if a.Namespace != "" {
		w("  namespace: %s\n", scalar(a.Namespace))
	}
	if len(a.Roles) == 0 {
		w("  # No roles guessed: %s is not made of several kustomize bases. Its\n", oneLine(a.Path))
		w("  # objects join roles by the annotations roleout.dev/role and\n")
		w("  # roleout.dev/upgrade-order, or by roles[].selector; the rest is role default.\n")
		return
	}
	w("  # Roles guessed from the %d bases %s is made of, one per base, in\n", len(a.Roles), oneLine(a.Path))
	w("  # upgradeOrder 1 stateful, 2 cache, 3 back end, 4 front end (see\n")
	w("  # `roleout init --help`): check the names and orders.\n")
	if commentRoles {
		w("  # roles:\n")
		for _, role := range a.Roles {
			w("  # - {name: %s, upgradeOrder: %d}   # %s: %s\n", scalar(role.Name), role.UpgradeOrder, oneLine(strings.Join(role.Paths, ", ")), oneLine(role.Reason))
		}
		return
	}
	w("  roles:\n")
	for _, role := range a.Roles {
		paths := make([]string, len(role.Paths))
		for i, p := range role.Paths {
			paths[i] = scalar(p)
		}
		w("  - name: %s\n    upgradeOrder: %d   # %s\n    paths: [%s]\n", scalar(role.Name), role.UpgradeOrder, oneLine(role.Reason), strings.Join(paths, ", "))
	}
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

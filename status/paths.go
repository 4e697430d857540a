package status

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The files of an app on the status branch, each under the app's folder
// (docs/design.md, "The status branch").

// StatusPath is <app>/status.yaml.
func StatusPath(app string) string { return path.Join(app, "status.yaml") }

// InventoryPath is <app>/inventory.yaml.
func InventoryPath(app string) string { return path.Join(app, "inventory.yaml") }

// HistoryPath is <app>/history.yaml.
func HistoryPath(app string) string { return path.Join(app, "history.yaml") }

// revisionsDir is <app>/revisions/.
func revisionsDir(app string) string { return path.Join(app, "revisions") + "/" }

// PreviewsFolder is the folder of an app's previews, <app>/previews.
const PreviewsFolder = "previews"

// PreviewsDir is <app>/previews, the folder of app's previews.
func PreviewsDir(app string) string { return path.Join(app, PreviewsFolder) }

// PreviewPath is <app>/previews/<name><ext>, ext .json or .md.
func PreviewPath(app, name, ext string) string { return path.Join(app, PreviewsFolder, name+ext) }

// PreviewName turns a ref into a preview's file name: refs/pull/7/head →
// pull-7-head. Two refs never share a name: a ref that holds "-" itself
// (refs/pull-7/head, which would read as the same) gets "~" and 16 hex
// digits of its SHA-256 after the name, and "~" is in no ref name git
// allows.
func PreviewName(ref string) string {
	name := strings.TrimPrefix(ref, "refs/")
	if !strings.Contains(name, "-") {
		return strings.ReplaceAll(name, "/", "-")
	}
	sum := sha256.Sum256([]byte(ref))
	return strings.ReplaceAll(name, "/", "-") + "~" + hex.EncodeToString(sum[:8])
}

// RevisionPath returns where revision name of role lives on the status
// branch: <app>/revisions/<role>/<name>.yaml. Role names come from
// rendered objects and revision names from the status branch itself, so
// as a defence beyond model.CheckRoleName every component is checked:
// app and role must be DNS labels and name (<app>-<role>-<hash>) a DNS
// subdomain, none of which can hold "/" or "..", so no path leaves the
// role's directory.
func RevisionPath(app, role, name string) (string, error) {
	for _, c := range []struct{ what, v string }{{"app", app}, {"role", role}} {
		if msgs := validation.IsDNS1123Label(c.v); len(msgs) > 0 {
			return "", fmt.Errorf("refuse a status branch path with %s %q: %s", c.what, c.v, strings.Join(msgs, "; "))
		}
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return "", fmt.Errorf("refuse a status branch path with revision %q of role %s: %s", name, role, strings.Join(msgs, "; "))
	}
	return path.Join(app, "revisions", role, name+".yaml"), nil
}

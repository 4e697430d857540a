package model

import (
	"fmt"
	"k8s.io/apimachinery/pkg/util/validation"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// RoleSpec declares a role in the app config. Its criteria (Selector,
// Kinds, Names, Paths) claim the objects that match every criterion it
// sets; a spec that sets none claims nothing and only orders the objects
// annotated into its role.
type RoleSpec struct {
	Name string
	// UpgradeOrder, when set, overrides nothing: objects' annotations must
	// agree with it.
	UpgradeOrder *int
	// Selector, when set, claims objects whose labels match.
	Selector labels.Selector
	// Kinds, when set, claims objects of these kinds only.
	Kinds []string
	// Names, when set, claims objects whose name matches one of these
	// shell patterns (path.Match: *, ?, [a-z], \). A pattern with a "/"
	// matches namespace/name of a namespaced object, so "db/*" claims
	// every object of namespace db; it never matches a cluster-scoped
	// object.
	Names []string
	// Paths, when set, claims objects rendered from a file at or under
	// one of these repository paths (slash-separated, relative to the
	// repository root, clean: "bases/database"). An object's path is the
	// file kustomize read it from, or for a generated object the
	// kustomization that generated it, as the kustomizations name them
	// (SourcePathAnnotation); objects of remote bases have none. Paths
	// need a render with Options.Origins.
	Paths []string
	// Annotations, when set, claims objects whose annotation of each key
	// has one of the values listed; "" among them matches an object
	// without the annotation (Argo CD's sync waves: wave 0 is an object
	// with no argocd.argoproj.io/sync-wave).
	Annotations map[string][]string
}

// CheckRepoPath checks a roles[].paths entry: a clean slash-separated
// path relative to the repository root, inside it. It returns what is
// wrong and how to write it, or "" when p is good.
func CheckRepoPath(p string) string {
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	switch {
	case p == "":
		return "must name a directory or file of the repository, such as bases/database"
	case strings.HasPrefix(p, "/"):
		return fmt.Sprintf("must be relative to the repository root, not absolute: write %q", strings.TrimLeft(clean, "/"))
	case clean == ".." || strings.HasPrefix(clean, "../") || slices.Contains(strings.Split(p, "/"), ".."):
		return "must not contain \"..\": name a directory inside the repository, relative to its root"
	case clean == ".":
		return "names the whole repository: name a directory such as bases/database, or claim by kinds or selector instead"
	case strings.Contains(p, "\\"):
		return fmt.Sprintf("must use \"/\" as separator: write %q", clean)
	case clean != strings.TrimSuffix(p, "/"):
		return fmt.Sprintf("must be a clean path: write %q", clean)
	}
	return ""
}

// maxRevisionHashLen is the longest hash a role revision name ends with
// (render/revision: a uint32, safe-encoded, has at most 10 characters).
const maxRevisionHashLen = 10

// CheckRoleName returns an error when role cannot name a role of app: it
// must be a DNS label (RFC 1123: lower-case letters, digits and '-', at
// most 63 characters), so that it is a valid label value and path
// component of the status branch (revisions/<role>/…, never ../…), and
// short enough that the role's revisions, <app>-<role>-<hash>, are valid
// object names. Role names come from the app config and from the
// roleout.dev/role annotation of rendered objects.
func CheckRoleName(app, role string) error {
	if msgs := validation.IsDNS1123Label(role); len(msgs) > 0 {
		return fmt.Errorf("%q is not a valid role name: %s", role, strings.Join(msgs, "; "))
	}
	if n := len(app) + len(role) + 2 + maxRevisionHashLen; n > validation.DNS1123SubdomainMaxLength {
		return fmt.Errorf("role name %q is too long: its revisions (%s-%s-<hash>, up to %d characters) would not be valid object names (at most %d)",
			role, app, role, n, validation.DNS1123SubdomainMaxLength)
	}
	return nil
}

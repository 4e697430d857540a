package render

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

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

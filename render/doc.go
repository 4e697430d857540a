// Package render turns an app's kustomize overlay into rendered objects
// and plans them: it runs kustomize with load restrictions inside the
// repository, groups objects into roles (roleout.dev/role annotations or
// role selectors), orders roles into waves by upgradeOrder, and puts
// cluster-wide prerequisites (CRDs, Namespaces) before the first wave.
//
// Planning is pure: no cluster, no git. render must not import agent,
// sources or apply; its subpackage render/revision holds the hashing.
package render

// Package forge puts previews and rollout results where reviewers look:
// one living comment per pull request and a commit status per app, on
// GitHub, GitLab and Gitea/Forgejo (README, "Pull requests on the
// forge").
//
// A Provider is one forge's API: a file each (github.go, gitlab.go,
// gitea.go), plain HTTP through one small JSON client (client.go) that
// reads the token at every call and turns refusals into *Error with the
// rate limit's wait. Everything it posts is made from what the status
// branch records, so any replica posts the same thing, and nothing from
// a pull request reaches a comment unescaped.
//
// It imports config (forge:), status (the previews it shows), diff and
// model (their types), internal/markdown and internal/outbox; it links
// no build, git or controller code (TestLightVocabulary).
package forge

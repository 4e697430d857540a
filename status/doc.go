// Package status is the format of the status branch, where the agent
// records what it did (docs/design.md, "The status branch"): per app a
// folder holding status.yaml (App: the phase, the roles and their
// revisions, predicted and observed workloads, drift), history.yaml
// (Rollout records, merged by MergeFile when two writers race),
// inventory.yaml (what the app applied, for pruning),
// revisions/<role>/<name>.yaml (each role revision as a
// ControllerRevision) and previews/<ref>.json and .md (Preview, with its
// Markdown for reviewers).
//
// Parse and Load read an app's Records; Update.Files writes a commit's
// files; RevisionPath and the other paths say where each file lives and
// refuse a path that would leave the app's folder. The agent, the CLI's
// history and status and the web view all read the branch through it.
//
// It is pure but for Load, which reads through a Reader. It imports
// model, render/revision and diff for their types; it must not import
// agent, config, apply, render, sources or cmd, and links none of
// kustomize, Helm, go-git or k8s.io/kubernetes (internal/layout,
// TestLightVocabulary).
package status

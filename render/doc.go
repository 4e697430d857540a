// Package render turns an app's kustomize overlay into rendered objects.
// Every kustomize build runs in a sandbox child process (sandbox.go: the
// binary run again, served by an init hook in sandbox_child.go) with
// every read confined to the repository, plugins off, every HTTP fetch
// gated by fetch.go, and its memory, CPU and wall clock bounded;
// kustomize's process-global state lives and dies with the child. Helm
// charts (kustomize's helmCharts, when enabled) render with Helm's
// library in the same binary run once more as the "helm" program
// kustomize calls (helm.go), confined and gated like the render. A
// render with Options.Origins records each object's source path
// (origin.go, object.SourcePathAnnotation) for roles[].paths.
//
// It plans nothing: render/plan groups, orders, hashes and predicts what
// a render returns, and model holds what a plan is. render must not
// import agent, sources, apply, model or render/plan; its subpackages
// are the pure steps around the build: the plan (render/plan), hashing
// and history (render/revision), the workload predictions
// (render/predict), the schemas (render/schema), the checks an object
// passes before planning (render/validate), the needs between objects
// (render/order), variables (render/substitute) and SOPS
// (render/decrypt).
package render

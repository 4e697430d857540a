// Package kubeminor runs the prediction helpers of Kubernetes minors
// other than the one roleout links (render/predict.Minors): one helper
// binary per minor, kubernetes-<minor> in a directory (Dir), built by
// hack/kubepredict from render/predict/kube.go against that minor's
// k8s.io/kubernetes. A helper is started the first time its minor is
// asked for and kept: it reads requests on its stdin and answers each on
// one line of its stdout, and it ends when its stdin closes, which
// roleout's exit does.
//
// A helper is given the workload's JSON, which comes from git, and
// nothing else: an empty environment, no file, a deadline per answer
// (a helper that misses it is killed and started again on the next
// request), and answers are bounded in size. It must not import agent,
// sources, apply or render.
package kubeminor

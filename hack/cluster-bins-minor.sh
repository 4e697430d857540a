#!/usr/bin/env bash
# hack/cluster-bins-minor.sh 1.36: the control plane of another Kubernetes
# minor, for make test-versions: hack/tools/kubernetes/controlplane/main.go
# (the one binary for kube-apiserver, kube-controller-manager and
# kube-scheduler that hack/cluster-bins.sh builds) built with
# hack/tools/kubernetes/go.<minor>.mod, that minor's k8s.io/kubernetes and
# staging modules, into bin/k8s-<minor>, beside links to bin/'s etcd and
# kwok (make cluster-bins builds those). Cached as cluster-bins.sh caches.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/hack/tools"
bin="$root/bin"
controlplane=(kube-apiserver kube-controller-manager kube-scheduler)
m="${1:?usage: hack/cluster-bins-minor.sh 1.36}"
mod="$tools/kubernetes/go.$m.mod"
[ -f "$mod" ] || { echo "cluster-bins: no $mod: roleout does not test Kubernetes $m" >&2; exit 2; }
v="$(sed -n 's/^[[:space:]]*k8s.io\/kubernetes \(v[0-9.]*\)$/\1/p' "$mod" | head -1)"
key="$( (go version; cat "$mod" "${mod%.mod}.sum" "$tools"/kubernetes/controlplane/*.go "$0") | sha256sum | cut -c1-16)"
cache="${ROLEOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/roleout}/cluster-bins/k8s-$m-$key"
if [ ! -x "$cache/kube-control-plane" ]; then
	echo "cluster-bins: building the Kubernetes $v control plane (about 6 minutes on 2 cores)"
	start=$(date +%s)
	ldk="-s -w"
	for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ldk="$ldk -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=${m#1.} -X $p.gitTreeState=clean"
	done
	mkdir -p "$cache.tmp.$$"
	(cd "$tools/kubernetes" && go build -modfile "go.$m.mod" -ldflags "$ldk" -o "$cache.tmp.$$/kube-control-plane" ./controlplane)
	rm -rf "$cache" && mv "$cache.tmp.$$" "$cache"
	echo "cluster-bins: built Kubernetes $v in $(($(date +%s) - start))s"
fi
out="$bin/k8s-$m"
rm -rf "$out" && mkdir -p "$out"
cp "$cache/kube-control-plane" "$out/"
for n in "${controlplane[@]}"; do ln -s kube-control-plane "$out/$n"; done
for n in etcd kwok kwok-stages; do ln -s "../$n" "$out/$n"; done
echo "cluster-bins: bin/k8s-$m ready (Kubernetes $v)"

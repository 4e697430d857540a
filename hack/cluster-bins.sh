#!/usr/bin/env bash
# Builds the local control plane that tests and the demo run against into
# bin/: etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl, kwok, and kwok's Stage objects (bin/kwok-stages), plus two
# controllers for custom resources with their CRDs: the LeaderWorkerSet
# controller (bin/lws-controller, bin/crds/lws) and the aibrix controller
# manager (bin/aibrix-controller, bin/crds/aibrix). Everything comes from the
# Go module proxy through the modules under hack/tools.
#
# The build is keyed by the Go version, the hack/tools module files and this
# script. bin/.cluster-bins.stamp records the key bin/ was built for; the
# binaries are also kept under the user's cache directory
# ($ROLEOUT_CACHE_DIR, else $XDG_CACHE_HOME/roleout, else ~/.cache/roleout),
# so a fresh clone on the same machine copies instead of rebuilding.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/hack/tools"
bin="$root/bin"
names=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok lws-controller aibrix-controller)
k8s_version=v1.37.2

key="$( (go version; cat "$tools"/*/go.mod "$tools"/*/go.sum "$0") | sha256sum | cut -c1-16)"
stamp="$bin/.cluster-bins.stamp"

complete() { # complete DIR: DIR holds every binary, the stages and the CRDs
	for n in "${names[@]}"; do [ -x "$1/$n" ] || return 1; done
	for d in kwok-stages crds/lws crds/aibrix; do
		[ -n "$(ls "$1/$d"/*.yaml 2>/dev/null)" ] || return 1
	done
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] && complete "$bin"; then
	echo "cluster-bins: bin/ is up to date ($key)"
	exit 0
fi

cache="${ROLEOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/roleout}/cluster-bins/$key"
if ! complete "$cache"; then
	echo "cluster-bins: building the control plane (about 15 minutes on 2 cores the first time)"
	start=$(date +%s)
	tmp="$cache.tmp.$$"
	rm -rf "$tmp"
	mkdir -p "$tmp/kwok-stages" "$tmp/crds/lws" "$tmp/crds/aibrix"
	trap 'rm -rf "$tmp"' EXIT

	ver=k8s.io/component-base/version
	cver=k8s.io/client-go/pkg/version
	minor="${k8s_version#v1.}"; minor="${minor%%.*}"
	ldk="-s -w"
	for p in $ver $cver; do
		ldk="$ldk -X $p.gitVersion=$k8s_version -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
	done
	(cd "$tools/kubernetes" && go build -ldflags "$ldk" -o "$tmp/" \
		k8s.io/kubernetes/cmd/kube-apiserver \
		k8s.io/kubernetes/cmd/kube-controller-manager \
		k8s.io/kubernetes/cmd/kube-scheduler \
		k8s.io/kubernetes/cmd/kubectl)
	(cd "$tools/etcd" && go build -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3)
	(cd "$tools/kwok" && go build -ldflags "-s -w" -o "$tmp/kwok" sigs.k8s.io/kwok/cmd/kwok)
	(cd "$tools/lws" && go build -ldflags "-s -w" -o "$tmp/lws-controller" sigs.k8s.io/lws/cmd)
	(cd "$tools/aibrix" && go build -ldflags "-s -w" -o "$tmp/aibrix-controller" \
		github.com/vllm-project/aibrix/cmd/controllers)

	# kwok's node and pod Stage objects, as its kustomize/stage/fast bundle
	# lists them: node initialisation, node heartbeats with leases, and pods
	# that become Ready, complete and are deleted.
	kwokdir="$(cd "$tools/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)"
	for d in node/fast node/heartbeat-with-lease pod/fast; do
		for f in $(sed -n 's/^- //p' "$kwokdir/kustomize/stage/$d/kustomization.yaml"); do
			cp "$kwokdir/kustomize/stage/$d/$f" "$tmp/kwok-stages/$f"
		done
	done

	# The controllers' CRDs: LeaderWorkerSet and DisaggregatedSet (the lws
	# controller sets up both), and aibrix's orchestration group
	# (StormService, RoleSet, PodSet and the rest; not its kustomization).
	lwsdir="$(cd "$tools/lws" && go list -m -f '{{.Dir}}' sigs.k8s.io/lws)"
	cp "$lwsdir"/config/crd/bases/*.yaml "$tmp/crds/lws/"
	aibrixdir="$(cd "$tools/aibrix" && go list -m -f '{{.Dir}}' github.com/vllm-project/aibrix)"
	cp "$aibrixdir"/config/crd/orchestration/orchestration.aibrix.ai_*.yaml "$tmp/crds/aibrix/"
	chmod -R u+w "$tmp"
	rm -rf "$cache"
	mkdir -p "$(dirname "$cache")"
	mv "$tmp" "$cache"
	trap - EXIT
	echo "cluster-bins: built in $(( $(date +%s) - start ))s, cached in $cache"
fi

mkdir -p "$bin"
rm -rf "$bin/kwok-stages" "$bin/crds"
for n in "${names[@]}"; do
	cp -f "$cache/$n" "$bin/$n"
done
cp -r "$cache/kwok-stages" "$bin/kwok-stages"
cp -r "$cache/crds" "$bin/crds"
echo "$key" > "$stamp"
echo "cluster-bins: bin/ ready ($key)"

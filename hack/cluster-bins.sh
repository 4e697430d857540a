#!/usr/bin/env bash
# Builds the local control plane that tests and the demo run against into
# bin/. Everything comes from the Go module proxy through the modules under
# hack/tools.
#
#   hack/cluster-bins.sh core   what the demo (make run) needs: etcd,
#                               kube-apiserver, kube-controller-manager and
#                               kube-scheduler (one binary, linked once:
#                               hack/tools/kubernetes/controlplane, the three
#                               names are links to bin/kube-control-plane),
#                               kwok and its Stage objects (bin/kwok-stages)
#   hack/cluster-bins.sh [all]  core, plus what only tests need: kubectl and
#                               two controllers for custom resources with
#                               their CRDs, the LeaderWorkerSet controller
#                               (bin/lws-controller, bin/crds/lws) and the
#                               aibrix controller manager
#                               (bin/aibrix-controller, bin/crds/aibrix)
#
# The build is keyed by the Go version, the hack/tools module files and this
# script. bin/.cluster-bins.stamp records the key bin/ was built for; the
# binaries are also kept under the user's cache directory
# ($ROLEOUT_CACHE_DIR, else $XDG_CACHE_HOME/roleout, else ~/.cache/roleout),
# so a fresh clone on the same machine copies instead of rebuilding. Only
# what is missing is built, and each build says how long it took.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/hack/tools"
bin="$root/bin"
k8s_version=v1.37.2
core=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)
extra=(kubectl lws-controller aibrix-controller)
controlplane=(kube-apiserver kube-controller-manager kube-scheduler)

part="${1:-all}"
case "$part" in
core) names=("${core[@]}") ;;
all) names=("${core[@]}" "${extra[@]}") ;;
*)
	echo "usage: hack/cluster-bins.sh [core|all]" >&2
	exit 2
	;;
esac

key="$( (go version; cat "$tools"/*/go.mod "$tools"/*/go.sum "$tools"/kubernetes/controlplane/*.go "$0") | sha256sum | cut -c1-16)"
stamp="$bin/.cluster-bins.stamp"
cache="${ROLEOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/roleout}/cluster-bins/$key"

has() { # has DIR NAME: DIR holds binary NAME and the files that go with it
	[ -x "$1/$2" ] || return 1
	case "$2" in
	kwok) [ -n "$(ls "$1"/kwok-stages/*.yaml 2>/dev/null)" ] ;;
	lws-controller) [ -n "$(ls "$1"/crds/lws/*.yaml 2>/dev/null)" ] ;;
	aibrix-controller) [ -n "$(ls "$1"/crds/aibrix/*.yaml 2>/dev/null)" ] ;;
	esac
}

complete() { # complete DIR: DIR holds every binary of the part
	for n in "${names[@]}"; do has "$1" "$n" || return 1; done
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] && complete "$bin"; then
	echo "cluster-bins: bin/ is up to date ($part, $key)"
	exit 0
fi

# build NAME OUT: builds NAME (and the files that go with it) into OUT.
build() {
	local out="$2" ver=k8s.io/component-base/version cver=k8s.io/client-go/pkg/version
	local minor="${k8s_version#v1.}"
	minor="${minor%%.*}"
	local ldk="-s -w"
	for p in $ver $cver; do
		ldk="$ldk -X $p.gitVersion=$k8s_version -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
	done
	case "$1" in
	kube-control-plane)
		(cd "$tools/kubernetes" && go build -ldflags "$ldk" -o "$out/kube-control-plane" ./controlplane)
		for n in "${controlplane[@]}"; do ln -s kube-control-plane "$out/$n"; done
		;;
	kubectl) (cd "$tools/kubernetes" && go build -ldflags "$ldk" -o "$out/kubectl" k8s.io/kubernetes/cmd/kubectl) ;;
	etcd) (cd "$tools/etcd" && go build -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3) ;;
	kwok)
		(cd "$tools/kwok" && go build -ldflags "-s -w" -o "$out/kwok" sigs.k8s.io/kwok/cmd/kwok)
		# kwok's node and pod Stage objects, as its kustomize/stage/fast
		# bundle lists them: node initialisation, node heartbeats with
		# leases, and pods that become Ready, complete and are deleted.
		local kwokdir
		kwokdir="$(cd "$tools/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)"
		mkdir -p "$out/kwok-stages"
		for d in node/fast node/heartbeat-with-lease pod/fast; do
			for f in $(sed -n 's/^- //p' "$kwokdir/kustomize/stage/$d/kustomization.yaml"); do
				cp "$kwokdir/kustomize/stage/$d/$f" "$out/kwok-stages/$f"
			done
		done
		;;
	lws-controller)
		# LeaderWorkerSet and DisaggregatedSet: the controller sets up both.
		(cd "$tools/lws" && go build -ldflags "-s -w" -o "$out/lws-controller" sigs.k8s.io/lws/cmd)
		local lwsdir
		lwsdir="$(cd "$tools/lws" && go list -m -f '{{.Dir}}' sigs.k8s.io/lws)"
		mkdir -p "$out/crds/lws"
		cp "$lwsdir"/config/crd/bases/*.yaml "$out/crds/lws/"
		;;
	aibrix-controller)
		# aibrix's orchestration group (StormService, RoleSet, PodSet and
		# the rest; not its kustomization).
		(cd "$tools/aibrix" && go build -ldflags "-s -w" -o "$out/aibrix-controller" github.com/vllm-project/aibrix/cmd/controllers)
		local aibrixdir
		aibrixdir="$(cd "$tools/aibrix" && go list -m -f '{{.Dir}}' github.com/vllm-project/aibrix)"
		mkdir -p "$out/crds/aibrix"
		cp "$aibrixdir"/config/crd/orchestration/orchestration.aibrix.ai_*.yaml "$out/crds/aibrix/"
		;;
	esac
	chmod -R u+w "$out"
}

# The builds the part lacks in the cache, the three control-plane names
# being one build.
builds=()
for n in "${names[@]}"; do
	has "$cache" "$n" && continue
	case "$n" in
	kube-apiserver | kube-controller-manager | kube-scheduler) b=kube-control-plane ;;
	*) b="$n" ;;
	esac
	[[ " ${builds[*]} " == *" $b "* ]] || builds+=("$b")
done
if [ ${#builds[@]} -gt 0 ]; then
	echo "cluster-bins: building ${builds[*]} (the first time on 2 cores, after make build: about 9 minutes for what the demo needs, 7 more for the test-only tools)"
	mkdir -p "$cache"
	all_start=$(date +%s)
	for b in "${builds[@]}"; do
		start=$(date +%s)
		tmp="$cache.tmp.$$"
		rm -rf "$tmp"
		mkdir -p "$tmp"
		trap 'rm -rf "$tmp"' EXIT
		build "$b" "$tmp"
		# Into the cache: the files first, then the binaries, so that
		# has() never sees a binary without its files.
		for f in "$tmp"/*; do [ ! -d "$f" ] || cp -R "$f" "$cache/"; done
		for f in "$tmp"/*; do [ -d "$f" ] || mv -f "$f" "$cache/"; done
		rm -rf "$tmp"
		trap - EXIT
		echo "cluster-bins: built $b in $(($(date +%s) - start))s"
	done
	echo "cluster-bins: built in $(($(date +%s) - all_start))s, cached in $cache"
fi

mkdir -p "$bin"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$key" ]; then
	# Another key's binaries must not pass for this one's.
	rm -rf "$bin/kwok-stages" "$bin/crds" "$bin/kube-control-plane"
	for n in "${core[@]}" "${extra[@]}"; do rm -f "$bin/$n"; done
fi
for n in "${names[@]}"; do
	case "$n" in
	kube-apiserver | kube-controller-manager | kube-scheduler)
		[ -x "$bin/kube-control-plane" ] || cp -f "$cache/kube-control-plane" "$bin/kube-control-plane"
		ln -sfn kube-control-plane "$bin/$n"
		;;
	*) cp -f "$cache/$n" "$bin/$n" ;;
	esac
	case "$n" in
	kwok) rm -rf "$bin/kwok-stages" && cp -r "$cache/kwok-stages" "$bin/kwok-stages" ;;
	lws-controller) rm -rf "$bin/crds/lws" && mkdir -p "$bin/crds" && cp -r "$cache/crds/lws" "$bin/crds/lws" ;;
	aibrix-controller) rm -rf "$bin/crds/aibrix" && mkdir -p "$bin/crds" && cp -r "$cache/crds/aibrix" "$bin/crds/aibrix" ;;
	esac
done
echo "$key" >"$stamp"
echo "cluster-bins: bin/ ready ($part, $key)"

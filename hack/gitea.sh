#!/usr/bin/env bash
# Builds Gitea, the real forge the forge tests post to, into bin/gitea
# (and the locale files and templates it reads at run time into
# bin/gitea-assets), from the Go module proxy: code.gitea.io/gitea at
# $version, built as the main module from a copy of its module source (its
# go.mod has replace lines) with SQLite. The forge tests call this when
# bin/gitea is missing; one build at a time (a lock), about 4 minutes the
# first time on 2 cores.
#
# Keyed like hack/cluster-bins.sh: the Go version, the Gitea version and
# this script; kept under the user's cache directory ($ROLEOUT_CACHE_DIR,
# else $XDG_CACHE_HOME/roleout, else ~/.cache/roleout) too, so a fresh
# clone copies instead of rebuilding.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/bin"
version=v1.26.0
key="$( (go version; echo "$version"; cat "$0") | sha256sum | cut -c1-16)"
cache="${ROLEOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/roleout}/gitea/$key"
stamp="$bin/.gitea.stamp"

mkdir -p "$bin"
exec 9>"$bin/.gitea.lock"
flock 9

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] && [ -x "$bin/gitea" ] && [ -d "$bin/gitea-assets/options" ]; then
	exit 0
fi
if [ ! -x "$cache/gitea" ] || [ ! -d "$cache/gitea-assets/options" ]; then
	start=$(date +%s)
	echo "gitea: building code.gitea.io/gitea $version (the first time on 2 cores: about 4 minutes)" >&2
	src="$(cd / && GOFLAGS= go mod download -json "code.gitea.io/gitea@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
	[ -d "$src" ] || { echo "gitea: code.gitea.io/gitea@$version is not in the module cache" >&2; exit 1; }
	tmp="$cache.tmp.$$"
	rm -rf "$tmp"
	mkdir -p "$tmp/gitea-assets"
	trap 'rm -rf "$tmp"' EXIT
	cp -R "$src" "$tmp/src"
	chmod -R u+w "$tmp/src"
	(cd "$tmp/src" && GOWORK=off GOFLAGS= go build -tags 'sqlite sqlite_unlock_notify' -ldflags '-s -w' -o "$tmp/gitea" .)
	cp -R "$tmp/src/options" "$tmp/src/templates" "$tmp/gitea-assets/"
	rm -rf "$tmp/src" "$cache"
	mkdir -p "$(dirname "$cache")"
	mv "$tmp" "$cache"
	trap - EXIT
	echo "gitea: built in $(($(date +%s) - start))s, cached in $cache" >&2
fi
rm -rf "$bin/gitea-assets"
cp -R "$cache/gitea-assets" "$bin/gitea-assets"
cp -f "$cache/gitea" "$bin/gitea"
echo "$key" >"$stamp"

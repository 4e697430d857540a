#!/usr/bin/env bash
# Runs govulncheck on the module against the Go vulnerability database as
# the Go module proxy serves it: the OSV files of golang.org/x/vulndb at a
# pinned version, indexed into a local database under the user's cache
# directory once. Machines that reach only the module proxy can run it;
# set GOVULNDB to a database URL to use another (a newer one) instead.
# It fails on a vulnerability the code calls that a newer version of a
# required module fixes; one fixed only in a newer Go, or not fixed yet, is
# listed.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
vuln_version=v1.9.0
vulndb_version=v0.0.0-20261105234957-e22db6528018

db="${GOVULNDB:-}"
if [ -z "$db" ]; then
	cache="${ROLEOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/roleout}/vulndb/$vulndb_version"
	if [ ! -f "$cache/index/db.json" ]; then
		echo "govulncheck: indexing golang.org/x/vulndb@$vulndb_version into $cache (once)"
		src="$(go mod download -json "golang.org/x/vulndb@$vulndb_version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
		[ -d "$src/data/osv" ] || { echo "govulncheck: golang.org/x/vulndb@$vulndb_version has no data/osv" >&2; exit 1; }
		rm -rf "$cache.tmp"
		go run "golang.org/x/vulndb/cmd/indexdb@$vulndb_version" -vulns "$src/data/osv" -out "$cache.tmp"
		rm -rf "$cache" && mv "$cache.tmp" "$cache"
	fi
	db="file://$cache"
	echo "govulncheck: database golang.org/x/vulndb@$vulndb_version ($(ls "$cache/ID" | wc -l) entries)"
fi
cd "$root"
# govulncheck exits non-zero on any finding; vulnfilter fails only on what
# a module upgrade fixes, and reports what needs a newer Go or has no fix.
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
go run "golang.org/x/vuln/cmd/govulncheck@$vuln_version" -db "$db" -format json ./... > "$out" || true
go run ./hack/vulnfilter < "$out"

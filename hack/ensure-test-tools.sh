#!/usr/bin/env bash
# Makes sure the programs the tests run besides Go and git are installed:
# sshd (the SSH transport tests run a real sshd on loopback), ssh-keygen
# and gpg (tests sign commits and tags with them, as git does), and
# chromium (the web view's tests drive it headless with chromedp). Installs
# the missing ones from Debian's packages when this runs as root (as CI
# does); otherwise says what to install.
set -euo pipefail
declare -A packages=([sshd]=openssh-server [ssh-keygen]=openssh-client [gpg]=gnupg [chromium]=chromium)
missing=()
for tool in sshd ssh-keygen gpg chromium; do
	if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
		missing+=("${packages[$tool]}")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-test-tools: install ${missing[*]} (the tests run them)" >&2
	exit 1
fi
echo "ensure-test-tools: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; }

#!/usr/bin/env bash
# Makes sure sshd is installed: the SSH transport tests run a real sshd on
# loopback. Installs Debian's openssh-server when it is missing and this
# runs as root (as CI does); otherwise says what to install.
set -euo pipefail
if command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-sshd: sshd is missing: install openssh-server (the SSH transport tests need it)" >&2
	exit 1
fi
echo "ensure-sshd: installing openssh-server"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q openssh-server >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q openssh-server >/dev/null; }

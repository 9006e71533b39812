#!/usr/bin/env bash
# Set up a machine to run racksmith and its tests: the host packages the lab needs and a
# project virtualenv in .venv. Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

HOST_PACKAGES=(podman runc debootstrap uidmap libnfs-utils iproute2 openssh-client openssl)

missing=()
for pkg in "${HOST_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: host packages missing (${missing[*]}); run this script as root or install them" >&2
    exit 1
  fi
  echo "setup: installing host packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The venv is rebuilt only when pyproject.toml changes.
stamp=.venv/.racksmith-setup
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
  [[ -x .venv/bin/python ]] || python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip >/dev/null
  .venv/bin/pip install -q -e '.[dev]'
  echo "$want" >"$stamp"
fi
echo "setup: ready (.venv/bin/racksmith)"

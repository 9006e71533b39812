#!/usr/bin/env bash
# Set up a machine to run racksmith and its tests. Safe to run again: each step is skipped
# when already done.
#
# Third-party dependencies (about 1.5 GB: ansible and its collections, pyavd, molecule...) live
# in one machine-wide venv, $RACKSMITH_DEPS_VENV, installed once and reused by every checkout;
# each checkout gets a thin .venv that layers its own src/ over them. A fresh clone (CI) is
# then ready in seconds, and a machine that has lost its network can still run what it has.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
deps=${RACKSMITH_DEPS_VENV:-/var/cache/racksmith/venv}
python=${PYTHON:-python3}

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

# Dependencies: pip is asked only when the list in pyproject.toml changed since the last run.
requirements=$("$python" - <<'PY'
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["dev"]))
PY
)
want=$(printf '%s\n' "$requirements" | sha256sum | cut -d' ' -f1)
if [[ ! -f $deps/.racksmith-deps || $(cat "$deps/.racksmith-deps") != "$want" ]]; then
  echo "setup: installing dependencies into $deps"
  mkdir -p "$(dirname "$deps")"
  [[ -x $deps/bin/python ]] || "$python" -m venv "$deps"
  mapfile -t reqs <<<"$requirements"
  "$deps/bin/pip" install -q "${reqs[@]}"
  echo "$want" >"$deps/.racksmith-deps"
fi

# The checkout's own venv: its src/ first, then the shared dependencies.
if [[ ! -x .venv/bin/python ]]; then
  rm -rf .venv
  "$deps/bin/python" -c 'import sys; print(sys.base_prefix)' >/dev/null
  "$(readlink -f "$deps/bin/python")" -m venv --without-pip .venv
fi
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
deps_site=$("$deps/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf '%s\n' "$root/src" >"$site/racksmith-src.pth"
printf '%s\n' "$deps_site" >"$site/racksmith-deps.pth"
# The dependencies' commands: Python console scripts run by this venv's python (so they see
# src/ too); native ones (ruff) are linked.
for script in "$deps"/bin/*; do
  name=$(basename "$script")
  case $name in python* | pip* | activate* | Activate*) continue ;; esac
  [[ -f $script && -x $script ]] || continue
  rm -f ".venv/bin/$name"
  if head -n1 "$script" 2>/dev/null | grep -q "^#!$deps/bin/python"; then
    printf '#!/bin/sh\nexec "%s/.venv/bin/python" "%s" "$@"\n' "$root" "$script" >".venv/bin/$name"
    chmod +x ".venv/bin/$name"
  else
    ln -s "$script" ".venv/bin/$name"
  fi
done
printf '#!/bin/sh\nexec "%s/.venv/bin/python" -m racksmith "$@"\n' "$root" >.venv/bin/racksmith
chmod +x .venv/bin/racksmith
echo "setup: ready (.venv/bin/racksmith)"

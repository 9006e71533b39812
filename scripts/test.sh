#!/usr/bin/env bash
# The project's checks: lint, then the test suite. Run after scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
.venv/bin/ruff check src tests bench
mapfile -t ansible_dirs < <(ls -d roles playbooks 2>/dev/null)
.venv/bin/yamllint -s .yamllint examples "${ansible_dirs[@]}"
if ((${#ansible_dirs[@]})); then
  .venv/bin/ansible-lint -q --profile production "${ansible_dirs[@]}"
fi
.venv/bin/pytest -q "$@"

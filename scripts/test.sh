#!/usr/bin/env bash
# The project's checks: lint, then the test suite. Run after scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check src tests bench
.venv/bin/yamllint -s examples .yamllint $(ls -d roles playbooks inventory molecule 2>/dev/null | xargs -r -I{} find {} -name '*.yml')
.venv/bin/pytest -q "$@"

"""Where racksmith finds its Ansible content and keeps its state."""

from __future__ import annotations

import os
from pathlib import Path

from racksmith.errors import RacksmithError

# racksmith runs from its checkout: the roles, playbooks and testinfra suites live beside src/.
PROJECT = Path(__file__).resolve().parents[2]
PLAYBOOKS = PROJECT / "playbooks"
ROLES = PROJECT / "roles"
INFRA_TESTS = PROJECT / "tests" / "infra"
ANSIBLE_CFG = PROJECT / "ansible.cfg"


def state_root() -> Path:
    """Runs, locks, rendered clusters and the lab live here (``RACKSMITH_STATE`` overrides)."""
    configured = os.environ.get("RACKSMITH_STATE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "racksmith"


def lab_inventory() -> Path:
    """The inventory ``racksmith lab up`` writes, and the default target of up and check."""
    return state_root() / "lab" / "inventory"


def require_content() -> None:
    """Fail early, with the reason, when the Ansible content is not beside the package."""
    missing = [p for p in (PLAYBOOKS / "site.yml", ROLES, ANSIBLE_CFG) if not p.exists()]
    if missing:
        raise RacksmithError(
            f"{missing[0]}: not found; racksmith runs from its source checkout "
            "(install it with scripts/setup.sh, not from a wheel)"
        )

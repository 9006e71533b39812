"""What will be applied on one host, in the syntax of the tool that shows it on the host."""

from __future__ import annotations

from racksmith.errors import RacksmithError
from racksmith.plan import Plan

WHATS = ("routes", "rules", "mounts", "sysctls", "ports")


def show(plan: Plan, host: str, what: str) -> list[str]:
    """Lines for ``what`` on ``host``: ``ip route``/``ip rule`` lines, fstab lines, and so on."""
    if what not in WHATS:
        raise RacksmithError(f"--what {what!r}: choose one of {', '.join(WHATS)}")
    switches = {s.name for p in plan.switch_pairs for s in p.switches}
    if host not in plan.hosts and host not in switches:
        known = sorted([*plan.hosts, *switches])
        raise RacksmithError(f"unknown host {host!r}; hosts: {', '.join(known)}")
    if what == "ports":
        return _ports(plan, host)
    node = plan.hosts.get(host)
    storage = node.storage if node else None
    if what == "routes":
        if storage is None:
            return []
        lines = [r.ip() for r in storage.routes]
        return lines + [r.ip() for t in storage.tables for r in t.routes]
    if what == "rules":
        return [r.ip() for r in storage.rules] if storage else []
    if what == "sysctls":
        return [f"{k} = {v}" for k, v in storage.sysctls] if storage else []
    mounts = list(storage.mounts) if storage else []
    if node is not None and node.shared_mount is not None:
        mounts.append(node.shared_mount)
    return [m.fstab() for m in mounts]


def _ports(plan: Plan, host: str) -> list[str]:
    lines = []
    for pair in plan.switch_pairs:
        for channel in pair.port_channels:
            for m in channel.members:
                far = m.far_end.split(" ", 1)
                if m.switch == host or far[0] == host:
                    lines.append(f"{m.far_end} -> {m.switch} {m.port} (Port-Channel{channel.id})")
    return lines

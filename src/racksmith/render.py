"""Render a plan as an Ansible inventory: hosts.yml, group_vars/ and host_vars/.

Every value a role reads comes from here, under the role's own prefix. Rendering is
deterministic (sorted keys, no timestamps), so the same spec gives byte-identical files and a
diff of two renders is a diff of intent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from racksmith.plan import HostPlan, Mount, Plan, Route
from racksmith.switches.render import render_switch_configs
from racksmith.units import format_size

HEADER = "# Rendered by racksmith from the cluster spec. Edit the spec, not this file.\n"
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
# "head_node", not "head": a head node is often named head, and Ansible warns when a group
# and a host share a name.
GROUPS = {"gpu": "gpu", "head": "head_node", "flashblade": "flashblade", "switch": "switches"}


def dump(data: Any) -> str:
    return HEADER + yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=True,
        default_flow_style=False,
        width=1000,
        allow_unicode=True,
    )


def _route(route: Route) -> dict[str, Any]:
    out: dict[str, Any] = {"dest": route.dest, "dev": route.dev}
    if route.src:
        out["src"] = route.src
    if route.via:
        out["via"] = route.via
    if route.table is not None:
        out["table"] = route.table
    return out


def _mount(mount: Mount) -> dict[str, Any]:
    return {
        "src": mount.source,
        "path": mount.path,
        "fstype": mount.fstype,
        "opts": mount.options,
        "vip": mount.vip,
        "dev": mount.dev,
    }


def inventory_groups(plan: Plan) -> dict[str, Any]:
    children: dict[str, Any] = {group: {"hosts": {}} for group in GROUPS.values()}
    for host in plan.hosts.values():
        children[GROUPS[host.role]]["hosts"][host.name] = None
    for pair in plan.switch_pairs:
        for switch in pair.switches:
            children["switches"]["hosts"][switch.name] = None
    if plan.slurm:
        children["slurm_controller"] = {"hosts": {plan.slurm.controller: None}}
        children["slurm_compute"] = {"children": {"gpu": None}}
    return {
        "all": {
            "children": {k: v for k, v in children.items() if v.get("hosts") or v.get("children")}
        }
    }


def all_vars(plan: Plan) -> dict[str, Any]:
    out: dict[str, Any] = {
        "racksmith_cluster_name": plan.cluster_name,
        "racksmith_networks": {
            name: {
                "subnet": n.subnet,
                "prefix": n.prefix,
                "gateway": n.gateway,
                "vlan": n.vlan,
                "mtu": n.mtu,
            }
            for name, n in plan.networks.items()
        },
    }
    if plan.slurm:
        s = plan.slurm
        gpu_nodes = plan.by_role("gpu")
        out.update(
            {
                "slurm_cluster_name": s.cluster_name,
                "slurm_controller": s.controller,
                "slurm_controller_address": plan.hosts[s.controller].mgmt_address,
                "slurm_accounting": s.accounting,
                "slurm_fairshare": s.fairshare,
                "slurm_max_gpus_per_user": s.max_gpus_per_user,
                "slurm_node_lines": [s.node_line(h) for h in gpu_nodes],
                "slurm_partition_lines": [p.line() for p in s.partitions],
                "slurm_qos": [
                    {
                        "name": p.qos,
                        "max_gpus_per_user": p.max_gpus_per_user,
                        "max_time": p.max_time,
                    }
                    for p in s.partitions
                    if p.qos
                ],
            }
        )
        if s.munge_key is not None:
            out["slurm_munge_key"] = s.munge_key.jinja()
    c = plan.containers
    out.update(
        {
            "containers_apptainer_source": c.apptainer_source,
            "containers_apptainer_package": c.apptainer_package,
            "containers_registry": c.registry,
            "containers_registry_username": c.username,
            "containers_cache_dir": c.cache_dir,
            "containers_images": [{"ref": ref, "sif": sif} for ref, sif in c.images],
        }
    )
    if c.password is not None:
        out["containers_registry_password"] = c.password.jinja()
    return out


def gpu_vars(plan: Plan, host: HostPlan) -> dict[str, Any]:
    out: dict[str, Any] = {"slurm_node_gpus": host.gpus, "slurm_node_gpu_type": host.gpu_type}
    st = host.storage
    if st is not None:
        out.update(
            {
                "nfs_client_routes": [_route(r) for r in st.routes],
                "nfs_client_rules": [
                    {"priority": r.priority, "from": r.source, "table": r.table} for r in st.rules
                ],
                "nfs_client_tables": [
                    {
                        "id": t.id,
                        "name": t.name,
                        "dev": t.dev,
                        "source": t.source,
                        "routes": [_route(r) for r in t.routes],
                    }
                    for t in st.tables
                ],
                "nfs_client_sysctls": dict(st.sysctls),
                "nfs_client_mounts": [_mount(m) for m in st.mounts],
            }
        )
    if host.shared_mount is not None:
        out["nfs_client_head_mount"] = _mount(host.shared_mount)
    return out


def flashblade_vars(plan: Plan) -> dict[str, Any]:
    fb = plan.flashblade
    assert fb is not None
    return {
        "ansible_connection": "local",
        "ansible_python_interpreter": "{{ ansible_playbook_python }}",
        "flashblade_url": fb.management,
        "flashblade_api_token": fb.api_token.jinja(),
        "flashblade_subnet": {
            "name": fb.subnet_name,
            "prefix": fb.subnet,
            "gateway": fb.gateway,
            "vlan": fb.vlan,
            "mtu": fb.mtu,
            "lag": fb.lag,
        },
        "flashblade_vips": [{"name": v.name, "address": v.address} for v in fb.vips],
        "flashblade_filesystems": [
            {
                "name": f.name,
                "size": format_size(f.size),
                "nfsv3": f.nfsv3,
                "nfsv4_1": f.nfsv41,
                "export_rules": f.rules,
                "fast_remove": f.fast_remove,
                "snapshot_directory": f.snapshot_directory,
                "hard_limit": f.hard_limit,
            }
            for f in fb.filesystems
        ],
        "flashblade_destroy_filesystems": list(fb.destroy_filesystems),
        "flashblade_allow_shrink": list(fb.allow_shrink),
        "flashblade_prune_vips": fb.prune_vips,
    }


def head_vars(plan: Plan) -> dict[str, Any]:
    head = plan.head
    assert head is not None
    g = head.geometry
    out: dict[str, Any] = {
        "head_storage_backend": head.backend,
        "head_storage_devices": list(head.devices),
        "head_storage_wipe": list(head.wipe),
        "head_storage_mount": head.mount,
        "head_storage_raid": {
            "level": 50,
            "disks": g.disks,
            "disk_size": g.disk_size,
            "spans": g.spans,
            "disks_per_span": g.disks_per_span,
            "data_disks": g.data_disks,
            "chunk_kib": g.chunk // 1024,
            "raid0_chunk_kib": g.raid0_chunk // 1024,
            "usable_bytes": g.usable_bytes,
        },
        "head_storage_xfs": {
            "su_kib": g.xfs_su // 1024,
            "sw": g.xfs_sw,
            "sunit_blocks": g.xfs_sunit_blocks,
            "swidth_blocks": g.xfs_swidth_blocks,
        },
        "head_storage_nfs_server": head.nfs_server,
        "head_storage_exports": [
            {"path": e.path, "clients": e.clients, "options": e.options} for e in head.exports
        ],
    }
    if head.idrac_address is not None and head.idrac_password is not None:
        out["head_storage_idrac"] = {
            "address": head.idrac_address,
            "username": head.idrac_username,
            "password": head.idrac_password.jinja(),
            "controller": head.idrac_controller,
        }
    return out


def switch_vars(plan: Plan) -> dict[str, dict[str, Any]]:
    out = {}
    for pair in plan.switch_pairs:
        for switch in pair.switches:
            connection = (
                {
                    "ansible_connection": "ansible.netcommon.network_cli",
                    "ansible_network_os": "arista.eos.eos",
                    "ansible_become": True,
                    "ansible_become_method": "ansible.netcommon.enable",
                }
                if pair.vendor == "eos"
                else {"ansible_connection": "ssh"}
            )
            out[switch.name] = {
                "ansible_host": switch.mgmt_address,
                "ansible_user": "{{ switches_username }}",
                "ansible_password": "{{ switches_password }}",
                **connection,
                "switches_pair": pair.name,
                "switches_vendor": pair.vendor,
                "switches_username": plan.switch_username,
                "switches_password": plan.switch_password.jinja() if plan.switch_password else "",
            }
    return out


def host_vars(plan: Plan) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for host in plan.hosts.values():
        base: dict[str, Any] = {"racksmith_role": host.role}
        if host.role != "flashblade":
            base["ansible_host"] = host.mgmt_address
            base["racksmith_interfaces"] = {
                n: {"address": i.address, "prefix": i.prefix, "network": i.network}
                for n, i in host.interfaces.items()
            }
        if host.role == "gpu":
            base.update(gpu_vars(plan, host))
        elif host.role == "flashblade":
            base.update(flashblade_vars(plan))
        elif host.role == "head":
            base.update(head_vars(plan))
        out[host.name] = base
    for name, data in switch_vars(plan).items():
        out[name] = {"racksmith_role": "switch", **data}
    return out


def inventory_files(plan: Plan) -> dict[str, str]:
    """Relative path -> text of every file of the rendered inventory."""
    files = {
        "hosts.yml": dump(inventory_groups(plan)),
        "group_vars/all.yml": dump(all_vars(plan)),
    }
    for name, data in host_vars(plan).items():
        files[f"host_vars/{name}.yml"] = dump(data)
    return files


def _write(path: Path, text: str) -> bool:
    """Write only what changed, atomically, so a re-render leaves mtimes of the rest alone."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except FileNotFoundError:
        pass
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return True


def render_all(plan: Plan, outdir: str | Path) -> list[Path]:
    """The inventory, and each switch's intended config under ``configs/`` beside it."""
    changed = render_inventory(plan, outdir)
    if plan.switch_pairs:
        changed += render_switch_configs(plan, Path(outdir) / "configs")
    return changed


def render_inventory(plan: Plan, outdir: str | Path) -> list[Path]:
    """Write the inventory; returns the files that changed. Stale racksmith files are removed."""
    root = Path(outdir)
    files = inventory_files(plan)
    for sub in ("group_vars", "host_vars"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    changed = [root / rel for rel, text in sorted(files.items()) if _write(root / rel, text)]
    for stale in sorted((root / "host_vars").glob("*.yml")):
        rel = f"host_vars/{stale.name}"
        if rel not in files and stale.read_text(encoding="utf-8").startswith(HEADER):
            stale.unlink()
            changed.append(stale)
    return changed

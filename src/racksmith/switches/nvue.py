"""NVIDIA Cumulus Linux: the intent as NVUE startup YAML (`nv config replace` input).

Targets Cumulus Linux 5.x (MLAG and bond MLAG enabled with ``enable: on``; 5.15 and later
also accept that form). All decisions are made in Python; the template only lays data out.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import jinja2

from racksmith.switches.intent import Channel, SwitchConfigError, SwitchIntent

# NVIDIA's reserved range for MLAG system MACs; both peers must share one per domain.
MLAG_MAC_PREFIX = "44:38:39:be:ef"
MLAG_PRIORITY = {True: 1000, False: 2000}  # lower wins the primary role
MGMT_VRF = "mgmt"
PEERLINK = "peerlink"
_EOS_PORT = re.compile(r"^Ethernet(\d+)(?:/(\d+))?$")
_NVUE_PORT = re.compile(r"^swp\d+(?:s\d+)?$")


def port_name(port: str) -> str:
    """The Cumulus name of a front-panel port; EOS names from a shared spec are translated."""
    if _NVUE_PORT.match(port):
        return port
    found = _EOS_PORT.match(port)
    if found is None:
        raise SwitchConfigError(
            f"port {port!r} is neither a Cumulus port (swp1, swp1s0) nor an EOS one (Ethernet1)"
        )
    number, lane = found.groups()
    # EOS lanes count from 1 (Ethernet49/1), Cumulus breakouts from 0 (swp49s0).
    return f"swp{number}" if lane is None else f"swp{number}s{int(lane) - 1}"


def mlag_mac(domain: str) -> str:
    return f"{MLAG_MAC_PREFIX}:{hashlib.sha256(domain.encode()).digest()[0]:02x}"


@dataclass(frozen=True, slots=True)
class _Port:
    name: str
    description: str
    mtu: int


@dataclass(frozen=True, slots=True)
class _Bond:
    name: str
    description: str
    members: tuple[str, ...]
    mlag_id: int
    lacp_bypass: bool
    access: int | None
    vlans: tuple[int, ...]
    mtu: int


def _bond(channel: Channel) -> _Bond:
    return _Bond(
        name=f"bond{channel.id}",
        description=channel.description,
        members=tuple(port_name(m.port) for m in channel.members),
        mlag_id=channel.id,
        lacp_bypass=channel.lacp_fallback,
        access=channel.vlans[0] if channel.mode == "access" else None,
        vlans=channel.vlans if channel.mode == "trunk" else (),
        mtu=channel.mtu,
    )


def context(intent: SwitchIntent) -> dict[str, Any]:
    peer = next(c for c in intent.channels if c.kind == "peer")
    hosts = [c for c in intent.channels if c.kind != "peer"]
    ports = sorted(
        (
            _Port(port_name(m.port), _far_end(c, m.description), c.mtu)
            for c in intent.channels
            for m in c.members
        ),
        key=lambda p: _sort_key(p.name),
    )
    return {
        "hostname": intent.hostname,
        "mgmt_address": intent.mgmt_address,
        "mgmt_vrf": MGMT_VRF,
        "mgmt_gateway": intent.mgmt_gateway,
        "ports": ports,
        "bonds": [_bond(c) for c in hosts],
        "peerlink": {
            "name": PEERLINK,
            "members": [port_name(m.port) for m in peer.members],
            "mtu": peer.mtu,
            "vlan": intent.peer_vlan,
        },
        "bridge_vlans": [v.id for v in intent.vlans if v.id != intent.peer_vlan],
        "mlag": {
            "mac": mlag_mac(intent.mlag_domain),
            "priority": MLAG_PRIORITY[intent.mlag_primary],
            "backup": intent.peer_mgmt_address,
            "backup_vrf": MGMT_VRF,
        },
    }


def _far_end(channel: Channel, description: str) -> str:
    """Peer-link far ends name the other switch's port, which is a Cumulus port too."""
    if channel.kind != "peer":
        return description
    host, _, port = description.rpartition(" ")
    return f"{host} {port_name(port)}"


def _sort_key(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name))


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("racksmith.switches", "templates/nvue"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(intent: SwitchIntent) -> str:
    return _environment().get_template("startup.yaml.j2").render(**context(intent))

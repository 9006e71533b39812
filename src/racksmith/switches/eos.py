"""Arista EOS: the intent as eos_cli_config_gen structured config, rendered by pyavd.

We build the structured config ourselves rather than feed eos_designs: the port-channel
numbers, peer addresses and MLAG domain are already fixed by the plan, and eos_designs would
re-derive them from its own pools and naming rules. pyavd still validates every key against
its schema and renders the CLI, so a typo or removed key fails here, not on the switch.
"""

from __future__ import annotations

from typing import Any

from pyavd import get_device_config, validate_structured_config

from racksmith.switches.intent import (
    PEER_LINK_TRUNK_GROUP,
    Channel,
    SwitchConfigError,
    SwitchIntent,
)

MGMT_VRF = "MGMT"
MGMT_INTERFACE = "Management1"
# Resolved by the deploy role (eos_config templates its src) from vault/env variables, so the
# rendered file never holds a credential and the user survives `replace: config`.
USERNAME_PLACEHOLDER = "{{ switches_username }}"
PASSWORD_HASH_PLACEHOLDER = "{{ switches_password_sha512 }}"
# Seconds a rebooted peer keeps its MLAG (and then other) ports down while state syncs.
RELOAD_DELAY_MLAG = 300
RELOAD_DELAY_NON_MLAG = 330


def _channel_name(channel: Channel) -> str:
    return f"Port-Channel{channel.id}"


def _switchport(channel: Channel) -> dict[str, Any]:
    if channel.mode == "access":
        return {"enabled": True, "mode": "access", "access_vlan": channel.vlans[0]}
    trunk: dict[str, Any] = {"allowed_vlan": ",".join(str(v) for v in channel.vlans)}
    if channel.kind == "peer":
        trunk["groups"] = [PEER_LINK_TRUNK_GROUP]
    return {"enabled": True, "mode": "trunk", "trunk": trunk}


def _port_channel(channel: Channel) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": _channel_name(channel),
        "description": channel.description,
        "shutdown": False,
        "mtu": channel.mtu,
        "switchport": _switchport(channel),
    }
    if channel.kind != "peer":
        out["mlag"] = channel.id
    if channel.edge:
        out["spanning_tree_portfast"] = "edge"
    if channel.lacp_fallback:
        out["lacp_fallback_mode"] = "individual"
        out["lacp_fallback_timeout"] = 5
    return out


def _members(channel: Channel) -> list[dict[str, Any]]:
    out = []
    for member in channel.members:
        port: dict[str, Any] = {
            "name": member.port,
            "description": member.description,
            "shutdown": False,
            "mtu": channel.mtu,
            "channel_group": {"id": channel.id, "mode": "active"},
        }
        if channel.lacp_fallback:
            # In fallback-individual the member forwards on its own switchport settings.
            port["switchport"] = _switchport(channel)
            port["spanning_tree_portfast"] = "edge"
        out.append(port)
    return out


def structured_config(intent: SwitchIntent) -> dict[str, Any]:
    """The eos_cli_config_gen data model for one switch (not yet validated)."""
    channels = list(intent.channels)
    peer = [c for c in channels if c.kind == "peer"]
    if len(peer) != 1:
        raise SwitchConfigError(
            f"{intent.hostname}: expected one MLAG peer link, found {len(peer)}"
        )
    ethernet = [m for c in channels for m in _members(c)]
    config: dict[str, Any] = {
        "hostname": intent.hostname,
        "service_routing_protocols_model": "multi-agent",
        "vrfs": [{"name": MGMT_VRF, "ip_routing": False}],
        "management_interfaces": [
            {
                "name": MGMT_INTERFACE,
                "description": "oob_management",
                "shutdown": False,
                "vrf": MGMT_VRF,
                "ip_address": intent.mgmt_address,
                "type": "oob",
            }
        ],
        # SSH and eAPI must listen in the management VRF, or replacing the config locks
        # Ansible (SSH) and ANTA (eAPI) out.
        "management_ssh": {"vrfs": [{"name": MGMT_VRF, "enable": True}]},
        "management_api_http": {
            "enable_https": True,
            "enable_vrfs": [{"name": MGMT_VRF}],
        },
        "local_users": [
            {
                "name": USERNAME_PLACEHOLDER,
                "privilege": 15,
                "role": "network-admin",
                "sha512_password": PASSWORD_HASH_PLACEHOLDER,
            }
        ],
        "spanning_tree": {"mode": "mstp", "no_spanning_tree_vlan": str(intent.peer_vlan)},
        "vlans": [
            {"id": v.id, "name": v.name}
            | ({"trunk_groups": [PEER_LINK_TRUNK_GROUP]} if v.id == intent.peer_vlan else {})
            for v in intent.vlans
        ],
        "vlan_interfaces": [
            {
                "name": f"Vlan{intent.peer_vlan}",
                "description": "MLAG peer",
                "shutdown": False,
                "no_autostate": True,
                "mtu": peer[0].mtu,
                "ip_address": intent.peer_address,
            }
        ],
        "port_channel_interfaces": [_port_channel(c) for c in channels],
        "ethernet_interfaces": ethernet,
        "mlag_configuration": {
            "domain_id": intent.mlag_domain,
            "local_interface": f"Vlan{intent.peer_vlan}",
            "peer_address": intent.peer_neighbor,
            "peer_link": _channel_name(peer[0]),
            "reload_delay_mlag": str(RELOAD_DELAY_MLAG),
            "reload_delay_non_mlag": str(RELOAD_DELAY_NON_MLAG),
        },
        "ip_routing": False,
    }
    if intent.mgmt_gateway:
        config["static_routes"] = [
            {"vrf": MGMT_VRF, "prefix": "0.0.0.0/0", "next_hop": intent.mgmt_gateway}
        ]
    return config


def render(intent: SwitchIntent) -> str:
    """The switch's full EOS CLI configuration, validated against pyavd's schema first."""
    result = validate_structured_config(structured_config(intent))
    violations = result.validation_result.violations
    if violations or result.validated_data is None:
        detail = "; ".join(f"{'.'.join(v.path)}: {v.message}" for v in violations)
        raise SwitchConfigError(
            f"{intent.hostname}: pyavd rejected the structured config ({detail}); "
            "this is a racksmith bug or a pyavd schema change: pin pyavd or update eos.py"
        )
    return get_device_config(result.validated_data)

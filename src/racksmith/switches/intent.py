"""What one switch must be, vendor-neutral, derived from the plan.

Every decision (VLAN of each port-channel, MTU, LACP fallback, MLAG role) is made here once, so
the EOS structured config and the NVUE template only translate names and never decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from racksmith.errors import RacksmithError
from racksmith.plan import Plan, SwitchPairPlan, SwitchPlan

# EOS keeps the peer VLAN off every port but the peer link by this trunk group.
PEER_LINK_TRUNK_GROUP = "MLAG"


class SwitchConfigError(RacksmithError):
    """The plan cannot be turned into a switch configuration; the message says what to change."""


@dataclass(frozen=True, slots=True)
class Member:
    port: str
    description: str  # the far end, e.g. "dgx-1-1 em1"


@dataclass(frozen=True, slots=True)
class Channel:
    id: int
    kind: str  # peer | gpu | flashblade
    description: str
    members: tuple[Member, ...]  # only the members on this switch
    mode: str  # access | trunk
    vlans: tuple[int, ...]  # access: one VLAN; trunk: allowed VLANs
    mtu: int
    # GPU nodes in the reference design do not bond em1/em2 (one address per NIC, per-VIP
    # routes), so their ports must forward without an LACP partner.
    lacp_fallback: bool
    edge: bool


@dataclass(frozen=True, slots=True)
class Vlan:
    id: int
    name: str


@dataclass(frozen=True, slots=True)
class SwitchIntent:
    pair: str
    vendor: str
    hostname: str
    mgmt_address: str  # with prefix, e.g. 10.21.112.2/24
    mgmt_gateway: str | None
    peer_mgmt_address: str
    mlag_domain: str
    mlag_primary: bool  # first switch of the pair
    peer_vlan: int
    peer_address: str  # with prefix
    peer_neighbor: str
    vlans: tuple[Vlan, ...]
    channels: tuple[Channel, ...]
    username: str | None


def _other(pair: SwitchPairPlan, switch: SwitchPlan) -> SwitchPlan:
    a, b = pair.switches
    return b if switch.name == a.name else a


def find_switch(plan: Plan, name: str) -> tuple[SwitchPairPlan, SwitchPlan]:
    for pair in plan.switch_pairs:
        for switch in pair.switches:
            if switch.name == name:
                return pair, switch
    known = ", ".join(s.name for p in plan.switch_pairs for s in p.switches) or "none"
    raise SwitchConfigError(f"no switch named {name!r} in the plan; switches: {known}")


def switch_intent(plan: Plan, pair: SwitchPairPlan, switch: SwitchPlan) -> SwitchIntent:
    mgmt = plan.networks["management"]
    data = plan.networks["data"]
    if data.vlan is None:
        raise SwitchConfigError("networks.data.vlan is required to configure the switches")
    vlans = [Vlan(data.vlan, "DATA")]
    if mgmt.vlan is not None and mgmt.vlan != data.vlan:
        vlans.append(Vlan(mgmt.vlan, "MGMT"))
    if pair.peer_vlan in {v.id for v in vlans}:
        raise SwitchConfigError(
            f"pair {pair.name}: peer_vlan {pair.peer_vlan} is also a cluster network VLAN; "
            "pick a VLAN of its own (4094 is usual)"
        )
    vlans.append(Vlan(pair.peer_vlan, "MLAG_PEER"))
    vlans.sort(key=lambda v: v.id)
    trunk_vlans = tuple(v.id for v in vlans)
    channels = []
    for channel in sorted(pair.port_channels, key=lambda c: c.id):
        members = tuple(
            Member(m.port, m.far_end) for m in channel.members if m.switch == switch.name
        )
        if not members:
            continue
        if channel.kind == "peer":
            channels.append(
                Channel(
                    channel.id,
                    "peer",
                    channel.description,
                    members,
                    "trunk",
                    trunk_vlans,
                    # The peer link carries every VLAN, so it needs the largest MTU of them.
                    max(data.mtu, mgmt.mtu),
                    lacp_fallback=False,
                    edge=False,
                )
            )
        elif channel.kind == "gpu":
            channels.append(
                Channel(
                    channel.id,
                    "gpu",
                    channel.description,
                    members,
                    "access",
                    (data.vlan,),
                    data.mtu,
                    lacp_fallback=True,
                    edge=True,
                )
            )
        else:
            # The FlashBlade tags its data subnet with the data VLAN (purenetwork's vlan column).
            channels.append(
                Channel(
                    channel.id,
                    channel.kind,
                    channel.description,
                    members,
                    "trunk",
                    (data.vlan,),
                    data.mtu,
                    lacp_fallback=False,
                    edge=True,
                )
            )
    other = _other(pair, switch)
    return SwitchIntent(
        pair=pair.name,
        vendor=pair.vendor,
        hostname=switch.name,
        mgmt_address=f"{switch.mgmt_address}/{mgmt.prefix}",
        mgmt_gateway=mgmt.gateway,
        peer_mgmt_address=other.mgmt_address,
        mlag_domain=pair.mlag_domain,
        mlag_primary=switch.name == pair.switches[0].name,
        peer_vlan=pair.peer_vlan,
        peer_address=f"{switch.peer_address}/{pair.peer_prefix}",
        peer_neighbor=switch.peer_neighbor,
        vlans=tuple(vlans),
        channels=tuple(channels),
        username=plan.switch_username,
    )


def intents(plan: Plan) -> list[SwitchIntent]:
    return [switch_intent(plan, pair, s) for pair in plan.switch_pairs for s in pair.switches]

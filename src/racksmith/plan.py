"""The plan: everything the roles need, computed once from the spec with netaddr.

The plan is plain frozen data. Roles and templates only render it; every decision (which VIP
goes out of which NIC, which port joins which port-channel, how XFS is aligned) is made here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import netaddr

from racksmith import patterns, raid, units
from racksmith.errors import SpecError, SpecProblem
from racksmith.loader import load_spec
from racksmith.source import Loc, SpecSource, format_loc
from racksmith.spec import ClusterSpec, Export, GpuGroup, SecretRef, SwitchPair

# One table and one rule per storage NIC: replies leave by the NIC that owns the source.
NIC_TABLES = {"em1": 101, "em2": 102}
RULE_PRIORITY_BASE = 1000
PEER_LINK_CHANNEL = 2000
DEFAULT_CHUNK = {"mdadm": 512 * 1024, "perc": 64 * 1024, "device": 64 * 1024}
ARP_SYSCTLS = (("arp_ignore", 1), ("arp_announce", 2), ("arp_filter", 1), ("rp_filter", 2))


@dataclass(frozen=True, slots=True)
class NetworkPlan:
    name: str
    subnet: str
    prefix: int
    gateway: str | None
    vlan: int | None
    mtu: int


@dataclass(frozen=True, slots=True)
class InterfacePlan:
    name: str
    address: str
    prefix: int
    network: str


@dataclass(frozen=True, slots=True)
class Route:
    dest: str
    dev: str
    src: str | None = None
    via: str | None = None
    table: int | None = None

    def ip(self) -> str:
        """The route as ``ip route`` prints it."""
        words = [self.dest]
        if self.via:
            words += ["via", self.via]
        words += ["dev", self.dev]
        if self.table is not None:
            words += ["table", str(self.table)]
        words += ["proto", "static"]
        if not self.via:
            words += ["scope", "link"]
        if self.src:
            words += ["src", self.src]
        return " ".join(words)


@dataclass(frozen=True, slots=True)
class Rule:
    priority: int
    source: str
    table: int

    def ip(self) -> str:
        """The rule as ``ip rule`` prints it."""
        return f"{self.priority}:\tfrom {self.source} lookup {self.table}"


@dataclass(frozen=True, slots=True)
class RouteTable:
    id: int
    name: str
    dev: str
    source: str
    routes: tuple[Route, ...]


@dataclass(frozen=True, slots=True)
class Mount:
    source: str
    path: str
    fstype: str
    options: str
    vip: str | None = None
    dev: str | None = None

    def fstab(self) -> str:
        return f"{self.source} {self.path} {self.fstype} {self.options} 0 0"


@dataclass(frozen=True, slots=True)
class NodeStorage:
    """A GPU node's storage path: per-VIP routes and one mount per VIP."""

    routes: tuple[Route, ...]
    rules: tuple[Rule, ...]
    tables: tuple[RouteTable, ...]
    sysctls: tuple[tuple[str, int], ...]
    mounts: tuple[Mount, ...]

    def ip_batch(self) -> list[str]:
        """``ip -batch`` input that builds the routing on a stack that has none of it yet (what
        runs at boot): per-VIP routes and per-NIC tables first, then the rules that use them."""
        routes = [*self.routes, *(r for t in self.tables for r in t.routes)]
        return [f"route replace {r.ip()}" for r in routes] + [
            f"rule add from {r.source} lookup {r.table} priority {r.priority}" for r in self.rules
        ]


@dataclass(frozen=True, slots=True)
class PortMember:
    switch: str
    port: str
    far_end: str


@dataclass(frozen=True, slots=True)
class PortChannel:
    id: int
    kind: str  # gpu | flashblade | peer
    peer: str
    members: tuple[PortMember, ...]

    @property
    def description(self) -> str:
        return f"{self.peer} MLAG" if self.kind != "peer" else "MLAG peer link"


@dataclass(frozen=True, slots=True)
class SwitchPlan:
    name: str
    mgmt_address: str
    peer_address: str
    peer_neighbor: str


@dataclass(frozen=True, slots=True)
class SwitchPairPlan:
    name: str
    vendor: str
    platform: str
    mlag_domain: str
    peer_vlan: int
    peer_prefix: int
    switches: tuple[SwitchPlan, SwitchPlan]
    port_channels: tuple[PortChannel, ...]

    def members_on(self, switch: str) -> Iterator[tuple[PortChannel, PortMember]]:
        for channel in self.port_channels:
            for member in channel.members:
                if member.switch == switch:
                    yield channel, member


@dataclass(frozen=True, slots=True)
class HostPlan:
    name: str
    role: str  # head | gpu | flashblade | switch
    mgmt_address: str
    interfaces: dict[str, InterfacePlan] = field(default_factory=dict)
    gpus: int = 0
    gpu_type: str | None = None
    cpus: int = 1
    memory_mb: int = 1024
    storage: NodeStorage | None = None
    shared_mount: Mount | None = None


@dataclass(frozen=True, slots=True)
class VipPlan:
    name: str
    address: str
    dev: str  # the GPU-node NIC its traffic uses


@dataclass(frozen=True, slots=True)
class FilesystemPlan:
    name: str
    size: int
    nfsv3: bool
    nfsv41: bool
    rules: str
    fast_remove: bool
    snapshot_directory: bool
    hard_limit: bool


@dataclass(frozen=True, slots=True)
class FlashBladePlan:
    name: str
    management: str
    api_token: SecretRef
    subnet_name: str
    subnet: str
    gateway: str | None
    vlan: int | None
    mtu: int
    lag: str
    vips: tuple[VipPlan, ...]
    filesystems: tuple[FilesystemPlan, ...]
    mount_filesystem: str
    destroy_filesystems: tuple[str, ...]
    allow_shrink: tuple[str, ...]
    prune_vips: bool


@dataclass(frozen=True, slots=True)
class ExportPlan:
    path: str
    clients: str
    options: str


@dataclass(frozen=True, slots=True)
class HeadPlan:
    name: str
    backend: str
    geometry: raid.Raid50Geometry
    devices: tuple[str, ...]
    idrac_address: str | None
    idrac_username: str | None
    idrac_password: SecretRef | None
    idrac_controller: str | None
    mount: str
    wipe: tuple[str, ...]
    nfs_server: str
    exports: tuple[ExportPlan, ...]


@dataclass(frozen=True, slots=True)
class SlurmPartitionPlan:
    name: str
    default: bool
    max_time: str
    default_time: str | None
    max_gpus_per_user: int | None
    priority_tier: int

    @property
    def qos(self) -> str | None:
        """A partition QOS carries the per-user GPU limit (MaxTRESPerUser=gres/gpu=N)."""
        return self.name if self.max_gpus_per_user else None

    def line(self) -> str:
        words = [f"PartitionName={self.name}", "Nodes=ALL", f"MaxTime={self.max_time}"]
        if self.default_time:
            words.append(f"DefaultTime={self.default_time}")
        if self.default:
            words.append("Default=YES")
        if self.qos:
            words.append(f"QOS={self.qos}")
        words += [f"PriorityTier={self.priority_tier}", "State=UP"]
        return " ".join(words)


@dataclass(frozen=True, slots=True)
class SlurmPlan:
    cluster_name: str
    controller: str
    accounting: bool
    fairshare: bool
    max_gpus_per_user: int | None
    partitions: tuple[SlurmPartitionPlan, ...]
    munge_key: SecretRef | None

    @staticmethod
    def node_line(host: HostPlan) -> str:
        gres = f"gpu:{host.gpu_type}:{host.gpus}" if host.gpu_type else f"gpu:{host.gpus}"
        line = f"NodeName={host.name} NodeAddr={host.mgmt_address} CPUs={host.cpus}"
        line += f" RealMemory={host.memory_mb}"
        return f"{line} Gres={gres} State=UNKNOWN" if host.gpus else f"{line} State=UNKNOWN"


@dataclass(frozen=True, slots=True)
class ContainersPlan:
    apptainer_source: str
    apptainer_package: str | None
    registry: str
    username: str
    password: SecretRef | None
    cache_dir: str
    images: tuple[tuple[str, str], ...]  # (reference, SIF path)


@dataclass(frozen=True, slots=True)
class Plan:
    cluster_name: str
    networks: dict[str, NetworkPlan]
    hosts: dict[str, HostPlan]
    switch_pairs: tuple[SwitchPairPlan, ...]
    switch_username: str | None
    switch_password: SecretRef | None
    flashblade: FlashBladePlan | None
    head: HeadPlan | None
    slurm: SlurmPlan | None
    containers: ContainersPlan

    def by_role(self, role: str) -> list[HostPlan]:
        return [h for h in self.hosts.values() if h.role == role]


class _Addresses:
    """Every address the spec uses, to find duplicates and hand out free ones from pools."""

    def __init__(self, planner: _Planner) -> None:
        self.planner = planner
        self.owner: dict[int, str] = {}
        self.cursor: dict[str, int] = {}

    def claim(self, address: str, network: str, loc: Loc, what: str) -> bool:
        net = self.planner.nets.get(network)
        value = int(netaddr.IPAddress(address))
        if net is not None:
            if value not in range(net.first, net.last + 1):
                self.planner.problem(loc, f"{address} is outside the {network} subnet {net.cidr}")
                return False
            if net.prefixlen < 31 and value in (net.first, net.last):
                self.planner.problem(
                    loc, f"{address} is the {network} subnet's network or broadcast address"
                )
                return False
        if value in self.owner:
            self.planner.problem(loc, f"address {address} is already used by {self.owner[value]}")
            return False
        self.owner[value] = what
        return True

    def allocate(self, network: str, loc: Loc, what: str) -> str | None:
        net = self.planner.nets[network]
        pool = self.planner.pools[network]
        value = max(self.cursor.get(network, pool.first), pool.first)
        while value <= pool.last:
            if value not in self.owner and value not in (net.first, net.last):
                self.owner[value] = what
                self.cursor[network] = value + 1
                return str(netaddr.IPAddress(value))
            value += 1
        self.cursor[network] = value
        self.planner.problem(loc, f"the {network} pool {pool} has no free address left for {what}")
        return None


class _Planner:
    def __init__(self, spec: ClusterSpec, source: SpecSource) -> None:
        self.spec = spec
        self.source = source
        self.problems: list[SpecProblem] = []
        self.nets: dict[str, netaddr.IPNetwork] = {}
        self.pools: dict[str, netaddr.IPRange] = {}
        self.addresses = _Addresses(self)
        self.names: dict[str, str] = {}
        self._node_group: dict[str, int] = {}  # node name -> index in gpu_nodes, for errors

    def problem(self, loc: Loc, reason: str) -> None:
        self.problems.append(self.source.problem(loc, reason))

    # -- networks --------------------------------------------------------------------------
    def networks(self) -> dict[str, NetworkPlan]:
        out: dict[str, NetworkPlan] = {}
        for name in ("management", "data", "ipoib"):
            spec_net = getattr(self.spec.networks, name)
            if spec_net is None:
                continue
            loc: Loc = ("networks", name)
            net = netaddr.IPNetwork(spec_net.subnet)
            self.nets[name] = net
            self.pools[name] = netaddr.IPRange(net.first, net.last)
            if spec_net.pool is not None:
                first, last = spec_net.pool.split("-")
                pool = netaddr.IPRange(first, last)
                if pool.first < net.first or pool.last > net.last:
                    self.problem((*loc, "pool"), f"pool {spec_net.pool} is outside {net.cidr}")
                else:
                    self.pools[name] = pool
            if spec_net.gateway is not None:
                self.addresses.claim(spec_net.gateway, name, (*loc, "gateway"), f"{name} gateway")
            out[name] = NetworkPlan(
                name, str(net.cidr), net.prefixlen, spec_net.gateway, spec_net.vlan, spec_net.mtu
            )
        return out

    def claim_name(self, name: str, loc: Loc) -> None:
        if name in self.names:
            self.problem(loc, f"host name {name!r} is already used by {self.names[name]}")
        else:
            self.names[name] = format_loc(loc)

    def address(self, given: str | None, network: str, loc: Loc, what: str) -> str | None:
        if network not in self.nets:
            if given is not None:
                self.problem(loc, f"no {network} network is defined under networks")
            return None
        if given is None:
            return self.addresses.allocate(network, loc, what)
        return given if self.addresses.claim(given, network, loc, what) else None

    # -- GPU nodes -------------------------------------------------------------------------
    def _per_node(
        self, value: str | list[str] | None, count: int, loc: Loc, kind: str
    ) -> list[str | None]:
        """Spread an address given for a group over its nodes: a list, or a start address."""
        if value is None:
            return [None] * count
        if isinstance(value, list):
            if len(value) != count:
                self.problem(loc, f"{len(value)} {kind} addresses for {count} nodes")
                return [None] * count
            return list(value)
        start = int(netaddr.IPAddress(value))
        if start + count > 2**32:
            self.problem(loc, f"{count} addresses from {value} run past 255.255.255.255")
            return [None] * count
        return [str(netaddr.IPAddress(start + i)) for i in range(count)]

    def _ports(self, value: str | list[str] | None, count: int, loc: Loc) -> list[str] | None:
        if value is None:
            return None
        try:
            ports = value if isinstance(value, list) else patterns.expand(value)
        except ValueError as exc:
            self.problem(loc, str(exc))
            return None
        if len(ports) != count:
            self.problem(
                loc,
                f"{len(ports)} ports for {count} nodes; write a range like "
                "Ethernet[1-32] with one port per node",
            )
            return None
        return ports

    def _pair_of(self, group: GpuGroup, gloc: Loc) -> SwitchPair | None:
        pairs = self.spec.switches.pairs if self.spec.switches else []
        if not pairs:
            if group.switch_pair is not None:
                self.problem((*gloc, "switch_pair"), "no switches are defined")
            return None
        if group.switch_pair is None:
            return pairs[0]
        for pair in pairs:
            if pair.name == group.switch_pair:
                return pair
        self.problem(
            (*gloc, "switch_pair"),
            f"unknown switch pair {group.switch_pair!r}; pairs: {', '.join(p.name for p in pairs)}",
        )
        return None

    def gpu_groups(self) -> list[_Group]:
        """Expand every group and claim the addresses the spec gives before any allocation."""
        groups = []
        for gi, spec_group in enumerate(self.spec.gpu_nodes):
            gloc: Loc = ("gpu_nodes", gi)
            try:
                names = patterns.expand(spec_group.name)
            except ValueError as exc:
                self.problem((*gloc, "name"), str(exc))
                continue
            bad = [n for n in names if not patterns.is_hostname(n)]
            if bad:
                self.problem((*gloc, "name"), f"{bad[0]!r} is not a valid host name")
                continue
            count = len(names)
            group = _Group(spec_group, gloc, names, self._pair_of(spec_group, gloc))
            for nic, _network in _NODE_NICS:
                group.addresses[nic] = self._per_node(
                    getattr(spec_group, nic), count, (*gloc, nic), nic
                )
            for nic in ("em1", "em2"):
                group.ports[nic] = self._ports(
                    getattr(spec_group, f"{nic}_port"), count, (*gloc, f"{nic}_port")
                )
                if group.pair is not None and getattr(spec_group, f"{nic}_port") is None:
                    self.problem(
                        gloc,
                        f"{nic}_port is required: each NIC is cabled to a switch "
                        "port (e.g. Ethernet[1-32])",
                    )
            for i, name in enumerate(names):
                self.claim_name(name, (*gloc, "name"))
                self._node_group[name] = gi
                em1, em2 = group.addresses["em1"][i], group.addresses["em2"][i]
                if em1 is not None and em1 == em2:
                    self.problem((*gloc, "em2"), f"em1 and em2 must differ (both {em1})")
                    group.addresses["em2"][i] = None
                    group.claimed.add(("em2", i))
                for nic, network in _NODE_NICS:
                    given = group.addresses[nic][i]
                    if given is not None:
                        group.addresses[nic][i] = self.address(
                            given, network, (*gloc, nic), f"{name} {nic}"
                        )
                        group.claimed.add((nic, i))
            groups.append(group)
        return groups

    def gpu_nodes(
        self,
        groups: list[_Group],
        hosts: dict[str, HostPlan],
        cabling: dict[str, list[tuple[str, list[PortMember]]]],
    ) -> None:
        for group in groups:
            spec_group = group.spec
            for i, name in enumerate(group.names):
                address: dict[str, str | None] = {}
                for nic, network in _NODE_NICS:
                    address[nic] = group.addresses[nic][i]
                    if (nic, i) not in group.claimed and network in self.nets:
                        address[nic] = self.address(
                            None, network, (*group.loc, nic), f"{name} {nic}"
                        )
                interfaces = {
                    nic: InterfacePlan(nic, addr, self.nets[network].prefixlen, network)
                    for nic, network in _NODE_NICS[1:]
                    if (addr := address[nic]) is not None
                }
                hosts[name] = HostPlan(
                    name,
                    "gpu",
                    address["mgmt"] or "",
                    interfaces,
                    spec_group.gpus,
                    spec_group.gpu_type,
                    spec_group.cpus,
                    spec_group.memory_mb,
                )
                em1_ports, em2_ports = group.ports.get("em1"), group.ports.get("em2")
                if group.pair is not None and em1_ports is not None and em2_ports is not None:
                    sw1, sw2 = (s.name for s in group.pair.switches)
                    cabling.setdefault(group.pair.name, []).append(
                        (
                            name,
                            [
                                PortMember(sw1, em1_ports[i], f"{name} em1"),
                                PortMember(sw2, em2_ports[i], f"{name} em2"),
                            ],
                        )
                    )

    # -- FlashBlade ------------------------------------------------------------------------
    def flashblade(self, hosts: dict[str, HostPlan]) -> FlashBladePlan | None:
        fb = self.spec.flashblade
        if fb is None:
            return None
        loc: Loc = ("flashblade",)
        self.claim_name(fb.name, (*loc, "name"))
        self.address(fb.management, "management", (*loc, "management"), "flashblade management")
        vips: list[VipPlan] = []
        if isinstance(fb.data_vips, list):
            given: list[str] = fb.data_vips
        else:
            start = fb.data_vips.start
            if start is None:
                start = str(netaddr.IPAddress(self.pools["data"].first))
            base = int(netaddr.IPAddress(start))
            given = [str(netaddr.IPAddress(base + i)) for i in range(fb.data_vips.count)]
        for i, vip in enumerate(given):
            vloc: Loc = (
                (*loc, "data_vips", i) if isinstance(fb.data_vips, list) else (*loc, "data_vips")
            )
            if self.addresses.claim(vip, "data", vloc, f"flashblade data VIP {i}"):
                vips.append(VipPlan(f"{fb.vip_prefix}{i}", vip, "em1" if i % 2 == 0 else "em2"))
        names = [f.name for f in fb.filesystems]
        for i, fs_name in enumerate(names):
            if fs_name in names[:i]:
                self.problem(
                    (*loc, "filesystems", i, "name"), f"filesystem {fs_name!r} given twice"
                )
        mount_fs = fb.mount or names[0]
        if mount_fs not in names:
            self.problem((*loc, "mount"), f"no filesystem named {mount_fs!r} under filesystems")
        for i, fs_name in enumerate(fb.destroy_filesystems):
            if fs_name in names:
                self.problem(
                    (*loc, "destroy_filesystems", i),
                    f"{fs_name!r} is both kept (filesystems) and to be destroyed",
                )
        for i, fs_name in enumerate(fb.allow_shrink):
            if fs_name not in names:
                self.problem((*loc, "allow_shrink", i), f"no filesystem named {fs_name!r}")
        data = self.spec.networks.data
        hosts[fb.name] = HostPlan(fb.name, "flashblade", fb.management)
        filesystems = tuple(
            FilesystemPlan(
                f.name,
                f.size,
                "v3" in f.nfs,
                "v4.1" in f.nfs,
                f.rules,
                f.fast_remove,
                f.snapshot_directory,
                f.hard_limit,
            )
            for f in fb.filesystems
        )
        return FlashBladePlan(
            fb.name,
            fb.management,
            fb.api_token,
            fb.subnet_name,
            data.subnet,
            data.gateway,
            data.vlan,
            data.mtu,
            fb.lag,
            tuple(vips),
            filesystems,
            mount_fs,
            tuple(fb.destroy_filesystems),
            tuple(fb.allow_shrink),
            fb.prune_vips,
        )

    def node_storage(self, host: HostPlan, fb: FlashBladePlan) -> NodeStorage | None:
        nics = host.interfaces
        if "em1" not in nics or "em2" not in nics:
            return None
        net = self.nets["data"]
        gateway = self.spec.networks.data.gateway
        routes = tuple(Route(v.address, v.dev, nics[v.dev].address) for v in fb.vips)
        tables, rules = [], []
        for nic, table in NIC_TABLES.items():
            src = nics[nic].address
            table_routes = [Route(str(net.cidr), nic, src, table=table)]
            if gateway:
                table_routes.append(Route("default", nic, via=gateway, table=table))
            tables.append(RouteTable(table, f"racksmith_{nic}", nic, src, tuple(table_routes)))
            rules.append(Rule(RULE_PRIORITY_BASE + table - 100, src, table))
        sysctls = tuple(
            (f"net.ipv4.conf.{scope}.{key}", value)
            for scope in ("all", "em1", "em2")
            for key, value in ARP_SYSCTLS
        )
        options = self.spec.flashblade.mount_options  # type: ignore[union-attr]
        mounts = tuple(
            Mount(
                f"{v.address}:/{fb.mount_filesystem}",
                f"/mnt/nfs{i}",
                "nfs",
                options,
                v.address,
                v.dev,
            )
            for i, v in enumerate(fb.vips)
        )
        return NodeStorage(routes, tuple(rules), tuple(tables), sysctls, mounts)

    # -- switches --------------------------------------------------------------------------
    def switch_claims(self) -> None:
        """Claim switch names and management addresses before nodes draw from the pools."""
        sw = self.spec.switches
        if sw is None:
            if self.spec.flashblade and self.spec.flashblade.uplinks:
                self.problem(("flashblade", "uplinks"), "uplinks are given but no switches")
            return
        if self.spec.networks.data.vlan is None:
            self.problem(("networks", "data", "vlan"), "required when switches are given")
        for pi, pair in enumerate(sw.pairs):
            for si, entry in enumerate(pair.switches):
                sloc: Loc = ("switches", "pairs", pi, "switches", si)
                self.claim_name(entry.name, (*sloc, "name"))
                self.address(entry.mgmt, "management", (*sloc, "mgmt"), f"switch {entry.name}")

    def switch_pairs(
        self,
        cabling: dict[str, list[tuple[str, list[PortMember]]]],
    ) -> tuple[SwitchPairPlan, ...]:
        sw = self.spec.switches
        if sw is None:
            return ()
        pair_of = {e.name: p.name for p in sw.pairs for e in p.switches}
        fb_members = self._flashblade_uplinks(pair_of)
        used: dict[tuple[str, str], str] = {}
        out = []
        for pi, pair in enumerate(sw.pairs):
            ploc: Loc = ("switches", "pairs", pi)
            peer_net = netaddr.IPNetwork(pair.peer_subnet)
            peers = [
                str(a) for a in (peer_net if peer_net.prefixlen >= 31 else peer_net.iter_hosts())
            ][:2]
            if len(peers) < 2:
                self.problem(
                    (*ploc, "peer_subnet"),
                    f"{pair.peer_subnet} has room for fewer than two peer addresses",
                )
                continue
            a, b = pair.switches
            switches = (
                SwitchPlan(a.name, a.mgmt, peers[0], peers[1]),
                SwitchPlan(b.name, b.mgmt, peers[1], peers[0]),
            )
            peer_members = []
            for port_i, pattern in enumerate(pair.peer_link_ports):
                try:
                    ports = patterns.expand(pattern)
                except ValueError as exc:
                    self.problem((*ploc, "peer_link_ports", port_i), str(exc))
                    continue
                for port in ports:
                    peer_members += [
                        PortMember(a.name, port, f"{b.name} {port}"),
                        PortMember(b.name, port, f"{a.name} {port}"),
                    ]
            channels = [PortChannel(PEER_LINK_CHANNEL, "peer", "peer link", tuple(peer_members))]
            nodes = cabling.get(pair.name, [])
            channels += [
                PortChannel(i, "gpu", node, tuple(members))
                for i, (node, members) in enumerate(nodes, start=1)
            ]
            fb = self.spec.flashblade
            fb_here = tuple(m for m in fb_members if pair_of[m.switch] == pair.name)
            if fb is not None and fb_here:
                channels.append(PortChannel(fb.port_channel, "flashblade", fb.name, fb_here))
                if len(nodes) >= fb.port_channel:
                    self.problem(
                        ("flashblade", "port_channel"),
                        f"Port-Channel{fb.port_channel} is taken by a GPU node on pair "
                        f"{pair.name}; pick a number above {len(nodes)}",
                    )
            if len(nodes) >= PEER_LINK_CHANNEL:
                self.problem(
                    ploc,
                    f"{len(nodes)} GPU nodes on one pair exceed the port-channel "
                    f"numbers below the peer link ({PEER_LINK_CHANNEL})",
                )
            for channel in channels:
                for member in channel.members:
                    key = (member.switch, member.port)
                    if key in used:
                        self.problem(
                            self._port_loc(member, ploc),
                            f"port {member.port} on {member.switch} is used twice: by "
                            f"{used[key]} and by {member.far_end}",
                        )
                    used[key] = member.far_end
            out.append(
                SwitchPairPlan(
                    pair.name,
                    pair.vendor or sw.vendor,
                    pair.platform,
                    pair.mlag_domain or pair.name,
                    pair.peer_vlan,
                    peer_net.prefixlen,
                    switches,
                    tuple(channels),
                )
            )
        return tuple(out)

    def _port_loc(self, member: PortMember, pair_loc: Loc) -> Loc:
        """Where the spec cabled this member, to point an error at the right line."""
        host, nic = member.far_end.rsplit(" ", 1)
        if host in self._node_group:
            return ("gpu_nodes", self._node_group[host], f"{nic}_port")
        fb = self.spec.flashblade
        if fb is not None and host == fb.name:
            for i, link in enumerate(fb.uplinks):
                if (link.switch, link.port) == (member.switch, member.port):
                    return ("flashblade", "uplinks", i, "port")
        return (*pair_loc, "peer_link_ports")

    def _flashblade_uplinks(self, pair_of: dict[str, str]) -> list[PortMember]:
        fb = self.spec.flashblade
        if fb is None:
            return []
        members = []
        for i, link in enumerate(fb.uplinks):
            if link.switch not in pair_of:
                self.problem(
                    ("flashblade", "uplinks", i, "switch"),
                    f"unknown switch {link.switch!r}; switches: {', '.join(sorted(pair_of))}",
                )
                continue
            members.append(PortMember(link.switch, link.port, f"{fb.name} {link.fm}"))
        if len({pair_of[m.switch] for m in members}) > 1:
            self.problem(("flashblade", "uplinks"), "uplinks span more than one switch pair")
        return members

    # -- head node -------------------------------------------------------------------------
    def head(self, hosts: dict[str, HostPlan]) -> HeadPlan | None:
        head = self.spec.head_node
        if head is None:
            return None
        loc: Loc = ("head_node",)
        self.claim_name(head.name, (*loc, "name"))
        mgmt = self.address(head.mgmt, "management", (*loc, "mgmt"), f"{head.name} mgmt")
        ib0 = self.address(head.ib0, "ipoib", (*loc, "ib0"), f"{head.name} ib0")
        interfaces = {}
        if ib0 is not None:
            interfaces["ib0"] = InterfacePlan("ib0", ib0, self.nets["ipoib"].prefixlen, "ipoib")
        hosts[head.name] = HostPlan(head.name, "head", mgmt or "", interfaces)
        st = head.storage
        sloc: Loc = (*loc, "storage")
        chunk = st.chunk or DEFAULT_CHUNK[st.backend]
        try:
            geometry = raid.raid50(st.disks.count, st.disks.size, st.spans, chunk)
        except ValueError as exc:
            self.problem((*sloc, "disks", "count"), str(exc))
            geometry = raid.Raid50Geometry(st.disks.count, st.disks.size, 1, chunk)
        if st.backend == "mdadm" and len(st.devices) != st.disks.count:
            self.problem(
                (*sloc, "devices"),
                f"mdadm needs the {st.disks.count} member devices, got {len(st.devices)}",
            )
        if st.backend == "device" and len(st.devices) != 1:
            self.problem((*sloc, "devices"), "the device backend takes exactly one block device")
        if st.backend == "perc" and st.idrac is None:
            self.problem((*sloc, "idrac"), "the perc backend needs the iDRAC address and login")
        for i, dev in enumerate(st.wipe):
            if dev not in st.devices:
                self.problem((*sloc, "wipe", i), f"{dev} is not one of storage.devices")
        if "ipoib" not in self.nets or ib0 is None:
            self.problem(
                (*loc, "ib0"),
                "the head node exports over IPoIB: define networks.ipoib and an ib0 address",
            )
        clients = str(self.nets["ipoib"].cidr) if "ipoib" in self.nets else ""
        exports = head.exports or [Export(path=st.mount)]
        idrac = st.idrac
        return HeadPlan(
            head.name,
            st.backend,
            geometry,
            tuple(st.devices),
            idrac.address if idrac else None,
            idrac.username if idrac else None,
            idrac.password if idrac else None,
            idrac.controller if idrac else None,
            st.mount,
            tuple(st.wipe),
            head.nfs_server,
            tuple(ExportPlan(e.path, clients, e.options) for e in exports),
        )

    def shared_mount(self, host: HostPlan, head: HeadPlan) -> Mount | None:
        head_host = self.spec.head_node
        if head_host is None or "ib0" not in host.interfaces or not head.exports:
            return None
        server = head_host.ib0 or ""
        proto = "proto=rdma,port=20049" if head_host.nfs_rdma else "proto=tcp"
        options = f"rw,vers=3,{proto},hard,_netdev"
        return Mount(
            f"{server}:{head.exports[0].path}",
            head_host.client_mount,
            "nfs",
            options,
            server,
            "ib0",
        )

    # -- Slurm and containers --------------------------------------------------------------
    def slurm(self) -> SlurmPlan | None:
        sl = self.spec.slurm
        if self.spec.head_node is None:
            return None
        names = [p.name for p in sl.partitions]
        for i, name in enumerate(names):
            if name in names[:i]:
                self.problem(("slurm", "partitions", i, "name"), f"partition {name!r} given twice")
        if sum(p.default for p in sl.partitions) > 1:
            self.problem(("slurm", "partitions"), "more than one partition has default: true")
        partitions = []
        for i, p in enumerate(sl.partitions):
            if p.default_time is not None and p.max_time >= 0 and p.default_time > p.max_time:
                self.problem(
                    ("slurm", "partitions", i, "default_time"),
                    "default_time is longer than max_time",
                )
            partitions.append(
                SlurmPartitionPlan(
                    p.name,
                    p.default or (i == 0 and not any(q.default for q in sl.partitions)),
                    units.format_slurm_time(p.max_time),
                    units.format_slurm_time(p.default_time) if p.default_time is not None else None,
                    p.max_gpus_per_user,
                    p.priority_tier,
                )
            )
        return SlurmPlan(
            sl.cluster_name or self.spec.cluster.name,
            self.spec.head_node.name,
            sl.accounting,
            sl.fairshare,
            sl.max_gpus_per_user,
            tuple(partitions),
            sl.munge_key,
        )

    def containers(self) -> ContainersPlan:
        c = self.spec.containers
        images = []
        for ref in c.images:
            repo, tag = ref.rsplit(":", 1)
            images.append((ref, f"{c.cache_dir}/{repo.rsplit('/', 1)[-1]}_{tag}.sif"))
        return ContainersPlan(
            c.apptainer_source,
            c.apptainer_package,
            c.registry,
            c.username,
            c.password,
            c.cache_dir,
            tuple(images),
        )

    # -- all -------------------------------------------------------------------------------
    def build(self) -> Plan:
        networks = self.networks()
        hosts: dict[str, HostPlan] = {}
        self.switch_claims()
        fb = self.flashblade(hosts)
        head = self.head(hosts)
        groups = self.gpu_groups()
        cabling: dict[str, list[tuple[str, list[PortMember]]]] = {}
        self.gpu_nodes(groups, hosts, cabling)
        pairs = self.switch_pairs(cabling)
        for name, host in hosts.items():
            if host.role == "gpu":
                hosts[name] = replace(
                    host,
                    storage=self.node_storage(host, fb) if fb else None,
                    shared_mount=self.shared_mount(host, head) if head else None,
                )
        slurm = self.slurm()
        containers = self.containers()
        if self.problems:
            raise SpecError(self.problems)
        sw = self.spec.switches
        return Plan(
            self.spec.cluster.name,
            networks,
            hosts,
            pairs,
            sw.credentials.username if sw else None,
            sw.credentials.password if sw else None,
            fb,
            head,
            slurm,
            containers,
        )


@dataclass
class _Group:
    """A GPU group while it is being planned: its nodes' addresses and ports so far."""

    spec: GpuGroup
    loc: Loc
    names: list[str]
    pair: SwitchPair | None
    addresses: dict[str, list[str | None]] = field(default_factory=dict)
    ports: dict[str, list[str] | None] = field(default_factory=dict)
    claimed: set[tuple[str, int]] = field(default_factory=set)


_NODE_NICS = (("mgmt", "management"), ("em1", "data"), ("em2", "data"), ("ib0", "ipoib"))


def build_plan(spec: ClusterSpec, source: SpecSource) -> Plan:
    """The plan for a validated spec; SpecError lists every cross-field problem."""
    return _Planner(spec, source).build()


def plan_file(path: str | Path) -> Plan:
    spec, source = load_spec(path)
    return build_plan(spec, source)

"""The cluster spec: a typed model of the one YAML file that describes a whole cluster.

Field-level rules live here (types, ranges, formats); rules that relate fields to each other
(an address inside its subnet, a port used twice) live in :mod:`racksmith.plan`, which sees
the whole cluster.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import netaddr
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
)

from racksmith import patterns, units

_VARNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NFS_RULE = re.compile(r"^(?P<client>[^\s()]+)\((?P<options>[^()]*)\)$")
NFS_RULE_OPTIONS = {
    "rw", "ro", "root_squash", "no_root_squash", "all_squash", "no_all_squash", "secure",
    "insecure", "atime", "noatime", "fileid_32bit", "sec=sys", "sec=krb5", "sec=krb5i",
    "sec=krb5p",
}  # fmt: skip
_NFS_RULE_VALUED = ("anonuid=", "anongid=")


def _ipv4(value: str) -> str:
    try:
        return str(netaddr.IPAddress(str(value), version=4, flags=netaddr.INET_PTON))
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise ValueError(f"{value!r} is not an IPv4 address") from None


def _cidr(value: str) -> str:
    try:
        net = netaddr.IPNetwork(str(value), version=4)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise ValueError(f"{value!r} is not an IPv4 subnet like 10.21.115.0/24") from None
    if "/" not in str(value):
        raise ValueError(f"subnet {value!r} needs a prefix length, like {value}/24")
    if net.ip != net.network:
        raise ValueError(f"{value!r} has host bits set; the subnet is {net.cidr}")
    return str(net.cidr)


def _range(value: str) -> str:
    try:
        first, last = (part.strip() for part in str(value).split("-"))
        netaddr.IPRange(_ipv4(first), _ipv4(last))
    except (ValueError, netaddr.AddrFormatError):
        raise ValueError(
            f"{value!r} is not an address range like 10.21.115.100-10.21.115.199"
        ) from None
    return f"{_ipv4(first)}-{_ipv4(last)}"


def _vlan(value: int) -> int:
    if not 1 <= value <= 4094:
        raise ValueError(f"VLAN {value} is outside 1-4094")
    return value


def _mtu(value: int) -> int:
    if not 1280 <= value <= 9216:
        raise ValueError(f"MTU {value} is outside 1280-9216")
    return value


def _hostname(value: str) -> str:
    if not patterns.is_hostname(value):
        raise ValueError(f"{value!r} is not a valid host name (letters, digits and '-')")
    return value


def _abspath(value: str) -> str:
    if not value.startswith("/") or "//" in value or "\n" in value:
        raise ValueError(f"{value!r} is not an absolute path")
    return value.rstrip("/") or "/"


def _nfs_rules(value: str) -> str:
    """FlashBlade export rules: space-separated ``client(options)`` entries."""
    entries = str(value).split()
    if not entries:
        raise ValueError("export rules are empty; write e.g. '*(rw,no_root_squash)'")
    for entry in entries:
        match = _NFS_RULE.match(entry)
        if not match:
            raise ValueError(
                f"export rule {entry!r} is not host(options), e.g. '*(rw,no_root_squash)'"
            )
        for option in filter(None, match["options"].split(",")):
            if option not in NFS_RULE_OPTIONS and not (
                option.startswith(_NFS_RULE_VALUED) and option.split("=", 1)[1].isdigit()
            ):
                raise ValueError(f"export rule {entry!r}: unknown option {option!r}")
    return " ".join(entries)


def _size(value: Any) -> int:
    return units.parse_size(value)


def _slurm_time(value: Any) -> int:
    return units.parse_slurm_time(value)


IPv4 = Annotated[str, AfterValidator(_ipv4)]
Cidr = Annotated[str, AfterValidator(_cidr)]
AddressRange = Annotated[str, AfterValidator(_range)]
Vlan = Annotated[int, AfterValidator(_vlan)]
Mtu = Annotated[int, AfterValidator(_mtu)]
Hostname = Annotated[str, AfterValidator(_hostname)]
AbsPath = Annotated[str, AfterValidator(_abspath)]
NfsRules = Annotated[str, AfterValidator(_nfs_rules)]
Size = Annotated[int, BeforeValidator(_size)]
SlurmMinutes = Annotated[int, BeforeValidator(_slurm_time)]


def _one_or_list(kind: Any) -> Any:
    """``kind`` or a list of it, told apart by the input's shape so errors name one branch."""
    return Annotated[
        Annotated[list[kind], Tag("list")] | Annotated[kind, Tag("one")],
        Discriminator(lambda v: "list" if isinstance(v, list) else "one"),
    ]


# One address (a start, for a group of several nodes) or one address per node.
Addresses = _one_or_list(IPv4)
# One port pattern like Ethernet[1-32], or one port per node.
Ports = _one_or_list(str)


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class SecretRef(Model):
    """Where a secret lives: an Ansible Vault variable or an environment variable."""

    vault: str | None = None
    env: str | None = None

    def model_post_init(self, _context: Any) -> None:
        given = [name for name in (self.vault, self.env) if name is not None]
        if len(given) != 1:
            raise ValueError("a secret is {vault: NAME} or {env: NAME}, exactly one of them")
        if not _VARNAME.match(given[0]):
            raise ValueError(f"{given[0]!r} is not a valid variable name")

    def jinja(self) -> str:
        """The inventory expression that resolves the secret at run time, never its value."""
        if self.vault is not None:
            return "{{ " + self.vault + " }}"
        return "{{ lookup('ansible.builtin.env', '" + str(self.env) + "') }}"


def _secret(value: Any) -> Any:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        raise ValueError(
            "secret given in clear text; write {vault: VARIABLE} (Ansible Vault) or {env: NAME}"
        )
    return value


Secret = Annotated[SecretRef, BeforeValidator(_secret)]


class Cluster(Model):
    name: Hostname
    domain: str | None = None


class Network(Model):
    subnet: Cidr
    gateway: IPv4 | None = None
    vlan: Vlan | None = None
    mtu: Mtu = 1500
    pool: AddressRange | None = Field(
        default=None, description="addresses handed out to nodes that do not name one"
    )


class Networks(Model):
    management: Network
    data: Network
    ipoib: Network | None = None


class Credentials(Model):
    username: str = "admin"
    password: Secret


class SwitchEntry(Model):
    name: Hostname
    mgmt: IPv4


class SwitchPair(Model):
    name: Hostname
    vendor: Literal["eos", "nvue"] | None = None
    switches: Annotated[list[SwitchEntry], Field(min_length=2, max_length=2)]
    mlag_domain: str | None = None
    peer_link_ports: Annotated[list[str], Field(min_length=1)]
    peer_vlan: Vlan = 4094
    peer_subnet: Cidr = "10.255.255.0/30"
    platform: str = "7050X3"


class Switches(Model):
    vendor: Literal["eos", "nvue"] = "eos"
    credentials: Credentials
    pairs: Annotated[list[SwitchPair], Field(min_length=1)]


class Uplink(Model):
    fm: str
    switch: Hostname
    port: str


class Filesystem(Model):
    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$")]
    size: Size
    nfs: Annotated[list[Literal["v3", "v4.1"]], Field(min_length=1)] = ["v3"]
    rules: NfsRules = "*(rw,no_root_squash)"
    fast_remove: bool = False
    snapshot_directory: bool = False
    hard_limit: bool = False


class DataVipCount(Model):
    count: Annotated[int, Field(ge=1, le=64)]
    start: IPv4 | None = None


class FlashBlade(Model):
    name: Hostname = "flashblade"
    management: IPv4
    api_token: Secret
    subnet_name: str = "data"
    lag: str = "uplink"
    vip_prefix: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,20}$")] = "data"
    data_vips: Annotated[
        Annotated[list[IPv4], Tag("list")] | Annotated[DataVipCount, Tag("count")],
        Discriminator(lambda v: "list" if isinstance(v, list) else "count"),
    ]
    uplinks: list[Uplink] = []
    port_channel: Annotated[int, Field(ge=1, le=2000)] = 1000
    filesystems: Annotated[list[Filesystem], Field(min_length=1)]
    mount: str | None = Field(default=None, description="filesystem GPU nodes mount (first)")
    mount_options: str = "rw,vers=3,proto=tcp,rsize=524288,wsize=524288,hard,_netdev"
    destroy_filesystems: list[str] = []
    allow_shrink: list[str] = []
    prune_vips: bool = False


class GpuGroup(Model):
    name: str
    switch_pair: str | None = None
    gpus: Annotated[int, Field(ge=0, le=16)] = 8
    gpu_type: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")] | None = None
    cpus: Annotated[int, Field(ge=1)] = 1
    memory_mb: Annotated[int, Field(ge=1)] = 1024
    mgmt: Addresses | None = None
    em1: Addresses | None = None
    em2: Addresses | None = None
    ib0: Addresses | None = None
    em1_port: Ports | None = None
    em2_port: Ports | None = None


class Disks(Model):
    count: Annotated[int, Field(ge=1, le=256)]
    size: Size


class Idrac(Model):
    address: IPv4
    username: str = "root"
    password: Secret
    controller: str = "RAID.Integrated.1-1"


class HeadStorage(Model):
    backend: Literal["mdadm", "perc", "device"]
    disks: Disks
    spans: Annotated[int, Field(ge=1, le=16)] = 2
    chunk: Size | None = None
    devices: list[AbsPath] = []
    idrac: Idrac | None = None
    mount: AbsPath = "/shared"
    wipe: list[AbsPath] = []


class Export(Model):
    path: AbsPath
    options: Annotated[str, Field(pattern=r"^[a-z0-9_=,]+$")] = (
        "rw,sync,no_subtree_check,root_squash"
    )


class HeadNode(Model):
    name: Hostname = "head"
    mgmt: IPv4
    ib0: IPv4 | None = None
    storage: HeadStorage
    nfs_server: Literal["kernel", "ganesha"] = "kernel"
    nfs_rdma: bool = False
    exports: list[Export] = []
    client_mount: AbsPath = Field(default="/shared", description="where GPU nodes mount it")


class Partition(Model):
    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]+$")]
    default: bool = False
    max_time: SlurmMinutes
    default_time: SlurmMinutes | None = None
    max_gpus_per_user: Annotated[int, Field(ge=1)] | None = None
    priority_tier: Annotated[int, Field(ge=1, le=65533)] = 1


def _default_partitions() -> list[Partition]:
    return [
        Partition(name="batch", default=True, max_time=2880, default_time=240),
        Partition(name="debug", max_time=120, default_time=30, priority_tier=10),
    ]


class Slurm(Model):
    cluster_name: Hostname | None = None
    accounting: bool = True
    fairshare: bool = True
    max_gpus_per_user: Annotated[int, Field(ge=1)] | None = None
    partitions: Annotated[list[Partition], Field(min_length=1)] = Field(
        default_factory=_default_partitions
    )
    munge_key: Secret | None = None


class Containers(Model):
    apptainer_source: Literal["distro", "ppa", "debian-unstable", "local"] = "distro"
    apptainer_package: AbsPath | None = None
    registry: str = "nvcr.io"
    username: str = "$oauthtoken"
    password: Secret | None = None
    cache_dir: AbsPath = "/shared/containers"
    images: list[
        Annotated[str, Field(pattern=r"^[a-z0-9.:-]+/[a-z0-9._/-]+:[A-Za-z0-9._-]+$")]
    ] = []


class ClusterSpec(Model):
    cluster: Cluster
    networks: Networks
    switches: Switches | None = None
    flashblade: FlashBlade | None = None
    gpu_nodes: Annotated[list[GpuGroup], Field(min_length=1)]
    head_node: HeadNode | None = None
    slurm: Slurm = Field(default_factory=Slurm)
    containers: Containers = Field(default_factory=Containers)

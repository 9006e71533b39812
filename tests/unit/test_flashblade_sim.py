"""The FlashBlade simulator driven through the real client, py-pure-client.

Nothing here reads or writes the simulator's state directly: every check goes through
the REST API the purestorage modules use, so a pass means the modules will see the same.
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pypureclient import flashblade
from pypureclient.exceptions import PureError
from pypureclient.flashblade import (
    FileSystemPatch,
    FileSystemPost,
    NetworkInterface,
    NetworkInterfacePatch,
    Nfs,
    NfsPatch,
    Reference,
    Subnet,
)

from racksmith.lab.flashblade_sim import SimServer, SimulatedArray, StateStore, serve_in_thread
from racksmith.lab.flashblade_sim.certs import ensure_self_signed
from racksmith.lab.flashblade_sim.effects import LabEffects
from racksmith.lab.flashblade_sim.server import tls_context
from racksmith.lab.flashblade_sim.usage import directory_usage

TOKEN = "T-5a1e0000-racksmith-unit"
TIB = 1024**4

pytestmark = pytest.mark.filterwarnings("ignore::Warning")


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> ssl.SSLContext:
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    assert ensure_self_signed(cert, key, ["127.0.0.1"])
    assert not ensure_self_signed(cert, key, ["127.0.0.1"]), "existing cert must be kept"
    return tls_context(cert, key)


@dataclass
class Sim:
    """One simulator process-equivalent: state dir + server; restartable on its port."""

    state_dir: Path
    data_dir: Path
    tls: ssl.SSLContext
    effects: Any = None
    port: int = 0
    server: SimServer | None = None
    servers: list[SimServer] = field(default_factory=list)

    def start(self) -> None:
        data_dir = self.data_dir
        array = SimulatedArray(
            StateStore(self.state_dir),
            effects=self.effects,
            usage=lambda name: directory_usage(data_dir / name),
        )
        self.server = SimServer(
            ("127.0.0.1", self.port), array, {TOKEN: "pureuser"}, tls=self.tls, quiet=True
        )
        self.port = self.server.server_address[1]
        self.servers.append(self.server)
        serve_in_thread(self.server)

    def stop(self) -> None:
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()
        self.server = None

    def client(self, token: str = TOKEN) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return flashblade.Client(
                target=f"127.0.0.1:{self.port}", api_token=token, verify_ssl=False
            )

    def raw(
        self, method: str, path: str, headers: dict[str, str] | None = None
    ) -> tuple[int, Any, Any]:
        """A request without the client, for what the client hides (401 bodies)."""
        context = ssl._create_unverified_context()
        request = urllib.request.Request(
            f"https://127.0.0.1:{self.port}{path}", method=method, headers=headers or {}
        )
        try:
            with urllib.request.urlopen(request, context=context, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null"), response.headers
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null"), error.headers


@pytest.fixture
def sim(tmp_path: Path, tls: ssl.SSLContext) -> Iterator[Sim]:
    instance = Sim(state_dir=tmp_path / "state", data_dir=tmp_path / "data", tls=tls)
    instance.start()
    yield instance
    if instance.server is not None:
        instance.stop()


def _ok(response: Any) -> list[Any]:
    assert response.status_code == 200, [e.message for e in getattr(response, "errors", [])]
    return list(response.items) if response.items is not None else []


def _error(response: Any, status: int = 400) -> str:
    assert response.status_code == status, f"expected {status}, got {response.status_code}"
    return " | ".join(e.message for e in response.errors)


def _subnet(client: Any, name: str = "net3", prefix: str = "10.21.115.0/24") -> Any:
    gateway = prefix.rsplit(".", 1)[0] + ".1"
    return client.post_subnets(
        names=[name],
        subnet=Subnet(
            prefix=prefix,
            gateway=gateway,
            vlan=2115,
            mtu=9000,
            link_aggregation_group=Reference(name="uplink"),
        ),
    )


def _vip(client: Any, name: str, address: str) -> Any:
    return client.post_network_interfaces(
        names=[name],
        network_interface=NetworkInterface(address=address, services=["data"], type="vip"),
    )


def _fs(client: Any, name: str, size: int = TIB, rules: str = "*(rw,no_root_squash)") -> Any:
    return client.post_file_systems(
        names=[name],
        file_system=FileSystemPost(
            provisioned=size, nfs=Nfs(v3_enabled=True, v4_1_enabled=False, rules=rules)
        ),
    )


# -- discovery and authentication -------------------------------------------------------
def test_versions_and_probe(sim: Sim) -> None:
    client = sim.client()
    versions = list(client.get_versions().items)
    assert versions[0] == "1.0"
    assert versions[-1] == "2.17"
    # module_utils.purefb.get_system probes the array with GET /hardware.
    hardware = _ok(client.get_hardware())
    assert {h.name for h in hardware} >= {"CH1", "CH1.FM1", "CH1.FB1"}
    array = _ok(client.get_arrays())[0]
    assert (array.name, array.os) == ("fb-sim", "Purity//FB")


def test_login_answers_session_header_and_username(sim: Sim) -> None:
    status, body, headers = sim.raw("POST", "/api/login", {"api-token": TOKEN})
    assert status == 200
    assert body == {"username": "pureuser"}
    session = headers["x-auth-token"]
    status, body, _ = sim.raw("GET", "/api/2.17/file-systems", {"x-auth-token": session})
    assert (status, body["items"], body["total_item_count"]) == (200, [], 0)
    assert sim.raw("POST", "/api/logout", {"x-auth-token": session})[0] == 200
    status, body, _ = sim.raw("GET", "/api/2.17/file-systems", {"x-auth-token": session})
    assert status == 401
    assert body["errors"][0]["message"]


def test_wrong_token_is_401(sim: Sim) -> None:
    status, body, headers = sim.raw("POST", "/api/login", {"api-token": "T-wrong"})
    assert status == 401
    assert "x-auth-token" not in headers
    assert body["errors"][0]["message"] == "Invalid API token."
    assert sim.raw("POST", "/api/login")[0] == 401
    with pytest.raises(PureError, match=r"\(401\)"):
        sim.client("T-wrong")


def test_missing_session_is_401_and_client_logs_in_again(sim: Sim) -> None:
    assert sim.raw("GET", "/api/2.17/subnets")[0] == 401
    client = sim.client()
    # Sessions die with the process; the client must recover by logging in again.
    sim.stop()
    sim.start()
    assert _ok(client.get_subnets()) == []


def test_logout_then_call_is_401(sim: Sim) -> None:
    client = sim.client()
    assert client.logout().status_code == 200
    _error(client.get_file_systems(), 401)


# -- file systems ---------------------------------------------------------------------------
def test_file_system_create_list_patch(sim: Sim) -> None:
    client = sim.client()
    created = _ok(_fs(client, "nfs0"))[0]
    assert created.name == "nfs0"
    assert created.provisioned == TIB
    assert (created.nfs.v3_enabled, created.nfs.v4_1_enabled) == (True, False)
    assert created.nfs.rules == "*(rw,no_root_squash)"
    assert created.destroyed is False
    assert created.space.virtual == 0
    assert created.multi_protocol.access_control_style == "shared"

    listed = _ok(client.get_file_systems(names=["nfs0"]))
    assert [f.id for f in listed] == [created.id]
    assert _ok(client.get_file_systems(ids=[created.id]))[0].name == "nfs0"

    patched = _ok(
        client.patch_file_systems(
            names=["nfs0"],
            file_system=FileSystemPatch(
                provisioned=2 * TIB,
                hard_limit_enabled=True,
                fast_remove_directory_enabled=True,
                snapshot_directory_enabled=True,
                nfs=NfsPatch(rules="10.99.120.0/24(ro)", v4_1_enabled=True),
            ),
        )
    )[0]
    assert patched.provisioned == 2 * TIB
    assert patched.hard_limit_enabled and patched.fast_remove_directory_enabled
    assert patched.snapshot_directory_enabled
    assert (patched.nfs.rules, patched.nfs.v3_enabled, patched.nfs.v4_1_enabled) == (
        "10.99.120.0/24(ro)",
        True,
        True,
    )
    again = _ok(client.get_file_systems(filter="name='nfs0'"))[0]
    assert again.provisioned == 2 * TIB


def test_file_system_rejects_what_the_array_rejects(sim: Sim) -> None:
    client = sim.client()
    _ok(_fs(client, "nfs0"))
    assert "already exists" in _error(_fs(client, "nfs0"))
    assert "Invalid option 'rwx'" in _error(_fs(client, "nfs1", rules="*(rwx)"))
    assert "Invalid client" in _error(_fs(client, "nfs1", rules="10.0.0.1/33(ro)"))
    assert "Invalid" in _error(_fs(client, "bad/name"))
    assert "does not exist" in _error(client.get_file_systems(names=["nfs0", "ghost"]))
    response = client.patch_file_systems(
        names=["ghost"], file_system=FileSystemPatch(provisioned=1)
    )
    assert "'ghost' does not exist" in _error(response)
    assert [f.name for f in _ok(client.get_file_systems())] == ["nfs0"]


def test_destroy_recover_eradicate(sim: Sim) -> None:
    client = sim.client()
    _ok(_fs(client, "scratch"))
    # The array refuses to eradicate a live file system ...
    assert "must be destroyed" in _error(client.delete_file_systems(names=["scratch"]))
    # ... and to destroy one still serving NFS.
    assert "NFSv3" in _error(
        client.patch_file_systems(names=["scratch"], file_system=FileSystemPatch(destroyed=True))
    )
    destroyed = _ok(
        client.patch_file_systems(
            names=["scratch"],
            file_system=FileSystemPatch(
                destroyed=True, nfs=NfsPatch(v3_enabled=False, v4_1_enabled=False)
            ),
        )
    )[0]
    assert destroyed.destroyed is True
    assert 0 < destroyed.time_remaining <= 24 * 3600 * 1000
    assert [f.name for f in _ok(client.get_file_systems(destroyed=True))] == ["scratch"]
    assert _ok(client.get_file_systems(destroyed=False)) == []
    # A destroyed file system is frozen until recovered.
    assert "destroyed" in _error(
        client.patch_file_systems(names=["scratch"], file_system=FileSystemPatch(provisioned=5))
    )
    assert "destroyed state" in _error(_fs(client, "scratch"))
    recovered = _ok(
        client.patch_file_systems(names=["scratch"], file_system=FileSystemPatch(destroyed=False))
    )[0]
    assert recovered.destroyed is False and recovered.time_remaining is None
    _ok(client.patch_file_systems(names=["scratch"], file_system=FileSystemPatch(destroyed=True)))
    assert client.delete_file_systems(names=["scratch"]).status_code == 200
    assert client.get_file_systems(names=["scratch"]).status_code == 400
    _ok(_fs(client, "scratch"))  # the name is free again after eradication


def test_hard_limit_shrink_below_used_refused(sim: Sim) -> None:
    client = sim.client()
    _ok(_fs(client, "data"))
    (sim.data_dir / "data").mkdir(parents=True)
    (sim.data_dir / "data" / "blob").write_bytes(b"x" * 4096)
    assert _ok(client.get_file_systems(names=["data"]))[0].space.virtual == 4096
    _ok(
        client.patch_file_systems(
            names=["data"], file_system=FileSystemPatch(hard_limit_enabled=True)
        )
    )
    message = _error(
        client.patch_file_systems(names=["data"], file_system=FileSystemPatch(provisioned=1024))
    )
    assert "4096 bytes are in use" in message
    assert _ok(client.get_file_systems(names=["data"]))[0].provisioned == TIB
    forced = client.patch_file_systems(
        names=["data"], file_system=FileSystemPatch(provisioned=1024), ignore_usage=True
    )
    assert _ok(forced)[0].provisioned == 1024


def test_pagination_with_continuation_token(sim: Sim) -> None:
    client = sim.client()
    names = [f"fs{i}" for i in range(5)]
    for name in names:
        _ok(_fs(client, name))
    first = client.get_file_systems(limit=2)
    assert first.total_item_count == 5
    assert [f.name for f in first.items] == names[:2]
    assert first.continuation_token
    second = client.get_file_systems(limit=2, continuation_token=first.continuation_token)
    assert [f.name for f in second.items] == names[2:4]
    third = client.get_file_systems(limit=2, continuation_token=second.continuation_token)
    assert [f.name for f in third.items] == names[4:]
    assert third.continuation_token is None
    assert client.get_file_systems(limit=0).total_item_count == 5
    assert "continuation_token" in _error(client.get_file_systems(continuation_token="garbage!"))
    ordered = client.get_file_systems(sort=["name-"], limit=2)
    assert [f.name for f in ordered.items] == ["fs4", "fs3"]
    assert ordered.continuation_token is None  # as documented: no token with a sort


def test_filters(sim: Sim) -> None:
    client = sim.client()
    _ok(_fs(client, "home"))
    _ok(_fs(client, "scratch", rules="*(ro)"))
    _ok(
        client.patch_file_systems(
            names=["scratch"], file_system=FileSystemPatch(nfs=NfsPatch(v3_enabled=False))
        )
    )

    def names(expression: str) -> list[str]:
        return sorted(f.name for f in _ok(client.get_file_systems(filter=expression)))

    assert names("name='home'") == ["home"]
    assert names('name="s*"') == ["scratch"]
    assert names("nfs.v3_enabled='true'") == ["home"]
    assert names("nfs.v3_enabled=false or name='home'") == ["home", "scratch"]
    assert names("not(name='home') and provisioned>=1024") == ["scratch"]
    assert "filter" in _error(client.get_file_systems(filter="name=='x"))


# -- network ----------------------------------------------------------------------------------
def test_subnet_and_vip_lifecycle(sim: Sim) -> None:
    client = sim.client()
    assert [g.name for g in _ok(client.get_link_aggregation_groups())] == ["uplink"]
    subnet = _ok(_subnet(client))[0]
    assert (subnet.prefix, subnet.gateway, subnet.vlan, subnet.mtu) == (
        "10.21.115.0/24",
        "10.21.115.1",
        2115,
        9000,
    )
    assert subnet.link_aggregation_group.name == "uplink"
    for n in range(4):
        vip = _ok(_vip(client, f"nfs{n}", f"10.21.115.{6 + n}"))[0]
        assert vip.subnet["name"] == "net3"  # the SDK types this field as a plain dict
        assert (vip.netmask, vip.gateway, vip.vlan, vip.mtu) == (
            "255.255.255.0",
            "10.21.115.1",
            2115,
            9000,
        )
    subnet = _ok(client.get_subnets(names=["net3"]))[0]
    assert sorted(i.name for i in subnet.interfaces) == ["nfs0", "nfs1", "nfs2", "nfs3"]
    assert subnet.services == ["data"]
    moved = _ok(
        client.patch_network_interfaces(
            names=["nfs3"], network_interface=NetworkInterfacePatch(address="10.21.115.20")
        )
    )[0]
    assert moved.address == "10.21.115.20"
    _ok(client.patch_subnets(names=["net3"], subnet=Subnet(mtu=1500, vlan=2116)))
    assert _ok(client.get_network_interfaces(names=["nfs0"]))[0].mtu == 1500
    assert "still has network interfaces" in _error(client.delete_subnets(names=["net3"]))
    for n in range(4):
        assert client.delete_network_interfaces(names=[f"nfs{n}"]).status_code == 200
    assert client.delete_subnets(names=["net3"]).status_code == 200
    assert _ok(client.get_subnets()) == []


def test_network_validation(sim: Sim) -> None:
    client = sim.client()
    bad_gateway = client.post_subnets(
        names=["net9"],
        subnet=Subnet(
            prefix="10.9.0.0/24",
            gateway="10.8.0.1",
            link_aggregation_group=Reference(name="uplink"),
        ),
    )
    assert "not a host address" in _error(bad_gateway)
    host_bits = client.post_subnets(
        names=["net9"],
        subnet=Subnet(prefix="10.9.0.5/24", link_aggregation_group=Reference(name="uplink")),
    )
    assert "Invalid prefix" in _error(host_bits)
    no_lag = client.post_subnets(
        names=["net9"],
        subnet=Subnet(prefix="10.9.0.0/24", link_aggregation_group=Reference(name="nolag")),
    )
    assert "'nolag' does not exist" in _error(no_lag)
    _ok(_subnet(client))
    assert "overlaps" in _error(_subnet(client, "net4", "10.21.115.0/25"))
    outside = _vip(client, "vip", "192.0.2.10")
    assert "not in any subnet" in _error(outside)
    _ok(_vip(client, "vip", "10.21.115.6"))
    duplicate = _vip(client, "vip2", "10.21.115.6")
    assert "already used" in _error(duplicate)
    shrink = client.patch_subnets(names=["net3"], subnet=Subnet(prefix="10.21.115.128/25"))
    assert "would fall outside" in _error(shrink)


# -- persistence ------------------------------------------------------------------------------
def test_state_survives_restart(sim: Sim) -> None:
    client = sim.client()
    _ok(_subnet(client))
    _ok(_vip(client, "nfs0", "10.21.115.6"))
    fs_id = _ok(_fs(client, "nfs0"))[0].id
    sim.stop()
    state = json.loads((sim.state_dir / "state.json").read_text())
    assert [fs["name"] for fs in state["file_systems"]] == ["nfs0"]
    assert not list(sim.state_dir.glob(".state.json.*.tmp")), "atomic write left a temp file"
    sim.start()
    fresh = sim.client()
    assert _ok(fresh.get_file_systems(names=["nfs0"]))[0].id == fs_id
    assert _ok(fresh.get_network_interfaces())[0].address == "10.21.115.6"
    assert _ok(fresh.get_subnets())[0].interfaces[0].name == "nfs0"


def test_refused_request_changes_nothing(sim: Sim) -> None:
    client = sim.client()
    _ok(_fs(client, "a"))
    before = (sim.state_dir / "state.json").read_text()
    # Two names, the second invalid: the array applies all or nothing.
    response = client.post_file_systems(
        names=["b", "c/d"], file_system=FileSystemPost(provisioned=1, nfs=Nfs(v3_enabled=False))
    )
    _error(response)
    assert (sim.state_dir / "state.json").read_text() == before
    assert [f.name for f in _ok(client.get_file_systems())] == ["a"]


# -- lab effects through the API ----------------------------------------------------------
class FakeHost:
    """Stands in for iproute2 and systemctl: records commands, keeps interface addresses."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []
        self.addresses = {"10.21.115.2/24"}  # the container's own address

    def __call__(self, argv: list[str]) -> str:
        self.commands.append(argv)
        if argv[:3] == ["ip", "-o", "addr"]:
            return "".join(
                f"2: eth1    inet {a} scope global eth1\\\n" for a in sorted(self.addresses)
            )
        if argv[:3] == ["ip", "addr", "add"]:
            self.addresses.add(argv[3])
        if argv[:3] == ["ip", "addr", "del"]:
            self.addresses.discard(argv[3])
        return ""


def test_lab_effects_follow_the_api(tmp_path: Path, tls: ssl.SSLContext) -> None:
    host = FakeHost()
    conf = tmp_path / "ganesha.conf"
    conf.write_text("NFS_CORE_PARAM { Protocols = 3, 4; }\n")
    effects = LabEffects(
        data_interface="eth1",
        ganesha_conf=conf,
        export_root=tmp_path / "srv",
        state_dir=tmp_path / "state",
        runner=host,
    )
    sim = Sim(state_dir=tmp_path / "state", data_dir=tmp_path / "srv", tls=tls, effects=effects)
    sim.start()
    try:
        client = sim.client()
        _ok(_subnet(client))
        _ok(_vip(client, "nfs0", "10.21.115.6"))
        assert ["ip", "addr", "add", "10.21.115.6/24", "dev", "eth1"] in host.commands
        _ok(_fs(client, "nfs0", rules="10.99.120.0/24(ro) *(rw,no_root_squash)"))
        text = conf.read_text()
        assert text.startswith("NFS_CORE_PARAM")  # the operator's part is kept
        assert 'Path = "' + str(tmp_path / "srv" / "nfs0") + '";' in text
        assert 'Pseudo = "/nfs0";' in text and "Protocols = 3;" in text
        assert text.index('Clients = "10.99.120.0/24"') < text.index('Clients = "*"')
        assert (tmp_path / "srv" / "nfs0").is_dir()
        assert ["systemctl", "reload", "nfs-ganesha"] in host.commands
        host.commands.clear()
        _ok(client.get_file_systems())
        assert not any(c[:3] == ["ip", "addr", "add"] for c in host.commands), (
            "reads change nothing"
        )
        client.patch_file_systems(
            names=["nfs0"],
            file_system=FileSystemPatch(destroyed=True, nfs=NfsPatch(v3_enabled=False)),
        )
        assert "nfs0" not in conf.read_text().split("# BEGIN", 1)[1]
        client.delete_file_systems(names=["nfs0"])
        assert not (tmp_path / "srv" / "nfs0").exists()
        client.delete_network_interfaces(names=["nfs0"])
        assert ["ip", "addr", "del", "10.21.115.6/24", "dev", "eth1"] in host.commands
        assert host.addresses == {"10.21.115.2/24"}, "the container's own address is never touched"
    finally:
        sim.stop()


def test_lab_effects_restore_vips_after_container_restart(
    tmp_path: Path, tls: ssl.SSLContext
) -> None:
    host = FakeHost()

    def effects() -> LabEffects:
        return LabEffects(
            data_interface="eth1",
            ganesha_conf=tmp_path / "exports.conf",
            export_root=tmp_path / "srv",
            state_dir=tmp_path / "state",
            runner=host,
        )

    sim = Sim(state_dir=tmp_path / "state", data_dir=tmp_path / "srv", tls=tls, effects=effects())
    sim.start()
    client = sim.client()
    _ok(_subnet(client))
    _ok(_vip(client, "nfs0", "10.21.115.6"))
    sim.stop()
    host.addresses = {"10.21.115.2/24"}  # a restarted container has lost the VIP
    sim.effects = effects()
    sim.start()
    try:
        assert "10.21.115.6/24" in host.addresses
    finally:
        sim.stop()

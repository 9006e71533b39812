"""Day-2 verification of a FlashBlade against the inventory racksmith rendered.

Reusable as-is against the lab simulator or a real array:

    FB_API_TOKEN=... RACKSMITH_INVENTORY=inventory/hosts.yml pytest tests/infra/test_flashblade.py

The expected state is the ``flashblade_*`` variables of host ``$RACKSMITH_HOST`` (``racksmith
check`` sets it; by default the first host of group ``flashblade``): the role's inputs, read
with ``ansible-inventory``. The array is read with py-pure-client.
``RACKSMITH_FB_CHECK_NFS=1`` also checks that every data VIP accepts NFS connections
(TCP 2049) from where the test runs. Skipped when
RACKSMITH_INVENTORY or FB_API_TOKEN is unset.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from ansible.module_utils.common.text.formatters import human_to_bytes
from pypureclient import flashblade

from racksmith.checks.expect import assert_matches

pytestmark = pytest.mark.filterwarnings("ignore::Warning")

INVENTORY = os.environ.get("RACKSMITH_INVENTORY")
TOKEN = os.environ.get("FB_API_TOKEN")

if not (INVENTORY and TOKEN):
    pytest.skip(
        "set RACKSMITH_INVENTORY and FB_API_TOKEN to check a FlashBlade", allow_module_level=True
    )


def _inventory_vars() -> dict[str, Any]:
    tool = Path(sys.executable).parent / "ansible-inventory"
    listing = json.loads(
        subprocess.run(
            [str(tool), "-i", str(INVENTORY), "--list"], capture_output=True, text=True, check=True
        ).stdout
    )
    hosts = listing.get("flashblade", {}).get("hosts", [])
    if not hosts:
        pytest.skip("the inventory has no host in group flashblade")
    host = subprocess.run(
        [str(tool), "-i", str(INVENTORY), "--host", os.environ.get("RACKSMITH_HOST", hosts[0])],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(host.stdout))


SPEC = _inventory_vars()


@pytest.fixture(scope="module")
def array() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return flashblade.Client(target=SPEC["flashblade_url"], api_token=TOKEN, verify_ssl=False)


def _items(response: Any) -> list[Any]:
    if response.status_code != 200:
        # An API failure means the check could not look, which is not drift.
        raise RuntimeError(f"FlashBlade API answered {response.status_code}: {response.errors}")
    return list(response.items)


def _by_name(response: Any) -> dict[str, Any]:
    return {item.name: item for item in _items(response)}


def test_subnet(array: Any) -> None:
    want = SPEC["flashblade_subnet"]
    subnets = _by_name(array.get_subnets())
    assert want["name"] in subnets, f"expected subnet {want['name']}, found {sorted(subnets)}"
    have = subnets[want["name"]]
    found = {
        "prefix": have.prefix,
        "gateway": have.gateway,
        "vlan": have.vlan,
        "mtu": have.mtu,
        "lag": have.link_aggregation_group.name,
    }
    expected = {
        "prefix": want["prefix"],
        "gateway": want.get("gateway", have.gateway),
        "vlan": want.get("vlan", 0),
        "mtu": want.get("mtu", 1500),
        "lag": want.get("lag", "uplink"),
    }
    assert_matches(f"subnet {want['name']}", expected, found)


@pytest.mark.parametrize("vip", SPEC.get("flashblade_vips", []), ids=lambda v: v["name"])
def test_vip(array: Any, vip: dict[str, str]) -> None:
    interfaces = _by_name(array.get_network_interfaces())
    assert vip["name"] in interfaces, f"expected VIP {vip['name']}, found {sorted(interfaces)}"
    have = interfaces[vip["name"]]
    found = {
        "address": have.address,
        "data service": "data" in have.services,
        "enabled": have.enabled,
        "subnet": (have.subnet or {}).get("name"),
    }
    expected = {
        "address": vip["address"],
        "data service": True,
        "enabled": True,
        "subnet": SPEC["flashblade_subnet"]["name"],
    }
    assert_matches(f"VIP {vip['name']}", expected, found)


@pytest.mark.parametrize("fs", SPEC.get("flashblade_filesystems", []), ids=lambda f: f["name"])
def test_filesystem(array: Any, fs: dict[str, Any]) -> None:
    systems = _by_name(array.get_file_systems())
    assert fs["name"] in systems, f"expected file system {fs['name']}, found {sorted(systems)}"
    have = systems[fs["name"]]
    found = {
        "destroyed": have.destroyed,
        "size": have.provisioned,
        "nfsv3": have.nfs.v3_enabled,
        "nfsv4_1": have.nfs.v4_1_enabled,
        "export_rules": have.nfs.rules,
        "fast_remove": have.fast_remove_directory_enabled,
        "snapshot_directory": have.snapshot_directory_enabled,
        "hard_limit": have.hard_limit_enabled,
    }
    expected = {
        "destroyed": False,
        "size": human_to_bytes(fs["size"]),
        "nfsv3": fs.get("nfsv3", True),
        "nfsv4_1": fs.get("nfsv4_1", False),
        "export_rules": fs["export_rules"],
        "fast_remove": fs.get("fast_remove", False),
        "snapshot_directory": fs.get("snapshot_directory", False),
        "hard_limit": fs.get("hard_limit", False),
    }
    assert_matches(f"file system {fs['name']}", expected, found)


def test_no_vip_outside_the_spec(array: Any) -> None:
    if not SPEC.get("flashblade_prune_vips"):
        pytest.skip("prune_vips is off: VIPs the spec does not list are left alone")
    subnet = SPEC["flashblade_subnet"]["name"]
    listed = {vip["name"] for vip in SPEC.get("flashblade_vips", [])}
    stray = sorted(
        i.name
        for i in _items(array.get_network_interfaces())
        if (i.subnet or {}).get("name") == subnet and i.name not in listed
    )
    assert stray == [], f"expected no VIP outside the spec in subnet {subnet}, found {stray}"


def test_destroy_list_is_not_live(array: Any) -> None:
    systems = _by_name(array.get_file_systems())
    live = [
        n
        for n in SPEC.get("flashblade_destroy_filesystems", [])
        if n in systems and not systems[n].destroyed
    ]
    assert live == [], f"expected destroyed, found live: {live}"


@pytest.mark.skipif(
    os.environ.get("RACKSMITH_FB_CHECK_NFS") != "1", reason="RACKSMITH_FB_CHECK_NFS=1 not set"
)
@pytest.mark.parametrize("vip", SPEC.get("flashblade_vips", []), ids=lambda v: v["name"])
def test_vip_serves_nfs(vip: dict[str, str]) -> None:
    with socket.create_connection((vip["address"], 2049), timeout=5):
        pass

"""The planned per-VIP source routing, applied to a real kernel network stack.

Two network namespaces made by the test: a GPU node with em1 and em2 (both in the data
subnet, as in the white paper) and the FlashBlade's side, a bridge holding the four data
VIPs that both NICs are plugged into (the MLAG pair's L2 segment). The plan's sysctls and
``ip -batch`` lines for gpu01 of examples/lab.yml are applied; then the kernel must choose
the planned interface and source for every VIP, and bytes read through a VIP must arrive on
that VIP's NIC only. All traffic stays inside the two namespaces.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from racksmith.plan import NodeStorage, plan_file

REPO = Path(__file__).resolve().parents[2]
PORT = 5001
PAYLOAD = 4_000_000  # bytes per read: far above what ARP and TCP control traffic add

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None,
    reason="network namespaces need root and iproute2",
)


def ip(*args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["ip", *args], input=stdin, capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, f"ip {' '.join(args)}: {done.stderr.strip()}"
    return done.stdout


@dataclass(frozen=True)
class Lab:
    gpu: str
    fb: str
    storage: NodeStorage

    def route(self, vip: str) -> tuple[str, str]:
        found = json.loads(ip("-n", self.gpu, "-j", "route", "get", vip))[0]
        return found["dev"], found["prefsrc"]

    def rx_bytes(self, dev: str) -> int:
        stats = json.loads(ip("-n", self.gpu, "-j", "-s", "link", "show", dev))[0]
        return int(stats["stats64"]["rx"]["bytes"])

    def exec(self, namespace: str, code: str, timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["ip", "netns", "exec", namespace, sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


@pytest.fixture
def lab() -> Iterator[Lab]:
    plan = plan_file(REPO / "examples" / "lab.yml")
    node = plan.hosts["gpu01"]
    assert node.storage is not None
    storage = node.storage
    tag = f"rs{os.getpid() % 100000}"
    gpu, fb = f"{tag}-gpu", f"{tag}-fb"
    ip("netns", "add", gpu)
    ip("netns", "add", fb)
    try:
        for namespace in (gpu, fb):
            ip("-n", namespace, "link", "set", "lo", "up")
        ip("-n", fb, "link", "add", "br0", "type", "bridge")
        ip("-n", fb, "link", "set", "br0", "up")
        addresses = {t.dev: t.source for t in storage.tables}
        prefix = plan.networks["data"].subnet.split("/")[1]
        for n, dev in enumerate(sorted(addresses), start=1):
            ip("link", "add", f"{tag}-{dev}", "netns", gpu, "type", "veth",
               "peer", "name", f"{tag}-p{n}", "netns", fb)  # fmt: skip
            ip("-n", gpu, "link", "set", f"{tag}-{dev}", "name", dev)
            ip("-n", fb, "link", "set", f"{tag}-p{n}", "master", "br0", "up")
        for key, value in storage.sysctls:
            subprocess.run(
                ["ip", "netns", "exec", gpu, "sysctl", "-qw", f"{key}={value}"],
                check=True,
                timeout=30,
            )
        for dev, address in addresses.items():
            ip("-n", gpu, "addr", "add", f"{address}/{prefix}", "dev", dev)
            ip("-n", gpu, "link", "set", dev, "up")
        for route in storage.routes:
            ip("-n", fb, "addr", "add", f"{route.dest}/{prefix}", "dev", "br0")
        yield Lab(gpu, fb, storage)
    finally:
        for namespace in (gpu, fb):
            subprocess.run(["ip", "netns", "del", namespace], check=False, timeout=30)


def test_kernel_picks_the_planned_nic_and_source_for_every_vip(lab: Lab) -> None:
    vips = {r.dest: (r.dev, r.src) for r in lab.storage.routes}
    assert {dev for dev, _ in vips.values()} == {"em1", "em2"}
    # Without the plan, one connected route wins for the whole subnet: one link carries all.
    assert len({lab.route(vip) for vip in vips}) == 1

    ip("-n", lab.gpu, "-batch", "-", stdin="\n".join(lab.storage.ip_batch()) + "\n")

    assert {vip: lab.route(vip) for vip in vips} == vips
    rules = json.loads(ip("-n", lab.gpu, "-j", "rule", "show"))
    planned = {(r.priority, r.source, str(r.table)) for r in lab.storage.rules}
    assert planned <= {(r["priority"], r.get("src"), r["table"]) for r in rules}


def test_reads_through_a_vip_arrive_on_its_nic_only(lab: Lab) -> None:
    ip("-n", lab.gpu, "-batch", "-", stdin="\n".join(lab.storage.ip_batch()) + "\n")
    by_dev: dict[str, list[str]] = {}
    for route in lab.storage.routes:
        by_dev.setdefault(route.dev, []).append(route.dest)

    server = subprocess.Popen(
        ["ip", "netns", "exec", lab.fb, sys.executable, "-c", textwrap.dedent(f"""
            import socket
            server = socket.create_server(("0.0.0.0", {PORT}))
            server.settimeout(60)
            print("ready", flush=True)
            for _ in range({len(lab.storage.routes)}):
                conn, _ = server.accept()
                conn.sendall(b"x" * {PAYLOAD})
                conn.close()
        """)],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        assert server.stdout.readline().strip() == "ready"
        for dev, vips in sorted(by_dev.items()):
            other = ({"em1", "em2"} - {dev}).pop()
            before = {d: lab.rx_bytes(d) for d in ("em1", "em2")}
            reader = lab.exec(lab.gpu, textwrap.dedent(f"""
                import socket
                for vip in {vips!r}:
                    with socket.create_connection((vip, {PORT}), timeout=10) as conn:
                        got = 0
                        while chunk := conn.recv(1 << 16):
                            got += len(chunk)
                    print(vip, got)
            """), timeout=60)  # fmt: skip
            assert reader.returncode == 0, reader.stderr
            assert [line.split()[1] for line in reader.stdout.splitlines()] == [
                str(PAYLOAD)
            ] * len(vips)
            moved = {d: lab.rx_bytes(d) - before[d] for d in ("em1", "em2")}
            assert moved[dev] >= PAYLOAD * len(vips), (dev, moved)
            assert moved[other] < PAYLOAD // 10, f"reads via {vips} leaked onto {other}: {moved}"
        assert server.wait(timeout=30) == 0
    finally:
        server.kill()


def test_batch_lines_are_ip_syntax() -> None:
    # The same lines the boot-time unit will run; kept in step with `racksmith show`.
    storage = plan_file(REPO / "examples" / "lab.yml").hosts["gpu01"].storage
    assert storage is not None
    assert storage.ip_batch()[0] == (
        "route replace 10.99.115.6 dev em1 proto static scope link src 10.99.115.21"
    )
    assert storage.ip_batch()[-1] == "rule add from 10.99.115.121 lookup 102 priority 1002"

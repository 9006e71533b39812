"""A self-signed TLS certificate for the simulated array, made with the openssl CLI.

A real FlashBlade ships a self-signed certificate too, which is why the purestorage
modules do not verify it by default; the simulator keeps that behaviour honest.
"""

from __future__ import annotations

import ipaddress
import subprocess
from pathlib import Path


def _san(hosts: list[str]) -> str:
    entries = []
    for host in hosts:
        try:
            ipaddress.ip_address(host)
            entries.append(f"IP:{host}")
        except ValueError:
            entries.append(f"DNS:{host}")
    return ",".join(entries)


def ensure_self_signed(
    cert: Path, key: Path, hosts: list[str], common_name: str = "flashblade-sim"
) -> bool:
    """Create cert/key unless both exist; returns True when it made new ones."""
    if cert.exists() and key.exists():
        return False
    cert.parent.mkdir(parents=True, exist_ok=True)
    key.parent.mkdir(parents=True, exist_ok=True)
    names = list(dict.fromkeys([*hosts, "localhost", "127.0.0.1"]))
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-sha256",
            "-days",
            "3650",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-subj",
            f"/O=racksmith lab/CN={common_name}",
            "-addext",
            f"subjectAltName={_san(names)}",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    key.chmod(0o600)
    return True

"""Making the simulated array real where the lab can: data VIPs and NFS exports.

With ``--effects lab`` every accepted change is followed by a reconciliation of the host
(the lab's FlashBlade container) with the array state:

* each network interface (VIP) becomes an address on the data interface, so clients
  reach the "array" at the address the spec gave it;
* each live file system with NFS enabled becomes an nfs-ganesha export of
  ``<export-root>/<name>``, with the array's client rules translated, and ganesha reloads.

Reconciling the whole state, not replaying single events, means a restart of the
container (which loses its addresses) is repaired at simulator start, and a failed
command is retried on the next change. Without effects (unit tests) nothing here runs.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from .nfs_rules import RuleError, ganesha_config, ganesha_export_block
from .store import atomic_write_text

Runner = Callable[[list[str]], str]

BEGIN_MARK = "# BEGIN racksmith flashblade_sim exports"
END_MARK = "# END racksmith flashblade_sim exports"


class EffectError(RuntimeError):
    """A host command the lab effects needed failed."""


def run_command(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=30)
    except FileNotFoundError as exc:
        raise EffectError(f"{argv[0]}: not found") from exc
    except subprocess.CalledProcessError as exc:
        detail = (exc.stderr or exc.stdout or "").strip()
        raise EffectError(f"{shlex.join(argv)} failed ({exc.returncode}): {detail}") from exc
    except subprocess.TimeoutExpired as exc:
        raise EffectError(f"{shlex.join(argv)} timed out") from exc
    return done.stdout


class Effects(Protocol):
    def apply(self, state: dict[str, Any]) -> None:
        """Bring the host in line with the array state (idempotent)."""

    def file_system_eradicated(self, name: str) -> None:
        """The file system's data is gone for good."""


class NoEffects:
    """Unit tests and plain API simulation: the host is never touched."""

    def apply(self, state: dict[str, Any]) -> None:
        return None

    def file_system_eradicated(self, name: str) -> None:
        return None


def desired_vips(state: dict[str, Any]) -> set[str]:
    """``address/prefixlen`` of every VIP, the prefix length taken from its subnet."""
    networks = [ipaddress.ip_network(s["prefix"]) for s in state.get("subnets", [])]
    wanted: set[str] = set()
    for iface in state.get("network_interfaces", []):
        address = ipaddress.ip_address(iface["address"])
        for network in networks:
            if address.version == network.version and address in network:
                wanted.add(f"{address}/{network.prefixlen}")
                break
    return wanted


def desired_exports(state: dict[str, Any], export_root: str) -> list[str]:
    blocks: list[str] = []
    for fs in sorted(state.get("file_systems", []), key=lambda f: f["_export_id"]):
        if fs.get("destroyed"):
            continue
        nfs = fs.get("nfs", {})
        try:
            block = ganesha_export_block(
                export_id=fs["_export_id"],
                fs_name=fs["name"],
                export_root=export_root,
                v3=bool(nfs.get("v3_enabled")),
                v4_1=bool(nfs.get("v4_1_enabled")),
                rules=nfs.get("rules") or "",
            )
        except RuleError:
            # The API validated the rules on the way in; a state file edited by hand
            # must not take every other export down with it.
            continue
        if block:
            blocks.append(block)
    return blocks


def splice_section(existing: str, section: str) -> str:
    """Replace (or append) the simulator's marked section, keeping the rest of the file.

    Lets ``--ganesha-conf`` point at ganesha.conf itself or at a file it includes.
    """
    block = f"{BEGIN_MARK}\n{section.rstrip()}\n{END_MARK}\n"
    start = existing.find(BEGIN_MARK)
    end = existing.find(END_MARK)
    if start != -1 and end > start:
        return existing[:start] + block + existing[end + len(END_MARK) :].lstrip("\n")
    if existing and not existing.endswith("\n"):
        existing += "\n"
    return existing + block


class LabEffects:
    """Effects inside the lab's FlashBlade container (root, iproute2, nfs-ganesha)."""

    def __init__(
        self,
        *,
        data_interface: str,
        ganesha_conf: Path,
        export_root: Path,
        state_dir: Path,
        reload_cmd: list[str] | None = None,
        ganesha_pidfile: Path | None = None,
        runner: Runner = run_command,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.data_interface = data_interface
        self.ganesha_conf = ganesha_conf
        self.export_root = export_root
        self.reload_cmd = reload_cmd or ["systemctl", "reload", "nfs-ganesha"]
        self.ganesha_pidfile = ganesha_pidfile
        self.runner = runner
        self.log = log or (lambda msg: print(f"flashblade_sim: {msg}", file=sys.stderr))
        # Addresses this simulator put on the interface; the container's own address
        # (and anything else an operator added) must never be removed by a reconcile.
        self._managed_path = state_dir / "effects.json"

    # -- VIPs ---------------------------------------------------------------
    def _managed(self) -> set[str]:
        try:
            return set(json.loads(self._managed_path.read_text())["vips"])
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return set()

    def _present(self) -> set[str]:
        out = self.runner(["ip", "-o", "addr", "show", "dev", self.data_interface])
        present: set[str] = set()
        for line in out.splitlines():
            fields = line.split()
            for i, word in enumerate(fields[:-1]):
                if word in ("inet", "inet6"):
                    present.add(fields[i + 1])
        return present

    def _reconcile_vips(self, state: dict[str, Any]) -> None:
        wanted = desired_vips(state)
        present = self._present()
        managed = self._managed()
        for cidr in sorted(wanted - present):
            self.runner(["ip", "addr", "add", cidr, "dev", self.data_interface])
        for cidr in sorted((managed - wanted) & present):
            self.runner(["ip", "addr", "del", cidr, "dev", self.data_interface])
        atomic_write_text(self._managed_path, json.dumps({"vips": sorted(wanted)}) + "\n")

    # -- exports ------------------------------------------------------------
    def _reconcile_exports(self, state: dict[str, Any]) -> None:
        for fs in state.get("file_systems", []):
            directory = self.export_root / fs["name"]
            if not directory.exists():
                directory.mkdir(parents=True)
                # A new array file system is writable by any client its rules let in,
                # including squashed root; mode 0777 gives the lab the same.
                os.chmod(directory, 0o777)
        section = ganesha_config(desired_exports(state, str(self.export_root)))
        try:
            existing = self.ganesha_conf.read_text(encoding="utf-8")
        except FileNotFoundError:
            existing = ""
        updated = splice_section(existing, section)
        if updated == existing:
            return
        atomic_write_text(self.ganesha_conf, updated)
        self._reload_ganesha()

    def _reload_ganesha(self) -> None:
        if self.ganesha_pidfile is not None:
            # ganesha re-reads its configuration and adds, updates and removes
            # exports on SIGHUP; no systemd is needed in the container for this.
            try:
                pid = int(self.ganesha_pidfile.read_text().strip())
                os.kill(pid, signal.SIGHUP)
            except (OSError, ValueError) as exc:
                raise EffectError(
                    f"cannot signal ganesha via {self.ganesha_pidfile}: {exc}"
                ) from exc
            return
        self.runner(list(self.reload_cmd))

    # -- Effects protocol ---------------------------------------------------
    def apply(self, state: dict[str, Any]) -> None:
        # One failing half must not block the other; both are retried next change.
        for step in (self._reconcile_vips, self._reconcile_exports):
            try:
                step(state)
            except (EffectError, OSError) as exc:
                self.log(f"lab effect failed ({step.__name__}): {exc}")

    def file_system_eradicated(self, name: str) -> None:
        directory = self.export_root / name
        # Names are validated by the API (no '/' or '..'); check again before rm -r.
        if directory.parent != self.export_root or not directory.is_dir():
            return
        shutil.rmtree(directory, ignore_errors=True)

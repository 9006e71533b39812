"""FlashBlade NFS export rules: parsing, validation and translation to nfs-ganesha.

A FlashBlade file system carries its NFS access list as one string in the exports(5)
style, e.g. ``*(rw,no_root_squash)`` or ``10.99.120.0/24(ro) 10.99.121.5(rw,root_squash)``.
The simulator must refuse what the array refuses (so the role sees the same 400) and, in
the lab, turn the same string into a ganesha ``EXPORT`` block so clients really mount.

Stdlib only: this module runs inside the lab's FlashBlade container.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

# Purity//FB defaults when a rule leaves an option out (same as Linux exports(5)).
DEFAULT_ACCESS = "rw"
DEFAULT_SQUASH = "root_squash"

_FLAG_OPTIONS = {
    "rw",
    "ro",
    "root_squash",
    "no_root_squash",
    "all_squash",
    "no_all_squash",
    "secure",
    "insecure",
    "fileid_32bit",
    "no_fileid_32bit",
    "atime",
    "noatime",
}
_VALUE_OPTIONS = {"anonuid", "anongid", "sec"}
_SEC_FLAVORS = {"sys", "krb5", "krb5i", "krb5p"}
_RULE_RE = re.compile(r"^(?P<client>[^\s()]+)(?:\((?P<opts>[^()]*)\))?$")
_HOST_RE = re.compile(r"^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9-]+)*$")
_NETGROUP_RE = re.compile(r"^@[A-Za-z0-9_.-]+$")


class RuleError(ValueError):
    """A rule string the array would reject; the message is what the API answers."""


@dataclass(frozen=True)
class ExportRule:
    """One ``client(options)`` element of a FlashBlade rule string, defaults applied."""

    client: str
    access: str = DEFAULT_ACCESS  # "rw" | "ro"
    squash: str = DEFAULT_SQUASH  # "root_squash" | "no_root_squash" | "all_squash"
    secure: bool = False
    anonuid: int | None = None
    anongid: int | None = None
    sec: tuple[str, ...] = ("sys",)
    # Accepted because the array accepts them; ganesha has no per-client equivalent.
    ignored: tuple[str, ...] = field(default_factory=tuple)


def _check_client(client: str) -> None:
    if client == "*" or _NETGROUP_RE.match(client):
        return
    try:
        ipaddress.ip_network(client, strict=True)
        return
    except ValueError as exc:
        if "/" in client:
            raise RuleError(f"Invalid client '{client}' in NFS export rule: {exc}.") from None
    if _HOST_RE.match(client):
        return
    raise RuleError(f"Invalid client '{client}' in NFS export rule.")


def _parse_options(client: str, opts: str) -> ExportRule:
    access = DEFAULT_ACCESS
    squash = DEFAULT_SQUASH
    secure = False
    anonuid: int | None = None
    anongid: int | None = None
    sec: tuple[str, ...] = ("sys",)
    ignored: list[str] = []
    seen_access: set[str] = set()
    for raw in opts.split(","):
        opt = raw.strip()
        if not opt:
            raise RuleError(f"Empty option in NFS export rule for client '{client}'.")
        name, _, value = opt.partition("=")
        if value and name in _VALUE_OPTIONS:
            if name in ("anonuid", "anongid"):
                if not value.isdigit() or int(value) > 2**32 - 1:
                    raise RuleError(f"Invalid value '{value}' for option '{name}'.")
                if name == "anonuid":
                    anonuid = int(value)
                else:
                    anongid = int(value)
            else:
                flavors = tuple(value.split(":"))
                bad = [f for f in flavors if f not in _SEC_FLAVORS]
                if bad:
                    raise RuleError(f"Invalid security flavor '{bad[0]}' in NFS export rule.")
                sec = flavors
            continue
        if opt not in _FLAG_OPTIONS:
            raise RuleError(f"Invalid option '{opt}' in NFS export rule for client '{client}'.")
        if opt in ("rw", "ro"):
            seen_access.add(opt)
            access = opt
        elif opt in ("root_squash", "no_root_squash", "all_squash"):
            squash = opt
        elif opt == "no_all_squash":
            if squash == "all_squash":
                squash = DEFAULT_SQUASH
        elif opt in ("secure", "insecure"):
            secure = opt == "secure"
        else:
            ignored.append(opt)
    if len(seen_access) > 1:
        raise RuleError(f"Conflicting options 'rw' and 'ro' for client '{client}'.")
    return ExportRule(client, access, squash, secure, anonuid, anongid, sec, tuple(ignored))


def parse_rules(rules: str) -> list[ExportRule]:
    """Parse a FlashBlade rule string; raise RuleError on anything the array rejects.

    An empty string is valid (no client may mount), as on the array.
    """
    if len(rules) > 4096:
        raise RuleError("NFS export rules are longer than 4096 characters.")
    parsed: list[ExportRule] = []
    for element in rules.split():
        match = _RULE_RE.match(element)
        if not match:
            raise RuleError(f"Invalid NFS export rule '{element}'.")
        client = match.group("client")
        _check_client(client)
        opts = match.group("opts")
        parsed.append(_parse_options(client, opts) if opts else ExportRule(client))
    return parsed


def _ganesha_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _client_block(rule: ExportRule) -> list[str]:
    squash = {
        "root_squash": "Root_Squash",
        "no_root_squash": "No_Root_Squash",
        "all_squash": "All_Squash",
    }[rule.squash]
    lines = [
        "    CLIENT {",
        f"        Clients = {_ganesha_string(rule.client)};",
        f"        Access_Type = {rule.access.upper()};",
        f"        Squash = {squash};",
        f"        SecType = {', '.join(rule.sec)};",
        f"        PrivilegedPort = {'true' if rule.secure else 'false'};",
    ]
    if rule.anonuid is not None:
        lines.append(f"        Anonymous_Uid = {rule.anonuid};")
    if rule.anongid is not None:
        lines.append(f"        Anonymous_Gid = {rule.anongid};")
    lines.append("    }")
    return lines


def ganesha_export_block(
    *,
    export_id: int,
    fs_name: str,
    export_root: str,
    v3: bool,
    v4_1: bool,
    rules: str,
) -> str:
    """Render the ganesha EXPORT block serving one file system.

    Returns "" when no NFS version is enabled: the array stops serving the file system,
    so the lab must not export it either. The export-level Access_Type is None so that
    only clients named by a rule get in, which is how the array treats its rule list;
    ganesha tries CLIENT blocks in order, the same first-match order as the rule string.
    """
    if not (v3 or v4_1):
        return ""
    protocols = [p for p, on in (("3", v3), ("4", v4_1)) if on]
    path = f"{export_root.rstrip('/')}/{fs_name}"
    lines = [
        f"# FlashBlade file system {fs_name} (managed by racksmith flashblade_sim)",
        "EXPORT {",
        f"    Export_Id = {export_id};",
        f"    Path = {_ganesha_string(path)};",
        f"    Pseudo = {_ganesha_string('/' + fs_name)};",
        f"    Protocols = {', '.join(protocols)};",
        "    Transports = TCP;",
        "    Access_Type = None;",
        "    Squash = Root_Squash;",
        "    FSAL {",
        "        Name = VFS;",
        "    }",
    ]
    for rule in parse_rules(rules):
        lines.extend(_client_block(rule))
    lines.append("}")
    return "\n".join(lines) + "\n"


def ganesha_config(exports: list[str]) -> str:
    """The whole exports file the simulator owns: a header plus one block per export."""
    header = (
        "# Written by racksmith flashblade_sim: every change through the FlashBlade REST API\n"
        "# rewrites this file. Do not edit; change the file system on the simulated array.\n"
    )
    body = "\n".join(block for block in exports if block)
    return header + ("\n" + body if body else "")

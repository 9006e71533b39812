"""The simulated FlashBlade: resources, validation and the REST 2.x answers they give.

Only the part of the array racksmith drives is modelled (file systems, subnets, network
interfaces, link aggregation groups) plus the read-only objects the purestorage modules
probe (hardware, arrays, space, EULA, support, ...). Everything else answers as an empty
collection, which is what a freshly installed array shows.

Object shapes follow py-pure-client's FB_2_x models field for field; server-side rules
(what the array refuses, and with which HTTP status) follow the FlashBlade REST
reference: a refused request changes nothing.
"""

from __future__ import annotations

import copy
import ipaddress
import re
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from .effects import Effects, NoEffects
from .errors import ApiError
from .nfs_rules import RuleError, parse_rules
from .query import Item, Query, paginate, parse_filter, sort_items
from .store import StateStore

DEFAULT_MAX_API_VERSION = "2.17"
ERADICATION_DELAY_MS = 24 * 3600 * 1000
DEFAULT_CAPACITY = 2 * 1024**5  # 2 PiB usable, a mid-size FlashBlade//S
SCHEMA_VERSION = 1

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$")
_SERVICES = {"data", "replication", "management", "support", "egress-only"}
_ACCESS_STYLES = {"nfs", "smb", "shared", "independent", "mode-bits"}
_GROUP_OWNERSHIP = {"creator", "parent-directory"}
_EMPTY_COLLECTIONS = {
    "active-directory",
    "admins",
    "alert-watchers",
    "api-clients",
    "array-connections",
    "bucket-replica-links",
    "buckets",
    "certificate-groups",
    "certificates",
    "directory-services/roles",
    "dns",
    "drives",
    "file-system-replica-links",
    "file-system-snapshots",
    "file-system-snapshots/transfer",
    "keytabs",
    "lifecycle-rules",
    "nfs-export-policies",
    "object-store-access-keys",
    "object-store-access-policies",
    "object-store-accounts",
    "object-store-remote-credentials",
    "object-store-users",
    "object-store-virtual-hosts",
    "policies",
    "policies/file-systems",
    "quotas/groups",
    "quotas/users",
    "servers",
    "smb-client-policies",
    "smb-share-policies",
    "smtp-servers",
    "snmp-agents",
    "snmp-managers",
    "sso/saml2/idps",
    "support/verification-keys",
    "syslog-servers",
    "targets",
}


def api_versions(max_version: str = DEFAULT_MAX_API_VERSION) -> list[str]:
    """What /api/api_version lists: every 1.x of the era plus 2.0 .. max_version."""
    major, _, minor = max_version.partition(".")
    if major != "2" or not minor.isdigit():
        raise ValueError(f"max API version must look like 2.N, got {max_version!r}")
    return [f"1.{i}" for i in range(13)] + [f"2.{i}" for i in range(int(minor) + 1)]


def _now_ms() -> int:
    return int(time.time() * 1000)


def _new_id() -> str:
    return str(uuid.uuid4())


def _public(obj: dict[str, Any]) -> dict[str, Any]:
    """Drop the simulator's private bookkeeping keys (leading underscore)."""
    return {k: copy.deepcopy(v) for k, v in obj.items() if not k.startswith("_")}


def _ref(obj: dict[str, Any], resource_type: str) -> dict[str, Any]:
    return {"id": obj["id"], "name": obj["name"], "resource_type": resource_type}


# -- body validation helpers ------------------------------------------------------
def _expect_bool(value: Any, field: str, context: str) -> bool:
    if not isinstance(value, bool):
        raise ApiError(400, f"Invalid value for '{field}': expected true or false.", context)
    return value


def _expect_int(value: Any, field: str, context: str, lo: int = 0, hi: int = 2**63 - 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ApiError(
            400, f"Invalid value for '{field}': expected an integer in [{lo}, {hi}].", context
        )
    return value


def _expect_str(value: Any, field: str, context: str) -> str:
    if not isinstance(value, str):
        raise ApiError(400, f"Invalid value for '{field}': expected a string.", context)
    return value


def _expect_obj(value: Any, field: str, context: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ApiError(400, f"Invalid value for '{field}': expected an object.", context)
    return value


def _check_name(name: str, kind: str) -> None:
    if not _NAME_RE.match(name):
        raise ApiError(
            400,
            f"Invalid {kind} name '{name}': use 1-63 letters, digits, '-' or '_', "
            "starting with a letter or digit.",
            name,
        )


class SimulatedArray:
    """Array state plus the REST semantics; thread-safe, persisted after each change."""

    def __init__(
        self,
        store: StateStore,
        *,
        effects: Effects | None = None,
        usage: Callable[[str], int] | None = None,
        array_name: str = "fb-sim",
        max_api_version: str = DEFAULT_MAX_API_VERSION,
        capacity: int = DEFAULT_CAPACITY,
        lags: tuple[str, ...] = ("uplink",),
    ) -> None:
        self.store = store
        self.effects: Effects = effects or NoEffects()
        # Used bytes of a file system; the lab measures its export directory.
        self.usage = usage or (lambda name: 0)
        self.versions = api_versions(max_api_version)
        self.capacity = capacity
        self._lock = threading.RLock()
        loaded = store.load()
        self.state: dict[str, Any] = loaded or self._initial_state(array_name, lags)
        if loaded is None:
            store.save(self.state)
        self.effects.apply(copy.deepcopy(self.state))

    # -- state ------------------------------------------------------------------
    @staticmethod
    def _initial_state(array_name: str, lags: tuple[str, ...]) -> dict[str, Any]:
        lag_objs = []
        for n, lag in enumerate(lags, start=1):
            lag_objs.append(
                {
                    "id": _new_id(),
                    "name": lag,
                    "lag_speed": 2 * 100_000_000_000,
                    "mac_address": f"24:a9:37:00:{n:02x}:01",
                    "port_speed": 100_000_000_000,
                    "ports": [
                        {"name": f"CH1.FM1.ETH{n}", "resource_type": "hardware"},
                        {"name": f"CH1.FM2.ETH{n}", "resource_type": "hardware"},
                    ],
                    "status": "healthy",
                }
            )
        return {
            "schema": SCHEMA_VERSION,
            "array": {"id": _new_id(), "name": array_name, "created": _now_ms()},
            "link_aggregation_groups": lag_objs,
            "subnets": [],
            "network_interfaces": [],
            "file_systems": [],
            "next_export_id": 1,
        }

    def _commit(self, new_state: dict[str, Any]) -> None:
        """Persist first, then touch the host: a crash leaves state ahead of the host,
        and the next start's reconcile catches the host up."""
        self.store.save(new_state)
        self.state = new_state
        self.effects.apply(copy.deepcopy(new_state))

    # -- dispatch -----------------------------------------------------------------
    def handle(self, method: str, resource: str, query: Query, body: Any) -> dict[str, Any] | None:
        """Answer one authenticated /api/2.x request; raises ApiError for errors."""
        with self._lock:
            if method == "GET":
                return self._get(resource, query)
            mutators: dict[str, dict[str, Callable[[Query, Any], dict[str, Any] | None]]] = {
                "file-systems": {
                    "POST": self._post_fs,
                    "PATCH": self._patch_fs,
                    "DELETE": self._delete_fs,
                },
                "subnets": {
                    "POST": self._post_subnet,
                    "PATCH": self._patch_subnet,
                    "DELETE": self._delete_subnet,
                },
                "network-interfaces": {
                    "POST": self._post_iface,
                    "PATCH": self._patch_iface,
                    "DELETE": self._delete_iface,
                },
            }
            handlers = mutators.get(resource)
            if handlers is None:
                if self._is_known(resource):
                    raise ApiError(
                        405, f"{method} is not supported on {resource} by this simulator."
                    )
                raise ApiError(404, f"Unknown resource '{resource}'.", resource)
            handler = handlers.get(method)
            if handler is None:
                raise ApiError(405, f"{method} is not allowed on {resource}.")
            if method in ("POST", "PATCH") and body is None:
                raise ApiError(400, "A JSON request body is required.")
            return handler(query, body)

    def _is_known(self, resource: str) -> bool:
        return resource in _EMPTY_COLLECTIONS or resource in self._getters()

    def _getters(self) -> dict[str, Callable[[Query], list[Item]]]:
        return {
            "file-systems": self._fs_items,
            "subnets": lambda q: [self._render_subnet(s) for s in self.state["subnets"]],
            "network-interfaces": lambda q: [
                self._render_iface(i) for i in self.state["network_interfaces"]
            ],
            "link-aggregation-groups": lambda q: [
                _public(lag) for lag in self.state["link_aggregation_groups"]
            ],
            "hardware": lambda q: self._hardware(),
            "blades": lambda q: self._blades(),
            "arrays": lambda q: [self._render_array()],
            "arrays/space": self._array_space,
            "arrays/eula": lambda q: [self._eula()],
            "admins/settings": lambda q: [
                {"lockout_duration": None, "max_login_attempts": None, "min_password_length": 1}
            ],
            "support": lambda q: [self._support()],
            "directory-services": lambda q: self._directory_services(),
        }

    def _get(self, resource: str, query: Query) -> dict[str, Any]:
        getter = self._getters().get(resource)
        if getter is None:
            if resource in _EMPTY_COLLECTIONS:
                return self._collection([], query, kind="Object")
            raise ApiError(404, f"Unknown resource '{resource}'.", resource)
        kinds = {
            "file-systems": "File system",
            "subnets": "Subnet",
            "network-interfaces": "Network interface",
            "link-aggregation-groups": "Link aggregation group",
        }
        return self._collection(getter(query), query, kind=kinds.get(resource, "Object"))

    # -- collection queries ---------------------------------------------------------
    @staticmethod
    def _select(items: list[Item], query: Query, kind: str) -> list[Item]:
        names = query.get_list("names")
        ids = query.get_list("ids")
        if names is not None and ids is not None:
            raise ApiError(400, "'ids' and 'names' cannot be given together.", "names")
        for key, wanted in (("name", names), ("id", ids)):
            if wanted is None:
                continue
            by_key = {item.get(key): item for item in items}
            missing = [w for w in wanted if w not in by_key]
            if missing:
                errors = [(f"{kind} '{m}' does not exist.", m) for m in missing]
                raise ApiError(400, errors[0][0], errors[0][1], more=errors[1:])
            return [by_key[w] for w in dict.fromkeys(wanted)]
        return items

    def _collection(self, items: list[Item], query: Query, *, kind: str) -> dict[str, Any]:
        items = self._select(items, query, kind)
        filter_text = query.get_str("filter")
        if filter_text:
            predicate = parse_filter(filter_text)
            items = [item for item in items if predicate(item)]
        sort = query.get_list("sort")
        if sort:
            items = sort_items(items, sort)
        limit = query.get_int("limit")
        page, token, more = paginate(
            items,
            limit=limit,
            offset=query.get_int("offset"),
            continuation_token=query.get_str("continuation_token"),
            sorted_explicitly=bool(sort),
        )
        if query.get_bool("total_only"):
            page = []
        return {
            "items": page,
            "continuation_token": token,
            "total_item_count": len(items),
            "more_items_remaining": more,
        }

    def _targets(
        self, query: Query, collection: list[dict[str, Any]], kind: str
    ) -> list[dict[str, Any]]:
        """Objects a PATCH/DELETE names (by names or ids); all must exist."""
        names = query.get_list("names")
        ids = query.get_list("ids")
        if names is None and ids is None:
            raise ApiError(400, "'names' or 'ids' is required.", "names")
        return self._select(collection, query, kind)

    @staticmethod
    def _new_names(query: Query, kind: str) -> list[str]:
        names = query.get_list("names")
        if not names:
            raise ApiError(400, "'names' is required.", "names")
        for name in names:
            _check_name(name, kind)
        if len(set(names)) != len(names):
            raise ApiError(400, "Duplicate names in request.", "names")
        return names

    @staticmethod
    def _check_context(query: Query, array: dict[str, Any]) -> None:
        # REST 2.17 fleets: the modules send context_names="" meaning "this array".
        for context in query.get_list("context_names") or []:
            if context not in ("", array["name"]):
                raise ApiError(400, f"Context '{context}' is not a member of this fleet.", context)

    # -- read-only objects --------------------------------------------------------
    def _array_ref(self) -> dict[str, Any]:
        return _ref(self.state["array"], "arrays")

    def _render_array(self) -> Item:
        array = self.state["array"]
        return {
            "id": array["id"],
            "name": array["name"],
            "_as_of": _now_ms(),
            "banner": "",
            "encryption": {
                "data_at_rest": {
                    "enabled": True,
                    "algorithms": ["AES-256-CTR"],
                    "entropy_source": "rdseed",
                },
                "module_version": "FA-1.3",
            },
            "eradication_config": {
                "eradication_delay": ERADICATION_DELAY_MS,
                "manual_eradication": "enabled",
            },
            "idle_timeout": 1_800_000,
            "network_access_policy": {
                "id": _new_id(),
                "name": "default",
                "resource_type": "policies",
            },
            "ntp_servers": [],
            "os": "Purity//FB",
            "product_type": "FlashBlade",
            "revision": "simulated",
            "security_update": None,
            "smb_mode": "native",
            "time_zone": "UTC",
            "version": "4.5.6",
        }

    def _hardware(self) -> list[Item]:
        parts: list[tuple[str, str]] = [("CH1", "ch"), ("CH1.FM1", "fm"), ("CH1.FM2", "fm")]
        parts += [(f"CH1.FB{n}", "fb") for n in range(1, 8)]
        return [
            {
                "id": f"{self.state['array']['id'][:8]}-hw-{i}",
                "name": name,
                "index": i,
                "model": "simulated",
                "serial": f"SIM{i:05d}",
                "slot": i,
                "status": "healthy",
                "type": kind,
                "identify_enabled": False,
            }
            for i, (name, kind) in enumerate(parts)
        ]

    def _blades(self) -> list[Item]:
        return [
            {
                "id": f"{self.state['array']['id'][:8]}-blade-{n}",
                "name": f"CH1.FB{n}",
                "raw_capacity": 48 * 1024**4,
                "status": "healthy",
            }
            for n in range(1, 8)
        ]

    @staticmethod
    def _directory_services() -> list[Item]:
        # A fresh array lists its three directory service slots, all unconfigured.
        empty_ref = {"id": None, "name": None, "resource_type": None}
        return [
            {
                "id": f"ds-{name}",
                "name": name,
                "base_dn": "",
                "bind_user": "",
                "ca_certificate": dict(empty_ref),
                "ca_certificate_group": dict(empty_ref),
                "enabled": False,
                "management": {"user_login_attribute": "", "user_object_class": ""},
                "nfs": {"nis_domains": [], "nis_servers": []},
                "services": [name],
                "smb": {"join_ou": ""},
                "uris": [],
            }
            for name in ("management", "nfs", "smb")
        ]

    @staticmethod
    def _eula() -> Item:
        return {
            "agreement": "Simulated array: no agreement to sign.",
            "signature": {
                "accepted": _now_ms(),
                "company": "racksmith",
                "name": "lab",
                "title": "lab",
            },
        }

    @staticmethod
    def _support() -> Item:
        return {
            "id": "support",
            "name": "support",
            "phonehome_enabled": False,
            "proxy": "",
            "remote_assist_active": False,
            "remote_assist_duration": 14_400_000,
            "remote_assist_expires": 0,
            "remote_assist_opened": 0,
            "remote_assist_paths": [],
            "remote_assist_status": "disconnected",
        }

    def _space(self, file_systems: list[dict[str, Any]]) -> dict[str, Any]:
        live = [fs for fs in file_systems if not fs.get("destroyed")]
        dead = [fs for fs in file_systems if fs.get("destroyed")]
        used = sum(self.usage(fs["name"]) for fs in live)
        destroyed = sum(self.usage(fs["name"]) for fs in dead)
        provisioned = sum(fs.get("provisioned") or 0 for fs in live)
        return {
            "available_provisioned": max(self.capacity - provisioned, 0),
            "available_ratio": round(max(self.capacity - used, 0) / self.capacity, 4),
            "data_reduction": 1.0,
            "destroyed": destroyed,
            "destroyed_virtual": destroyed,
            "shared": 0,
            "snapshots": 0,
            "total_physical": used + destroyed,
            "total_provisioned": provisioned,
            "total_used": used + destroyed,
            "unique": used,
            "virtual": used,
        }

    def _array_space(self, query: Query) -> list[Item]:
        kind = query.get_str("type") or "array"
        if kind not in ("array", "file-system", "object-store"):
            raise ApiError(400, f"Invalid value '{kind}' for query parameter 'type'.", "type")
        file_systems = self.state["file_systems"] if kind != "object-store" else []
        return [
            {
                "id": self.state["array"]["id"],
                "name": self.state["array"]["name"],
                "context": self._array_ref(),
                "capacity": self.capacity,
                "parity": 1.0,
                "space": self._space(file_systems),
                "time": _now_ms(),
            }
        ]

    # -- file systems ---------------------------------------------------------------
    def _render_fs(self, fs: dict[str, Any]) -> Item:
        out = _public(fs)
        used = self.usage(fs["name"])
        provisioned = fs.get("provisioned") or 0
        out["space"] = {
            "available_provisioned": max(provisioned - used, 0) if provisioned else None,
            "data_reduction": 1.0,
            "destroyed": used if fs["destroyed"] else 0,
            "destroyed_virtual": used if fs["destroyed"] else 0,
            "snapshots": 0,
            "total_physical": used,
            "total_provisioned": provisioned,
            "total_used": used,
            "unique": used,
            "virtual": used,
        }
        out["context"] = self._array_ref()
        out["source"] = {
            "id": fs["id"],
            "name": fs["name"],
            "resource_type": "file-systems",
            "display_name": fs["name"],
            "is_local": True,
            "location": self._array_ref(),
        }
        if fs["destroyed"]:
            elapsed = _now_ms() - fs["_destroyed_at"]
            out["time_remaining"] = max(ERADICATION_DELAY_MS - elapsed, 0)
        else:
            out["time_remaining"] = None
        return out

    def _fs_items(self, query: Query) -> list[Item]:
        self._check_context(query, self.state["array"])
        destroyed = query.get_bool("destroyed")
        return [
            self._render_fs(fs)
            for fs in self.state["file_systems"]
            if destroyed is None or fs["destroyed"] == destroyed
        ]

    @staticmethod
    def _apply_fs_fields(fs: dict[str, Any], body: dict[str, Any], name: str) -> None:
        """Apply the writable fields of a FileSystemPost/FileSystemPatch body in place."""
        for flag in (
            "fast_remove_directory_enabled",
            "snapshot_directory_enabled",
            "hard_limit_enabled",
            "writable",
        ):
            if body.get(flag) is not None:
                fs[flag] = _expect_bool(body[flag], flag, name)
        if "provisioned" in body:
            value = body["provisioned"]
            # An empty string means "unlimited" on the array.
            fs["provisioned"] = (
                None if value in ("", None) else _expect_int(value, "provisioned", name)
            )
        for quota in ("default_user_quota", "default_group_quota"):
            if body.get(quota) is not None:
                fs[quota] = _expect_int(body[quota], quota, name)
        if body.get("group_ownership") is not None:
            value = _expect_str(body["group_ownership"], "group_ownership", name)
            if value not in _GROUP_OWNERSHIP:
                raise ApiError(400, f"Invalid value '{value}' for 'group_ownership'.", name)
            fs["group_ownership"] = value
        if body.get("requested_promotion_state") is not None:
            value = _expect_str(
                body["requested_promotion_state"], "requested_promotion_state", name
            )
            if value == "demoted":
                raise ApiError(400, "Only a file system in a replica link can be demoted.", name)
            if value != "promoted":
                raise ApiError(
                    400, f"Invalid value '{value}' for 'requested_promotion_state'.", name
                )
        if body.get("nfs") is not None:
            nfs = _expect_obj(body["nfs"], "nfs", name)
            for flag in ("v3_enabled", "v4_1_enabled"):
                if nfs.get(flag) is not None:
                    fs["nfs"][flag] = _expect_bool(nfs[flag], f"nfs.{flag}", name)
            rules = fs["nfs"]["rules"]
            if nfs.get("rules") is not None:
                rules = _expect_str(nfs["rules"], "nfs.rules", name)
            if nfs.get("remove_rules") is not None:
                for rule in _expect_str(nfs["remove_rules"], "nfs.remove_rules", name).split():
                    if rule not in rules.split():
                        raise ApiError(400, f"Rule '{rule}' is not in the NFS export rules.", name)
                    rules = " ".join(r for r in rules.split() if r != rule)
            if nfs.get("add_rules") is not None:
                added = _expect_str(nfs["add_rules"], "nfs.add_rules", name).split()
                current = rules.split()
                after = nfs.get("after")
                at = current.index(after) + 1 if after in current else len(current)
                rules = " ".join(current[:at] + added + current[at:])
            try:
                parse_rules(rules)
            except RuleError as exc:
                raise ApiError(400, str(exc), name) from None
            fs["nfs"]["rules"] = rules
        for proto in ("smb", "http"):
            if body.get(proto) is not None:
                section = _expect_obj(body[proto], proto, name)
                if section.get("enabled") is not None:
                    fs[proto]["enabled"] = _expect_bool(
                        section["enabled"], f"{proto}.enabled", name
                    )
                if proto == "smb" and section.get("continuous_availability_enabled") is not None:
                    fs["smb"]["continuous_availability_enabled"] = _expect_bool(
                        section["continuous_availability_enabled"],
                        "smb.continuous_availability_enabled",
                        name,
                    )
        if body.get("multi_protocol") is not None:
            mp = _expect_obj(body["multi_protocol"], "multi_protocol", name)
            if mp.get("access_control_style") is not None:
                style = _expect_str(
                    mp["access_control_style"], "multi_protocol.access_control_style", name
                )
                if style not in _ACCESS_STYLES:
                    raise ApiError(
                        400, f"Invalid value '{style}' for 'access_control_style'.", name
                    )
                fs["multi_protocol"]["access_control_style"] = style
            if mp.get("safeguard_acls") is not None:
                fs["multi_protocol"]["safeguard_acls"] = _expect_bool(
                    mp["safeguard_acls"], "multi_protocol.safeguard_acls", name
                )

    def _post_fs(self, query: Query, body: Any) -> dict[str, Any]:
        body = _expect_obj(body, "file_system", "file_system")
        self._check_context(query, self.state["array"])
        names = self._new_names(query, "file system")
        state = copy.deepcopy(self.state)
        existing = {fs["name"]: fs for fs in state["file_systems"]}
        created = []
        for name in names:
            if name in existing:
                if existing[name]["destroyed"]:
                    raise ApiError(
                        400,
                        f"File system '{name}' exists in the destroyed state; recover or "
                        "eradicate it first.",
                        name,
                    )
                raise ApiError(400, f"File system '{name}' already exists.", name)
            fs: dict[str, Any] = {
                "id": _new_id(),
                "name": name,
                "created": _now_ms(),
                "default_group_quota": 0,
                "default_user_quota": 0,
                "destroyed": False,
                "eradication_config": {
                    "eradication_mode": "retention-based",
                    "manual_eradication": "enabled",
                },
                "fast_remove_directory_enabled": False,
                "group_ownership": "creator",
                "hard_limit_enabled": False,
                "http": {"enabled": False},
                "multi_protocol": {"access_control_style": "shared", "safeguard_acls": True},
                "nfs": {"rules": "", "v3_enabled": False, "v4_1_enabled": False},
                "promotion_status": "promoted",
                "provisioned": None,
                "requested_promotion_state": "promoted",
                "smb": {"enabled": False, "continuous_availability_enabled": True},
                "snapshot_directory_enabled": False,
                "writable": True,
                "_export_id": state["next_export_id"],
                "_destroyed_at": None,
            }
            self._apply_fs_fields(fs, body, name)
            state["next_export_id"] += 1
            state["file_systems"].append(fs)
            created.append(fs)
        self._commit(state)
        return {"items": [self._render_fs(fs) for fs in created]}

    def _patch_fs(self, query: Query, body: Any) -> dict[str, Any]:
        body = _expect_obj(body, "file_system", "file_system")
        self._check_context(query, self.state["array"])
        ignore_usage = bool(query.get_bool("ignore_usage"))
        resizing = body.get("provisioned") is not None or body.get("hard_limit_enabled") is True
        state = copy.deepcopy(self.state)
        targets = self._targets(query, state["file_systems"], "File system")
        for fs in targets:
            name = fs["name"]
            changes = {k: v for k, v in body.items() if v is not None and k != "destroyed"}
            if fs["destroyed"] and body.get("destroyed") is not False and changes:
                raise ApiError(
                    400,
                    f"File system '{name}' is destroyed and cannot be modified; recover it "
                    "with destroyed=false first.",
                    name,
                )
            if body.get("destroyed") is False and fs["destroyed"]:
                fs["destroyed"] = False
                fs["_destroyed_at"] = None
            self._apply_fs_fields(fs, changes, name)
            if body.get("destroyed") is True and not fs["destroyed"]:
                serving = [
                    p
                    for p, on in (
                        ("NFSv3", fs["nfs"]["v3_enabled"]),
                        ("NFSv4.1", fs["nfs"]["v4_1_enabled"]),
                        ("SMB", fs["smb"]["enabled"]),
                        ("HTTP", fs["http"]["enabled"]),
                    )
                    if on
                ]
                if serving:
                    raise ApiError(
                        400,
                        f"File system '{name}' cannot be destroyed while {', '.join(serving)} "
                        "is enabled; disable the protocols in the same request or before.",
                        name,
                    )
                fs["destroyed"] = True
                fs["_destroyed_at"] = _now_ms()
            elif body.get("destroyed") is not None:
                _expect_bool(body["destroyed"], "destroyed", name)
            provisioned = fs.get("provisioned")
            used = self.usage(name)
            if (
                resizing
                and fs["hard_limit_enabled"]
                and provisioned
                and provisioned < used
                and not ignore_usage
            ):
                raise ApiError(
                    400,
                    f"Cannot set provisioned size of hard-limited file system '{name}' to "
                    f"{provisioned} bytes: {used} bytes are in use (use ignore_usage=true to "
                    "force).",
                    name,
                )
        self._commit(state)
        return {"items": [self._render_fs(fs) for fs in targets]}

    def _delete_fs(self, query: Query, body: Any) -> None:
        self._check_context(query, self.state["array"])
        state = copy.deepcopy(self.state)
        targets = self._targets(query, state["file_systems"], "File system")
        for fs in targets:
            if not fs["destroyed"]:
                raise ApiError(
                    400,
                    f"File system '{fs['name']}' must be destroyed before it can be eradicated.",
                    fs["name"],
                )
        gone = {fs["id"] for fs in targets}
        state["file_systems"] = [fs for fs in state["file_systems"] if fs["id"] not in gone]
        self._commit(state)
        for fs in targets:
            self.effects.file_system_eradicated(fs["name"])

    # -- subnets ------------------------------------------------------------------------
    def _lag_by_ref(self, ref: Any, context: str) -> dict[str, Any]:
        ref = _expect_obj(ref, "link_aggregation_group", context)
        for lag in self.state["link_aggregation_groups"]:
            if (ref.get("id") and lag["id"] == ref["id"]) or (
                ref.get("name") and lag["name"] == ref["name"]
            ):
                return lag
        wanted = ref.get("name") or ref.get("id")
        raise ApiError(400, f"Link aggregation group '{wanted}' does not exist.", context)

    def _subnet_ifaces(
        self, subnet: dict[str, Any], state: dict[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        state = state or self.state
        network = ipaddress.ip_network(subnet["prefix"])
        return [
            iface
            for iface in state["network_interfaces"]
            if ipaddress.ip_address(iface["address"]) in network
        ]

    def _render_subnet(self, subnet: dict[str, Any]) -> Item:
        lag = next(
            (g for g in self.state["link_aggregation_groups"] if g["id"] == subnet["_lag_id"]),
            None,
        )
        ifaces = self._subnet_ifaces(subnet)
        out = _public(subnet)
        out["interfaces"] = [_ref(i, "network-interfaces") for i in ifaces]
        out["link_aggregation_group"] = _ref(lag, "link-aggregation-groups") if lag else None
        out["services"] = sorted({svc for i in ifaces for svc in i["services"]})
        return out

    @staticmethod
    def _parse_prefix(value: Any, context: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        text = _expect_str(value, "prefix", context)
        try:
            return ipaddress.ip_network(text, strict=True)
        except ValueError as exc:
            raise ApiError(400, f"Invalid prefix '{text}': {exc}.", context) from None

    @staticmethod
    def _check_gateway(
        value: Any, network: ipaddress.IPv4Network | ipaddress.IPv6Network, context: str
    ) -> str:
        text = _expect_str(value, "gateway", context)
        try:
            gateway = ipaddress.ip_address(text)
        except ValueError:
            raise ApiError(400, f"Invalid gateway '{text}'.", context) from None
        if gateway not in network or gateway in (
            network.network_address,
            network.broadcast_address,
        ):
            raise ApiError(
                400, f"Gateway {text} is not a host address of subnet {network}.", context
            )
        return str(gateway)

    def _check_subnet_settings(
        self, subnet: dict[str, Any], body: dict[str, Any], name: str
    ) -> None:
        if body.get("mtu") is not None:
            subnet["mtu"] = _expect_int(body["mtu"], "mtu", name, 1280, 9216)
        if body.get("vlan") is not None:
            subnet["vlan"] = _expect_int(body["vlan"], "vlan", name, 0, 4094)
        if body.get("link_aggregation_group") is not None:
            subnet["_lag_id"] = self._lag_by_ref(body["link_aggregation_group"], name)["id"]
        if body.get("enabled") is not None:
            subnet["enabled"] = _expect_bool(body["enabled"], "enabled", name)

    @staticmethod
    def _check_overlap(state: dict[str, Any], subnet: dict[str, Any], name: str) -> None:
        network = ipaddress.ip_network(subnet["prefix"])
        for other in state["subnets"]:
            if other["id"] != subnet["id"] and network.overlaps(
                ipaddress.ip_network(other["prefix"])
            ):
                raise ApiError(
                    400,
                    f"Prefix {network} overlaps subnet '{other['name']}' ({other['prefix']}).",
                    name,
                )

    def _post_subnet(self, query: Query, body: Any) -> dict[str, Any]:
        body = _expect_obj(body, "subnet", "subnet")
        names = self._new_names(query, "subnet")
        state = copy.deepcopy(self.state)
        created = []
        for name in names:
            if any(s["name"] == name for s in state["subnets"]):
                raise ApiError(400, f"Subnet '{name}' already exists.", name)
            if body.get("prefix") is None:
                raise ApiError(400, "'prefix' is required to create a subnet.", name)
            if body.get("link_aggregation_group") is None:
                raise ApiError(
                    400, "'link_aggregation_group' is required to create a subnet.", name
                )
            network = self._parse_prefix(body["prefix"], name)
            subnet: dict[str, Any] = {
                "id": _new_id(),
                "name": name,
                "enabled": True,
                "gateway": None,
                "mtu": 1500,
                "prefix": str(network),
                "vlan": 0,
                "_lag_id": None,
            }
            if body.get("gateway") is not None:
                subnet["gateway"] = self._check_gateway(body["gateway"], network, name)
            self._check_subnet_settings(subnet, body, name)
            self._check_overlap(state, subnet, name)
            state["subnets"].append(subnet)
            created.append(subnet)
        self._commit(state)
        return {"items": [self._render_subnet(s) for s in created]}

    def _patch_subnet(self, query: Query, body: Any) -> dict[str, Any]:
        body = _expect_obj(body, "subnet", "subnet")
        state = copy.deepcopy(self.state)
        targets = self._targets(query, state["subnets"], "Subnet")
        for subnet in targets:
            name = subnet["name"]
            ifaces_before = self._subnet_ifaces(subnet, state)
            if body.get("prefix") is not None:
                network = self._parse_prefix(body["prefix"], name)
                outside = [
                    i["name"]
                    for i in ifaces_before
                    if ipaddress.ip_address(i["address"]) not in network
                ]
                if outside:
                    raise ApiError(
                        400,
                        f"Cannot change prefix of subnet '{name}' to {network}: network "
                        f"interface(s) {', '.join(outside)} would fall outside it.",
                        name,
                    )
                # The gateway is not re-checked here: clients (purefb_subnet) change the
                # prefix and the gateway in two separate requests.
                subnet["prefix"] = str(network)
                self._check_overlap(state, subnet, name)
            if body.get("gateway") is not None:
                subnet["gateway"] = self._check_gateway(
                    body["gateway"], ipaddress.ip_network(subnet["prefix"]), name
                )
            self._check_subnet_settings(subnet, body, name)
        self._commit(state)
        return {"items": [self._render_subnet(s) for s in targets]}

    def _delete_subnet(self, query: Query, body: Any) -> None:
        state = copy.deepcopy(self.state)
        targets = self._targets(query, state["subnets"], "Subnet")
        for subnet in targets:
            ifaces = self._subnet_ifaces(subnet, state)
            if ifaces:
                raise ApiError(
                    400,
                    f"Subnet '{subnet['name']}' still has network interfaces "
                    f"({', '.join(i['name'] for i in ifaces)}); delete them first.",
                    subnet["name"],
                )
        gone = {s["id"] for s in targets}
        state["subnets"] = [s for s in state["subnets"] if s["id"] not in gone]
        self._commit(state)

    # -- network interfaces ---------------------------------------------------------------
    def _subnet_of(
        self, address: str, state: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        state = state or self.state
        ip = ipaddress.ip_address(address)
        for subnet in state["subnets"]:
            if ip in ipaddress.ip_network(subnet["prefix"]):
                return subnet
        return None

    def _render_iface(self, iface: dict[str, Any]) -> Item:
        out = _public(iface)
        subnet = self._subnet_of(iface["address"])
        network = ipaddress.ip_network(subnet["prefix"]) if subnet else None
        out["attached_servers"] = []
        out["gateway"] = subnet["gateway"] if subnet else None
        out["mtu"] = subnet["mtu"] if subnet else None
        out["netmask"] = str(network.netmask) if network else None
        out["subnet"] = _ref(subnet, "subnets") if subnet else None
        out["vlan"] = subnet["vlan"] if subnet else None
        return out

    def _check_address(
        self, state: dict[str, Any], value: Any, name: str, own_id: str | None
    ) -> str:
        text = _expect_str(value, "address", name)
        try:
            ip = ipaddress.ip_address(text)
        except ValueError:
            raise ApiError(400, f"Invalid address '{text}'.", name) from None
        subnet = self._subnet_of(text, state)
        if subnet is None:
            raise ApiError(
                400,
                f"Address {text} is not in any subnet; create a subnet containing it first.",
                name,
            )
        network = ipaddress.ip_network(subnet["prefix"])
        if ip in (network.network_address, network.broadcast_address):
            raise ApiError(400, f"Address {text} is not a host address of subnet {network}.", name)
        if subnet.get("gateway") == str(ip):
            raise ApiError(
                400, f"Address {text} is the gateway of subnet '{subnet['name']}'.", name
            )
        for other in state["network_interfaces"]:
            if other["id"] != own_id and other["address"] == str(ip):
                raise ApiError(
                    400, f"Address {text} is already used by interface '{other['name']}'.", name
                )
        return str(ip)

    @staticmethod
    def _check_services(value: Any, name: str) -> list[str]:
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise ApiError(400, "Invalid value for 'services': expected a non-empty list.", name)
        bad = [v for v in value if v not in _SERVICES]
        if bad:
            raise ApiError(400, f"Invalid service '{bad[0]}'.", name)
        return list(dict.fromkeys(value))

    def _post_iface(self, query: Query, body: Any) -> dict[str, Any]:
        body = _expect_obj(body, "network_interface", "network_interface")
        names = self._new_names(query, "network interface")
        state = copy.deepcopy(self.state)
        created = []
        for name in names:
            if any(i["name"] == name for i in state["network_interfaces"]):
                raise ApiError(400, f"Network interface '{name}' already exists.", name)
            if body.get("address") is None:
                raise ApiError(400, "'address' is required to create a network interface.", name)
            if body.get("type", "vip") != "vip":
                raise ApiError(
                    400, f"Invalid interface type '{body.get('type')}': only 'vip'.", name
                )
            iface = {
                "id": _new_id(),
                "name": name,
                "address": self._check_address(state, body["address"], name, None),
                "enabled": True,
                "services": self._check_services(body.get("services", ["data"]), name),
                "type": "vip",
            }
            state["network_interfaces"].append(iface)
            created.append(iface)
        self._commit(state)
        return {"items": [self._render_iface(i) for i in created]}

    def _patch_iface(self, query: Query, body: Any) -> dict[str, Any]:
        body = _expect_obj(body, "network_interface", "network_interface")
        state = copy.deepcopy(self.state)
        targets = self._targets(query, state["network_interfaces"], "Network interface")
        for iface in targets:
            if body.get("address") is not None:
                iface["address"] = self._check_address(
                    state, body["address"], iface["name"], iface["id"]
                )
            if body.get("services") is not None:
                iface["services"] = self._check_services(body["services"], iface["name"])
        self._commit(state)
        return {"items": [self._render_iface(i) for i in targets]}

    def _delete_iface(self, query: Query, body: Any) -> None:
        state = copy.deepcopy(self.state)
        targets = self._targets(query, state["network_interfaces"], "Network interface")
        gone = {i["id"] for i in targets}
        state["network_interfaces"] = [
            i for i in state["network_interfaces"] if i["id"] not in gone
        ]
        self._commit(state)

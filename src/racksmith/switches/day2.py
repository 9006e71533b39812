"""Day 2: what to run on a switch to bring its running configuration back to the intended one.

EOS goes through hier_config (it knows EOS's section and negation rules). NVUE configs are
trees, so a structural diff of the YAML gives exact `nv set`/`nv unset` commands.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

import yaml
from hier_config import HConfig, Platform, WorkflowRemediation, get_hconfig

from racksmith.plan import Plan
from racksmith.switches.intent import SwitchConfigError
from racksmith.switches.render import intended_config

# The user stanza is a placeholder the deploy role fills from the vault, and the switch stores a
# salted hash: neither side can be compared offline, so credentials stay out of the diff.
_CREDENTIAL_LINE = re.compile(r"^(username|enable (secret|password)) ", re.MULTILINE)


def _without_credentials(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not _CREDENTIAL_LINE.match(line))


def eos_hconfig(text: str) -> HConfig:
    return get_hconfig(Platform.ARISTA_EOS, _without_credentials(text))


def eos_remediation(intended: str, running: str) -> HConfig:
    """The commands that take ``running`` to ``intended`` (hier_config's remediation)."""
    return WorkflowRemediation(eos_hconfig(running), eos_hconfig(intended)).remediation_config


def hconfig_text(config: HConfig) -> str:
    return "\n".join(child.cisco_style_text() for child in config.all_children_sorted())


# -- NVUE ------------------------------------------------------------------------------------
Path_ = tuple[str, ...]


@dataclass
class NvueDiff:
    added: list[tuple[Path_, Any]] = field(default_factory=list)
    removed: list[Path_] = field(default_factory=list)
    changed: list[tuple[Path_, Any, Any]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def commands(self) -> list[str]:
        """Unsets first (a changed type can need its old subtree gone), then sets."""
        out = [f"nv unset {_words(p)}" for p in self.removed]
        out += [f"nv unset {_words(p)}" for p, old, new in self.changed if isinstance(old, dict)]
        for path, value in self.added:
            out += [_set(p, v) for p, v in _leaves(path, value)]
        for path, _old, new in self.changed:
            out += [_set(p, v) for p, v in _leaves(path, new)]
        return out

    def report(self) -> str:
        lines = [f"+ {'.'.join(p)}" for p, _ in self.added]
        lines += [f"- {'.'.join(p)}" for p in self.removed]
        lines += [f"~ {'.'.join(p)}: {_scalar(o)} -> {_scalar(n)}" for p, o, n in self.changed]
        return "\n".join(lines)


def _scalar(value: Any) -> str:
    if isinstance(value, dict):
        return "{...}"
    return str(value)


def _words(path: Path_) -> str:
    return " ".join(shlex.quote(p) for p in path)


def _set(path: Path_, value: Any) -> str:
    # A `key: {}` leaf is a presence entry (a bond member, an address): set its path alone.
    if value is None:
        return f"nv set {_words(path)}"
    return f"nv set {_words(path[:-1])} {shlex.quote(path[-1])} {shlex.quote(str(value))}"


def _leaves(path: Path_, value: Any) -> list[tuple[Path_, Any]]:
    if isinstance(value, dict):
        if not value:
            return [(path, None)]
        return [leaf for k, v in value.items() for leaf in _leaves((*path, str(k)), v)]
    return [(path, value)]


def _normalize(value: Any) -> Any:
    """NVUE writes on/off, which YAML 1.1 reads as booleans; compare them as NVUE means them."""
    if isinstance(value, dict):
        return {str(k): _normalize(v) for k, v in value.items()}
    if isinstance(value, bool):
        return "on" if value else "off"
    return value


def nvue_tree(text: str) -> dict[str, Any]:
    """The merged `set` tree of an NVUE YAML document (startup.yaml or `nv config show -o yaml`)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SwitchConfigError(f"the NVUE configuration is not valid YAML: {exc}") from exc
    if data is None:
        return {}
    items = data if isinstance(data, list) else [data]
    tree: dict[str, Any] = {}
    for item in items:
        if not isinstance(item, dict):
            raise SwitchConfigError("an NVUE configuration is a list of {set: ...} entries")
        if "set" in item:
            _merge(tree, _normalize(item["set"] or {}))
    return tree


def _merge(into: dict[str, Any], new: dict[str, Any]) -> None:
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def nvue_diff(running: dict[str, Any], intended: dict[str, Any], path: Path_ = ()) -> NvueDiff:
    diff = NvueDiff()
    _diff(running, intended, path, diff)
    return diff


def _diff(old: dict[str, Any], new: dict[str, Any], path: Path_, out: NvueDiff) -> None:
    for key, value in new.items():
        here = (*path, key)
        if key not in old:
            out.added.append((here, value))
        elif isinstance(old[key], dict) and isinstance(value, dict):
            _diff(old[key], value, here, out)
        elif old[key] != value:
            out.changed.append((here, old[key], value))
    out.removed += [(*path, key) for key in old if key not in new]


# -- both ------------------------------------------------------------------------------------
def remediation(
    plan: Plan, switch_name: str, running_config_text: str, vendor: str | None = None
) -> str:
    """The commands that bring the switch's running configuration to the intended one; an
    empty string when they already match."""
    kind, intended = intended_config(plan, switch_name, vendor)
    if kind == "eos":
        return hconfig_text(eos_remediation(intended, running_config_text))
    diff = nvue_diff(nvue_tree(running_config_text), nvue_tree(intended))
    if diff.empty:
        return ""
    body = "\n".join(f"# {line}" for line in diff.report().splitlines())
    commands = "\n".join(diff.commands())
    return f"# paths: + added, - removed, ~ changed\n{body}\n{commands}\nnv config apply -y"

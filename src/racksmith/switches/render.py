"""Each switch's intended configuration file, written where the deploy role reads it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from racksmith.plan import Plan, SwitchPairPlan
from racksmith.switches import eos, nvue
from racksmith.switches.intent import SwitchConfigError, SwitchIntent, find_switch, switch_intent

SUFFIX = {"eos": ".cfg", "nvue": ".yaml"}


def _with_vendor(pair: SwitchPairPlan, vendor: str | None) -> SwitchPairPlan:
    if vendor is None:
        return pair
    if vendor not in SUFFIX:
        raise SwitchConfigError(f"unknown switch vendor {vendor!r}; use one of {sorted(SUFFIX)}")
    return replace(pair, vendor=vendor)


def render_intent(intent: SwitchIntent) -> str:
    if intent.vendor == "eos":
        return eos.render(intent)
    if intent.vendor == "nvue":
        return nvue.render(intent)
    raise SwitchConfigError(f"{intent.hostname}: no renderer for vendor {intent.vendor!r}")


def intended_config(plan: Plan, switch_name: str, vendor: str | None = None) -> tuple[str, str]:
    """(vendor, configuration text) of one switch."""
    pair, switch = find_switch(plan, switch_name)
    pair = _with_vendor(pair, vendor)
    return pair.vendor, render_intent(switch_intent(plan, pair, switch))


def render_switch_configs(plan: Plan, outdir: str | Path, vendor: str | None = None) -> list[Path]:
    """Write <outdir>/<switch>.cfg (EOS) or .yaml (NVUE) for every switch; ``vendor`` overrides
    the spec's choice (to preview the other platform)."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for planned in plan.switch_pairs:
        pair = _with_vendor(planned, vendor)
        for switch in pair.switches:
            path = out / f"{switch.name}{SUFFIX[pair.vendor]}"
            path.write_text(render_intent(switch_intent(plan, pair, switch)), encoding="utf-8")
            written.append(path)
    return written

"""MLAG ToR pair: switch configurations, cabling plan, day-2 remediation and ANTA checks."""

from racksmith.switches.anta import anta_catalog
from racksmith.switches.cabling import write_cabling
from racksmith.switches.day2 import remediation
from racksmith.switches.intent import SwitchConfigError
from racksmith.switches.render import render_switch_configs

__all__ = [
    "SwitchConfigError",
    "anta_catalog",
    "remediation",
    "render_switch_configs",
    "write_cabling",
]

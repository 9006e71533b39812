"""An ANTA catalog that checks the live MLAG pair against the plan (EOS only: ANTA speaks eAPI).

Per-switch tests carry a device-name tag filter: ANTA tags every inventory device with its
own name, so one catalog serves the whole pair when the inventory names match the plan.
"""

from __future__ import annotations

from typing import Any

from racksmith.plan import Plan
from racksmith.switches.eos import RELOAD_DELAY_MLAG, RELOAD_DELAY_NON_MLAG
from racksmith.switches.intent import SwitchConfigError, switch_intent

UTILIZATION_THRESHOLD = 75.0


def _only(device: str) -> dict[str, Any]:
    # A fresh dict each time, so yaml.safe_dump writes no anchors an operator must decode.
    return {"filters": {"tags": [device]}}


def anta_catalog(plan: Plan) -> dict[str, Any]:
    """The catalog as a dict, ready for yaml.safe_dump or ``AntaCatalog.from_dict``."""
    pairs = [p for p in plan.switch_pairs if p.vendor == "eos"]
    if not pairs:
        raise SwitchConfigError(
            "ANTA checks Arista EOS switches only and no switch pair in this spec is vendor eos"
        )
    interfaces: list[dict[str, Any]] = []
    for pair in pairs:
        for switch in pair.switches:
            intent = switch_intent(plan, pair, switch)
            channels = [f"Port-Channel{c.id}" for c in intent.channels]
            members = [m.port for c in intent.channels for m in c.members]
            interfaces.append({"VerifyPortChannels": {"interfaces": channels} | _only(switch.name)})
            interfaces.append(
                {
                    "VerifyInterfacesStatus": {
                        "interfaces": [{"name": n, "status": "up"} for n in members + channels]
                    }
                    | _only(switch.name)
                }
            )
            interfaces.append(
                {
                    "VerifyInterfaceUtilization": {
                        "threshold": UTILIZATION_THRESHOLD,
                        "interfaces": members + channels,
                    }
                    | _only(switch.name)
                }
            )
    return {
        "anta.tests.mlag": [
            {"VerifyMlagStatus": None},
            {"VerifyMlagInterfaces": None},
            {"VerifyMlagConfigSanity": None},
            {
                "VerifyMlagReloadDelay": {
                    "reload_delay": RELOAD_DELAY_MLAG,
                    "reload_delay_non_mlag": RELOAD_DELAY_NON_MLAG,
                }
            },
        ],
        "anta.tests.interfaces": interfaces,
    }

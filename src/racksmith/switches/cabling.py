"""The cabling plan: which device port goes to which switch port, as CSV, Markdown and SVG.

People check cabling by looking, so the SVG draws every cable of a pair: switches on top,
GPU nodes and the FlashBlade below, peer-link cables between the switches.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from racksmith.plan import Plan, PortChannel, SwitchPairPlan
from racksmith.switches import nvue

COLUMNS = ("pair", "device", "device_port", "switch", "switch_port", "port_channel", "kind")


@dataclass(frozen=True, slots=True)
class Link:
    """One physical cable."""

    pair: str
    device: str
    device_port: str
    switch: str
    switch_port: str
    port_channel: str
    kind: str  # gpu | flashblade | peer

    def row(self) -> tuple[str, ...]:
        return tuple(getattr(self, c) for c in COLUMNS)


def _port(vendor: str, port: str) -> str:
    return nvue.port_name(port) if vendor == "nvue" else port


def _channel_name(vendor: str, channel: PortChannel) -> str:
    if vendor == "nvue":
        return nvue.PEERLINK if channel.kind == "peer" else f"bond{channel.id}"
    return f"Port-Channel{channel.id}"


def pair_links(pair: SwitchPairPlan) -> list[Link]:
    out = []
    first = pair.switches[0].name
    for channel in sorted(pair.port_channels, key=lambda c: (c.kind == "peer", c.id)):
        name = _channel_name(pair.vendor, channel)
        for member in channel.members:
            device, _, device_port = member.far_end.rpartition(" ")
            if channel.kind == "peer":
                # Both ends of a peer cable are members; draw the cable once, from the first.
                if member.switch != first:
                    continue
                device_port = _port(pair.vendor, device_port)
            out.append(
                Link(
                    pair.name,
                    device,
                    device_port,
                    member.switch,
                    _port(pair.vendor, member.port),
                    name,
                    channel.kind,
                )
            )
    return out


def links(plan: Plan) -> list[Link]:
    return [link for pair in plan.switch_pairs for link in pair_links(pair)]


def cabling_csv(plan: Plan) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(link.row() for link in links(plan))
    return buf.getvalue()


def cabling_markdown(plan: Plan) -> str:
    lines = [f"# Cabling plan: {plan.cluster_name}", ""]
    for pair in plan.switch_pairs:
        a, b = (s.name for s in pair.switches)
        lines += [f"## Pair {pair.name} ({a} + {b}, MLAG domain {pair.mlag_domain})", ""]
        lines += ["| device | port | switch | switch port | port-channel |", "|---" * 5 + "|"]
        lines += [
            f"| {k.device} | {k.device_port} | {k.switch} | {k.switch_port} | {k.port_channel} |"
            for k in pair_links(pair)
        ]
        lines.append("")
    return "\n".join(lines)


# -- SVG -------------------------------------------------------------------------------------
MARGIN = 30
DEVICE_W, DEVICE_H, DEVICE_GAP = 120, 44, 30
PORT_W = 40  # width per cable on a device box, so its port labels do not overlap
SWITCH_Y, SWITCH_H = 50, 50
PEER_GAP = 180  # room between the two switch boxes for the peer-link cables
DEVICE_Y = SWITCH_Y + SWITCH_H + 190
PAIR_H = DEVICE_Y + DEVICE_H + 60
MIN_W = 900
COLOURS = {"gpu": "#1f6fd1", "flashblade": "#e07b00", "peer": "#555555"}


def _spread(left: float, width: float, count: int, index: int) -> float:
    return left + width * (index + 1) / (count + 1)


def _text(x: float, y: float, label: str, size: int = 11, **extra: str) -> str:
    attrs = "".join(f" {k.replace('_', '-')}={quoteattr(v)}" for k, v in extra.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-family="sans-serif"{attrs}>'
        f"{escape(label)}</text>"
    )


def _box(x: float, y: float, size: tuple[float, float], label: str, fill: str) -> list[str]:
    w, h = size
    return [
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" '
        f'fill="{fill}" stroke="#222" stroke-width="1.5"/>',
        _text(x + w / 2, y + h / 2 + 5, label, 14, text_anchor="middle", font_weight="bold"),
    ]


def _pair_svg(pair: SwitchPairPlan, top: float, width: float) -> list[str]:
    out = [_text(MARGIN, top + 25, f"pair {pair.name} (MLAG {pair.mlag_domain})", 15)]
    pair_links_ = pair_links(pair)
    devices = list(dict.fromkeys(k.device for k in pair_links_ if k.kind != "peer"))
    half = (width - 2 * MARGIN - PEER_GAP) / 2
    sw_x = {pair.switches[0].name: MARGIN, pair.switches[1].name: MARGIN + half + PEER_GAP}
    for name, x in sw_x.items():
        out += _box(x, top + SWITCH_Y, (half, SWITCH_H), name, "#e8eef7")
    dev_w = {d: _device_width(pair_links_, d) for d in devices}
    x = (width - _row_width(pair_links_)) / 2
    dev_x = {}
    for d in devices:
        dev_x[d] = x
        out += _box(x, top + DEVICE_Y, (dev_w[d], DEVICE_H), d, "#f4f4f4")
        x += dev_w[d] + DEVICE_GAP
    peer = [k for k in pair_links_ if k.kind == "peer"]
    for i, k in enumerate(peer):
        y = _spread(top + SWITCH_Y, SWITCH_H, len(peer), i)
        x1 = MARGIN + half
        x2 = x1 + PEER_GAP
        out.append(_line(k, x1, y, x2, y))
        out.append(_text(x1 + 4, y - 3, k.switch_port, 10))
        out.append(_text(x2 - 4, y - 3, k.device_port, 10, text_anchor="end"))
    hosts = [k for k in pair_links_ if k.kind != "peer"]
    for name, x in sw_x.items():
        # Order each switch's cables by where their device sits, so lines do not cross there.
        mine = sorted((k for k in hosts if k.switch == name), key=lambda k: dev_x[k.device])
        for i, k in enumerate(mine):
            sx = _spread(x, half, len(mine), i)
            ends = [c for c in hosts if c.device == k.device]
            dx = _spread(dev_x[k.device], dev_w[k.device], len(ends), ends.index(k))
            sy, dy = top + SWITCH_Y + SWITCH_H, top + DEVICE_Y
            out.append(_line(k, sx, sy, dx, dy))
            # Vertical labels: a switch has many cables side by side, and port names are long.
            lx, ly = sx + 5, sy + 6
            out.append(_text(lx, ly, k.switch_port, 10, transform=f"rotate(90 {lx:.1f} {ly:.1f})"))
            out.append(_text(dx, dy - 5, k.device_port, 10, text_anchor="middle"))
    return out


def _device_width(pair_links_: list[Link], device: str) -> float:
    cables = sum(1 for k in pair_links_ if k.device == device and k.kind != "peer")
    return max(DEVICE_W, cables * PORT_W)


def _row_width(pair_links_: list[Link]) -> float:
    devices = dict.fromkeys(k.device for k in pair_links_ if k.kind != "peer")
    return sum(_device_width(pair_links_, d) + DEVICE_GAP for d in devices) - DEVICE_GAP


def _line(k: Link, x1: float, y1: float, x2: float, y2: float) -> str:
    title = f"{k.device} {k.device_port} - {k.switch} {k.switch_port} ({k.port_channel})"
    return (
        f'<line class="link" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="{COLOURS[k.kind]}" stroke-width="2" data-switch={quoteattr(k.switch)} '
        f"data-switch-port={quoteattr(k.switch_port)} data-device={quoteattr(k.device)} "
        f"data-device-port={quoteattr(k.device_port)}><title>{escape(title)}</title></line>"
    )


def cabling_svg(plan: Plan) -> str:
    widest = max((_row_width(pair_links(p)) for p in plan.switch_pairs), default=0.0)
    width = int(max(MIN_W, widest + 2 * MARGIN))
    height = len(plan.switch_pairs) * PAIR_H + 50
    body = []
    for i, pair in enumerate(plan.switch_pairs):
        body += _pair_svg(pair, i * PAIR_H, width)
    legend_y = height - 20
    for i, (kind, colour) in enumerate(COLOURS.items()):
        x = MARGIN + i * 160
        body.append(
            f'<line x1="{x}" y1="{legend_y}" x2="{x + 30}" y2="{legend_y}" '
            f'stroke="{colour}" stroke-width="3"/>'
        )
        body.append(_text(x + 36, legend_y + 4, f"{kind} link", 12))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">\n'
        f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n"
    )


def write_cabling(plan: Plan, outdir: str | Path) -> list[Path]:
    """Write cabling.csv, cabling.md and cabling.svg into ``outdir``."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "cabling.csv": cabling_csv(plan),
        "cabling.md": cabling_markdown(plan),
        "cabling.svg": cabling_svg(plan),
    }
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    return [out / name for name in files]

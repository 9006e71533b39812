"""Command line: ``python3 -m racksmith.lab.flashblade_sim --listen HOST:PORT --state DIR ...``."""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from .array import DEFAULT_CAPACITY, DEFAULT_MAX_API_VERSION, SimulatedArray
from .certs import ensure_self_signed
from .effects import Effects, LabEffects, NoEffects
from .server import SimServer, load_tokens, tls_context
from .store import StateStore
from .usage import directory_usage

TOKEN_ENV = "FLASHBLADE_SIM_API_TOKENS"


def _listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host.strip("[]") or "0.0.0.0", int(port)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python3 -m racksmith.lab.flashblade_sim",
        description="Simulated Pure Storage FlashBlade (REST 2.x subset) for the racksmith lab.",
    )
    parser.add_argument(
        "--listen",
        type=_listen,
        default=("0.0.0.0", 443),
        metavar="HOST:PORT",
        help="address to serve HTTPS on; port 0 picks a free port (default 0.0.0.0:443)",
    )
    parser.add_argument(
        "--state",
        type=Path,
        required=True,
        metavar="DIR",
        help="directory holding state.json (created if missing)",
    )
    parser.add_argument(
        "--token-file",
        type=Path,
        metavar="FILE",
        help="API tokens, one 'TOKEN [USERNAME]' per line",
    )
    parser.add_argument(
        "--cert", type=Path, help="TLS certificate (PEM); made self-signed if absent"
    )
    parser.add_argument(
        "--key", type=Path, help="TLS private key (PEM); made with --cert if absent"
    )
    parser.add_argument(
        "--cert-host",
        action="append",
        default=[],
        metavar="HOST",
        help="extra subjectAltName for a generated certificate (repeatable)",
    )
    parser.add_argument("--array-name", default="fb-sim")
    parser.add_argument(
        "--max-api-version",
        default=DEFAULT_MAX_API_VERSION,
        help=f"highest REST 2.x version advertised (default {DEFAULT_MAX_API_VERSION})",
    )
    parser.add_argument("--capacity", type=int, default=DEFAULT_CAPACITY, help="usable bytes")
    parser.add_argument(
        "--lag",
        action="append",
        default=[],
        metavar="NAME",
        help="link aggregation group present on a new array (default: uplink)",
    )
    parser.add_argument(
        "--export-root",
        type=Path,
        metavar="DIR",
        help="directory whose <fs-name>/ subdirectories hold file system data; "
        "used space is measured there (read only unless --effects lab)",
    )
    parser.add_argument(
        "--effects",
        choices=("none", "lab"),
        default="none",
        help="'lab': VIPs become addresses on --data-interface, NFS file systems "
        "become nfs-ganesha exports",
    )
    parser.add_argument("--data-interface", metavar="IF", help="interface the data VIPs go on")
    parser.add_argument(
        "--ganesha-conf",
        type=Path,
        metavar="FILE",
        help="file whose marked racksmith section lists the exports "
        "(ganesha.conf itself or a file it %%includes)",
    )
    parser.add_argument(
        "--ganesha-pidfile",
        type=Path,
        metavar="FILE",
        help="reload ganesha with SIGHUP to this pid instead of --ganesha-reload-cmd",
    )
    parser.add_argument(
        "--ganesha-reload-cmd",
        default="systemctl reload nfs-ganesha",
        help="command that makes ganesha re-read its exports",
    )
    parser.add_argument("--quiet", action="store_true", help="no request log on stderr")
    return parser


def _effects(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Effects:
    if args.effects == "none":
        return NoEffects()
    missing = [
        flag
        for flag, value in (
            ("--data-interface", args.data_interface),
            ("--ganesha-conf", args.ganesha_conf),
            ("--export-root", args.export_root),
        )
        if not value
    ]
    if missing:
        parser.error(f"--effects lab needs {', '.join(missing)}")
    return LabEffects(
        data_interface=args.data_interface,
        ganesha_conf=args.ganesha_conf,
        export_root=args.export_root,
        state_dir=args.state,
        reload_cmd=shlex.split(args.ganesha_reload_cmd),
        ganesha_pidfile=args.ganesha_pidfile,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    tokens = load_tokens(args.token_file, os.environ.get(TOKEN_ENV))
    if not tokens:
        parser.error(f"no API token: give --token-file or set {TOKEN_ENV}")
    args.state.mkdir(parents=True, exist_ok=True)
    if args.export_root is not None and args.effects == "lab":
        args.export_root.mkdir(parents=True, exist_ok=True)

    cert = args.cert or args.state / "tls" / "cert.pem"
    key = args.key or (cert.with_name("key.pem") if args.cert is None else None)
    if key is None:
        parser.error("--cert needs --key")
    host, port = args.listen
    ensure_self_signed(
        cert, key, [h for h in [host, *args.cert_host] if h not in ("0.0.0.0", "::", "")]
    )

    export_root = args.export_root
    array = SimulatedArray(
        StateStore(args.state),
        effects=_effects(args, parser),
        usage=(lambda name: directory_usage(export_root / name)) if export_root else None,
        array_name=args.array_name,
        max_api_version=args.max_api_version,
        capacity=args.capacity,
        lags=tuple(args.lag) or ("uplink",),
    )
    server = SimServer((host, port), array, tokens, tls=tls_context(cert, key), quiet=args.quiet)

    def _stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    # Tests and the lab read this line to learn the bound port when --listen used port 0.
    print(f"flashblade_sim: listening on {server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

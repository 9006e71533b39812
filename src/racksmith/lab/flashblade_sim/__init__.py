"""Simulated Pure Storage FlashBlade: a lab TEST component, not a product.

No public FlashBlade simulator exists, so racksmith ships this stand-in: it speaks the
subset of the FlashBlade REST 2.x API that py-pure-client and the purestorage.flashblade
Ansible modules use (login, file systems, subnets, network interfaces and the objects
``purefb_info`` reads), keeps its state in a JSON file, and in the lab can make VIPs and
NFS exports real (``--effects lab``). Standard library only: it runs on the lab
container's bare python3. Run ``python3 -m racksmith.lab.flashblade_sim --help``.
"""

from .array import SimulatedArray, api_versions
from .errors import ApiError
from .server import SimServer, load_tokens, serve_in_thread, tls_context
from .store import StateStore

__all__ = [
    "ApiError",
    "SimServer",
    "SimulatedArray",
    "StateStore",
    "api_versions",
    "load_tokens",
    "serve_in_thread",
    "tls_context",
]

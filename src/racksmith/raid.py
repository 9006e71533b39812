"""RAID50 geometry: usable capacity and the XFS stripe alignment that matches it."""

from __future__ import annotations

from dataclasses import dataclass

MIN_DISKS = 6
MIN_DISKS_PER_SPAN = 3
XFS_BLOCK = 4096


@dataclass(frozen=True, slots=True)
class Raid50Geometry:
    disks: int
    disk_size: int
    spans: int
    chunk: int

    @property
    def disks_per_span(self) -> int:
        return self.disks // self.spans

    @property
    def data_disks(self) -> int:
        """Disks' worth of data: each RAID5 span gives one disk to parity."""
        return self.spans * (self.disks_per_span - 1)

    @property
    def usable_bytes(self) -> int:
        return self.data_disks * self.disk_size

    @property
    def usable_tb(self) -> float:
        return self.usable_bytes / 1000**4

    @property
    def usable_tib(self) -> float:
        return self.usable_bytes / 1024**4

    @property
    def xfs_su(self) -> int:
        """Stripe unit: one chunk, the run a single disk holds before the stripe moves on."""
        return self.chunk

    @property
    def xfs_sw(self) -> int:
        """Stripe width in stripe units: every data disk of every span holds one unit."""
        return self.data_disks

    @property
    def xfs_sunit_blocks(self) -> int:
        """``sunit`` as ``xfs_info`` prints it, in filesystem blocks."""
        return self.chunk // XFS_BLOCK

    @property
    def xfs_swidth_blocks(self) -> int:
        return self.xfs_sunit_blocks * self.xfs_sw

    @property
    def raid0_chunk(self) -> int:
        """Chunk of the RAID0 over the spans: one full RAID5 stripe, so writes stay aligned."""
        return self.chunk * (self.disks_per_span - 1)


def raid50(disks: int, disk_size: int, spans: int, chunk: int) -> Raid50Geometry:
    """Check a RAID50 layout and return its geometry; ValueError says what is wrong."""
    if disks < MIN_DISKS:
        raise ValueError(f"RAID50 needs at least {MIN_DISKS} disks, got {disks}")
    if spans < 2:
        raise ValueError(f"RAID50 needs at least 2 spans, got {spans}")
    if disks % spans:
        raise ValueError(f"{disks} disks do not divide into {spans} equal spans")
    if disks // spans < MIN_DISKS_PER_SPAN:
        raise ValueError(
            f"{spans} spans of {disks // spans} disks: each RAID5 span needs at least "
            f"{MIN_DISKS_PER_SPAN} disks"
        )
    if chunk < XFS_BLOCK or chunk & (chunk - 1):
        raise ValueError(f"chunk {chunk} bytes is not a power of two of at least 4 KiB")
    if disk_size <= 0:
        raise ValueError("disk size must be positive")
    return Raid50Geometry(disks, disk_size, spans, chunk)

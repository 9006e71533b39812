from __future__ import annotations

import pytest

from racksmith import patterns, raid, units


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1T", 2**40),
        ("1TiB", 2**40),
        ("12TB", 12 * 10**12),
        ("512KiB", 512 * 1024),
        ("138.5G", int(138.5 * 2**30)),
        ("4096", 4096),
        (4096, 4096),
        ("2 TB", 2 * 10**12),
    ],
)
def test_parse_size(text: str | int, expected: int) -> None:
    assert units.parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "T", "1 terabyte", "-1T", "1.5", "1XB", True])
def test_parse_size_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="size"):
        units.parse_size(text)


def test_format_size_round_trips() -> None:
    for text in ("1T", "512K", "100G", "3P"):
        assert units.format_size(units.parse_size(text)) == text


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("2:00:00", 120),
        ("2-00:00:00", 2880),
        (120, 120),
        ("30", 30),
        ("1:30", 2),
        ("UNLIMITED", -1),
        ("3-12", 3 * 1440 + 720),
    ],
)
def test_parse_slurm_time(text: str | int, minutes: int) -> None:
    assert units.parse_slurm_time(text) == minutes


def test_format_slurm_time() -> None:
    assert units.format_slurm_time(2880) == "2-00:00:00"
    assert units.format_slurm_time(90) == "01:30:00"
    assert units.format_slurm_time(-1) == "UNLIMITED"


def test_expand_patterns() -> None:
    assert patterns.expand("dgx[01-03]") == ["dgx01", "dgx02", "dgx03"]
    assert patterns.expand("n[1,3,5-6]") == ["n1", "n3", "n5", "n6"]
    assert patterns.expand("Ethernet[1-2]/[1-2]") == [
        "Ethernet1/1",
        "Ethernet1/2",
        "Ethernet2/1",
        "Ethernet2/2",
    ]
    assert patterns.expand("plain") == ["plain"]


@pytest.mark.parametrize("bad", ["x[3-1]", "x[a-b]", "x[1-2", "x]1[", "x[1-999999]"])
def test_expand_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        patterns.expand(bad)


def test_raid50_dell_guide() -> None:
    g = raid.raid50(12, 12 * 10**12, 2, 64 * 1024)
    assert g.data_disks == 10
    assert g.usable_bytes == 120 * 10**12
    assert f"{g.usable_tib:.0f}" == "109"
    assert (g.xfs_sunit_blocks, g.xfs_swidth_blocks) == (16, 160)
    assert g.raid0_chunk == 5 * 64 * 1024


@pytest.mark.parametrize(
    ("disks", "spans", "message"),
    [
        (5, 1, "at least 6 disks"),
        (12, 1, "at least 2 spans"),
        (13, 2, "equal spans"),
        (12, 6, "at least 3 disks"),
    ],
)
def test_raid50_refuses(disks: int, spans: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        raid.raid50(disks, 10**12, spans, 65536)

"""FlashBlade NFS rules -> nfs-ganesha EXPORT blocks, and the other pure helpers.

No ganesha runs here: these check the text the lab's ganesha will be given.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from racksmith.lab.flashblade_sim.effects import desired_exports, desired_vips, splice_section
from racksmith.lab.flashblade_sim.errors import ApiError
from racksmith.lab.flashblade_sim.nfs_rules import (
    ExportRule,
    RuleError,
    ganesha_config,
    ganesha_export_block,
    parse_rules,
)
from racksmith.lab.flashblade_sim.query import Query, decode_token, encode_token, parse_filter
from racksmith.lab.flashblade_sim.usage import directory_usage


def test_parse_defaults_and_options() -> None:
    assert parse_rules("*") == [ExportRule("*")]
    assert parse_rules("*(rw,no_root_squash)") == [ExportRule("*", "rw", "no_root_squash")]
    rules = parse_rules(
        "10.99.120.0/24(ro) host-1.example.com(rw,all_squash,anonuid=1000,anongid=100,secure)"
    )
    assert rules[0] == ExportRule("10.99.120.0/24", "ro", "root_squash")
    assert rules[1].squash == "all_squash"
    assert (rules[1].anonuid, rules[1].anongid, rules[1].secure) == (1000, 100, True)
    assert parse_rules("@hpc(rw,sec=krb5:krb5p,fileid_32bit)")[0].sec == ("krb5", "krb5p")
    assert parse_rules("@hpc(rw,fileid_32bit)")[0].ignored == ("fileid_32bit",)
    assert parse_rules("") == []


@pytest.mark.parametrize(
    "rules",
    [
        "*(rwx)",
        "*(rw,ro)",
        "10.0.0.0/33(ro)",
        "10.0.0.1/24(ro)",  # host bits set: the array wants the network address
        "*(anonuid=abc)",
        "*(sec=ntlm)",
        "*(rw,)",
        "*((rw)",
        "bad_host!(rw)",
    ],
)
def test_parse_rejects(rules: str) -> None:
    with pytest.raises(RuleError):
        parse_rules(rules)


def test_export_block_translation() -> None:
    block = ganesha_export_block(
        export_id=7,
        fs_name="nfs0",
        export_root="/srv/fb/",
        v3=True,
        v4_1=True,
        rules="10.99.120.0/24(ro) *(rw,no_root_squash,anonuid=0)",
    )
    assert "Export_Id = 7;" in block
    assert 'Path = "/srv/fb/nfs0";' in block
    assert 'Pseudo = "/nfs0";' in block
    assert "Protocols = 3, 4;" in block
    assert "Access_Type = None;" in block  # clients not named by a rule are refused
    assert "Name = VFS;" in block
    first, second = block.split("CLIENT {")[1:]
    assert 'Clients = "10.99.120.0/24";' in first
    assert "Access_Type = RO;" in first and "Squash = Root_Squash;" in first
    assert 'Clients = "*";' in second
    assert "Access_Type = RW;" in second and "Squash = No_Root_Squash;" in second
    assert "Anonymous_Uid = 0;" in second
    assert block.count("{") == block.count("}")


def test_export_block_protocols_and_disabled() -> None:
    only_v4 = ganesha_export_block(
        export_id=1, fs_name="a", export_root="/x", v3=False, v4_1=True, rules="*"
    )
    assert "Protocols = 4;" in only_v4
    assert (
        ganesha_export_block(
            export_id=1, fs_name="a", export_root="/x", v3=False, v4_1=False, rules="*"
        )
        == ""
    )
    assert "CLIENT" not in ganesha_export_block(
        export_id=1, fs_name="a", export_root="/x", v3=True, v4_1=False, rules=""
    )


def test_desired_exports_skip_destroyed_and_disabled() -> None:
    def fs(
        name: str, export_id: int, *, destroyed: bool = False, v3: bool = True
    ) -> dict[str, object]:
        return {
            "name": name,
            "_export_id": export_id,
            "destroyed": destroyed,
            "nfs": {"v3_enabled": v3, "v4_1_enabled": False, "rules": "*(rw)"},
        }

    state = {
        "file_systems": [
            fs("b", 2),
            fs("a", 1),
            fs("gone", 3, destroyed=True),
            fs("off", 4, v3=False),
        ]
    }
    blocks = desired_exports(state, "/srv/fb")
    assert [b.split('Pseudo = "/')[1].split('"')[0] for b in blocks] == ["a", "b"]
    config = ganesha_config(blocks)
    assert config.startswith("# Written by racksmith flashblade_sim")


def test_splice_section_keeps_operator_config() -> None:
    base = "NFS_CORE_PARAM { Protocols = 3, 4; }\n"
    once = splice_section(base, "EXPORT { Export_Id = 1; }\n")
    assert once.startswith(base)
    twice = splice_section(once, "EXPORT { Export_Id = 2; }\n")
    assert twice.count("# BEGIN racksmith") == 1
    assert "Export_Id = 1" not in twice and "Export_Id = 2" in twice
    assert splice_section(twice, "EXPORT { Export_Id = 2; }\n") == twice
    assert splice_section("", "x\n").startswith("# BEGIN")


def test_desired_vips_take_prefix_from_subnet() -> None:
    state = {
        "subnets": [{"prefix": "10.21.115.0/24"}, {"prefix": "10.30.0.0/16"}],
        "network_interfaces": [{"address": "10.21.115.6"}, {"address": "10.30.1.1"}],
    }
    assert desired_vips(state) == {"10.21.115.6/24", "10.30.1.1/16"}


def test_filter_language() -> None:
    item = {
        "name": "nfs0",
        "provisioned": 10,
        "destroyed": False,
        "nfs": {"v3_enabled": True},
        "services": ["data"],
    }
    assert parse_filter("name='nfs0'")(item)
    assert parse_filter('name="nfs*"')(item)
    assert not parse_filter("name!='nfs*'")(item)
    assert parse_filter("provisioned>5 and provisioned<=10")(item)
    assert parse_filter("destroyed='false'")(item)
    assert parse_filter("nfs.v3_enabled=true")(item)
    assert parse_filter("services='data'")(item)
    assert parse_filter("(name='x' or name='nfs0') and not(destroyed=true)")(item)
    assert not parse_filter("missing.field='x'")(item)
    for bad in ("name=", "name 'x'", "(name='x'", "name='x' and", "name=='x'"):
        with pytest.raises(ApiError):
            parse_filter(bad)


def test_query_decoding_and_tokens() -> None:
    query = Query("names=a%2Cb,c&limit=2&destroyed=true&filter=name%3D%27x%27")
    assert query.get_list("names") == ["a,b", "c"]
    assert query.get_int("limit") == 2
    assert query.get_bool("destroyed") is True
    assert query.get_str("filter") == "name='x'"
    with pytest.raises(ApiError):
        Query("limit=-1").get_int("limit")
    assert decode_token(encode_token(42)) == 42
    with pytest.raises(ApiError):
        decode_token("not-a-token")


def test_directory_usage(tmp_path: Path) -> None:
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "a").write_bytes(b"x" * 100)
    (tmp_path / "d" / "sub" / "b").write_bytes(b"y" * 23)
    (tmp_path / "d" / "link").symlink_to(tmp_path / "d" / "a")
    assert directory_usage(tmp_path / "d") == 123
    assert directory_usage(tmp_path / "missing") == 0

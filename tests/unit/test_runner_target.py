"""What a run acts on: the lab by default, an inventory directory or file, or a spec."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from racksmith import paths
from racksmith.errors import RacksmithError
from racksmith.runner.target import Target, resolve

ROOT = Path(__file__).parents[2]
LAB_SPEC = ROOT / "examples" / "lab.yml"

INVENTORY = """\
all:
  children:
    flashblade:
      hosts:
        fb01:
          ansible_connection: local
"""


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "state"
    root.mkdir()
    monkeypatch.setenv("RACKSMITH_STATE", str(root))
    return root


def test_no_target_and_no_lab(state: Path) -> None:
    with pytest.raises(RacksmithError, match="racksmith lab up") as caught:
        resolve(None)
    assert str(paths.lab_inventory()) in str(caught.value)
    assert paths.lab_inventory().is_relative_to(state)


def test_no_target_with_a_lab_directory_but_no_hosts_file() -> None:
    paths.lab_inventory().mkdir(parents=True)
    with pytest.raises(RacksmithError, match="racksmith lab up"):
        resolve(None)


def test_no_target_is_the_lab() -> None:
    lab = paths.lab_inventory()
    lab.mkdir(parents=True)
    (lab / "hosts.yml").write_text(INVENTORY, encoding="utf-8")
    assert resolve(None) == Target(lab / "hosts.yml", "lab")


def test_directory_without_hosts_file(tmp_path: Path) -> None:
    directory = tmp_path / "inv"
    directory.mkdir()
    (directory / "inventory.ini").write_text("[all]\nfb01\n", encoding="utf-8")
    with pytest.raises(RacksmithError, match=r"not an inventory directory \(no hosts.yml\)"):
        resolve(directory)


def test_directory_with_hosts_file(tmp_path: Path) -> None:
    directory = tmp_path / "prod"
    (directory / "configs").mkdir(parents=True)
    (directory / "hosts.yml").write_text(INVENTORY, encoding="utf-8")
    assert resolve(directory) == Target(directory / "hosts.yml", "prod")


def test_directory_with_hosts_yaml(tmp_path: Path) -> None:
    directory = tmp_path / "prod"
    directory.mkdir()
    (directory / "hosts.yaml").write_text(INVENTORY, encoding="utf-8")
    assert resolve(directory) == Target(directory / "hosts.yaml", "prod")


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(RacksmithError, match="no such spec or inventory"):
        resolve(tmp_path / "nowhere.yml")


def test_spec_is_rendered_into_the_render_dir(tmp_path: Path) -> None:
    cluster = yaml.safe_load(LAB_SPEC.read_text(encoding="utf-8"))["cluster"]["name"]
    out = tmp_path / "rendered"
    target = resolve(LAB_SPEC, out)
    assert target == Target(out / "hosts.yml", cluster)
    assert (out / "hosts.yml").is_file()
    assert (out / "host_vars" / "gpu01.yml").is_file()
    rendered = yaml.safe_load((out / "hosts.yml").read_text(encoding="utf-8"))
    assert "all" in rendered


def test_spec_is_rendered_into_the_state_directory_by_default(state: Path) -> None:
    target = resolve(LAB_SPEC)
    cluster = target.label
    assert target.inventory == state / "clusters" / cluster / "inventory" / "hosts.yml"
    assert target.inventory.is_file()


def test_inventory_file_is_used_as_is(tmp_path: Path) -> None:
    inventory = tmp_path / "site-a.yml"
    inventory.write_text(INVENTORY, encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert resolve(inventory, tmp_path / "rendered") == Target(inventory, "site-a")
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing rendered


def test_inventory_file_that_mentions_a_cluster_key_is_still_an_inventory(tmp_path: Path) -> None:
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(INVENTORY + "cluster: {}\n", encoding="utf-8")
    assert resolve(inventory) == Target(inventory, "hosts")

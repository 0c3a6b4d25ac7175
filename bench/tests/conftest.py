"""Shared fixtures of the benchmark driver's tests: a directory of fake binaries
(bench/tools/fake_bench.py) and the driver run against it (no real binary is needed).

    .venv/bin/python -m pytest -q bench/tests
"""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH / "tools"))

import fake_bench  # noqa: E402
from weftbench import cli  # noqa: E402

HAVE_MPL = importlib.util.find_spec("matplotlib") is not None


class Env:
    """A directory of fake weft-bench-<system> binaries plus their behaviour file."""

    def __init__(self, tmp_path, monkeypatch):
        self.tmp = tmp_path
        self.bins = tmp_path / "bins"
        self.out = tmp_path / "out"
        self.log = tmp_path / "calls.log"
        self.cfg_path = tmp_path / "fake.json"
        self.monkeypatch = monkeypatch
        self.configure({})
        fake_bench.install(self.bins, fake_bench.SYSTEMS)

    def configure(self, cfg):
        cfg = dict(cfg)
        cfg.setdefault("log", str(self.log))
        self.cfg_path.write_text(json.dumps(cfg))
        self.monkeypatch.setenv("FAKE_BENCH_CONFIG", str(self.cfg_path))

    def only(self, systems):
        for p in self.bins.iterdir():
            p.unlink()
        fake_bench.install(self.bins, systems)

    def args(self, *args, mode="test"):
        return ["--mode", mode, "--bin-dir", str(self.bins), "--out", str(self.out), *args]

    def run(self, *args, mode="test"):
        return cli.main(self.args(*args, mode=mode))

    def results(self):
        return json.loads((self.out / "results.json").read_text())

    def report(self):
        return (self.out / "latest.md").read_text()

    def section(self, heading):
        return self.report().split(f"## {heading}\n")[1].split("\n## ")[0]

    def calls(self):
        return self.log.read_text().split("\n")[:-1] if self.log.exists() else []

    def median(self, kernel, workers, label, variant=""):
        for m in self.results()["medians"]:
            if (m["kernel"], m["workers"], m["label"], m["variant"]) == \
                    (kernel, workers, label, variant):
                return m
        raise KeyError((kernel, workers, label, variant))


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.delenv("WEFT_POLICY", raising=False)
    return Env(tmp_path, monkeypatch)

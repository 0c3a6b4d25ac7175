"""bench/tools/nar_memory.py: the space report of issue 11, against the fake binaries
(bench/tools/fake_bench.py) and on hand-made data."""
import json

import nar_memory
from weftbench.space_report import render


def machine(nproc):
    return {"nproc": nproc, "cpu_model": "test cpu"}


def space_cell(kernel, policy, p, heap, threads, status="ok"):
    samples = [{"time_s": 0.01, "heap_peak_bytes": heap, "live_threads_peak": threads}] * 3
    return {"kernel": kernel, "policy": policy, "workers": p, "status": status, "reason": "",
            "samples": samples if status == "ok" else []}


def test_render_marks_oversubscription_and_divides_by_s1():
    meta = {"date": "d", "size": "quick", "runs": 3, "workers": [1, 2, 8],
            "machine": machine(2), "kernels": ["mmtemp"], "policies": ["serial", "ws", "adf"],
            "default_policy": "ws"}
    cells = [space_cell("mmtemp", "serial", 1, 4096, 1)]
    for p in (1, 2, 8):
        cells.append(space_cell("mmtemp", "ws", p, 4096 * p, 3 * p))
        cells.append(space_cell("mmtemp", "adf", p, 0, 0, status="missing"))
    md = render({"command": "python3 bench/tools/nar_memory.py",
                 "weft_space": {"meta": meta, "cells": cells}})
    assert "p = 8†" in md and "p = 2†" not in md and "p = 2\n" in md
    # S1 = the serial policy's heap peak; ws at 8 workers has 8 times it
    assert "| mmtemp | 4,096 B | 32 KiB (8×) | n/i |" in md
    # the thread table leaves the serial policy out and shows ws's medians
    assert "| kernel | ws | adf |" in md and "| mmtemp | 24 | n/i |" in md
    assert "    python3 bench/tools/nar_memory.py" in md


def test_every_listed_policy_is_measured(env, tmp_path):
    env.configure({"policy_list": ["serial", "ws", "adf", "dfd", "fifo"]})
    env.only(["serial", "weft", "tbb"])
    out = tmp_path / "space"
    assert nar_memory.main(["--bin-dir", str(env.bins), "--size", "test", "--runs", "2",
                            "--kernels", "mmtemp", "--workers", "1,8", "--out", str(out)]) == 0
    data = json.loads((out / "space.json").read_text())
    got = {(c["policy"], c["workers"]) for c in data["weft_space"]["cells"]}
    assert got == {("serial", 1)} | {(p, w) for p in ["ws", "adf", "dfd", "fifo"] for w in (1, 8)}
    assert all(c["status"] == "ok" and len(c["samples"]) == 2
               for c in data["weft_space"]["cells"])
    labels = {(c["label"], c["workers"]) for c in data["rss"]["cells"]}
    assert ("serial", 1) in labels and ("serial", 8) not in labels
    assert ("weft:fifo", 8) in labels and ("tbb", 8) in labels
    assert all(s["maxrss_kib"] > 0 for c in data["rss"]["cells"] for s in c["samples"])
    md = (out / "space.md").read_text()
    assert "| kernel | ws | adf | dfd | fifo |" in md


def test_a_wrong_checksum_fails_the_tool(env, tmp_path):
    env.configure({"wrong": [["weft", "fft"]]})
    env.only(["serial", "weft"])
    out = tmp_path / "space"
    assert nar_memory.main(["--bin-dir", str(env.bins), "--size", "test", "--runs", "1",
                            "--kernels", "fft", "--workers", "1", "--part", "space",
                            "--out", str(out)]) == 1
    assert "WRONG" in (out / "space.md").read_text()


def test_unknown_or_no_kernel_is_an_error(env, tmp_path, capsys):
    # a typo in --kernels made every cell of it "n/i" (not implemented) and exit 0; an empty
    # list ended in an IndexError
    env.only(["serial", "weft"])
    out = tmp_path / "space"
    assert nar_memory.main(["--bin-dir", str(env.bins), "--size", "test", "--runs", "1",
                            "--kernels", "mmtmp", "--workers", "1", "--out", str(out)]) == 2
    assert "--kernels: weft-bench-weft has no kernel 'mmtmp'" in capsys.readouterr().err
    assert not out.exists()
    try:
        nar_memory.main(["--bin-dir", str(env.bins), "--kernels", ",", "--out", str(out)])
        raise AssertionError("an empty --kernels was accepted")
    except SystemExit as e:
        assert e.code == 2 and "--kernels is empty" in capsys.readouterr().err


def test_a_timeout_that_is_no_positive_number_is_an_error(env, tmp_path, capsys):
    # --timeout -1 (or 0, nan) killed every process at once: a report of timeouts replaced the
    # previous space.md, exit 0 (found by stop 49's tools hunt)
    env.only(["serial", "weft"])
    out = tmp_path / "space"
    for bad in ("-1", "0", "nan", "inf"):
        try:
            nar_memory.main(["--bin-dir", str(env.bins), "--size", "test", "--runs", "1", "--kernels", "fft",
                             "--workers", "1", "--timeout", bad, "--out", str(out)])
            raise AssertionError(f"--timeout {bad} was accepted")
        except SystemExit as e:
            assert e.code == 2 and "--timeout must be a positive finite number of seconds" in capsys.readouterr().err
    assert not out.exists()

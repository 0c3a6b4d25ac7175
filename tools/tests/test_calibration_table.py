"""Tests of sim/calibration_table.py's comparison at P > 2 (SCALE_P; run:
.venv/bin/python -m pytest -q tools/tests)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "sim"))
import calibration_table  # noqa: E402

KERNELS = ("nqueens", "uts-geo", "uts-bin")


def write_real(path, times, steals):
    """kernels.jsonl: serial runs and every policy's at each P in `times` ({P: [time_s, ...]})."""
    with open(path, "w") as f:
        for k in KERNELS:
            f.write(json.dumps({"kernel": k, "policy": "", "workers": 1, "time_s": 1.0}) + "\n")
            for p in calibration_table.POLICIES:
                for w, ts in times.items():
                    for t, s in zip(ts, steals.get(w, [0] * len(ts))):
                        f.write(json.dumps({"kernel": k, "policy": p, "workers": w, "time_s": t,
                                            "stats": {"steals": s}}) + "\n")


def write_sim(path, makespans, thefts):
    runs = [{"policy": p, "P": w, "makespan": m, "thefts": thefts.get(w, 0), "dag_work": 100.0}
            for p in calibration_table.POLICIES for w, m in makespans.items()]
    with open(path, "w") as f:
        json.dump({"runs": runs}, f)


def test_scaling_rows_compare_speedups_and_steals_at_each_p(tmp_path, capsys):
    # Real: T1 = 2 s; T4 = 0.5 s (speedup 4) and T8 = 0.5 s (speedup 4), medians of three runs.
    write_real(tmp_path / "kernels.jsonl", {1: [2.0, 2.1, 1.9], 2: [1.0, 1.0, 1.0], 4: [0.4, 0.5, 0.6],
                                            8: [0.5, 0.5, 0.5]},
               {4: [10, 30, 20], 8: [100, 100, 100]})
    # Simulated: speedup 4 at P = 4 (agrees), 7.5 at P = 8 (does not); 25 and 150 thefts.
    sim = tmp_path / "sim"
    sim.mkdir()
    for k in KERNELS:
        write_sim(sim / f"{k}.json", {1: 300.0, 2: 150.0, 4: 75.0, 8: 40.0}, {4: 25, 8: 150})
    calibration_table.scaling_table(calibration_table.real_runs(str(tmp_path / "kernels.jsonl")), str(sim))
    out = capsys.readouterr().out
    assert "| nqueens | ws | 4 | 4.00 | 4.00 | 20 [10-30] | 25 |" in out
    assert "| uts-bin | heartbeat | 8 | 4.00 | 7.50 | 100 [100-100] | 150 |" in out
    rows = 3 * len(calibration_table.POLICIES) * 2
    half = rows // 2
    assert f"T1/TP within 15% in {half} of {rows} rows, steals within 2x of the real median in {rows} of {rows}" in out


def test_no_scaling_table_without_runs_above_two_workers(tmp_path, capsys):
    write_real(tmp_path / "kernels.jsonl", {1: [1.0], 2: [0.5]}, {})
    calibration_table.scaling_table(calibration_table.real_runs(str(tmp_path / "kernels.jsonl")), str(tmp_path))
    assert capsys.readouterr().out == ""


def run_table(*args):
    import subprocess
    script = os.path.join(os.path.dirname(__file__), "..", "..", "sim", "calibration_table.py")
    return subprocess.run([sys.executable, script, *map(str, args)], capture_output=True, text=True)


def test_missing_arguments_give_the_usage_not_a_traceback():
    # Found by stop 51's commands hunt: no arguments ended in a ValueError traceback.
    r = run_table("only-one")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "usage: sim/calibration_table.py REAL_DIR SIM_DIR" in r.stderr


def test_a_missing_input_file_is_named_with_what_writes_it(tmp_path):
    r = run_table(tmp_path / "real", tmp_path / "sim")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert str(tmp_path / "real" / "kernels.jsonl") in r.stderr and "sim/calibrate_real.sh" in r.stderr
    (tmp_path / "real").mkdir()
    write_real(tmp_path / "real" / "kernels.jsonl", {1: [2.0], 2: [1.0]}, {})
    (tmp_path / "real" / "fib_ratio.txt").write_text("")
    r = run_table(tmp_path / "real", tmp_path / "sim")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert str(tmp_path / "sim" / "fib.json") in r.stderr and "sim/calibrate_sim.sh" in r.stderr


def test_p2_rows_count_the_runs_in_leapfrog_cascades(tmp_path, capsys):
    # Real: 7 runs at P = 2 per policy, 3 of them with 50 or more leapfrogs (49 is none); simulated:
    # 5 seeds, 4 of them in cascades under every policy but heartbeat, none there.  fib's real side
    # (weft-overhead's ratio) has no leapfrog counts: a dash, and no share compared.
    leaps = [0, 49, 50, 900, 12, 3000, 1]
    with open(tmp_path / "kernels.jsonl", "w") as f:
        for k in KERNELS:
            f.write(json.dumps({"kernel": k, "policy": "", "workers": 1, "time_s": 1.0}) + "\n")
            for p in calibration_table.POLICIES:
                f.write(json.dumps({"kernel": k, "policy": p, "workers": 1, "time_s": 1.2,
                                    "stats": {"steals": 0, "leapfrogs": 0}}) + "\n")
                for n in leaps:
                    f.write(json.dumps({"kernel": k, "policy": p, "workers": 2, "time_s": 0.6,
                                        "stats": {"steals": n + 20, "leapfrogs": n}}) + "\n")
    with open(tmp_path / "fib_ratio.txt", "w") as f:
        for p in calibration_table.POLICIES:
            f.write(f"{p}@1 x 3.0\n{p}@2 x y z 1.9x 7\n")
    sim = tmp_path / "sim"
    sim.mkdir()
    for prog in ("fib",) + KERNELS:
        for name in (f"{prog}.json", f"{prog}.sliced.json"):
            runs = [{"policy": p, "P": 1, "makespan": 120.0, "thefts": 0, "dag_work": 100.0}
                    for p in calibration_table.POLICIES]
            runs += [{"policy": p, "P": 2, "makespan": 60.0, "thefts": 30, "dag_work": 100.0,
                      "leapfrogs": 0 if p == "heartbeat" or n > 3 else 500}
                     for p in calibration_table.POLICIES for n in range(5)]
            with open(sim / name, "w") as f:
                json.dump({"runs": runs}, f)
    calibration_table.table(str(tmp_path), str(sim))
    out = capsys.readouterr().out
    assert "| uts-bin | lazy-df | 1.20 | 1.20 | 2.00 | 2.00 | 2.00 | 69 [20-3020] | 30 | 30 | 3 of 7 | 4 of 5 |" in out
    assert "| nqueens | heartbeat | 1.20 | 1.20 | 2.00 | 2.00 | 2.00 | 69 [20-3020] | 30 | 30 | 3 of 7 | 0 of 5 |" in out
    assert "| fib | ws | 3.00 | 1.20 | 1.90 | 2.00 | 2.00 | 7 | 30 | 30 | - | 4 of 5 |" in out
    # |3/7 - 4/5| = 0.37 > 0.3 under six policies; |3/7 - 0| = 0.43 under heartbeat: none of 21 agree.
    assert "shares of runs with >= 50 leapfrogs within 0.3 in 0 of 21" in out

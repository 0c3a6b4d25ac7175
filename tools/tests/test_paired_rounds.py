"""tools/paired_rounds.py: ratios within each round, medians over rounds, clear failures."""
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "paired_rounds.py"


def run(*args):
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, check=False)


def test_ratio_is_taken_within_each_round(tmp_path):
    # "b" takes 3x "a" in every round while both drift 10x between rounds: the paired ratio is 3.
    counter = tmp_path / "n"
    counter.write_text("0")
    drift = f"n=$(cat {counter}); echo $((n+1)) > {counter}; s=$((1 + (n/2 % 2) * 9))"
    r = run("4", f"a={drift}; echo Time: $s", f"b={drift}; echo Time: $((3*s))")
    assert r.returncode == 0, r.stderr
    line = next(l for l in r.stdout.splitlines() if l.startswith("b "))
    assert "median 3.000 [3.00-3.00]" in line


def test_a_program_without_a_time_line_fails_naming_it():
    r = run("2", "a=echo Time: 1", "b=echo nothing")
    assert r.returncode != 0
    assert "echo nothing" in r.stderr and "no 'Time:' line" in r.stderr


def test_bad_arguments_print_the_usage():
    r = run("x", "a=echo Time: 1")
    assert r.returncode != 0 and "ROUNDS LABEL=COMMAND" in r.stderr


def test_duplicate_labels_and_zero_rounds_are_refused():
    r = run("2", "a=echo Time: 1", "a=echo Time: 3")
    assert r.returncode != 0 and "label(s) given twice: a" in r.stderr and not r.stdout
    r = run("0", "a=echo Time: 1")
    assert r.returncode != 0 and "ROUNDS must be at least 1" in r.stderr
    assert "Traceback" not in r.stderr


def test_time_in_exponent_form():
    r = run("1", "a=echo Time: 1e-05", "b=echo Time: 2E-5")
    assert r.returncode == 0, r.stderr
    assert "median 2.000" in next(l for l in r.stdout.splitlines() if l.startswith("b "))


def test_a_time_that_is_no_number_or_zero_is_an_error_not_a_traceback():
    # "Time: -" matched the pattern and float() raised; a first program's "Time: 0" (printf %f of a
    # run under 0.5 us) divided by zero (found by stop 49's tools hunt)
    r = run("1", "a=echo Time: -")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "echo Time: -" in r.stderr and "no 'Time:' line" in r.stderr
    r = run("1", "a=echo Time: 0.000000", "b=echo Time: 1")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "echo Time: 0.000000" in r.stderr and "a time of 0" in r.stderr

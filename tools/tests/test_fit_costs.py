"""Tests of sim/fit_costs.py's loop/iteration fit (run: .venv/bin/python -m pytest -q tools/tests)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "sim"))
import fit_costs  # noqa: E402


def test_exact_solution_when_both_costs_are_nonnegative():
    # 10 loops + 100 iterations cost 300; 1000 loops + 200 iterations cost 10400: loop 10, iter 2.
    lp, it = fit_costs.fit_nonnegative(10, 100, 1000, 200, 10 * 10 + 100 * 2, 1000 * 10 + 200 * 2)
    assert lp == pytest.approx(10)
    assert it == pytest.approx(2)


def test_negative_iteration_cost_is_held_at_zero_and_loop_fitted_by_least_squares():
    # A kernel faster than its serial elision (negative overhead) next to one with a loop cost of 3:
    # the exact solution needs a negative iteration cost, so iter is 0 and loop the least-squares fit.
    a, b, c, d = 100, 10_000, 10_000, 20_000
    rq, ru = -500.0, 30_000.0
    lp, it = fit_costs.fit_nonnegative(a, b, c, d, rq, ru)
    assert it == 0.0
    assert lp == pytest.approx((a * rq + c * ru) / (a * a + c * c))
    assert lp > 0


def test_no_cost_is_negative_even_when_every_kernel_beats_serial():
    lp, it = fit_costs.fit_nonnegative(100, 1000, 2000, 3000, -50.0, -70.0)
    assert (lp, it) == (0.0, 0.0)

"""The plan: kernel and policy lists read from the binaries, the groups and columns built
from them, and the refusals when a list says a name does not exist."""
from pathlib import Path


from conftest import fake_bench
from weftbench import cli, plan as planning
from weftbench import records as R
from weftbench.binaries import read_name_list


def test_fake_answers_both_lists(env, capsys):
    env.configure({"kernels": ["stress", "fib"], "unimplemented_policies": ["adf", "fifo"]})
    assert fake_bench.main(["--system", "tbb", "--kernel", "list"]) == 0
    assert capsys.readouterr().out.split() == ["fib", "stress"]
    assert fake_bench.main(["--system", "weft", "--policy", "list"]) == 0
    listed = capsys.readouterr().out.split()
    assert "lazy-bf" in listed and "adf" not in listed and "fifo" not in listed
    assert fake_bench.main(["--system", "tbb", "--policy", "list"]) == 2
    env.configure({"no_policy_list": True})
    assert fake_bench.main(["--system", "weft", "--policy", "list"]) == 2


def test_read_name_list(env):
    env.configure({"kernels": ["nqueens", "fib"], "policy_list": ["ws", "lazy-bf"]})
    assert read_name_list(env.bins / "weft-bench-serial", "--kernel") == \
        (["fib", "nqueens"], None)
    assert read_name_list(env.bins / "weft-bench-weft", "--policy") == (["ws", "lazy-bf"], None)
    names, why = read_name_list(env.bins / "weft-bench-tbb", "--policy")
    assert names is None
    assert why == "`weft-bench-tbb --policy list` failed (exit 2: fake_bench: --policy is " \
                  "only for weft)"


def test_kernels_come_from_the_binaries(env, capsys):
    env.configure({"kernels": ["stress", "fib"]})
    env.only(["serial", "weft"])
    assert env.run("--workers", "1", "--dry-run") == 0
    err = capsys.readouterr().err
    assert "2 kernels x workers 1" in err
    # stress is among them: the steal-cost groups are planned (the auto rule)
    assert "  fib P=1: serial weft:default\n  stress P=1: serial weft:default\n" \
           "  stress steal-cost:1000:20 P=2: weft:default\n" in err


def test_unknown_kernel_is_refused(env, capsys):
    env.configure({"kernels": ["fib", "nqueens"]})
    assert env.run("--kernels", "fib,fbi") == 2
    assert "--kernels: no binary has a kernel 'fbi' (accepted: all, nar, fib, nqueens: " \
           "`BIN --kernel list`)" in capsys.readouterr().err
    assert not env.calls()


def test_kernels_union_over_the_systems(env):
    env.configure({"missing_kernels": {}})
    env.only(["serial", "weft"])
    opts = cli.parse_args(env.args("--workers", "1"))
    inv = planning.discover(opts)
    inv.kernel_lists["weft"] = ["fib", "tsp"]
    inv.kernel_lists["serial"] = ["fib", "mm"]
    assert planning.resolve_kernels(opts, inv) == ["fib", "mm", "tsp"]


def test_policies_all_is_the_binary_list(env):
    env.configure({"policy_list": ["serial", "ws", "lazy-bf", "heartbeat"]})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1", "--policies", "all") == 0
    labels = [c["label"] for c in env.results()["configs"] if not c["missing"]]
    # default = lazy-bf runs once as weft:default; serial (the elision) is not in "all"
    assert labels == ["serial", "weft:default", "weft:ws", "weft:heartbeat"]
    assert env.results()["meta"]["weft_policy_list"] == ["serial", "ws", "lazy-bf",
                                                          "heartbeat"]


def test_full_mode_runs_every_listed_policy(env, capsys):
    env.configure({"policy_list": ["ws", "wool", "lazy-bf"]})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1", "--dry-run", mode="full") == 0
    assert "fib P=1: serial weft:default weft:ws weft:wool\n" in capsys.readouterr().err


def test_policy_not_in_the_list_is_refused(env, capsys):
    env.configure({"policy_list": ["ws", "lazy-bf"]})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--policies", "default,magic") == 2
    err = capsys.readouterr().err
    assert "--policies: weft has no policy 'magic' (accepted: default, all, ws, lazy-bf: " \
           "`weft-bench-weft --policy list`)" in err
    assert not env.calls()


def test_binary_without_policy_list_all_is_a_clear_error(env, capsys):
    env.configure({"no_policy_list": True})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--policies", "all") == 2
    err = capsys.readouterr().err
    assert "--policies all needs weft's policy list, but `weft-bench-weft --policy list` " \
           "failed (exit 2: fake_bench: --kernel is required); rebuild weft-bench-weft" in err


def test_binary_without_policy_list_named_policies_run_unchecked(env):
    env.configure({"no_policy_list": True})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1", "--policies", "default,ws") == 0
    assert env.median("fib", 1, "weft:ws")["status"] == "ok"
    assert "- Note: the policy names were not checked: `weft-bench-weft --policy list` " \
           "failed" in env.report()


def fake_inventory(systems, kernels, policies=None):
    inv = planning.Inventory()
    for s in systems:
        inv.binaries[s] = Path(f"/nonexistent/weft-bench-{s}")
        inv.kernel_lists[s] = list(kernels.get(s, kernels["*"]))
    inv.policies = policies
    return inv


def test_plan_groups_and_columns(tmp_path):
    opts = cli.parse_args(["--mode", "test", "--workers", "1,2", "--out", str(tmp_path),
                           "--systems", "serial,weft,tbb"])
    inv = fake_inventory(["serial", "weft", "tbb"],
                         {"*": ["fib", "stress"], "tbb": ["fib"]})
    pl = planning.build_plan(opts, inv, policies=["default", "ws"])
    assert [c.label for c in pl.configs] == ["serial", "weft:default", "weft:ws", "tbb"]
    assert [g.title for g in pl.groups] == ["fib P=1", "fib P=2", "stress P=1", "stress P=2",
                                            "stress steal-cost:1000:20 P=2"]
    steal = pl.groups[-1]
    assert R.Config("serial") not in steal.configs  # no serial run in the steal-cost group
    # tbb lacks stress: skipped at every worker count, with the reason
    tbb = R.Config("tbb")
    assert not pl.available(tbb, pl.groups[2], inv) and pl.available(tbb, pl.groups[0], inv)
    assert pl.skip_reason(tbb, steal) == (
        R.MISSING, "kernel stress not in `weft-bench-tbb --kernel list`")


def test_plan_skips_per_worker_count(tmp_path):
    opts = cli.parse_args(["--mode", "test", "--workers", "1,2", "--out", str(tmp_path),
                           "--kernels", "fib", "--systems", "serial,tbb"])
    inv = fake_inventory(["serial", "tbb"], {"*": ["fib"]})
    pl = planning.build_plan(opts, inv, policies=["default"])
    tbb = R.Config("tbb")
    pl.skipped[("tbb", "fib", "", 1)] = (R.OVER_CAP, "over")
    assert not pl.available(tbb, pl.groups[0], inv)
    assert pl.available(tbb, pl.groups[1], inv)


def test_nar_group_is_opt_in(env, capsys):
    """The NAR kernels run only when asked for (quick mode's budget: options.KERNEL_GROUPS)."""
    env.only(["serial"])
    nar = ["mmtemp", "strassen", "dtree", "fft", "meshspmv"]

    def planned(*args):
        assert env.run("--workers", "1", "--steal-cost", "none", "--dry-run", *args) == 0
        err = capsys.readouterr().err
        return [line.split()[0] for line in err.splitlines() if line.endswith(": serial")]

    default = planned()
    assert len(default) == 13 and not set(nar) & set(default)
    assert planned("--kernels", "all") == default
    assert planned("--kernels", "nar") == nar
    assert planned("--kernels", "fib,nar,fft") == ["fib"] + nar
    assert planned("--kernels", "all,nar") == default + nar

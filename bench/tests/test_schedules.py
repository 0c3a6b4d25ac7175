"""OpenMP's schedule(dynamic) as a column beside each OpenMP system (KERNELS.md, "Variants":
the flat-loop kernels' `--variant dynamic`), in the groups of the kernels that
`BIN --kernel list --variant dynamic` names, and only there."""
from conftest import fake_bench
from weftbench import cli, plan as planning

OMP_LABELS = ["omp-gcc", "omp-gcc:dynamic", "omp-clang", "omp-clang:dynamic"]


def test_binaries_list_the_kernels_that_have_a_variant(env, capsys):
    env.configure({"kernels": ["fib", "stream", "stencil"]})
    assert fake_bench.main(["--system", "omp-gcc", "--kernel", "list", "--variant",
                            "dynamic"]) == 0
    assert capsys.readouterr().out.split() == ["stencil", "stream"]
    assert fake_bench.main(["--system", "weft", "--kernel", "list", "--variant", "dynamic"]) == 0
    assert capsys.readouterr().out.split() == []


def test_dynamic_columns_run_the_flat_kernels_only(env):
    env.configure({"kernels": ["fib", "stream"]})
    env.only(["serial", "weft", "omp-gcc", "omp-clang"])
    assert env.run("--kernels", "fib,stream", "--workers", "1,2",
                   "--systems", "serial,weft,omp") == 0
    labels = [c["label"] for c in env.results()["configs"]]
    assert labels == ["serial", "weft:default"] + OMP_LABELS
    calls = env.calls()
    # the column passes --variant dynamic to its system's binary, in the group of stream
    assert "omp-gcc/stream/2 dynamic" in calls and "omp-clang/stream/1 dynamic" in calls
    assert "omp-gcc/stream/2 -" in calls
    # fib has no such variant: known from the listing, so never run
    assert not [c for c in calls if c.startswith("omp") and "/fib/" in c and "dynamic" in c]
    for w in (1, 2):
        assert env.median("stream", w, "omp-gcc:dynamic")["status"] == "ok"
        m = env.median("fib", w, "omp-clang:dynamic")
        assert m["status"] == "missing"
        assert "kernel fib has no variant 'dynamic'" in m["reason"]
    run = next(r for r in env.results()["runs"] if r["label"] == "omp-gcc:dynamic")
    assert run["system"] == "omp-gcc" and run["variant"] == ""
    assert "--variant dynamic" in run["command"]


def test_no_dynamic_column_without_a_flat_kernel(env, capsys):
    env.configure({"kernels": ["fib", "stream"]})
    env.only(["serial", "omp-gcc"])
    assert env.run("--kernels", "fib", "--workers", "1", "--systems", "serial,omp-gcc",
                   "--dry-run") == 0
    assert "  fib P=1: serial omp-gcc\n" in capsys.readouterr().err


def test_steal_cost_groups_have_no_dynamic_column(env):
    env.configure({"kernels": ["stress", "stream"]})
    env.only(["serial", "weft", "omp-gcc"])
    opts = cli.parse_args(env.args("--workers", "1", "--systems", "serial,weft,omp-gcc"))
    inv = planning.discover(opts)
    plan = planning.build_plan(opts, inv)
    steal = [g for g in plan.groups if g.variant]
    assert steal and all(c.label in ("weft:default", "omp-gcc") for g in steal
                         for c in g.configs)
    assert [c.label for c in plan.configs] == ["serial", "weft:default", "omp-gcc",
                                               "omp-gcc:dynamic"]


def test_binary_whose_list_ignores_the_variant(env):
    # an older binary lists every kernel for --variant dynamic: the column is planned for
    # all of them, and the kernels without the variant answer exit 2 (missing, no failure)
    env.configure({"kernels": ["fib", "stream"], "old_variant_list": ["omp-gcc"]})
    env.only(["serial", "omp-gcc"])
    assert env.run("--kernels", "fib,stream", "--workers", "1",
                   "--systems", "serial,omp-gcc") == 0
    m = env.median("fib", 1, "omp-gcc:dynamic")
    assert m["status"] == "missing" and "fake_bench: kernel fib has no variant" in m["reason"]
    assert env.median("stream", 1, "omp-gcc:dynamic")["status"] == "ok"


def test_no_column_where_the_binary_lists_no_kernel_for_it(env):
    env.configure({"kernels": ["stream"], "no_variant": ["omp-gcc"]})
    env.only(["serial", "omp-gcc"])
    assert env.run("--kernels", "stream", "--workers", "1", "--systems", "serial,omp-gcc") == 0
    assert [c["label"] for c in env.results()["configs"]] == ["serial", "omp-gcc"]

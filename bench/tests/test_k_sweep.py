"""bench/tools/k_sweep.py's options: a malformed list or count is refused by argparse with a line
naming the option (exit 2), before any binary is looked for or run, never a Python traceback."""
import pytest

import k_sweep


@pytest.mark.parametrize("option, value", [
    ("--ks", "1,x"), ("--ks", "1,,2"), ("--ks", "-5"), ("--ks", "0"), ("--ks", ""),
    ("--runs", "0"), ("--workers", "two"),
])
def test_malformed_options_are_refused_naming_the_option(option, value, capsys):
    with pytest.raises(SystemExit) as e:
        k_sweep.main([option, value, "--build-dir", "no-such-build"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}:" in err and "Traceback" not in err


def test_a_well_formed_list_gets_to_the_binary_check():
    # the options parse; the run stops at the missing binary (its own message), not at --ks
    with pytest.raises(SystemExit) as e:
        k_sweep.main(["--ks", "1000,4000", "--build-dir", "no-such-build"])
    assert "not found" in str(e.value.code)

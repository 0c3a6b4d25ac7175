//! The command-line protocol of bench/KERNELS.md, through the built binaries.

use std::process::Command;

const BINS: [(&str, &str); 2] = [
    ("rayon", env!("CARGO_BIN_EXE_weft-bench-rayon")),
    ("chili", env!("CARGO_BIN_EXE_weft-bench-chili")),
];

/// Runs `bin` with a command line written as one string, split at spaces (no argument here has
/// one): the cases below read as the commands they are.
fn run_line(bin: &str, line: &str) -> (i32, String, String) {
    run(bin, &line.split_whitespace().collect::<Vec<_>>())
}

fn run(bin: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin)
        .args(args)
        .output()
        .expect("cannot run the binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn list_prints_the_kernels() {
    for (_, bin) in BINS {
        let (rc, out, _) = run_line(bin, "--kernel list");
        assert_eq!(rc, 0);
        let names: Vec<&str> = out.lines().collect();
        let mut want = weft_bench::kernels::NAMES.to_vec();
        want.sort_unstable(); // like the C++ binaries
        assert_eq!(names, want);
    }
}

/// `--kernel list --variant V`: only the kernels that accept V (KERNELS.md's listing); the
/// flat-loop kernels' `dynamic` is an OpenMP schedule, so no Rust kernel has it.
#[test]
fn list_with_a_variant() {
    for (_, bin) in BINS {
        let (rc, out, _) = run_line(bin, "--kernel list --variant dynamic");
        assert_eq!((rc, out.as_str()), (0, ""));
        let (rc, out, _) = run_line(bin, "--kernel list --variant steal-cost:10:3");
        assert_eq!((rc, out.as_str()), (0, "stress\n"));
        let (rc, out, _) = run_line(bin, "--kernel list --variant steal-cost:0:3");
        assert_eq!((rc, out.as_str()), (0, ""));
    }
}

#[test]
fn one_json_line() {
    for (system, bin) in BINS {
        let (rc, out, _) = run_line(bin, "--kernel fib --size test --workers 2");
        assert_eq!(rc, 0);
        assert_eq!(out.lines().count(), 1);
        let line = out.trim_end();
        assert!(line.starts_with(&format!(
            "{{\"kernel\":\"fib\",\"system\":\"{system}\",\"policy\":\"\",\"workers\":2,\"size\":\"test\",\"variant\":\"\",\"time_s\":"
        )), "{line}");
        assert!(
            line.ends_with(",\"checksum\":\"610\",\"ok\":true}"),
            "{line}"
        );
        // --key=value works too.
        let (rc, out, _) = run_line(bin, "--kernel=tsp --size=test --workers=1 --variant=");
        assert_eq!(rc, 0);
        assert!(out.contains("\"checksum\":\"1930\""));
    }
}

/// `--reps R`: one line per timed repetition, numbered 0 .. R-1, each with the checksum; the
/// steal-cost variant too.
#[test]
fn reps_print_one_line_each() {
    for (system, bin) in BINS {
        for args in [
            "--kernel fib --size test --workers 2 --reps 3",
            "--kernel stress --size test --workers 2 --variant steal-cost:10:3 --reps 3",
        ] {
            let (rc, out, err) = run_line(bin, args);
            assert_eq!(rc, 0, "{system}: {err}");
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(lines.len(), 3, "{system}: {out}");
            for (i, line) in lines.iter().enumerate() {
                assert!(line.contains(&format!(",\"rep\":{i}")), "{line}");
                assert!(line.contains("\"ok\":true"), "{line}");
                assert!(line.contains("\"time_s\":"), "{line}");
            }
        }
    }
}

#[test]
fn bad_arguments_exit_2() {
    let bad: &[&str] = &[
        "",
        "--kernel nope --size test --workers 1",
        "--kernel fib --size huge --workers 1",
        "--kernel fib --size test --workers 0",
        "--kernel fib --size test --workers x",
        "--kernel fib --size test --workers 1 --reps 0",
        "--kernel fib --size test --workers 1 --reps x",
        "--kernel fib --size test --workers 1 --reps",
        "--kernel fib --size test",
        "--kernel fib --workers 1",
        "--kernel fib --size test --workers 1 --policy lazy-bf",
        "--kernel fib --size test --workers 1 --variant v2",
        "--kernel fib --size test --workers 1 --variant steal-cost:10:2",
        "--kernel stress --size test --workers 1 --variant steal-cost:10",
        "--kernel stress --size test --workers 1 --variant steal-cost:0:2",
        "--kernel stress --size test --workers 1 --variant steal-cost:1:x",
        "--kernel stress --size test --workers 1 --variant steal-cost:-1:2",
        "--kernel stress --size test --workers 1 --variant other",
        "--kernel fib --size test --workers 4097",
        "--kernel fib --size test --workers 1 --bogus",
        "--kernel fib --size test --workers",
        "--kernel fib --kernel fib --size test --workers 1",
    ];
    for (_, bin) in BINS {
        for args in bad {
            let (rc, out, err) = run_line(bin, args);
            assert_eq!(rc, 2, "{args:?}");
            assert!(out.is_empty(), "{args:?}");
            assert!(!err.is_empty(), "{args:?}");
        }
    }
}

#[test]
fn unknown_variant_message() {
    for (_, bin) in BINS {
        let (rc, _, err) = run_line(bin, "--kernel fib --size test --workers 1 --variant v2");
        assert_eq!(rc, 2);
        assert!(err.contains("kernel fib has no variant 'v2'"), "{err}");
    }
}

#[test]
fn help_exits_0() {
    for (_, bin) in BINS {
        let (rc, out, _) = run_line(bin, "--help");
        assert_eq!(rc, 0);
        assert!(out.starts_with("usage:"));
    }
}

/// KERNELS.md, "Variants": stress --variant steal-cost:L:R.
#[test]
fn steal_cost_variant() {
    // (P, h, checksum): the wrapping sum of leaf_work(x, 1000) for x < 20 * 2^h.
    let cases = [
        (1, 0, 10864619486789087262u64),
        (2, 1, 10488604655135972300),
        (3, 2, 12908160183922238936),
    ];
    for (system, bin) in BINS {
        for (p, h, sum) in cases {
            let (rc, out, err) = run_line(
                bin,
                &format!("--kernel stress --size test --workers {p} --variant steal-cost:1000:20"),
            );
            assert_eq!(rc, 0, "{err}");
            let line = out.trim_end();
            assert!(line.starts_with(&format!(
                "{{\"kernel\":\"stress\",\"system\":\"{system}\",\"policy\":\"\",\"workers\":{p},\"size\":\"test\",\"variant\":\"steal-cost:1000:20\",\"time_s\":"
            )), "{line}");
            assert!(
                line.contains(&format!(
                    ",\"checksum\":\"{sum}\",\"ok\":true,\"leaf_time_s\":"
                )),
                "{line}"
            );
            assert!(
                line.ends_with(&format!(
                    ",\"reps\":20,\"leaf_iterations\":1000,\"height\":{h}}}"
                )),
                "{line}"
            );
        }
    }
}

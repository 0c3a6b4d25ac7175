//! Every kernel at test size in both systems, at 1 and 2 workers: the checksum must equal the
//! oracle and the value published in the "Test vectors" section of bench/KERNELS.md.

use weft_bench::cli::{Report, bench};
use weft_bench::kernels::NAMES;
use weft_bench::sys::{Chili, Rayon, Sys};
use weft_bench::{Size, with_kernel};

/// Test-size checksums (bench/KERNELS.md, "Test vectors").
const TEST_CHECKSUMS: [(&str, u64); 17] = [
    ("fib", 610),
    ("nqueens", 92),
    ("stress", 16128158300839927680),
    ("mm", 1319866),
    ("ssf", 2739009671),
    ("spmv", 153),
    ("bfs", 8572754771803),
    ("floyd", 108738),
    ("uts-geo", 2465),
    ("uts-bin", 7753),
    ("tsp", 1930),
    ("mergesort", 13121335397239836023),
    ("quickhull", 73014453510),
    ("treesum", 10956100274788296078),
    ("flat_spmv", 1528),
    ("stencil", 16004711719182964823),
    ("stream", 1501812),
];

fn check_all<S: Sys>() {
    assert_eq!(NAMES.len(), TEST_CHECKSUMS.len());
    for (name, expected) in TEST_CHECKSUMS {
        for workers in [1, 2] {
            let r: Report = with_kernel!(name, bench::<S>(Size::Test, workers)).expect(name);
            assert!(
                r.ok(),
                "{} {name} P={workers}: {:?} != oracle {}",
                S::NAME,
                r.checksum,
                r.expected
            );
            assert_eq!(r.expected, expected, "{} {name}: oracle changed", S::NAME);
        }
    }
}

#[test]
fn all_kernels_rayon() {
    check_all::<Rayon>();
}

#[test]
fn all_kernels_chili() {
    check_all::<Chili>();
}

/// Quick-size checksums (bench/KERNELS.md, "Test vectors"); slow in a debug build:
/// `cargo test --release -- --ignored`.
const QUICK_CHECKSUMS: [(&str, u64); 17] = [
    ("fib", 24157817),
    ("nqueens", 14200),
    ("stress", 10833658938704846848),
    ("mm", 4083904356),
    ("ssf", 2362465349146),
    ("spmv", 18446744073709549616),
    ("bfs", 4294508285094657),
    ("floyd", 2540532),
    ("uts-geo", 10228735),
    ("uts-bin", 16742241),
    ("tsp", 2602),
    ("mergesort", 10113028326545052374),
    ("quickhull", 176115740593),
    ("treesum", 6829836318005101269),
    ("flat_spmv", 48770),
    ("stencil", 18317627092359922844),
    ("stream", 52376375875),
];

fn check_quick<S: Sys>() {
    for (name, expected) in QUICK_CHECKSUMS {
        let r: Report = with_kernel!(name, bench::<S>(Size::Quick, 2)).expect(name);
        assert!(
            r.ok(),
            "{} {name}: {:?} != oracle {}",
            S::NAME,
            r.checksum,
            r.expected
        );
        assert_eq!(r.expected, expected, "{} {name}: oracle changed", S::NAME);
    }
}

#[test]
#[ignore]
fn quick_sizes_rayon() {
    check_quick::<Rayon>();
}

#[test]
#[ignore]
fn quick_sizes_chili() {
    check_quick::<Chili>();
}

#[test]
fn names_in_contract_order() {
    let names: Vec<&str> = TEST_CHECKSUMS.iter().map(|&(n, _)| n).collect();
    assert_eq!(names, NAMES);
}

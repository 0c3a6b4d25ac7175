//! The random numbers must match the C++ side bit for bit: these are the values of the
//! "Test vectors" section of bench/KERNELS.md.

use weft_bench::rng::{SplitMix64, hash2};

#[test]
fn splitmix64_seed1_first_outputs() {
    let mut g = SplitMix64::new(1);
    assert_eq!(g.next_u64(), 0x910A2DEC89025CC1); // 10451216379200822465
    assert_eq!(g.next_u64(), 0xBEEB8DA1658EEC67); // 13757245211066428519
    assert_eq!(g.next_u64(), 0xF893A2EEFB32555E); // 17911839290282890590
    assert_eq!(
        g.state,
        3u64.wrapping_mul(0x9E3779B97F4A7C15).wrapping_add(1)
    );
}

#[test]
fn hash2_19_0() {
    assert_eq!(hash2(19, 0), 0xBC4075F2EF431A44); // 13564971763896621636
    // hash2(a, b) is a generator with state a ^ (b * PHI), stepped once.
    assert_eq!(
        hash2(7, 3),
        SplitMix64::new(7 ^ 3u64.wrapping_mul(0x9E3779B97F4A7C15)).next_u64()
    );
}

#[test]
fn uniform01_and_below() {
    let mut g = SplitMix64::new(1);
    let u = g.uniform01();
    assert_eq!(u, (0x910A2DEC89025CC1u64 >> 11) as f64 / 9007199254740992.0);
    assert_eq!(u.to_bits(), 0x3FE2_2145_BD91_204B); // 0.5665615751722809
    assert_eq!(u, 0.5665615751722809);
    let mut g = SplitMix64::new(1);
    let first: Vec<u64> = (0..5).map(|_| g.below(10)).collect();
    assert_eq!(first, [5, 9, 0, 5, 1]);
}

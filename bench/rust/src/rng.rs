//! The random numbers of bench/KERNELS.md, bit-identical to the C++ side.

/// The golden-ratio increment of splitmix64.
pub const PHI: u64 = 0x9E37_79B9_7F4A_7C15;

/// A splitmix64 generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    pub state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// One step: `state += PHI`, then the output mix.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(PHI);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `(splitmix64(g) >> 11) * 2^-53`, a double in [0, 1).
    #[inline]
    pub fn uniform01(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `splitmix64(g) % n`.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// A generator with state `a ^ (b * PHI)` stepped once: its output.
#[inline]
pub fn hash2(a: u64, b: u64) -> u64 {
    SplitMix64::new(a ^ b.wrapping_mul(PHI)).next_u64()
}

//! The random CSR matrices of spmv and flat_spmv, generated once here: row by row, the row's
//! nonzero count (`nnz_of_row`, which may draw from the generator), then for each nonzero
//! `col = below(g, cols)` and `value = below(g, 17) - 8`; then `x[c] = below(g, 9) - 4` for each
//! of the `cols` columns, from the same generator.

use crate::rng::SplitMix64;

/// A random square or rectangular CSR problem: `reps` products `y = M·x` of a `rows`-row matrix.
pub struct Csr {
    pub rows: usize,
    pub reps: usize,
    pub row_ptr: Vec<usize>,
    pub col: Vec<u32>,
    pub val: Vec<f64>,
    pub x: Vec<f64>,
}

/// The problem from `seed`: `rows` rows over `cols` columns, each row's nonzero count from
/// `nnz_of_row` (which may draw from the generator).
pub fn random_csr(seed: u64, rows: usize, cols: usize, reps: usize, mut nnz_of_row: impl FnMut(&mut SplitMix64) -> usize) -> Csr {
    let mut g = SplitMix64::new(seed);
    let mut row_ptr = Vec::with_capacity(rows + 1);
    let (mut col, mut val) = (Vec::new(), Vec::new());
    row_ptr.push(0);
    for _ in 0..rows {
        let nnz = nnz_of_row(&mut g);
        for _ in 0..nnz {
            col.push(g.below(cols as u64) as u32);
            val.push((g.below(17) as i64 - 8) as f64);
        }
        row_ptr.push(col.len());
    }
    let x = (0..cols).map(|_| (g.below(9) as i64 - 4) as f64).collect();
    Csr { rows, reps, row_ptr, col, val, x }
}

/// The checksum of both kernels: the wrapping sum over rows of `(int64)y[r]`, as u64.
pub fn y_sum(y: &[f64]) -> u64 {
    y.iter().fold(0u64, |s, &v| s.wrapping_add(v as i64 as u64))
}

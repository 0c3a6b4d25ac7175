//! The loop primitives of both systems against their serial meaning.

use weft_bench::sys::{Chili, Rayon, Sys};

fn primitives<S: Sys>(workers: usize) {
    let pool = S::pool(workers);
    S::exec(&pool, |c| {
        for n in [0usize, 1, 2, 3, 7, 1000, 100_003] {
            let sum = S::reduce(c, n, 0u64, |_, i| i as u64, |a, b| a + b);
            assert_eq!(sum, (n as u64) * (n as u64).saturating_sub(1) / 2);

            let hits = std::sync::atomic::AtomicU64::new(0);
            S::for_each(c, n, |_, i| {
                hits.fetch_add(i as u64 + 1, std::sync::atomic::Ordering::Relaxed);
            });
            assert_eq!(hits.into_inner(), (n as u64) * (n as u64 + 1) / 2);

            let mut v = vec![0usize; n];
            S::for_each_mut(c, &mut v, |_, i, x| *x = 3 * i);
            assert!(v.iter().enumerate().all(|(i, &x)| x == 3 * i));
        }
        for (rows, row) in [(0usize, 4usize), (1, 5), (13, 3), (64, 64)] {
            let mut m = vec![0usize; rows * row];
            S::for_rows_mut(c, &mut m, row, |_, i, r| {
                assert_eq!(r.len(), row);
                r.iter_mut()
                    .enumerate()
                    .for_each(|(j, x)| *x = i * 1000 + j);
            });
            assert!(
                m.iter()
                    .enumerate()
                    .all(|(k, &x)| x == (k / row) * 1000 + k % row)
            );
        }
        // Nested: a join inside a reduce inside a join.
        let (a, b) = S::join(
            c,
            |c| {
                S::reduce(
                    c,
                    100,
                    0u64,
                    |c, i| {
                        let (x, y) = S::join(c, |_| i as u64, |_| 1u64);
                        x + y
                    },
                    |a, b| a + b,
                )
            },
            |_| 7u64,
        );
        assert_eq!((a, b), (4950 + 100, 7));
    });
}

#[test]
fn rayon_primitives() {
    primitives::<Rayon>(1);
    primitives::<Rayon>(2);
}

#[test]
fn chili_primitives() {
    primitives::<Chili>(1);
    primitives::<Chili>(2);
}

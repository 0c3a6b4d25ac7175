//! The kernels of bench/KERNELS.md, each generic over the parallel system.

pub mod bfs;
pub mod csr;
pub mod fib;
pub mod flat_spmv;
pub mod floyd;
pub mod mergesort;
pub mod mm;
pub mod nqueens;
pub mod quickhull;
pub mod spmv;
pub mod ssf;
pub mod stencil;
pub mod stream;
pub mod stress;
pub mod treesum;
pub mod tsp;
pub mod uts;

/// The kernel names, in the order of KERNELS.md.
pub const NAMES: [&str; 17] = [
    "fib",
    "nqueens",
    "stress",
    "mm",
    "ssf",
    "spmv",
    "bfs",
    "floyd",
    "uts-geo",
    "uts-bin",
    "tsp",
    "mergesort",
    "quickhull",
    "treesum",
    "flat_spmv",
    "stencil",
    "stream",
];

/// Calls `$f::<Kernel>($args)` for the kernel named `$name`; `None` for an unknown name.
#[macro_export]
macro_rules! with_kernel {
    ($name:expr, $f:ident $(:: <$($g:ty),*>)? ($($args:expr),*)) => {{
        use $crate::kernels::*;
        match $name {
            "fib" => Some($f::<fib::Fib $($(, $g)*)?>($($args),*)),
            "nqueens" => Some($f::<nqueens::NQueens $($(, $g)*)?>($($args),*)),
            "stress" => Some($f::<stress::Stress $($(, $g)*)?>($($args),*)),
            "mm" => Some($f::<mm::Mm $($(, $g)*)?>($($args),*)),
            "ssf" => Some($f::<ssf::Ssf $($(, $g)*)?>($($args),*)),
            "spmv" => Some($f::<spmv::Spmv $($(, $g)*)?>($($args),*)),
            "bfs" => Some($f::<bfs::Bfs $($(, $g)*)?>($($args),*)),
            "floyd" => Some($f::<floyd::Floyd $($(, $g)*)?>($($args),*)),
            "uts-geo" => Some($f::<uts::UtsGeo $($(, $g)*)?>($($args),*)),
            "uts-bin" => Some($f::<uts::UtsBin $($(, $g)*)?>($($args),*)),
            "tsp" => Some($f::<tsp::Tsp $($(, $g)*)?>($($args),*)),
            "mergesort" => Some($f::<mergesort::Mergesort $($(, $g)*)?>($($args),*)),
            "quickhull" => Some($f::<quickhull::Quickhull $($(, $g)*)?>($($args),*)),
            "treesum" => Some($f::<treesum::TreeSum $($(, $g)*)?>($($args),*)),
            "flat_spmv" => Some($f::<flat_spmv::FlatSpmv $($(, $g)*)?>($($args),*)),
            "stencil" => Some($f::<stencil::Stencil $($(, $g)*)?>($($args),*)),
            "stream" => Some($f::<stream::Stream $($(, $g)*)?>($($args),*)),
            _ => None,
        }
    }};
}

//! The Rayon variants of the weft benchmark kernels (bench/KERNELS.md).
fn main() {
    std::process::exit(weft_bench::cli::main::<weft_bench::sys::Rayon>());
}

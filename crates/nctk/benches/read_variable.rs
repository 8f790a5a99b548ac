//! The whole of one float variable read through the Rust crate into a
//! fresh vector, best of N: the
//! reference the Python package's benchmark (`python/benches/bench.py`)
//! measures `engine="nctk"` against ("within 1.2x of the same read through
//! the Rust crate").
//!
//! Run: `cargo bench -p nctk --bench read_variable -- FILE VAR [RUNS]`;
//! prints the best time in seconds. With no arguments (as `cargo bench`
//! runs every bench) it does nothing.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let [file, var, rest @ ..] = args.as_slice() else {
        return;
    };
    let runs: usize = rest
        .first()
        .map_or(5, |r| r.parse().expect("RUNS: a number"));
    let ds = nctk::open(file).expect("open");
    let v = ds.variable(var).expect("no such variable");
    let mut best = f64::MAX;
    for _ in 0..runs {
        // A fresh buffer each time, as a Python read allocates its array.
        let t0 = Instant::now();
        let values: Vec<f32> = v.get_values(..).expect("read");
        best = best.min(t0.elapsed().as_secs_f64());
        std::hint::black_box(&values);
    }
    println!("{best:.4}");
}

//! `nctk_codec::half` against numpy's `float16`: every half to single, and
//! singles (ties, subnormals, overflow) to half.

use nctk_codec::half::{f16_to_f32, f32_to_f16};
use nctk_test_support::require;

/// Every half's bits, as numpy widens them to float32 (hex bits per line).
const WIDEN: &str = "import numpy as np
h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
print('\\n'.join('%08x' % b for b in h.astype(np.float32).view(np.uint32)))";

/// Singles read from argv as hex bits, narrowed by numpy.
const NARROW: &str = "import sys, numpy as np
f = np.array([int(a, 16) for a in sys.argv[1:]], dtype=np.uint32).view(np.float32)
print('\\n'.join('%04x' % b for b in f.astype(np.float16).view(np.uint16)))";

fn hex_lines(text: &str) -> Vec<u32> {
    text.lines()
        .map(|l| u32::from_str_radix(l, 16).unwrap())
        .collect()
}

#[test]
fn every_half_widens_as_numpy_does() {
    let Some(out) = require::python_output(&["numpy"], WIDEN, Vec::<String>::new()) else {
        return;
    };
    let numpy = hex_lines(&out);
    assert_eq!(numpy.len(), 65536);
    for (h, bits) in numpy.into_iter().enumerate() {
        let ours = f16_to_f32(h as u16);
        if ours.is_nan() {
            assert!(f32::from_bits(bits).is_nan(), "{h:#06x}");
        } else {
            assert_eq!(ours.to_bits(), bits, "{h:#06x}");
        }
    }
}

#[test]
fn singles_narrow_as_numpy_does() {
    // Every half, the midpoints between neighbours (ties to even), points
    // just off them, subnormals, overflow and a spread of bit patterns.
    let mut singles: Vec<f32> = vec![65504.0, 65520.0, 65519.99, 1e10, -1e-10, 5.9e-8, 2.98e-8];
    for h in (0u16..0x7c00).step_by(7) {
        let a = f16_to_f32(h);
        let b = f16_to_f32(h + 1);
        let mid = (a + b) / 2.0;
        singles.extend([a, -a, mid, -mid, f32::from_bits(mid.to_bits() + 1)]);
    }
    singles.extend((0..4000u32).map(|i| f32::from_bits(i.wrapping_mul(0x9e37_79b9) & 0x7f7f_ffff)));
    let args: Vec<String> = singles
        .iter()
        .map(|f| format!("{:x}", f.to_bits()))
        .collect();
    let Some(out) = require::python_output(&["numpy"], NARROW, &args) else {
        return;
    };
    let numpy = hex_lines(&out);
    assert_eq!(numpy.len(), singles.len());
    for (f, bits) in singles.iter().zip(numpy) {
        assert_eq!(
            u32::from(f32_to_f16(*f)),
            bits,
            "{f:e} ({:#010x})",
            f.to_bits()
        );
    }
}

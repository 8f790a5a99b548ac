//! A little-endian byte builder for the encoders, the writing twin of
//! [`crate::io::Cursor`]. Offsets and lengths are 8 bytes wide, as the
//! files this writer makes declare in their superblock.

/// The undefined address (all bits set).
pub const UNDEFINED: u64 = u64::MAX;

/// Bytes being encoded, little-endian.
#[derive(Debug, Default, Clone)]
pub struct Enc {
    buf: Vec<u8>,
}

impl Enc {
    /// An empty buffer.
    pub fn new() -> Enc {
        Enc::default()
    }

    /// The bytes encoded so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// How many bytes are encoded.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing is encoded.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Appends one byte.
    pub fn u8(&mut self, v: u8) -> &mut Enc {
        self.buf.push(v);
        self
    }

    /// Appends a 2-byte number.
    pub fn u16(&mut self, v: u16) -> &mut Enc {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends a 4-byte number.
    pub fn u32(&mut self, v: u32) -> &mut Enc {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends an 8-byte number (an address or a length).
    pub fn u64(&mut self, v: u64) -> &mut Enc {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends the low `width` bytes of `v`.
    pub fn uint(&mut self, v: u64, width: usize) -> &mut Enc {
        self.buf.extend_from_slice(&v.to_le_bytes()[..width]);
        self
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) -> &mut Enc {
        self.buf.extend_from_slice(b);
        self
    }

    /// Appends `n` zero bytes.
    pub fn zeros(&mut self, n: usize) -> &mut Enc {
        self.buf.resize(self.buf.len() + n, 0);
        self
    }

    /// Appends the lookup3 checksum of everything encoded so far.
    pub fn checksum(&mut self) -> &mut Enc {
        let sum = crate::checksum::lookup3(&self.buf);
        self.u32(sum)
    }
}

/// The fewest bytes (1, 2, 4 or 8) that hold `v`, as a power-of-two code
/// (0 to 3): the width code of version-2 object header and link fields.
pub fn width_code(v: u64) -> u8 {
    match v {
        0..=0xff => 0,
        0x100..=0xffff => 1,
        0x1_0000..=0xffff_ffff => 2,
        _ => 3,
    }
}

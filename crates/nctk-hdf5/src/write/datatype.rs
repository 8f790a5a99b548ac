//! The datatype message (type 3) for the classes netCDF uses: fixed-point
//! integers, IEEE floats, fixed-length and variable-length strings,
//! object references, opaque types and variable-length sequences
//! (version 1), compounds, enums and arrays (version 3); and the shared
//! form that refers to a committed datatype.

use super::encode::Enc;
use super::error::{WriteError, WriteResult};
use crate::datatype::{Datatype, ReferenceKind, StringPadding};

/// The encoded datatype message body of `dt`.
pub fn encode(dt: &Datatype) -> WriteResult<Vec<u8>> {
    let mut e = Enc::new();
    match dt {
        Datatype::Integer {
            size,
            signed,
            big_endian,
        } => {
            let flags = u8::from(*big_endian) | (u8::from(*signed) << 3);
            header(&mut e, 0, [flags, 0, 0], *size);
            e.u16(0).u16(bits(*size)?);
        }
        Datatype::Float { size, big_endian } => {
            // (sign location, exponent location, size, mantissa size, bias)
            let (sign, exp_loc, exp_size, mant_size, bias) = match size {
                4 => (31, 23, 8, 23, 127),
                8 => (63, 52, 11, 52, 1023),
                _ => return Err(unsupported(dt)),
            };
            // Mantissa normalization "implied most significant bit" (bits 4-5 = 2).
            header(&mut e, 1, [u8::from(*big_endian) | 0x20, sign, 0], *size);
            e.u16(0)
                .u16(bits(*size)?)
                .u8(exp_loc)
                .u8(exp_size)
                .u8(0)
                .u8(mant_size)
                .u32(bias);
        }
        Datatype::String {
            size,
            padding,
            utf8,
        } => header(&mut e, 3, [string_flags(*padding, *utf8), 0, 0], *size),
        Datatype::VarString { padding, utf8 } => {
            // Variable-length (class 9), type 1 = string, then the base: a
            // one-byte unsigned character (netCDF-C's base: H5T_NATIVE_UCHAR
            // as a 1-byte string of the same padding and character set).
            let flags = 1 | (padding_code(*padding) << 4);
            header(&mut e, 9, [flags, u8::from(*utf8), 0], 16);
            let base = Datatype::String {
                size: 1,
                padding: *padding,
                utf8: *utf8,
            };
            e.bytes(&encode(&base)?);
        }
        Datatype::Reference {
            size: 8,
            kind: ReferenceKind::Object,
        } => header(&mut e, 7, [0, 0, 0], 8),
        Datatype::VarLen { base } => {
            header(&mut e, 9, [0, 0, 0], 16);
            e.bytes(&encode(base)?);
        }
        Datatype::Opaque { size, tag } => {
            // The tag, null-padded to a multiple of eight bytes.
            let padded = tag.len().div_ceil(8) * 8;
            let len = u8::try_from(padded).map_err(|_| unsupported(dt))?;
            header(&mut e, 5, [len, 0, 0], *size);
            e.bytes(tag.as_bytes()).zeros(padded - tag.len());
        }
        Datatype::Enum { base, members } => {
            let count = u16::try_from(members.len()).map_err(|_| unsupported(dt))?;
            let [lo, hi] = count.to_le_bytes();
            e.u8(0x30 | 8).bytes(&[lo, hi, 0]).u32(base.size());
            e.bytes(&encode(base)?);
            for (name, _) in members {
                e.bytes(name.as_bytes()).u8(0);
            }
            for (_, value) in members {
                e.bytes(value);
            }
        }
        Datatype::Array { dims, base } => {
            let rank = u8::try_from(dims.len()).map_err(|_| unsupported(dt))?;
            e.u8(0x30 | 10).bytes(&[0, 0, 0]).u32(dt.size());
            e.u8(rank);
            for &d in dims {
                e.u32(d);
            }
            e.bytes(&encode(base)?);
        }
        Datatype::Compound { size, members } => {
            let count = u16::try_from(members.len()).map_err(|_| unsupported(dt))?;
            e.u8(0x30 | 6).u16(count).u8(0).u32(*size);
            let width = (size.max(&1).ilog2() / 8 + 1) as usize;
            for m in members {
                e.bytes(m.name.as_bytes()).u8(0);
                e.uint(u64::from(m.offset), width);
                e.bytes(&encode(&m.datatype)?);
            }
        }
        _ => return Err(unsupported(dt)),
    }
    Ok(e.into_bytes())
}

/// The body of a datatype message that refers to the committed datatype
/// whose object header is at `addr` (a shared message, version 3, kept
/// in another object's header).
pub fn encode_shared(addr: u64) -> Vec<u8> {
    let mut e = Enc::new();
    e.u8(3).u8(2).u64(addr);
    e.into_bytes()
}

fn header(e: &mut Enc, class: u8, flags: [u8; 3], size: u32) {
    e.u8(0x10 | class).bytes(&flags).u32(size);
}

fn bits(size: u32) -> WriteResult<u16> {
    u16::try_from(size * 8).map_err(|_| WriteError::Invalid(format!("a {size}-byte number")))
}

fn padding_code(p: StringPadding) -> u8 {
    match p {
        StringPadding::NullTerminate => 0,
        StringPadding::NullPad => 1,
        StringPadding::SpacePad => 2,
    }
}

fn string_flags(p: StringPadding, utf8: bool) -> u8 {
    padding_code(p) | (u8::from(utf8) << 4)
}

fn unsupported(dt: &Datatype) -> WriteError {
    WriteError::Unsupported(format!("the HDF5 datatype {dt:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(dt: Datatype) {
        let body = encode(&dt).unwrap();
        let ctx = super::super::test_ctx(&body);
        let mut cur = ctx.cursor(&body, 0, "datatype");
        assert_eq!(Datatype::parse(&mut cur).unwrap(), dt);
    }

    #[test]
    fn atomic_types_read_back_as_written() {
        for size in [1, 2, 4, 8] {
            for signed in [false, true] {
                for big_endian in [false, true] {
                    round_trip(Datatype::Integer {
                        size,
                        signed,
                        big_endian,
                    });
                }
            }
        }
        for size in [4, 8] {
            round_trip(Datatype::Float {
                size,
                big_endian: false,
            });
        }
        round_trip(Datatype::String {
            size: 7,
            padding: StringPadding::NullTerminate,
            utf8: false,
        });
        let reference = Datatype::Reference {
            size: 8,
            kind: ReferenceKind::Object,
        };
        round_trip(Datatype::VarLen {
            base: Box::new(reference.clone()),
        });
        round_trip(Datatype::Compound {
            size: 16,
            members: vec![
                crate::CompoundMember {
                    name: "dataset".into(),
                    offset: 0,
                    datatype: reference,
                },
                crate::CompoundMember {
                    name: "dimension".into(),
                    offset: 8,
                    datatype: Datatype::Integer {
                        size: 4,
                        signed: true,
                        big_endian: false,
                    },
                },
            ],
        });
        round_trip(Datatype::VarString {
            padding: StringPadding::NullTerminate,
            utf8: true,
        });
    }

    #[test]
    fn user_types_read_back_as_written() {
        let int = |size| Datatype::Integer {
            size,
            signed: true,
            big_endian: false,
        };
        round_trip(Datatype::Opaque {
            size: 11,
            tag: String::new(),
        });
        round_trip(Datatype::Opaque {
            size: 3,
            tag: "raw".into(),
        });
        round_trip(Datatype::Enum {
            base: Box::new(int(2)),
            members: vec![("a".into(), vec![1, 0]), ("bee".into(), vec![0xff, 0xff])],
        });
        let array = Datatype::Array {
            dims: vec![2, 3],
            base: Box::new(int(4)),
        };
        let inner = Datatype::Compound {
            size: 28,
            members: vec![
                crate::CompoundMember {
                    name: "x".into(),
                    offset: 0,
                    datatype: int(4),
                },
                crate::CompoundMember {
                    name: "m".into(),
                    offset: 4,
                    datatype: array,
                },
            ],
        };
        round_trip(Datatype::Compound {
            size: 48,
            members: vec![
                crate::CompoundMember {
                    name: "in".into(),
                    offset: 0,
                    datatype: inner,
                },
                crate::CompoundMember {
                    name: "v".into(),
                    offset: 32,
                    datatype: Datatype::VarLen {
                        base: Box::new(int(8)),
                    },
                },
            ],
        });
    }
}

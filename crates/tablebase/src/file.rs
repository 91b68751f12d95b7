//! The tablebase file: a 32-byte header, then one byte per entry.
//!
//! Header, little-endian: the magic `BAGHCHTB`, the format version (u32),
//! goats on the board before any capture (u8), the capture target (u8), two
//! zero bytes, the length of the values (u64) and their checksum (u64).

use std::io;

use crate::build::STEP_BYTES;
use crate::Shape;

/// Bytes before the values.
pub(crate) const HEADER: usize = 32;
const MAGIC: &[u8; 8] = b"BAGHCHTB";
const VERSION: u32 = 1;

/// A fast 64-bit checksum of the values, eight bytes at a time.
pub(crate) fn checksum(values: &[u8]) -> u64 {
    checksum_in_steps(values, || {})
}

/// [`checksum`], calling `between` before each [`STEP_BYTES`] of it.
fn checksum_in_steps(values: &[u8], mut between: impl FnMut()) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = values.len() as u64;
    let (words, rest) = values.split_at(values.len() / 8 * 8);
    for step in words.chunks(STEP_BYTES) {
        between();
        for chunk in step.chunks_exact(8) {
            let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            h = (h.rotate_left(23) ^ w).wrapping_mul(K);
        }
    }
    for &b in rest {
        h = (h.rotate_left(23) ^ b as u64).wrapping_mul(K);
    }
    h ^ h >> 29
}

/// The whole file: `bytes` holds [`HEADER`] bytes of room, then the
/// values; the header is written over the room. `between` is called
/// between the steps of the checksum.
pub(crate) fn seal(shape: Shape, bytes: &mut [u8], between: impl FnMut()) {
    let (header, values) = bytes.split_at_mut(HEADER);
    let sum = checksum_in_steps(values, between);
    header[..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&VERSION.to_le_bytes());
    header[12..16].copy_from_slice(&[shape.goats as u8, shape.target as u8, 0, 0]);
    header[16..24].copy_from_slice(&(values.len() as u64).to_le_bytes());
    header[24..32].copy_from_slice(&sum.to_le_bytes());
}

fn invalid(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why)
}

/// Checks a whole file: its header, its size against `expected_len` of the
/// shape it names, and the checksum. Returns the shape.
pub(crate) fn check(bytes: &[u8], expected_len: impl Fn(Shape) -> usize) -> io::Result<Shape> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(invalid("not a tablebase file".into()));
    }
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(invalid(format!(
            "tablebase format version {version}, expected {VERSION}"
        )));
    }
    let shape = Shape {
        goats: bytes[12] as u32,
        target: bytes[13] as u32,
    };
    if !shape.is_valid() {
        return Err(invalid(format!(
            "a tablebase of an unknown shape {shape:?}"
        )));
    }
    let expected = expected_len(shape);
    if bytes.len() != expected || word(16) != (expected - HEADER) as u64 {
        return Err(invalid(format!(
            "the tablebase file has {} bytes, expected {expected}",
            bytes.len()
        )));
    }
    if checksum(&bytes[HEADER..]) != word(24) {
        return Err(invalid("the tablebase file is corrupt (checksum)".into()));
    }
    Ok(shape)
}

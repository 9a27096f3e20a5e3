//! Short byte strings packed in one `u128`, hashed and compared as that
//! integer: the values of a log (numbers, names, addresses) and its event
//! names are mostly that short. A string's bytes and length go into one
//! word with two overlapping loads per half and no call to `memcpy`;
//! comparing two such words replaces a call to `memcmp`. At every event
//! the monitor looks its values up in the enumeration classes
//! ([`super::enumeration`]): on `gen_access.py`'s log of 50,000 users, 3%
//! of the instructions went to hashing them as bytes and comparing them
//! with `memcmp`.

/// The longest byte string packed in a `u128`: its bytes from the lowest
/// byte, then its length in the highest.
pub const SHORT: usize = 15;

/// `bytes` packed in a `u128` (its bytes from the lowest byte, its length
/// in the highest), if it has at most [`SHORT`] bytes.
#[inline(always)]
pub fn pack(bytes: &[u8]) -> Option<u128> {
    let n = bytes.len();
    if n > SHORT {
        return None;
    }
    let (low, high) = bytes.split_at(n.min(8));
    Some(load(low) as u128 | (load(high) as u128) << 64 | (n as u128) << 120)
}

/// The at most 8 bytes of `b` as a little-endian `u64`, read by two
/// overlapping loads (or three single bytes), not copied.
#[inline(always)]
fn load(b: &[u8]) -> u64 {
    let n = b.len();
    if let (Some(first), Some(last)) = (b.first_chunk::<4>(), b.last_chunk::<4>()) {
        // Bytes `4 - (8 - n) ..` of `last` repeat those of `first`.
        u32::from_le_bytes(*first) as u64 | (u32::from_le_bytes(*last) as u64) << (8 * (n - 4))
    } else if n > 0 {
        b[0] as u64 | (b[n / 2] as u64) << (8 * (n / 2)) | (b[n - 1] as u64) << (8 * (n - 1))
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pack` as a copy would make it.
    fn copied(bytes: &[u8]) -> u128 {
        let mut word = [0u8; 16];
        word[..bytes.len()].copy_from_slice(bytes);
        word[15] = bytes.len() as u8;
        u128::from_le_bytes(word)
    }

    #[test]
    fn packing_reads_every_byte_and_the_length() {
        let bytes: Vec<u8> = (1..=16).map(|b| b * 17).collect();
        for n in 0..=SHORT {
            assert_eq!(pack(&bytes[..n]), Some(copied(&bytes[..n])), "length {n}");
            // Each byte counts: changing one changes the word.
            for i in 0..n {
                let mut other = bytes[..n].to_vec();
                other[i] ^= 1;
                assert_ne!(pack(&other), pack(&bytes[..n]), "length {n}, byte {i}");
            }
        }
        assert_eq!(pack(&bytes), None);
        // Zero bytes are told apart by the length.
        assert_ne!(pack(b""), pack(b"\0"));
        assert_ne!(pack(b"a"), pack(b"a\0"));
    }
}

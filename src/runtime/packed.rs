//! Short byte strings packed in one `u128`, hashed and compared as that
//! integer: the values of a log (numbers, names, addresses) are mostly
//! that short. At every event the monitor looks its values up in the
//! enumeration classes ([`super::enumeration`]): on `gen_access.py`'s log
//! of 50,000 users, 3% of the instructions went to hashing them as bytes
//! and comparing them with `memcmp`. Comparing two words replaces the call
//! to `memcmp`, and hashing one is a few multiplications. Packing copies
//! the bytes with `memcpy`: loading them by overlapping words instead, with
//! no call, took more instructions for its branches on the length (447 M
//! against 433 M in the lookups on that log).

/// The longest byte string packed in a `u128`: its bytes from the lowest
/// byte, then its length in the highest.
pub const SHORT: usize = 15;

/// `bytes` packed in a `u128` (its bytes from the lowest byte, its length
/// in the highest), if it has at most [`SHORT`] bytes.
#[inline(always)]
pub fn pack(bytes: &[u8]) -> Option<u128> {
    if bytes.len() > SHORT {
        return None;
    }
    let mut word = [0u8; 16];
    word.get_mut(..bytes.len())?.copy_from_slice(bytes);
    word[SHORT] = bytes.len() as u8;
    Some(u128::from_le_bytes(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_reads_every_byte_and_the_length() {
        // The bytes from the lowest, the length in the highest byte.
        assert_eq!(pack(b"ab"), Some(2 << 120 | 0x6261));
        assert_eq!(pack(b""), Some(0));
        let bytes: Vec<u8> = (1..=16).map(|b| b * 17).collect();
        for n in 0..=SHORT {
            let word = pack(&bytes[..n]).map(u128::to_le_bytes);
            let mut expected = [0u8; 16];
            expected[..n].copy_from_slice(&bytes[..n]);
            expected[SHORT] = n as u8;
            assert_eq!(word, Some(expected), "length {n}");
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

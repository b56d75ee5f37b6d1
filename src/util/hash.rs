//! SHA-256 digests written as lower-case hex: cache keys, file hashes in
//! manifests, prompt hashes in provenance records.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

/// Lower-case hex of bytes (`[0xab, 0x01]` → `"ab01"`).
pub fn to_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Lower-case hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    to_hex(&Sha256::digest(bytes))
}

/// Lower-case hex SHA-256 of several parts, each followed by a NUL byte so
/// that `["ab", "c"]` and `["a", "bc"]` differ.
pub fn sha256_hex_of_parts<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
        hasher.update([0]);
    }
    to_hex(&hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(to_hex(&[0xab, 0x01, 0x00]), "ab0100");
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(sha256_hex(b"").len(), 64);
    }

    #[test]
    fn parts_are_separated() {
        let a = sha256_hex_of_parts([b"ab".as_slice(), b"c".as_slice()]);
        let b = sha256_hex_of_parts([b"a".as_slice(), b"bc".as_slice()]);
        assert_ne!(a, b);
        assert_eq!(sha256_hex_of_parts([b"x".as_slice()]), sha256_hex(b"x\0"));
    }
}

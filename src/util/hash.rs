//! SHA-256 digests written as lower-case hex: cache keys, file hashes in
//! manifests, prompt hashes in provenance records.

use std::fmt::Write as _;
use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::embedded;

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

/// Lower-case hex SHA-256 and length of a file's bytes, read in pieces (an
/// embedded file's bytes as stored in the repository).
pub fn sha256_file(path: &Path) -> io::Result<(String, u64)> {
    sha256_reader(embedded::open_bytes(path)?)
}

/// Lower-case hex SHA-256 and length of what a reader gives, read in pieces.
pub fn sha256_reader(mut reader: impl Read) -> io::Result<(String, u64)> {
    let (mut hasher, mut length) = (Sha256::new(), 0);
    let mut buffer = vec![0; 1 << 16];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => return Ok((to_hex(&hasher.finalize()), length)),
            Ok(read) => {
                hasher.update(&buffer[..read]);
                length += read as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
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
    fn files_hash_as_their_bytes_embedded_or_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("abc.txt");
        std::fs::write(&path, b"abc").unwrap();
        let (digest, len) = sha256_file(&path).unwrap();
        assert_eq!((digest.as_str(), len), (sha256_hex(b"abc").as_str(), 3));
        let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/sample/tasks.jsonl");
        let embedded = embedded::name("datasets/sample/tasks.jsonl");
        assert_eq!(
            sha256_file(&embedded).unwrap(),
            sha256_file(Path::new(repo)).unwrap()
        );
        assert!(sha256_file(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn parts_are_separated() {
        let a = sha256_hex_of_parts([b"ab".as_slice(), b"c".as_slice()]);
        let b = sha256_hex_of_parts([b"a".as_slice(), b"bc".as_slice()]);
        assert_ne!(a, b);
        assert_eq!(sha256_hex_of_parts([b"x".as_slice()]), sha256_hex(b"x\0"));
    }
}

//! SHA-256 digests written as lower-case hex: cache keys, file hashes in
//! manifests, prompt hashes in provenance records.

use std::fmt::Write as _;
use std::io::{self, Read};
use std::path::Path;
use std::sync::{Arc, Mutex};

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
    let (mut reader, digest) = open_hashed(path)?;
    io::copy(&mut reader, &mut io::sink())?;
    Ok(digest.finish())
}

/// Opens a file as [`embedded::open`] does, hashing every byte read from
/// it, the byte order mark included: once the reader reached the end,
/// [`ReadDigest::finish`] gives what [`sha256_file`] gives, without a
/// second pass over the file and of exactly the bytes that were read.
pub fn open_hashed(path: &Path) -> io::Result<(Box<dyn Read + Send>, ReadDigest)> {
    let digest = ReadDigest::default();
    let hashing = HashingReader {
        inner: embedded::open_bytes(path)?,
        digest: digest.clone(),
    };
    Ok((embedded::without_bom(Box::new(hashing))?, digest))
}

/// The SHA-256 and length of the bytes read through a reader of
/// [`open_hashed`], shared with it so that it can be read after the reader
/// was boxed or moved to another thread.
#[derive(Clone, Default)]
pub struct ReadDigest(Arc<Mutex<(Sha256, u64)>>);

impl ReadDigest {
    /// Lower-case hex SHA-256 and length of the bytes read so far.
    pub fn finish(&self) -> (String, u64) {
        let state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        (to_hex(&state.0.clone().finalize()), state.1)
    }
}

/// A reader that adds every byte it reads to a [`ReadDigest`].
struct HashingReader<R> {
    inner: R,
    digest: ReadDigest,
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buffer)?;
        let mut state = self.digest.0.lock().unwrap_or_else(|e| e.into_inner());
        state.0.update(&buffer[..read]);
        state.1 += read as u64;
        Ok(read)
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

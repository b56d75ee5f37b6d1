//! Opening a file only when it is a regular file: a path from a file that
//! someone else wrote (a manifest naming its inputs) may name `/dev/zero`, a
//! FIFO or a directory, and reading one of those would hang, never end or
//! fail late. The file is opened without blocking (a FIFO with no writer
//! would otherwise block the open) and its kind is checked on the opened
//! handle, so the path cannot be swapped between the check and the read.

use std::fs::{File, FileType, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

/// Opens `path` (symbolic links followed) for reading when it is a regular
/// file; returns it and its length. Anything else is an error of kind
/// [`io::ErrorKind::InvalidInput`] saying what it is (`not a regular file
/// (a FIFO)`).
pub fn open(path: &Path) -> io::Result<(File, u64)> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind(meta.file_type())),
        ));
    }
    Ok((file, meta.len()))
}

/// Opens `path` with `options` for a file itc writes, only when it is (or
/// becomes) a regular file: a symbolic link is not followed, a FIFO does not
/// block the open, and anything but a regular file (a symbolic link
/// included) is an error of kind [`io::ErrorKind::InvalidInput`].
pub fn open_own(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(options, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file (a symbolic link)",
            );
        }
        e
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind(meta.file_type())),
        ));
    }
    Ok(file)
}

/// At most `max` bytes of the regular file at `path`; more is an error (of
/// kind [`io::ErrorKind::FileTooLarge`]).
pub fn read_capped(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open(path)?;
    read_at_most(file, len, max)
}

/// [`read_capped`] of a file itc wrote itself ([`open_own`]: a symbolic
/// link is not followed but refused, like a FIFO or a device).
pub fn read_own_capped(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = open_own(path, OpenOptions::new().read(true))?;
    let len = file.metadata()?.len();
    read_at_most(file, len, max)
}

/// The bytes of `file` (whose length was `len` when opened), at most `max`.
fn read_at_most(file: File, len: u64, max: u64) -> io::Result<Vec<u8>> {
    if len > max {
        return Err(too_large(max));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(max));
    }
    Ok(bytes)
}

fn too_large(max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("larger than {max} bytes"),
    )
}

/// What a file that is not a regular file is, for messages.
fn kind(file_type: FileType) -> &'static str {
    if file_type.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_open() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, b"abc").unwrap();
        assert_eq!(open(&file).unwrap().1, 3);
        assert_eq!(read_capped(&file, 3).unwrap(), b"abc");
        let big = read_capped(&file, 2).unwrap_err();
        assert_eq!(big.kind(), io::ErrorKind::FileTooLarge);
        let refused = |path: &Path| open(path).unwrap_err().to_string();
        assert_eq!(refused(dir.path()), "not a regular file (a directory)");
        #[cfg(unix)]
        {
            let zero = refused(Path::new("/dev/zero"));
            assert_eq!(zero, "not a regular file (a character device)");
            assert!(read_capped(Path::new("/dev/zero"), 10).is_err());
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                // No writer: a blocking open would never return.
                assert_eq!(refused(&fifo), "not a regular file (a FIFO)");
            }
        }
        assert_eq!(
            open(&dir.path().join("missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[cfg(unix)]
    #[test]
    fn own_files_refuse_links_fifos_and_devices() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"outside").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let refused = |path: &Path| {
            let e = read_own_capped(path, 1 << 20).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
            e.to_string()
        };
        assert_eq!(refused(&link), "not a regular file (a symbolic link)");
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert_eq!(refused(&zero), "not a regular file (a symbolic link)");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(refused(&fifo), "not a regular file (a FIFO)");
        }
        assert_eq!(read_own_capped(&outside, 7).unwrap(), b"outside");
        let big = read_own_capped(&outside, 6).unwrap_err();
        assert_eq!(big.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(std::fs::read(&outside).unwrap(), b"outside");
    }
}

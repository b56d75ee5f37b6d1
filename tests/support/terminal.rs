//! Running the `itc` binary with its stderr on a pseudo-terminal, as a
//! person at a terminal runs it: what is drawn only on a terminal (the
//! progress bar) is then drawn, and read back from the terminal's other end.

use std::ffi::CStr;
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::fd::FromRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Command, ExitStatus, Stdio};

/// What a command left: its status, its stdout (a pipe) and everything it
/// wrote on the terminal that was its stderr.
pub struct OnTerminal {
    /// Its exit status.
    pub status: ExitStatus,
    /// Its stdout.
    pub stdout: String,
    /// What it wrote on the terminal (its stderr), control sequences and all.
    pub terminal: String,
}

/// Runs `itc ARGS` with stderr on a new 200-column pseudo-terminal.
pub fn itc_on_terminal(args: &[&str]) -> OnTerminal {
    // SAFETY: plain libc calls on a descriptor this function owns; the name
    // buffer is large enough and NUL-terminated by ptsname_r.
    let (master, slave_path) = unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(
            master >= 0,
            "posix_openpt: {}",
            std::io::Error::last_os_error()
        );
        assert_eq!(libc::grantpt(master), 0, "grantpt");
        assert_eq!(libc::unlockpt(master), 0, "unlockpt");
        let mut name = [0 as libc::c_char; 256];
        assert_eq!(libc::ptsname_r(master, name.as_mut_ptr(), name.len()), 0);
        let size = libc::winsize {
            ws_row: 40,
            ws_col: 200,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        assert_eq!(
            libc::ioctl(master, libc::TIOCSWINSZ, &size),
            0,
            "TIOCSWINSZ"
        );
        let path = CStr::from_ptr(name.as_ptr()).to_str().unwrap().to_owned();
        (File::from_raw_fd(master), path)
    };
    let slave = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(&slave_path)
        .expect("the terminal's other end opens");
    // Read while the command writes, so that it never waits on a full terminal.
    let mut master = master;
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        // Once every writer has closed the terminal, reading fails (EIO).
        while let Ok(n @ 1..) = master.read(&mut buf) {
            seen.extend_from_slice(&buf[..n]);
        }
        seen
    });
    let output = {
        let mut command = Command::new(env!("CARGO_BIN_EXE_itc"));
        command
            .args(args)
            .env("TERM", "xterm")
            .stdin(Stdio::null())
            .stderr(Stdio::from(slave));
        command.output().expect("itc runs")
        // The command, and with it this side's end of the terminal, drops here.
    };
    let terminal = reader.join().expect("the reader does not panic");
    OnTerminal {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        terminal: String::from_utf8_lossy(&terminal).into_owned(),
    }
}

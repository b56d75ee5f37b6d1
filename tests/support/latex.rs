//! Compiling a report's LaTeX with `pdflatex`, when it is installed
//! (Debian: texlive-latex-base and texlive-latex-recommended); under CI,
//! which `.ci/run` installs it for, a missing `pdflatex` fails instead.

use std::path::Path;
use std::process::Command;

use super::{text, under_ci};

/// Whether `pdflatex` can be run; `false` (and a note) when it is missing
/// outside CI.
pub fn available() -> bool {
    if Command::new("pdflatex").arg("--version").output().is_ok() {
        return true;
    }
    assert!(!under_ci(), "CI installs pdflatex (.ci/run); it is missing");
    eprintln!("skipped compiling: no pdflatex");
    false
}

/// Compiles `dir/file` with `pdflatex` in `dir` (stopping at the first
/// error) and returns its log; fails on an error or without a PDF.
pub fn compile(dir: &Path, file: &str) -> String {
    let out = Command::new("pdflatex")
        .current_dir(dir)
        .args(["-interaction=nonstopmode", "-halt-on-error", file])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stdout));
    let stem = file.trim_end_matches(".tex");
    let log = std::fs::read_to_string(dir.join(format!("{stem}.log"))).unwrap();
    assert!(!log.contains("\n! "), "{log}");
    assert!(
        std::fs::read(dir.join(format!("{stem}.pdf")))
            .unwrap()
            .starts_with(b"%PDF")
    );
    log
}

/// Compiles `report.tex` of a report folder on its own and fails when any
/// line of it is wider than its box: every table fits the text column.
pub fn assert_report_fits(report: &Path) {
    if !available() {
        return;
    }
    let log = compile(report, "report.tex");
    let overfull: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("Overfull \\hbox"))
        .collect();
    assert!(overfull.is_empty(), "{overfull:?}\n{log}");
}

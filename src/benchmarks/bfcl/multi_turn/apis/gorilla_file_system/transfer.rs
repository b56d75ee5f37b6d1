//! `mv`, `cp`, `rm` and `rmdir`: the commands that move, copy and drop
//! the tree's objects (split from `gorilla_file_system.rs` for its size).

use super::{GorillaFileSystem, Node, Piece, error, message, new_name, value};
use crate::benchmarks::bfcl::multi_turn::api::Output;
use crate::benchmarks::bfcl::multi_turn::apis::py_ops::{contains, dict, text};
use crate::benchmarks::python::value::cps;
use crate::benchmarks::python::{PyStr, PyValue, py_str};

/// `mv` or `cp`: their texts differ only in the verb.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Transfer {
    Move,
    Copy,
}

impl Transfer {
    fn command(self) -> &'static str {
        match self {
            Transfer::Move => "mv",
            Transfer::Copy => "cp",
        }
    }
}

impl GorillaFileSystem {
    /// A new item `name` in `dir` made from `item`: a file with its content,
    /// or a directory with its `contents` dict (moved) or a shallow copy of
    /// it (copied).
    fn place(&mut self, dir: usize, name: PyStr, item: Node, how: Transfer) -> Result<(), String> {
        match item {
            Node::File(f) => {
                let content = self.files[f].content.clone();
                self.add_file(dir, name, content)
            }
            Node::Dir(d) => {
                let new = self.add_directory(dir, name)?;
                self.dirs[new].contents = match how {
                    Transfer::Move => self.dirs[d].contents,
                    Transfer::Copy => {
                        let copy = self.map(d).clone();
                        self.maps.push(copy);
                        self.maps.len() - 1
                    }
                };
                Ok(())
            }
        }
    }

    pub(super) fn transfer(
        &mut self,
        source: &PyValue,
        destination: &PyValue,
        how: Transfer,
    ) -> Result<Output, String> {
        let cmd = how.command();
        let (verb, gerund) = match how {
            Transfer::Move => ("move", "moved"),
            Transfer::Copy => ("copy", "copied"),
        };
        let Some(src) = self.in_contents(self.current, source)? else {
            return Ok(error(&[
                Piece::T(&format!("{cmd}: cannot {verb} '")),
                Piece::V(source),
                Piece::T("': No such file or directory"),
            ]));
        };
        let Some(item) = self.get_item(self.current, &src) else {
            return Ok(value(PyValue::None));
        };
        if contains(destination, &text("/"))? {
            return Ok(error(&[Piece::T(&format!(
                "{cmd}: path not allowed in destination. Provide only a file or directory name."
            ))]));
        }
        let Some(dest) = self.in_contents(self.current, destination)? else {
            let name = new_name(destination)?;
            if how == Transfer::Move {
                self.pop(self.current, &src);
            }
            self.place(self.current, name, item, how)?;
            return Ok(value(dict([(
                "result",
                message(&[
                    Piece::T("'"),
                    Piece::N(&src),
                    Piece::T(&format!("' {gerund} to '")),
                    Piece::N(&dest_text(destination)),
                    Piece::T("'"),
                ]),
            )])));
        };
        let Some(Node::Dir(target)) = self.get_item(self.current, &dest) else {
            return Ok(error(&[
                Piece::T(&format!("{cmd}: cannot {verb} '")),
                Piece::N(&src),
                Piece::T("' to '"),
                Piece::N(&dest),
                Piece::T("': Not a directory"),
            ]));
        };
        // `mv` looks for `source` in the target, `cp` for
        // `f"{destination}/{source}"`.
        let mut probe = src.clone();
        if how == Transfer::Copy {
            probe = PyStr([dest.0.clone(), cps("/"), src.0.clone()].concat());
        }
        let joined = [dest.0.clone(), cps("/"), src.0.clone()].concat();
        if self.lookup(target, &probe).is_some() {
            return Ok(error(&[
                Piece::T(&format!("{cmd}: cannot {verb} '")),
                Piece::N(&src),
                Piece::T("' to '"),
                Piece::N(&PyStr(joined)),
                Piece::T("': File exists"),
            ]));
        }
        if how == Transfer::Move {
            self.pop(self.current, &src);
        }
        self.place(target, src.clone(), item, how)?;
        Ok(value(dict([(
            "result",
            message(&[
                Piece::T("'"),
                Piece::N(&src),
                Piece::T(&format!("' {gerund} to '")),
                Piece::N(&PyStr(joined)),
                Piece::T("'"),
            ]),
        )])))
    }

    pub(super) fn rm(&mut self, file_name: &PyValue) -> Result<Output, String> {
        let Some(name) = self.in_contents(self.current, file_name)? else {
            return Ok(error(&[
                Piece::T("rm: cannot remove '"),
                Piece::V(file_name),
                Piece::T("': No such file or directory"),
            ]));
        };
        self.pop(self.current, &name);
        Ok(value(dict([(
            "result",
            message(&[Piece::T("'"), Piece::N(&name), Piece::T("' removed")]),
        )])))
    }

    pub(super) fn rmdir(&mut self, dir_name: &PyValue) -> Result<Output, String> {
        let quote = |tail: &str| {
            error(&[
                Piece::T("rmdir: cannot remove '"),
                Piece::V(dir_name),
                Piece::T(tail),
            ])
        };
        let Some(name) = self.in_contents(self.current, dir_name)? else {
            return Ok(quote("': No such file or directory"));
        };
        match self.get_item(self.current, &name) {
            Some(Node::Dir(d)) if !self.map(d).is_empty() => Ok(quote("': Directory not empty")),
            Some(Node::Dir(_)) => {
                self.pop(self.current, &name);
                Ok(value(dict([(
                    "result",
                    message(&[Piece::T("'"), Piece::N(&name), Piece::T("' removed")]),
                )])))
            }
            _ => Ok(quote("': Not a directory")),
        }
    }
}

/// The `str()` of a destination that names no existing item (a `str`, as
/// `new_name` checked).
fn dest_text(destination: &PyValue) -> PyStr {
    PyStr(py_str(destination))
}

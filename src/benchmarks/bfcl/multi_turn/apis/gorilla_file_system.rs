//! `GorillaFileSystem` (`gorilla_file_system.py`) with its `File` and
//! `Directory` helper objects: an in-memory tree the model navigates with
//! `cd`, `ls`, `mkdir`, `mv`, `cp` and reads with `cat`, `grep`, `wc` ...
//!
//! The Python objects are kept as objects, because the official code
//! shares them: files, directories and the `contents` dicts live in arenas
//! and are referred to by index.
//! - `mv` of a directory gives the new `Directory` the *same* `contents`
//!   dict, while its children keep the old (detached) directory as
//!   `parent`: `cd ..` from a child lands in the old directory, and the
//!   child's state names the old name as its parent.
//! - `cp` of a directory gives the copy a shallow copy of `contents`: the
//!   children are the same objects, so writing a file under the copy
//!   changes the original too.
//! - `_get_item('.')` is the directory itself, so an entry named `.` is
//!   found by `in` but acted on as the directory.
//! - `pwd` compares a name with the root object (`dir.name != self.root`,
//!   always true), so the path starts with the root's name (`//` at the
//!   default root `/`).
//!
//! Nondeterminism: `File._last_modified` (`datetime.now()`) is private,
//! compared by nobody and not kept. Nothing else depends on time, hashing
//! or randomness.
//!
//! Not the reference's, on inputs it would crash or hang on:
//! - a name that is a hashable non-`str` (a tuple: only Python-literal
//!   call text produces one) for a new file or directory raises
//!   `file and directory names must be str, not tuple (itc)` before any
//!   change (Python would store the tuple as the name);
//! - a bytes file content: `wc`, `sort`, `grep`, `tail`, `diff` raise
//!   `bytes file content is not supported (itc)`;
//! - Python's recursion limit (`maximum recursion depth exceeded while
//!   calling a Python object`, e.g. in a directory copied into itself, the
//!   text CPython 3.11 gives there) is taken at [`FIND_MAX_DEPTH`] levels
//!   for `find` and [`DU_MAX_DEPTH`] for `du` (Python's exact depth
//!   depends on the caller's stack, and a tree that deep takes ~1,000
//!   calls to build; for `du` CPython also says just `maximum recursion
//!   depth exceeded` at some stack depths);
//! - `find` and `du` visit at most [`MAX_VISITS`] items (a tree of shared
//!   copies can be exponentially larger than the calls that built it) and
//!   then raise `more than 1000000 items to visit (itc)`; `state()` writes
//!   a directory beyond that budget, or deeper than [`STATE_MAX_DEPTH`]
//!   levels (the state's comparison and id recurse once per level), as
//!   `{"__repr__": "<Directory: ... not expanded (itc)>"}`;
//! - a malformed `initial_config` (no `type`, a directory without
//!   `contents`, an empty `root`) loads what it can instead of raising.
//!
//! Every call costs time linear in the size of the tree it reads.

mod transfer;
mod tree;

use transfer::Transfer;

use super::py_ops::{
    Finder, contains, count_words, dict, int, join_lines, len, no_attribute, splitlines, text,
    truthy,
};
use crate::benchmarks::bfcl::multi_turn::api::{ApiClass, Output, Param, Signature};
use crate::benchmarks::bfcl::multi_turn::state::State;
use crate::benchmarks::python::value::{cps, py_eq};
use crate::benchmarks::python::{PyStr, PyValue, py_str};

/// Directory levels `find` descends before it raises Python's
/// `RecursionError` (one Python frame per level).
pub const FIND_MAX_DEPTH: usize = 960;
/// Directory levels `du` descends before it raises Python's
/// `RecursionError` (two Python frames per level).
pub const DU_MAX_DEPTH: usize = 480;
/// Directory levels `state()` expands (deeper ones are written as a
/// placeholder): well beyond any scenario, shallow enough for the
/// recursive comparison and id of a state on a 2 MiB thread stack.
pub const STATE_MAX_DEPTH: usize = 100;
/// Items `find`, `du` and `state()` visit at most.
pub const MAX_VISITS: usize = 1_000_000;

const RECURSION: &str = "maximum recursion depth exceeded while calling a Python object";
fn too_many(limit: usize) -> String {
    format!("more than {limit} items to visit (itc)")
}
const FORBIDDEN: &str = "|/\\?%*:\"><";

const METHODS: &[Signature] = &[
    Signature {
        name: "pwd",
        params: &[],
    },
    Signature {
        name: "ls",
        params: &[Param::optional("a", "False")],
    },
    Signature {
        name: "cd",
        params: &[Param::required("folder")],
    },
    Signature {
        name: "mkdir",
        params: &[Param::required("dir_name")],
    },
    Signature {
        name: "touch",
        params: &[Param::required("file_name")],
    },
    Signature {
        name: "echo",
        params: &[
            Param::required("content"),
            Param::optional("file_name", "None"),
        ],
    },
    Signature {
        name: "cat",
        params: &[Param::required("file_name")],
    },
    Signature {
        name: "find",
        params: &[
            Param::optional("path", "'.'"),
            Param::optional("name", "None"),
        ],
    },
    Signature {
        name: "wc",
        params: &[Param::required("file_name"), Param::optional("mode", "'l'")],
    },
    Signature {
        name: "sort",
        params: &[Param::required("file_name")],
    },
    Signature {
        name: "grep",
        params: &[Param::required("file_name"), Param::required("pattern")],
    },
    Signature {
        name: "du",
        params: &[Param::optional("human_readable", "False")],
    },
    Signature {
        name: "tail",
        params: &[Param::required("file_name"), Param::optional("lines", "10")],
    },
    Signature {
        name: "diff",
        params: &[Param::required("file_name1"), Param::required("file_name2")],
    },
    Signature {
        name: "mv",
        params: &[Param::required("source"), Param::required("destination")],
    },
    Signature {
        name: "rm",
        params: &[Param::required("file_name")],
    },
    Signature {
        name: "rmdir",
        params: &[Param::required("dir_name")],
    },
    Signature {
        name: "cp",
        params: &[Param::required("source"), Param::required("destination")],
    },
];

/// An item of a directory: a file or a directory, by arena index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Node {
    File(usize),
    Dir(usize),
}

#[derive(Debug)]
pub(super) struct FileObj {
    name: PyStr,
    content: PyValue,
}

#[derive(Debug)]
pub(super) struct DirObj {
    name: PyStr,
    parent: Option<usize>,
    /// Index of its `contents` dict (shared after `mv`).
    contents: usize,
}

/// One `GorillaFileSystem` instance.
#[derive(Debug)]
pub struct GorillaFileSystem {
    long_context: bool,
    files: Vec<FileObj>,
    dirs: Vec<DirObj>,
    maps: Vec<Vec<(PyStr, Node)>>,
    root: usize,
    current: usize,
    /// Items `find`, `du` and `state()` visit at most ([`MAX_VISITS`]).
    max_visits: usize,
}

/// A piece of a message: literal text or `str()` of a value.
enum Piece<'a> {
    T(&'a str),
    V(&'a PyValue),
    N(&'a PyStr),
}

fn message(pieces: &[Piece]) -> PyValue {
    let mut out = Vec::new();
    for piece in pieces {
        match piece {
            Piece::T(t) => out.extend(cps(t)),
            Piece::V(v) => out.extend(py_str(v)),
            Piece::N(n) => out.extend_from_slice(&n.0),
        }
    }
    PyValue::Str(PyStr(out))
}

fn error(pieces: &[Piece]) -> Output {
    Output::Value(dict([("error", message(pieces))]))
}

fn value(v: PyValue) -> Output {
    Output::Value(v)
}

/// The `str` a new file or directory is named by.
fn new_name(v: &PyValue) -> Result<PyStr, String> {
    match v {
        PyValue::Str(s) => Ok(s.clone()),
        other => Err(format!(
            "file and directory names must be str, not {} (itc)",
            other.type_name()
        )),
    }
}

/// The lines of a file's content (`content.splitlines()`).
fn content_lines(content: &PyValue) -> Result<Vec<&[u32]>, String> {
    match content {
        PyValue::Str(s) => Ok(splitlines(&s.0)),
        PyValue::Bytes(_) => Err(BYTES.into()),
        other => Err(no_attribute(other, "splitlines")),
    }
}

const BYTES: &str = "bytes file content is not supported (itc)";

/// `len(content.encode('utf-8'))`, or the `UnicodeEncodeError` text.
fn utf8_size(content: &PyValue) -> Result<u128, String> {
    let PyValue::Str(s) = content else {
        return Err(no_attribute(content, "encode"));
    };
    let surrogate = |c: u32| (0xd800..0xe000).contains(&c);
    if let Some(start) = s.0.iter().position(|&c| surrogate(c)) {
        let end = start + s.0[start..].iter().take_while(|&&c| surrogate(c)).count();
        return Err(if end == start + 1 {
            format!(
                "'utf-8' codec can't encode character '\\u{:04x}' in position {start}: surrogates not allowed",
                s.0[start]
            )
        } else {
            format!(
                "'utf-8' codec can't encode characters in position {start}-{}: surrogates not allowed",
                end - 1
            )
        });
    }
    Ok(s.0
        .iter()
        .map(|&c| match c {
            0..0x80 => 1,
            0x80..0x800 => 2,
            0x800..0x10000 => 3,
            _ => 4,
        })
        .sum())
}

impl GorillaFileSystem {
    /// `_validate_file_or_directory_name`.
    fn valid_name(name: &PyValue) -> Result<bool, String> {
        for c in FORBIDDEN.chars() {
            if contains(name, &text(&c.to_string()))? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// `_navigate_to_directory(path)`: the directory, or the error dict.
    fn navigate(&self, path: &PyValue) -> Result<Result<usize, PyValue>, String> {
        let p = match path {
            PyValue::None => return Ok(Ok(self.current)),
            PyValue::Str(p) if p.0 == cps(".") => return Ok(Ok(self.current)),
            PyValue::Str(p) if p.0 == cps("/") => return Ok(Ok(self.root)),
            PyValue::Str(p) => p,
            other => return Err(no_attribute(other, "strip")),
        };
        let slash = u32::from('/');
        let start = p.0.iter().position(|&c| c != slash).unwrap_or(p.0.len());
        let end =
            p.0.iter()
                .rposition(|&c| c != slash)
                .map_or(start, |i| i + 1);
        let mut dir = if p.0.first() == Some(&slash) {
            self.root
        } else {
            self.current
        };
        for name in p.0[start..end.max(start)].split(|&c| c == slash) {
            match self.get_item(dir, &PyStr(name.to_vec())) {
                Some(Node::Dir(next)) => dir = next,
                _ => {
                    let text = message(&[
                        Piece::T("cd: '"),
                        Piece::N(p),
                        Piece::T("': No such file or directory"),
                    ]);
                    return Ok(Err(dict([("error", text)])));
                }
            }
        }
        Ok(Ok(dir))
    }
}

/// `str.rstrip('/')` of code points.
fn rstrip_slash(s: &PyStr) -> PyStr {
    let slash = u32::from('/');
    let end = s.0.iter().rposition(|&c| c != slash).map_or(0, |i| i + 1);
    PyStr(s.0[..end].to_vec())
}

/// `tail`'s `lines` after `if lines > len(content): lines = len(content)`,
/// as the start of `content[-lines:]`.
fn tail_start(lines: &PyValue, count: usize) -> Result<usize, String> {
    let n = count as i128;
    let wanted: i128 = match lines {
        PyValue::Bool(b) => i128::from(*b),
        // Beyond 128 bits only the sign matters.
        PyValue::Int(t) => t.parse::<i128>().unwrap_or(if t.starts_with('-') {
            i128::MIN + 1
        } else {
            i128::MAX
        }),
        PyValue::Float(x) if *x > count as f64 => n,
        PyValue::Float(_) => {
            return Err(
                "slice indices must be integers or None or have an __index__ method".into(),
            );
        }
        other => {
            return Err(format!(
                "'>' not supported between instances of '{}' and 'int'",
                other.type_name()
            ));
        }
    };
    let lines = wanted.min(n);
    // Python's slice start `-lines`, clamped to [0, len].
    let start = -lines;
    let start = if start < 0 { start + n } else { start };
    Ok(start.clamp(0, n) as usize)
}

/// `f"{size:.2f} {unit}"` over B, KB, ... as `du -h` of the official code.
fn human_size(total: u128) -> String {
    let mut size = total as f64;
    for unit in ["B", "KB", "MB", "GB", "TB"] {
        if size < 1024.0 {
            return format!("{size:.2} {unit}");
        }
        size /= 1024.0;
    }
    format!("{size:.2} PB")
}

impl GorillaFileSystem {
    fn pwd(&self) -> Output {
        let mut names: Vec<&PyStr> = Vec::new();
        let mut dir = Some(self.current);
        while let Some(d) = dir {
            names.push(&self.dirs[d].name);
            dir = self.dirs[d].parent;
        }
        let mut path = cps("/");
        for (i, name) in names.iter().rev().enumerate() {
            if i > 0 {
                path.push(u32::from('/'));
            }
            path.extend_from_slice(&name.0);
        }
        value(dict([(
            "current_working_directory",
            PyValue::Str(PyStr(path)),
        )]))
    }

    fn ls(&self, a: &PyValue) -> Output {
        let names = self
            .map(self.current)
            .iter()
            .filter(|(n, _)| truthy(a) || n.0.first() != Some(&u32::from('.')))
            .map(|(n, _)| PyValue::Str(n.clone()))
            .collect();
        value(dict([("current_directory_content", PyValue::List(names))]))
    }

    fn cd(&mut self, folder: &PyValue) -> Result<Output, String> {
        let PyValue::Str(f) = folder else {
            return Err(no_attribute(folder, "rstrip"));
        };
        let mut folder = rstrip_slash(f);
        if folder.is_empty() {
            folder = PyStr::new("/");
        }
        let special = [".", "..", "/"].iter().any(|s| folder.0 == cps(s));
        if !special && folder.0.contains(&u32::from('/')) {
            return Ok(error(&[
                Piece::T("cd: "),
                Piece::N(&folder),
                Piece::T(": Unsupported path. Only one folder level at a time is supported."),
            ]));
        }
        if folder.0 == cps("..") {
            return Ok(match self.dirs[self.current].parent {
                Some(parent) => {
                    self.current = parent;
                    value(PyValue::Dict(vec![]))
                }
                // Only the root has no parent.
                None => error(&[Piece::T(
                    "Current directory is already the root. Cannot go back.",
                )]),
            });
        }
        match self.navigate(&PyValue::Str(folder))? {
            Err(e) => Ok(value(e)),
            Ok(dir) => {
                self.current = dir;
                let name = PyValue::Str(self.dirs[dir].name.clone());
                Ok(value(dict([("current_working_directory", name)])))
            }
        }
    }

    fn mkdir(&mut self, name: &PyValue) -> Result<Output, String> {
        let quote = |tail: &str| {
            error(&[
                Piece::T("mkdir: cannot create directory '"),
                Piece::V(name),
                Piece::T(tail),
            ])
        };
        if !Self::valid_name(name)? {
            return Ok(quote("': Invalid character"));
        }
        if self.in_contents(self.current, name)?.is_some() {
            return Ok(quote("': File exists"));
        }
        self.add_directory(self.current, new_name(name)?)?;
        Ok(value(PyValue::None))
    }

    fn touch(&mut self, name: &PyValue) -> Result<Output, String> {
        let quote = |tail: &str| {
            error(&[
                Piece::T("touch: cannot touch '"),
                Piece::V(name),
                Piece::T(tail),
            ])
        };
        if !Self::valid_name(name)? {
            return Ok(quote("': Invalid character"));
        }
        if self.in_contents(self.current, name)?.is_some() {
            return Ok(quote("': File exists"));
        }
        self.add_file(self.current, new_name(name)?, text(""))?;
        Ok(value(PyValue::None))
    }

    fn echo(&mut self, content: PyValue, file_name: &PyValue) -> Result<Output, String> {
        let terminal = |content| value(dict([("terminal_output", content)]));
        if *file_name == PyValue::None {
            return Ok(terminal(content));
        }
        let quote = |tail: &str| {
            error(&[
                Piece::T("echo: cannot write to '"),
                Piece::V(file_name),
                Piece::T(tail),
            ])
        };
        if !Self::valid_name(file_name)? {
            return Ok(quote("': Invalid character"));
        }
        if !truthy(file_name) {
            return Ok(terminal(content));
        }
        let Some(name) = self.in_contents(self.current, file_name)? else {
            return Ok(quote("': No such file"));
        };
        match self.get_item(self.current, &name) {
            Some(Node::File(f)) => {
                self.files[f].content = content;
                Ok(value(PyValue::None))
            }
            _ => Err("'Directory' object has no attribute '_write'".into()),
        }
    }

    fn cat(&self, file_name: &PyValue) -> Result<Output, String> {
        let quote = |tail: &str| error(&[Piece::T("cat: '"), Piece::V(file_name), Piece::T(tail)]);
        if !Self::valid_name(file_name)? {
            return Ok(quote("': Invalid character"));
        }
        let Some(name) = self.in_contents(self.current, file_name)? else {
            return Ok(quote("': No such file or directory"));
        };
        Ok(match self.get_item(self.current, &name) {
            Some(Node::File(f)) => value(dict([("file_content", self.files[f].content.clone())])),
            _ => quote("': Is a directory"),
        })
    }

    fn find(&self, path: &PyValue, name: &PyValue) -> Result<Output, String> {
        let target = match self.navigate(path)? {
            Ok(dir) => dir,
            Err(e) => {
                let Some(PyValue::Str(m)) = e.get_str("error") else {
                    return Ok(value(e));
                };
                let mut m = m.0.clone();
                if m.starts_with(&cps("cd:")) {
                    m.splice(0..3, cps("find:"));
                }
                return Ok(value(dict([("error", PyValue::Str(PyStr(m)))])));
            }
        };
        let PyValue::Str(p) = path else {
            return Err(no_attribute(path, "rstrip"));
        };
        let finder = match name {
            PyValue::None => None,
            PyValue::Str(n) => Some(Finder::new(&n.0)),
            other => {
                if self.map(target).is_empty() {
                    return Ok(value(dict([("matches", PyValue::List(vec![]))])));
                }
                return Err(format!(
                    "'in <string>' requires string as left operand, not {}",
                    other.type_name()
                ));
            }
        };
        let mut matches = Vec::new();
        // Depth-first, items in order: (directory, next item, its path).
        let mut stack = vec![(target, 0usize, rstrip_slash(p).0)];
        let mut visits = 0usize;
        while let Some((dir, at, base)) = stack.last_mut() {
            let Some((item_name, node)) = self.map(*dir).get(*at) else {
                stack.pop();
                continue;
            };
            *at += 1;
            visits += 1;
            if visits > self.max_visits {
                return Err(too_many(self.max_visits));
            }
            let mut item_path = base.clone();
            item_path.push(u32::from('/'));
            item_path.extend_from_slice(&item_name.0);
            if finder.as_ref().is_none_or(|f| f.is_in(&item_name.0)) {
                matches.push(PyValue::Str(PyStr(item_path.clone())));
            }
            if let Node::Dir(sub) = node {
                if stack.len() >= FIND_MAX_DEPTH {
                    return Err(RECURSION.into());
                }
                stack.push((*sub, 0, item_path));
            }
        }
        Ok(value(dict([("matches", PyValue::List(matches))])))
    }

    /// The file `name` of the current directory (`name in contents` and a
    /// `File`), or `None`.
    fn local_file(&self, name: &PyValue) -> Result<Option<&PyValue>, String> {
        let Some(name) = self.in_contents(self.current, name)? else {
            return Ok(None);
        };
        Ok(match self.get_item(self.current, &name) {
            Some(Node::File(f)) => Some(&self.files[f].content),
            _ => None,
        })
    }

    fn wc(&self, file_name: &PyValue, mode: &PyValue) -> Result<Output, String> {
        let Some(mode) = ["l", "w", "c"].into_iter().find(|m| py_eq(mode, &text(m))) else {
            return Ok(error(&[
                Piece::T("wc: invalid mode '"),
                Piece::V(mode),
                Piece::T("'"),
            ]));
        };
        if let Some(content) = self.local_file(file_name)? {
            let (count, kind) = match (mode, content) {
                (_, PyValue::Bytes(_)) => return Err(BYTES.into()),
                ("l", _) => (content_lines(content)?.len(), "lines"),
                ("w", PyValue::Str(s)) => (count_words(&s.0), "words"),
                ("w", other) => return Err(no_attribute(other, "split")),
                _ => (len(content)?, "characters"),
            };
            return Ok(value(dict([
                ("count", int(count as i128)),
                ("type", text(kind)),
            ])));
        }
        Ok(error(&[
            Piece::T("wc: "),
            Piece::V(file_name),
            Piece::T(": No such file or directory"),
        ]))
    }

    fn sort(&self, file_name: &PyValue) -> Result<Output, String> {
        if let Some(content) = self.local_file(file_name)? {
            let mut lines = content_lines(content)?;
            lines.sort();
            let sorted = PyValue::Str(join_lines(lines));
            return Ok(value(dict([("sorted_content", sorted)])));
        }
        Ok(error(&[
            Piece::T("sort: "),
            Piece::V(file_name),
            Piece::T(": No such file or directory"),
        ]))
    }

    fn grep(&self, file_name: &PyValue, pattern: &PyValue) -> Result<Output, String> {
        if let Some(content) = self.local_file(file_name)? {
            let lines = content_lines(content)?;
            let mut matching = Vec::new();
            if !lines.is_empty() {
                let PyValue::Str(p) = pattern else {
                    return Err(format!(
                        "'in <string>' requires string as left operand, not {}",
                        pattern.type_name()
                    ));
                };
                let finder = Finder::new(&p.0);
                matching.extend(
                    lines
                        .into_iter()
                        .filter(|line| finder.is_in(line))
                        .map(|line| PyValue::Str(PyStr(line.to_vec()))),
                );
            }
            return Ok(value(dict([("matching_lines", PyValue::List(matching))])));
        }
        Ok(error(&[
            Piece::T("grep: "),
            Piece::V(file_name),
            Piece::T(": No such file or directory"),
        ]))
    }

    fn du(&self, human_readable: &PyValue) -> Result<Output, String> {
        let mut total: u128 = 0;
        let mut stack = vec![(self.current, 0usize)];
        let mut visits = 0usize;
        while let Some((dir, at)) = stack.last_mut() {
            let Some((_, node)) = self.map(*dir).get(*at) else {
                stack.pop();
                continue;
            };
            *at += 1;
            visits += 1;
            if visits > self.max_visits {
                return Err(too_many(self.max_visits));
            }
            match node {
                Node::File(f) => total += utf8_size(&self.files[*f].content)?,
                Node::Dir(sub) => {
                    if stack.len() >= DU_MAX_DEPTH {
                        return Err(RECURSION.into());
                    }
                    stack.push((*sub, 0));
                }
            }
        }
        let size = if truthy(human_readable) {
            human_size(total)
        } else {
            format!("{total} bytes")
        };
        Ok(value(dict([("disk_usage", text(&size))])))
    }

    fn tail(&self, file_name: &PyValue, lines: &PyValue) -> Result<Output, String> {
        if let Some(content) = self.local_file(file_name)? {
            let all = content_lines(content)?;
            let start = tail_start(lines, all.len())?;
            let last = PyValue::Str(join_lines(all[start..].iter().copied()));
            return Ok(value(dict([("last_lines", last)])));
        }
        Ok(error(&[
            Piece::T("tail: "),
            Piece::V(file_name),
            Piece::T(": No such file or directory"),
        ]))
    }

    fn diff(&self, name1: &PyValue, name2: &PyValue) -> Result<Output, String> {
        let first = self.in_contents(self.current, name1)?;
        let both = match first {
            Some(a) => self.in_contents(self.current, name2)?.map(|b| (a, b)),
            None => None,
        };
        if let Some((a, b)) = both {
            let items = (
                self.get_item(self.current, &a),
                self.get_item(self.current, &b),
            );
            if let (Some(Node::File(f1)), Some(Node::File(f2))) = items {
                let lines1 = content_lines(&self.files[f1].content)?;
                let lines2 = content_lines(&self.files[f2].content)?;
                let mut out: Vec<u32> = Vec::new();
                for (l1, l2) in lines1.iter().zip(&lines2).filter(|(l1, l2)| l1 != l2) {
                    if !out.is_empty() {
                        out.push(u32::from('\n'));
                    }
                    out.extend(cps("- "));
                    out.extend_from_slice(l1);
                    out.extend(cps("\n+ "));
                    out.extend_from_slice(l2);
                }
                return Ok(value(dict([("diff_lines", PyValue::Str(PyStr(out)))])));
            }
        }
        Ok(error(&[
            Piece::T("diff: "),
            Piece::V(name1),
            Piece::T(" or "),
            Piece::V(name2),
            Piece::T(": No such file or directory"),
        ]))
    }
}

impl ApiClass for GorillaFileSystem {
    fn class_name(&self) -> &'static str {
        "GorillaFileSystem"
    }

    fn methods(&self) -> &'static [Signature] {
        METHODS
    }

    fn call(&mut self, method: &str, args: Vec<PyValue>) -> Result<Output, String> {
        let mut args = args.into_iter();
        let mut next = || args.next().unwrap_or(PyValue::None);
        let (a, b) = (next(), next());
        match method {
            "pwd" => Ok(self.pwd()),
            "ls" => Ok(self.ls(&a)),
            "cd" => self.cd(&a),
            "mkdir" => self.mkdir(&a),
            "touch" => self.touch(&a),
            "echo" => self.echo(a, &b),
            "cat" => self.cat(&a),
            "find" => self.find(&a, &b),
            "wc" => self.wc(&a, &b),
            "sort" => self.sort(&a),
            "grep" => self.grep(&a, &b),
            "du" => self.du(&a),
            "tail" => self.tail(&a, &b),
            "diff" => self.diff(&a, &b),
            "mv" => self.transfer(&a, &b, Transfer::Move),
            "cp" => self.transfer(&a, &b, Transfer::Copy),
            "rm" => self.rm(&a),
            "rmdir" => self.rmdir(&a),
            other => Err(format!(
                "'GorillaFileSystem' object has no attribute '{other}'"
            )),
        }
    }

    fn state(&self) -> Vec<(&'static str, State)> {
        let mut budget = self.max_visits;
        vec![
            ("long_context", State::Bool(self.long_context)),
            ("root", self.dir_state(self.root, 0, &mut budget)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::py_ops::testing::run;
    use super::*;
    use crate::benchmarks::bfcl::multi_turn::state::state_id;
    use crate::benchmarks::python::json_loads_str;

    /// `initial_config["GorillaFileSystem"]` of `multi_turn_base_0`.
    const BASE_0: &str = r#"{"root": {"workspace": {"type": "directory", "contents": {"document": {"type": "directory", "contents": {"final_report.pdf": {"type": "file", "content": "Year2024 This is the final report content including budget analysis and other sections."}, "previous_report.pdf": {"type": "file", "content": "Year203 This is the previous report content with different budget analysis."}}}, "archive": {"type": "directory", "contents": {}}}}}}"#;

    /// A smaller tree: `/w` holding `d/` (with `f.txt`, `sub/deep.txt`),
    /// `e/` and `.h`.
    const SMALL: &str = r#"{"root": {"w": {"type": "directory", "contents": {"d": {"type": "directory", "contents": {"f.txt": {"type": "file", "content": "one\ntwo\r\nthree\u2028four"}, "sub": {"type": "directory", "contents": {"deep.txt": {"type": "file", "content": "d1"}}}}}, "e": {"type": "directory", "contents": {}}, ".h": {"type": "file", "content": "h"}}}}}"#;

    fn fs(config: &str) -> GorillaFileSystem {
        GorillaFileSystem::new(&json_loads_str(config).unwrap(), false)
    }

    /// Runs `(method, args, expected result)` in order.
    fn script(fs: &mut GorillaFileSystem, steps: &[(&str, &[&str], &str)]) {
        for (method, args, want) in steps {
            assert_eq!(run(fs, method, args), *want, "{method}{args:?}");
        }
    }

    #[test]
    fn a_turn_of_the_reference_trace_gives_its_results_and_state() {
        // multi_turn_base_0, round 0, turn 0.
        let mut f = fs(BASE_0);
        script(
            &mut f,
            &[
                (
                    "cd",
                    &["'document'"],
                    r#"{"current_working_directory": "document"}"#,
                ),
                ("mkdir", &["'temp'"], "None"),
                (
                    "mv",
                    &["'final_report.pdf'", "'temp'"],
                    r#"{"result": "'final_report.pdf' moved to 'temp/final_report.pdf'"}"#,
                ),
            ],
        );
        assert_eq!(
            state_id(&f.state()),
            "cd4f32dc9b88fcdc5cae91dff176f57bff0e5ff5b549ba11afb68e51ed053707"
        );
    }

    // Every expected string below is what CPython 3.11 gives running the
    // official class on the same calls.
    #[test]
    fn hostile_arguments_raise_pythons_errors() {
        let mut f = fs(SMALL);
        script(
            &mut f,
            &[
                (
                    "cd",
                    &["5"],
                    "Error during execution: 'int' object has no attribute 'rstrip'",
                ),
                (
                    "mkdir",
                    &["5"],
                    "Error during execution: argument of type 'int' is not iterable",
                ),
                (
                    "mkdir",
                    &["['a']"],
                    "Error during execution: unhashable type: 'list'",
                ),
                (
                    "mkdir",
                    &["['/']"],
                    r#"{"error": "mkdir: cannot create directory '['/']': Invalid character"}"#,
                ),
                (
                    "touch",
                    &["None"],
                    "Error during execution: argument of type 'NoneType' is not iterable",
                ),
                ("echo", &["'x'", "[]"], r#"{"terminal_output": "x"}"#),
                (
                    "echo",
                    &["'x'", "'d'"],
                    "Error during execution: 'Directory' object has no attribute '_write'",
                ),
                (
                    "wc",
                    &["7"],
                    r#"{"error": "wc: 7: No such file or directory"}"#,
                ),
                (
                    "wc",
                    &["'.h'", "['l']"],
                    r#"{"error": "wc: invalid mode '['l']'"}"#,
                ),
                (
                    "diff",
                    &["'nope'", "['x']"],
                    r#"{"error": "diff: nope or ['x']: No such file or directory"}"#,
                ),
                (
                    "diff",
                    &["'.h'", "['x']"],
                    "Error during execution: unhashable type: 'list'",
                ),
                (
                    "mv",
                    &["'d'", "5"],
                    "Error during execution: argument of type 'int' is not iterable",
                ),
                (
                    "mv",
                    &["'d'", "['/']"],
                    r#"{"error": "mv: path not allowed in destination. Provide only a file or directory name."}"#,
                ),
                (
                    "find",
                    &["None"],
                    "Error during execution: 'NoneType' object has no attribute 'rstrip'",
                ),
                (
                    "find",
                    &["'.'", "3"],
                    "Error during execution: 'in <string>' requires string as left operand, not int",
                ),
                ("find", &["'e'", "3"], r#"{"matches": []}"#),
                (
                    "mkdir",
                    &["('t',)"],
                    "Error during execution: file and directory names must be str, not tuple (itc)",
                ),
                ("cd", &["'d'"], r#"{"current_working_directory": "d"}"#),
                (
                    "grep",
                    &["'f.txt'", "1"],
                    "Error during execution: 'in <string>' requires string as left operand, not int",
                ),
                (
                    "tail",
                    &["'f.txt'", "2.0"],
                    "Error during execution: slice indices must be integers or None or have an __index__ method",
                ),
                (
                    "tail",
                    &["'f.txt'", "'2'"],
                    "Error during execution: '>' not supported between instances of 'str' and 'int'",
                ),
                (
                    "tail",
                    &["'f.txt'", "20.0"],
                    r#"{"last_lines": "one\ntwo\nthree\nfour"}"#,
                ),
                (
                    "tail",
                    &["'f.txt'", "-1"],
                    r#"{"last_lines": "two\nthree\nfour"}"#,
                ),
                ("tail", &["'f.txt'", "True"], r#"{"last_lines": "four"}"#),
                (
                    "tail",
                    &["'f.txt'", "-10000000000000000000000000000000000000000"],
                    r#"{"last_lines": ""}"#,
                ),
                (
                    "wc",
                    &["'f.txt'", "'w'"],
                    r#"{"count": 4, "type": "words"}"#,
                ),
                ("echo", &["['a', 'b']", "'f.txt'"], "None"),
                ("cat", &["'f.txt'"], r#"{"file_content": ["a", "b"]}"#),
                (
                    "wc",
                    &["'f.txt'", "'c'"],
                    r#"{"count": 2, "type": "characters"}"#,
                ),
                (
                    "wc",
                    &["'f.txt'", "'w'"],
                    "Error during execution: 'list' object has no attribute 'split'",
                ),
                (
                    "du",
                    &[],
                    "Error during execution: 'list' object has no attribute 'encode'",
                ),
            ],
        );
    }

    #[test]
    fn moved_and_copied_directories_share_objects_as_in_python() {
        let mut f = fs(SMALL);
        script(
            &mut f,
            &[
                // A copy shares its children: a write under the copy shows
                // in the original.
                ("cp", &["'d'", "'c'"], r#"{"result": "'d' copied to 'c'"}"#),
                ("cd", &["'c'"], r#"{"current_working_directory": "c"}"#),
                ("cd", &["'sub'"], r#"{"current_working_directory": "sub"}"#),
                ("echo", &["'changed'", "'deep.txt'"], "None"),
                ("cd", &["'/'"], r#"{"current_working_directory": "w"}"#),
                ("cd", &["'d'"], r#"{"current_working_directory": "d"}"#),
                ("cd", &["'sub'"], r#"{"current_working_directory": "sub"}"#),
                ("cat", &["'deep.txt'"], r#"{"file_content": "changed"}"#),
                // A moved directory's children still have the old one as
                // parent.
                ("cd", &["'/'"], r#"{"current_working_directory": "w"}"#),
                ("mv", &["'d'", "'e'"], r#"{"result": "'d' moved to 'e/d'"}"#),
                ("cd", &["'e'"], r#"{"current_working_directory": "e"}"#),
                ("cd", &["'d'"], r#"{"current_working_directory": "d"}"#),
                ("cd", &["'sub'"], r#"{"current_working_directory": "sub"}"#),
                ("cd", &["'..'"], "{}"),
                ("pwd", &[], r#"{"current_working_directory": "/w/d"}"#),
                ("cd", &["'/'"], r#"{"current_working_directory": "w"}"#),
                (
                    "cp",
                    &["'.h'", "'e'"],
                    r#"{"result": "'.h' copied to 'e/.h'"}"#,
                ),
                (
                    "cp",
                    &["'.h'", "'e'"],
                    "Error during execution: File '.h' already exists in directory 'e'.",
                ),
                // An entry named `.` is the directory itself once found.
                ("touch", &["'.'"], "None"),
                ("cat", &["'.'"], r#"{"error": "cat: '.': Is a directory"}"#),
                ("rm", &["'.'"], r#"{"result": "'.' removed"}"#),
                (
                    "ls",
                    &["True"],
                    r#"{"current_directory_content": ["e", ".h", "c"]}"#,
                ),
            ],
        );
    }

    #[test]
    fn the_default_root_and_long_context_loading() {
        let mut f = fs("{}");
        script(
            &mut f,
            &[
                ("pwd", &[], r#"{"current_working_directory": "//"}"#),
                (
                    "cd",
                    &["'..'"],
                    r#"{"error": "Current directory is already the root. Cannot go back."}"#,
                ),
            ],
        );
        let mut long = GorillaFileSystem::new(&json_loads_str(SMALL).unwrap(), true);
        // `e` and `sub` hold no directory: 30 files are added to each.
        run(&mut long, "cd", &["'e'"]);
        assert!(
            run(&mut long, "ls", &[])
                .starts_with(r#"{"current_directory_content": ["image_344822349461074042.jpg", "#)
        );
        run(&mut long, "cd", &["'/'"]);
        assert_eq!(
            run(&mut long, "wc", &["'.h'", "'c'"]),
            r#"{"count": 3252, "type": "characters"}"#
        );
    }

    #[test]
    fn surrogates_and_sizes_in_du() {
        let mut f = fs("{}");
        run(&mut f, "touch", &["'a'"]);
        run(&mut f, "echo", &["'é'", "'a'"]);
        assert_eq!(run(&mut f, "du", &[]), r#"{"disk_usage": "2 bytes"}"#);
        run(&mut f, "echo", &[&format!("'{}'", "x".repeat(1152)), "'a'"]);
        assert_eq!(run(&mut f, "du", &["True"]), r#"{"disk_usage": "1.12 KB"}"#);
        run(&mut f, "echo", &["'ab\\ud800'", "'a'"]);
        assert_eq!(
            run(&mut f, "du", &[]),
            "Error during execution: 'utf-8' codec can't encode character '\\ud800' in position 2: surrogates not allowed"
        );
        run(&mut f, "echo", &["'x\\udc80\\udc81y'", "'a'"]);
        assert_eq!(
            run(&mut f, "du", &[]),
            "Error during execution: 'utf-8' codec can't encode characters in position 1-2: surrogates not allowed"
        );
    }

    #[test]
    fn cycles_and_exponential_copies_stay_bounded() {
        // `cp('e', 'e')` puts a directory inside itself (Python: the copy's
        // contents include the copy).
        let mut f = fs(SMALL);
        assert_eq!(
            run(&mut f, "cp", &["'e'", "'e'"]),
            r#"{"result": "'e' copied to 'e/e'"}"#
        );
        let recursion = format!("Error during execution: {RECURSION}");
        assert_eq!(run(&mut f, "find", &[]), recursion);
        assert_eq!(run(&mut f, "du", &[]), recursion);
        for _ in 0..5 {
            assert_eq!(
                run(&mut f, "cd", &["'e'"]),
                r#"{"current_working_directory": "e"}"#
            );
        }
        assert_eq!(state_id(&f.state()).len(), 64);
        // Each copy of a directory holding two copies doubles the tree that
        // `find` would list: 2^40 items from 40 calls.
        let mut g = fs("{}");
        run(&mut g, "mkdir", &["'x0'"]);
        for i in 0..40 {
            run(&mut g, "cp", &[&format!("'x{i}'"), &format!("'y{i}'")]);
            run(&mut g, "mkdir", &[&format!("'x{}'", i + 1)]);
            run(
                &mut g,
                "mv",
                &[&format!("'x{i}'"), &format!("'x{}'", i + 1)],
            );
            run(
                &mut g,
                "mv",
                &[&format!("'y{i}'"), &format!("'x{}'", i + 1)],
            );
        }
        g.max_visits = 10_000;
        let too_many = format!("Error during execution: {}", too_many(10_000));
        assert_eq!(run(&mut g, "find", &[]), too_many);
        assert_eq!(run(&mut g, "du", &[]), too_many);
        assert_eq!(state_id(&g.state()).len(), 64);
    }
}

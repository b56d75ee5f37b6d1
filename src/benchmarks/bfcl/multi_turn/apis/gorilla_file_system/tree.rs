//! The objects of the file system: `File` and `Directory` in arenas
//! (shared the way the official code shares them), the `contents` dicts
//! they use, loading a scenario, and the state they show.

use super::{
    DirObj, FIND_MAX_DEPTH, FileObj, GorillaFileSystem, MAX_VISITS, Node, STATE_MAX_DEPTH,
};
use crate::benchmarks::bfcl::multi_turn::apis::long_context;
use crate::benchmarks::bfcl::multi_turn::apis::py_ops::{contains, hashable, text};
use crate::benchmarks::bfcl::multi_turn::state::State;
use crate::benchmarks::python::value::cps;
use crate::benchmarks::python::{PyStr, PyValue, py_str};

impl GorillaFileSystem {
    /// `GorillaFileSystem()` then `_load_scenario(config, long_context)`.
    pub fn new(config: &PyValue, long_context: bool) -> GorillaFileSystem {
        let mut fs = GorillaFileSystem {
            long_context,
            files: Vec::new(),
            dirs: Vec::new(),
            maps: Vec::new(),
            root: 0,
            current: 0,
            max_visits: MAX_VISITS,
        };
        let root = match config.get_str("root") {
            Some(PyValue::Dict(entries)) if !entries.is_empty() => {
                let (name, data) = &entries[0];
                let root = fs.new_dir(PyStr(py_str(name)), None);
                if let Some(PyValue::Dict(contents)) = data.get_str("contents") {
                    fs.load_directory(contents, root, 0);
                }
                root
            }
            _ => fs.new_dir(PyStr::new("/"), None),
        };
        fs.root = root;
        fs.current = root;
        fs
    }

    pub(super) fn load_directory(
        &mut self,
        entries: &[(PyValue, PyValue)],
        parent: usize,
        depth: usize,
    ) {
        let mut is_bottommost = true;
        for (name, data) in entries {
            let name = PyStr(py_str(name));
            let kind = data.get_str("type");
            if kind == Some(&text("directory")) {
                is_bottommost = false;
                let dir = self.new_dir(name.clone(), Some(parent));
                if let Some(PyValue::Dict(contents)) = data.get_str("contents")
                    && depth < FIND_MAX_DEPTH
                {
                    self.load_directory(contents, dir, depth + 1);
                }
                self.set_item(parent, name, Node::Dir(dir));
            } else if kind == Some(&text("file")) {
                let mut content = data.get_str("content").cloned().unwrap_or(text(""));
                let tail_used = long_context("FILES_TAIL_USED");
                if self.long_context
                    && !contains(tail_used, &PyValue::Str(name.clone())).unwrap_or(true)
                    && let (PyValue::Str(c), PyValue::Str(ext)) =
                        (&mut content, long_context("FILE_CONTENT_EXTENSION"))
                {
                    c.0.extend_from_slice(&ext.0);
                }
                let file = self.new_file(name.clone(), content);
                self.set_item(parent, name, Node::File(file));
            }
        }
        if is_bottommost
            && self.long_context
            && let PyValue::List(names) = long_context("POPULATE_FILE_EXTENSION")
        {
            for name in names {
                // The official code raises on a name already there.
                let _ = self.add_file(parent, PyStr(py_str(name)), text(""));
            }
        }
    }

    pub(super) fn new_dir(&mut self, name: PyStr, parent: Option<usize>) -> usize {
        self.maps.push(Vec::new());
        self.dirs.push(DirObj {
            name,
            parent,
            contents: self.maps.len() - 1,
        });
        self.dirs.len() - 1
    }

    pub(super) fn new_file(&mut self, name: PyStr, content: PyValue) -> usize {
        self.files.push(FileObj { name, content });
        self.files.len() - 1
    }

    pub(super) fn map(&self, dir: usize) -> &Vec<(PyStr, Node)> {
        &self.maps[self.dirs[dir].contents]
    }

    pub(super) fn map_mut(&mut self, dir: usize) -> &mut Vec<(PyStr, Node)> {
        let at = self.dirs[dir].contents;
        &mut self.maps[at]
    }

    pub(super) fn lookup(&self, dir: usize, name: &PyStr) -> Option<Node> {
        self.map(dir)
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, node)| *node)
    }

    /// `dir.contents[name] = node`.
    pub(super) fn set_item(&mut self, dir: usize, name: PyStr, node: Node) {
        let map = self.map_mut(dir);
        match map.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = node,
            None => map.push((name, node)),
        }
    }

    /// `dir.contents.pop(name)`.
    pub(super) fn pop(&mut self, dir: usize, name: &PyStr) {
        self.map_mut(dir).retain(|(n, _)| n != name);
    }

    /// `Directory._get_item(name)` for a name known to be in `contents`.
    pub(super) fn get_item(&self, dir: usize, name: &PyStr) -> Option<Node> {
        if name.0 == cps(".") {
            return Some(Node::Dir(dir));
        }
        self.lookup(dir, name)
    }

    /// `name in dir.contents`: the name when it is there.
    pub(super) fn in_contents(&self, dir: usize, name: &PyValue) -> Result<Option<PyStr>, String> {
        hashable(name)?;
        Ok(match name {
            PyValue::Str(s) if self.lookup(dir, s).is_some() => Some(s.clone()),
            _ => None,
        })
    }

    /// `Directory._add_file`.
    pub(super) fn add_file(
        &mut self,
        dir: usize,
        name: PyStr,
        content: PyValue,
    ) -> Result<(), String> {
        if self.lookup(dir, &name).is_some() {
            return Err(format!(
                "File '{name}' already exists in directory '{}'.",
                self.dirs[dir].name
            ));
        }
        let file = self.new_file(name.clone(), content);
        self.map_mut(dir).push((name, Node::File(file)));
        Ok(())
    }

    /// `Directory._add_directory`: the new directory.
    pub(super) fn add_directory(&mut self, dir: usize, name: PyStr) -> Result<usize, String> {
        if self.lookup(dir, &name).is_some() {
            return Err(format!(
                "Directory '{name}' already exists in directory '{}'.",
                self.dirs[dir].name
            ));
        }
        let new = self.new_dir(name.clone(), Some(dir));
        self.map_mut(dir).push((name, Node::Dir(new)));
        Ok(new)
    }

    /// A directory's public attributes as an object, its items expanded
    /// while `budget` lasts.
    pub(super) fn dir_state(&self, dir: usize, depth: usize, budget: &mut usize) -> State {
        let d = &self.dirs[dir];
        if depth > STATE_MAX_DEPTH || *budget == 0 {
            return State::Repr(format!("<Directory: {}, not expanded (itc)>", d.name));
        }
        let parent = match d.parent {
            Some(p) => State::Ref {
                class: "Directory",
                name: self.dirs[p].name.to_string_lossy(),
            },
            None => State::None,
        };
        let mut contents = Vec::new();
        for (name, node) in self.map(dir) {
            *budget = budget.saturating_sub(1);
            let item = match *node {
                Node::File(f) => State::Object {
                    class: "File",
                    attrs: vec![
                        ("name", State::str(self.files[f].name.to_string_lossy())),
                        ("content", State::from(&self.files[f].content)),
                    ],
                    compared: &["name", "content"],
                },
                Node::Dir(sub) => self.dir_state(sub, depth + 1, budget),
            };
            contents.push((State::str(name.to_string_lossy()), item));
        }
        State::Object {
            class: "Directory",
            attrs: vec![
                ("name", State::str(d.name.to_string_lossy())),
                ("parent", parent),
                ("contents", State::Dict(contents)),
            ],
            compared: &["name", "contents"],
        }
    }
}

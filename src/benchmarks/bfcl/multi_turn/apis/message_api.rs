//! `MessageAPI` (`message_api.py`): users, a login and an inbox of
//! one-entry dicts `{receiver_id: message}`, ported method by method with
//! the official return values, error dicts and exception texts.
//!
//! Public state, in `vars()` order: `generated_ids` (a `set` of message
//! ids), `user_count`, `user_map`, `inbox`, `message_count`,
//! `current_user`. Values from the question's `initial_config` and from
//! the model's calls are kept as Python holds them (a message may be any
//! value; `search_messages` then raises `'list' object has no attribute
//! 'lower'` as Python does).
//!
//! Nondeterminism: none beyond the seeded `random.Random(200191)` message
//! ids, reproduced exactly.
//!
//! Where itc differs from Python, with a text of its own:
//! - once all 90,000 five-digit ids are taken, `send_message` fails
//!   ([`IDS_EXHAUSTED`]) where Python's `_generate_id` would loop forever;
//! - a `generated_ids` config (none in the data) keeps only its `int`
//!   items, as a set; a `random_seed` that is not an `int` (none in the
//!   data) seeds with the default seed;
//! - integer `+=` beyond 128 bits (`user_count`, `message_count`) is
//!   refused (`itc: integer arithmetic beyond 128 bits is not supported`);
//! - `in` and `list.remove` compare by value, so a NaN inside a message
//!   never equals itself (Python's identity shortcut would match the very
//!   same object).

use std::collections::HashSet;
use std::sync::OnceLock;

use super::py_num::{self, Op, augmented};
use super::py_ops::{
    Finder, Text, dict, dict_set, int, key_position, list_position, no_attribute, text, truthy,
};
use crate::benchmarks::bfcl::check_values::py_lower;
use crate::benchmarks::bfcl::multi_turn::api::{ApiClass, Output, Param, Signature};
use crate::benchmarks::bfcl::multi_turn::state::State;
use crate::benchmarks::python::random::PyRandom;
use crate::benchmarks::python::value::{DictBuilder, KeyIndex, py_eq};
use crate::benchmarks::python::{PyValue, literal_eval, py_str};

/// The official `DEFAULT_STATE` without `generated_ids` (an empty set),
/// as a Python literal.
const DEFAULT_STATE: &str = "{
 'user_count': 4,
 'user_map': {'Alice': 'USR001', 'Bob': 'USR002', 'Catherine': 'USR003', 'Daniel': 'USR004'},
 'inbox': [{'USR002': 'My name is Alice. I want to connect.'},
           {'USR003': 'Could you upload the file?'},
           {'USR004': 'Could you upload the file?'}],
 'message_count': 3,
 'current_user': None}";

fn default_state() -> &'static PyValue {
    static STATE: OnceLock<PyValue> = OnceLock::new();
    STATE.get_or_init(|| literal_eval(DEFAULT_STATE).expect("DEFAULT_STATE is a literal"))
}

/// `_load_scenario`'s default `random_seed`.
const DEFAULT_SEED: i128 = 200_191;

/// The range `_generate_id` draws message ids from.
const ID_LOW: i128 = 10_000;
const ID_HIGH: i128 = 99_999;

/// The error text once every id in the range is taken.
pub const IDS_EXHAUSTED: &str =
    "itc: all 90000 message ids are taken (the official _generate_id would loop forever)";

const METHODS: &[Signature] = &[
    Signature {
        name: "list_users",
        params: &[],
    },
    Signature {
        name: "get_user_id",
        params: &[Param::required("user")],
    },
    Signature {
        name: "message_login",
        params: &[Param::required("user_id")],
    },
    Signature {
        name: "message_get_login_status",
        params: &[],
    },
    Signature {
        name: "send_message",
        params: &[Param::required("receiver_id"), Param::required("message")],
    },
    Signature {
        name: "delete_message",
        params: &[Param::required("receiver_id")],
    },
    Signature {
        name: "view_messages_sent",
        params: &[],
    },
    Signature {
        name: "add_contact",
        params: &[Param::required("user_name")],
    },
    Signature {
        name: "search_messages",
        params: &[Param::required("keyword")],
    },
    Signature {
        name: "get_message_stats",
        params: &[],
    },
];

type Result<T> = std::result::Result<T, String>;

/// One `MessageAPI` instance.
#[derive(Debug, Clone)]
pub struct MessageApi {
    /// `generated_ids`, in insertion order (the state writes it as a set).
    generated_ids: Vec<i128>,
    taken: HashSet<i128>,
    user_count: PyValue,
    user_map: PyValue,
    inbox: PyValue,
    message_count: PyValue,
    current_user: PyValue,
    random: PyRandom,
}

impl MessageApi {
    /// `MessageAPI()` then `_load_scenario(config)`.
    pub fn new(config: &PyValue) -> MessageApi {
        let defaults = default_state();
        let field = |name: &str| {
            config
                .get_str(name)
                .or_else(|| defaults.get_str(name))
                .cloned()
                .unwrap_or(PyValue::None)
        };
        let seed = match config.get_str("random_seed") {
            Some(PyValue::Int(text)) => text.parse::<i128>().ok(),
            Some(PyValue::Bool(b)) => Some(i128::from(*b)),
            _ => None,
        };
        let mut generated_ids = Vec::new();
        if let Some(ids) = config.get_str("generated_ids") {
            for id in py_num::iterate(ids).unwrap_or_default() {
                if let PyValue::Int(text) = id {
                    generated_ids.extend(text.parse::<i128>().ok());
                }
            }
        }
        let taken: HashSet<i128> = generated_ids.iter().copied().collect();
        let mut seen = HashSet::new();
        generated_ids.retain(|id| seen.insert(*id));
        MessageApi {
            generated_ids,
            taken,
            user_count: field("user_count"),
            user_map: field("user_map"),
            inbox: field("inbox"),
            message_count: field("message_count"),
            current_user: field("current_user"),
            random: PyRandom::new(seed.unwrap_or(DEFAULT_SEED)),
        }
    }

    fn run(&mut self, method: &str, args: &[PyValue]) -> Result<PyValue> {
        let a = |i: usize| args.get(i).unwrap_or(&PyValue::None);
        match method {
            "list_users" => {
                let keys = self
                    .user_entries()?
                    .iter()
                    .map(|(k, _)| k.clone())
                    .collect();
                Ok(dict([("user_list", PyValue::List(keys))]))
            }
            "get_user_id" => self.get_user_id(a(0)),
            "message_login" => self.message_login(a(0)),
            "message_get_login_status" => Ok(dict([(
                "login_status",
                PyValue::Bool(truthy(&self.current_user)),
            )])),
            "send_message" => self.send_message(a(0), a(1)),
            "delete_message" => self.delete_message(a(0)),
            "view_messages_sent" => self.view_messages_sent(),
            "add_contact" => self.add_contact(a(0)),
            "search_messages" => self.search_messages(a(0)),
            "get_message_stats" => self.get_message_stats(),
            other => Err(format!("'MessageAPI' object has no attribute '{other}'")),
        }
    }

    fn user_entries(&self) -> Result<&Vec<(PyValue, PyValue)>> {
        match &self.user_map {
            PyValue::Dict(entries) => Ok(entries),
            other => Err(no_attribute(other, "keys")),
        }
    }

    /// `value in self.user_map.values()`.
    fn is_user_id(&self, value: &PyValue) -> Result<bool> {
        let entries = self.user_entries()?;
        Ok(entries.iter().any(|(_, id)| py_eq(id, value)))
    }

    fn get_user_id(&self, user: &PyValue) -> Result<PyValue> {
        let entries = self.user_entries()?;
        let Some(i) = key_position(entries, user)? else {
            let error = Text::new()
                .text("User '")
                .v(user)
                .text("' not found in the workspace.");
            return Ok(dict([("error", error.value())]));
        };
        Ok(dict([("user_id", entries[i].1.clone())]))
    }

    fn message_login(&mut self, user_id: &PyValue) -> Result<PyValue> {
        if !self.is_user_id(user_id)? {
            let status = Text::new()
                .text("User ID '")
                .v(user_id)
                .text("' not found.");
            return Ok(dict([
                ("login_status", PyValue::Bool(false)),
                ("message", status.value()),
            ]));
        }
        self.current_user = user_id.clone();
        let status = Text::new()
            .text("User '")
            .v(user_id)
            .text("' logged in successfully.");
        Ok(dict([
            ("login_status", PyValue::Bool(true)),
            ("message", status.value()),
        ]))
    }

    fn not_logged_in(&self) -> Option<PyValue> {
        (!truthy(&self.current_user))
            .then(|| dict([("error", text("No user is currently logged in."))]))
    }

    /// `_generate_id()`: draws until an id not yet generated comes up.
    fn generate_id(&mut self) -> Result<i128> {
        let in_range = || {
            self.taken
                .iter()
                .filter(|id| (ID_LOW..=ID_HIGH).contains(*id))
                .count()
        };
        if self.taken.len() as i128 > ID_HIGH - ID_LOW && in_range() as i128 > ID_HIGH - ID_LOW {
            return Err(IDS_EXHAUSTED.into());
        }
        loop {
            let id = self.random.randint(ID_LOW, ID_HIGH).unwrap_or(ID_LOW);
            if self.taken.insert(id) {
                self.generated_ids.push(id);
                return Ok(id);
            }
        }
    }

    fn send_message(&mut self, receiver_id: &PyValue, message: &PyValue) -> Result<PyValue> {
        if let Some(error) = self.not_logged_in() {
            return Ok(error);
        }
        if !self.is_user_id(receiver_id)? {
            let error = Text::new()
                .text("Receiver ID '")
                .v(receiver_id)
                .text("' not found.");
            return Ok(dict([("error", error.value())]));
        }
        let id = self.generate_id()?;
        let PyValue::List(inbox) = &mut self.inbox else {
            return Err(no_attribute(&self.inbox, "append"));
        };
        inbox.push(PyValue::Dict(vec![(receiver_id.clone(), message.clone())]));
        self.message_count = augmented(Op::Add, &self.message_count, &int(1))?;
        let status = Text::new()
            .text("Message sent to '")
            .v(receiver_id)
            .text("' successfully.");
        Ok(dict([
            ("sent_status", PyValue::Bool(true)),
            ("message_id", dict([("new_id", int(id))])),
            ("message", status.value()),
        ]))
    }

    fn inbox_items(&self) -> Result<&Vec<PyValue>> {
        match &self.inbox {
            PyValue::List(items) => Ok(items),
            other => Err(format!("'{}' object is not iterable", other.type_name())),
        }
    }

    fn delete_message(&mut self, receiver_id: &PyValue) -> Result<PyValue> {
        if let Some(error) = self.not_logged_in() {
            return Ok(error);
        }
        let inbox = self.inbox_items()?;
        let mut found = None;
        for message in inbox.iter().rev() {
            let (receiver, _) = first_item(message)?;
            if py_eq(receiver, receiver_id) {
                found = Some((message.clone(), receiver.clone()));
                break;
            }
        }
        let Some((message, receiver)) = found else {
            let error = Text::new()
                .text("Receiver ID ")
                .v(receiver_id)
                .text(" not found.");
            return Ok(dict([("error", error.value())]));
        };
        // `list.remove` drops the first message equal to the one found.
        if let PyValue::List(items) = &mut self.inbox
            && let Some(i) = list_position(items, &message)
        {
            items.remove(i);
        }
        let status = Text::new()
            .text("Receiver ")
            .v(receiver_id)
            .text("'s latest message deleted successfully.");
        Ok(dict([
            ("deleted_status", PyValue::Bool(true)),
            ("receiver_id", receiver),
            ("message", status.value()),
        ]))
    }

    /// `(receiver, content)` of every inbox message, in order.
    fn messages(&self) -> Result<Vec<(&PyValue, &PyValue)>> {
        self.inbox_items()?.iter().map(first_item).collect()
    }

    fn view_messages_sent(&self) -> Result<PyValue> {
        if let Some(error) = self.not_logged_in() {
            return Ok(error);
        }
        let messages = self.messages()?;
        let receivers = distinct(messages.iter().map(|(r, _)| *r));
        let index = KeyIndex::over(receivers.iter());
        let mut groups: Vec<(PyValue, Vec<PyValue>)> =
            receivers.iter().map(|r| (r.clone(), Vec::new())).collect();
        for (receiver, content) in messages {
            match index.find(receiver, |i| &receivers[i]) {
                Some(i) => groups[i].1.push(content.clone()),
                // A key equal to nothing (a NaN) starts a group of its own.
                None => groups.push((receiver.clone(), vec![content.clone()])),
            }
        }
        let sent = groups
            .into_iter()
            .map(|(k, v)| (k, PyValue::List(v)))
            .collect();
        Ok(dict([("messages", PyValue::Dict(sent))]))
    }

    fn add_contact(&mut self, user_name: &PyValue) -> Result<PyValue> {
        if key_position(self.user_entries()?, user_name)?.is_some() {
            let error = Text::new()
                .text("User name '")
                .v(user_name)
                .text("' already exists.");
            return Ok(dict([("error", error.value())]));
        }
        self.user_count = augmented(Op::Add, &self.user_count, &int(1))?;
        let mut user_id = vec![u32::from('U'), u32::from('S'), u32::from('R')];
        user_id.extend(zfill(py_str(&self.user_count), 3));
        let user_id = PyValue::Str(crate::benchmarks::python::PyStr(user_id));
        if self.is_user_id(&user_id)? {
            let error = Text::new()
                .text("User ID '")
                .v(&user_id)
                .text("' already exists.");
            return Ok(dict([("error", error.value())]));
        }
        if let PyValue::Dict(entries) = &mut self.user_map {
            dict_set(entries, user_name.clone(), user_id.clone())?;
        }
        let status = Text::new()
            .text("Contact '")
            .v(user_name)
            .text("' added successfully.");
        Ok(dict([
            ("added_status", PyValue::Bool(true)),
            ("user_id", user_id),
            ("message", status.value()),
        ]))
    }

    fn search_messages(&self, keyword: &PyValue) -> Result<PyValue> {
        if let Some(error) = self.not_logged_in() {
            return Ok(error);
        }
        let keyword = lower(keyword)?;
        let code_points: Vec<u32> = match &keyword {
            PyValue::Str(k) => k.0.clone(),
            PyValue::Bytes(k) => k.iter().map(|&x| u32::from(x)).collect(),
            _ => Vec::new(),
        };
        let finder = Finder::new(&code_points);
        let mut results = Vec::new();
        for (receiver, content) in self.messages()? {
            if lowered_contains(&lower(content)?, &keyword, &finder)? {
                results.push(dict([
                    ("receiver_id", receiver.clone()),
                    ("message", content.clone()),
                ]));
            }
        }
        Ok(dict([("results", PyValue::List(results))]))
    }

    fn get_message_stats(&self) -> Result<PyValue> {
        if let Some(error) = self.not_logged_in() {
            return Ok(error);
        }
        let messages = self.messages()?;
        let contacts = distinct(messages.iter().map(|(r, _)| *r)).len();
        let stats = dict([
            ("received_count", int(messages.len() as i128)),
            ("total_contacts", int(contacts as i128)),
        ]);
        Ok(dict([("stats", stats)]))
    }
}

impl ApiClass for MessageApi {
    fn class_name(&self) -> &'static str {
        "MessageAPI"
    }

    fn methods(&self) -> &'static [Signature] {
        METHODS
    }

    fn call(&mut self, method: &str, args: Vec<PyValue>) -> Result<Output> {
        self.run(method, &args).map(Output::Value)
    }

    fn state(&self) -> Vec<(&'static str, State)> {
        let ids = self
            .generated_ids
            .iter()
            .map(|&id| State::Int(id))
            .collect();
        vec![
            ("generated_ids", State::Set(ids)),
            ("user_count", State::from(&self.user_count)),
            ("user_map", State::from(&self.user_map)),
            ("inbox", State::from(&self.inbox)),
            ("message_count", State::from(&self.message_count)),
            ("current_user", State::from(&self.current_user)),
        ]
    }
}

/// `list(message.items())[0]`.
fn first_item(message: &PyValue) -> Result<(&PyValue, &PyValue)> {
    match message {
        PyValue::Dict(entries) => entries
            .first()
            .map(|(k, v)| (k, v))
            .ok_or_else(|| "list index out of range".to_string()),
        other => Err(no_attribute(other, "items")),
    }
}

/// The distinct values (by Python equality), in first-seen order.
fn distinct<'a>(values: impl Iterator<Item = &'a PyValue>) -> Vec<PyValue> {
    let mut keys = DictBuilder::new();
    for value in values {
        keys.insert(value.clone(), PyValue::None);
    }
    keys.finish().into_iter().map(|(k, _)| k).collect()
}

/// `value.lower()` for a `str` or `bytes`, else the `AttributeError`.
fn lower(value: &PyValue) -> Result<PyValue> {
    match value {
        PyValue::Str(text) => Ok(PyValue::Str(crate::benchmarks::python::PyStr(py_lower(
            &text.0,
        )))),
        PyValue::Bytes(bytes) => Ok(PyValue::Bytes(bytes.to_ascii_lowercase())),
        other => Err(no_attribute(other, "lower")),
    }
}

/// `needle in haystack` for a lowered haystack (`str` or `bytes`) and the
/// lowered keyword's finder, with Python's `TypeError` when they mix.
fn lowered_contains(haystack: &PyValue, needle: &PyValue, finder: &Finder) -> Result<bool> {
    match (haystack, needle) {
        (PyValue::Str(h), PyValue::Str(_)) => Ok(finder.is_in(&h.0)),
        (PyValue::Bytes(h), PyValue::Bytes(_)) => {
            let widened: Vec<u32> = h.iter().map(|&x| u32::from(x)).collect();
            Ok(finder.is_in(&widened))
        }
        (PyValue::Str(_), other) => Err(format!(
            "'in <string>' requires string as left operand, not {}",
            other.type_name()
        )),
        (_, other) => Err(format!(
            "a bytes-like object is required, not '{}'",
            other.type_name()
        )),
    }
}

/// `text.zfill(width)`: zeros after a leading sign up to `width`.
fn zfill(text: Vec<u32>, width: usize) -> Vec<u32> {
    if text.len() >= width {
        return text;
    }
    let pad = width - text.len();
    let signed = matches!(text.first(), Some(&c) if c == u32::from('+') || c == u32::from('-'));
    let split = usize::from(signed);
    let mut out = text[..split].to_vec();
    out.extend(std::iter::repeat_n(u32::from('0'), pad));
    out.extend_from_slice(&text[split..]);
    out
}

#[cfg(test)]
#[path = "message_api_tests.rs"]
mod tests;

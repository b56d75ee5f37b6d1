//! `TravelAPI` (`travel_booking.py`): flights, credit cards, bookings,
//! insurance and budget, ported from gorilla `6ea5797`.
//!
//! Deterministic choices and limits (the official class depends on the
//! run's environment here, or on values only Python can hold):
//! - `verify_traveler_information` computes the traveller's age from
//!   `datetime.today()`; here "today" is [`TODAY`] (2026-03-23, the
//!   official commit's date). The reference traces hold no birth date within
//!   18 years of their run, so every date from 2013-08-15 on reproduces them.
//! - `book_flight`'s invalid-class error prints the set `{"economy",
//!   "business", "first"}`, whose order depends on the string-hash seed:
//!   here the order of CPython 3.11 under `PYTHONHASHSEED=0`, as the
//!   reference traces hold it (`{'first', 'business', 'economy'}`).
//! - Long context: the official cards of `CREDIT_CARD_EXTENSION` are the
//!   module's dict objects themselves, so a balance change on one shows in
//!   every instance of the process (model and ground truth, later entries):
//!   they live in [`Globals`] and are shared by reference. The booking
//!   records of `BOOKING_RECORD_EXTENSION` are never changed in place, so
//!   each instance holds its own copy.
//! - The private flight-cost cache is not kept: `book_flight` reads back
//!   the cost of a route it has just checked, which the cache always holds.
//! - A `random_seed` in the configuration that is not an `int` within 128
//!   bits seeds with the default 141053 (no question has one); a
//!   `credit_card_list` or `booking_record` that is not a dict loads empty.
//! - Python arithmetic on model-given values follows `py_num` (ASCII
//!   digits).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::{Mutex, PoisonError};

use super::py_num::{Cmp, Op, augmented, compare, py_float};
use super::py_ops::{
    contains, dict, get_item, hashable, int, repr_text, same_text, set_item, str_text, text,
};
use super::strptime::strptime_or_none;
use super::travel_booking_costs::{compute_exchange_rate, flight_costs};
use super::{Globals, long_context};
use crate::benchmarks::bfcl::multi_turn::api::{ApiClass, Output, Param, Signature};
use crate::benchmarks::bfcl::multi_turn::state::State;
use crate::benchmarks::python::random::PyRandom;
use crate::benchmarks::python::value::py_eq;
use crate::benchmarks::python::{PyStr, PyValue, py_str};

/// The date `verify_traveler_information` takes for today (year, month, day).
pub const TODAY: (i64, u32, u32) = (2026, 3, 23);

const DEFAULT_SEED: i128 = 141053;

/// A credit card: a dict object that instances may share (long context).
pub type Card = Arc<Mutex<PyValue>>;

/// The long-context cards shared by the instances of one process.
pub fn shared_cards() -> Vec<(PyStr, Card)> {
    match long_context("CREDIT_CARD_EXTENSION") {
        PyValue::Dict(entries) => entries
            .iter()
            .filter_map(|(k, v)| match k {
                PyValue::Str(k) => Some((k.clone(), Arc::new(Mutex::new(v.clone())))),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A dict with `str` keys in insertion order: O(1) expected lookup,
/// insertion and deletion (a deleted entry leaves a hole).
#[derive(Debug)]
struct StrMap<V> {
    entries: Vec<Option<(PyStr, V)>>,
    index: HashMap<PyStr, usize>,
}

impl<V> StrMap<V> {
    fn new() -> StrMap<V> {
        StrMap {
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// `key in d` for any key: the `TypeError` of an unhashable key; only
    /// a `str` can equal a key here.
    fn lookup(&self, key: &PyValue) -> Result<Option<&V>, String> {
        hashable(key)?;
        Ok(match key {
            PyValue::Str(k) => self.get(k),
            _ => None,
        })
    }

    fn get(&self, key: &PyStr) -> Option<&V> {
        let at = *self.index.get(key)?;
        self.entries[at].as_ref().map(|(_, v)| v)
    }

    fn contains(&self, key: &PyStr) -> bool {
        self.index.contains_key(key)
    }

    /// `d[key] = value` (an existing key keeps its place).
    fn insert(&mut self, key: PyStr, value: V) {
        match self.index.get(&key) {
            Some(&at) => self.entries[at] = Some((key, value)),
            None => {
                self.index.insert(key.clone(), self.entries.len());
                self.entries.push(Some((key, value)));
            }
        }
    }

    fn remove(&mut self, key: &PyStr) {
        if let Some(at) = self.index.remove(key) {
            self.entries[at] = None;
        }
    }

    fn iter(&self) -> impl Iterator<Item = (&PyStr, &V)> {
        self.entries.iter().flatten().map(|(k, v)| (k, v))
    }
}

/// The entries of a configuration dict with `str` keys.
fn str_entries(config: Option<&PyValue>) -> Vec<(PyStr, PyValue)> {
    match config {
        Some(PyValue::Dict(entries)) => entries
            .iter()
            .filter_map(|(k, v)| match k {
                PyValue::Str(k) => Some((k.clone(), v.clone())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// One `TravelAPI` instance.
#[derive(Debug)]
pub struct TravelApi {
    random: PyRandom,
    credit_card_list: StrMap<Card>,
    booking_record: StrMap<PyValue>,
    access_token: PyValue,
    token_type: PyValue,
    token_expires_in: PyValue,
    token_scope: PyValue,
    user_first_name: PyValue,
    user_last_name: PyValue,
    budget_limit: PyValue,
    long_context: bool,
}

impl TravelApi {
    /// `TravelAPI()._load_scenario(config, long_context)`.
    pub fn new(config: &PyValue, long_context: bool, globals: &Globals) -> TravelApi {
        let field = |name: &str| config.get_str(name).cloned().unwrap_or(PyValue::None);
        let seed = match config.get_str("random_seed") {
            Some(PyValue::Int(text)) => text.parse().unwrap_or(DEFAULT_SEED),
            Some(PyValue::Bool(b)) => i128::from(*b),
            _ => DEFAULT_SEED,
        };
        let mut credit_card_list = StrMap::new();
        for (k, v) in str_entries(config.get_str("credit_card_list")) {
            credit_card_list.insert(k, Arc::new(Mutex::new(v)));
        }
        let mut booking_record = StrMap::new();
        for (k, v) in str_entries(config.get_str("booking_record")) {
            booking_record.insert(k, v);
        }
        if long_context {
            let shared = globals.travel_cards.get_or_init(shared_cards);
            for (k, card) in shared {
                if !credit_card_list.contains(k) {
                    credit_card_list.insert(k.clone(), Arc::clone(card));
                }
            }
            for (k, v) in str_entries(Some(super::long_context("BOOKING_RECORD_EXTENSION"))) {
                if !booking_record.contains(&k) {
                    booking_record.insert(k, v);
                }
            }
        }
        TravelApi {
            random: PyRandom::new(seed),
            credit_card_list,
            booking_record,
            access_token: field("access_token"),
            token_type: field("token_type"),
            token_expires_in: field("token_expires_in"),
            token_scope: field("token_scope"),
            user_first_name: field("user_first_name"),
            user_last_name: field("user_last_name"),
            budget_limit: field("budget_limit"),
            long_context,
        }
    }

    fn draw(&mut self, low: i128, high: i128) -> PyValue {
        text(&self.random.randint(low, high).unwrap_or(low).to_string())
    }

    fn token_expired(&self) -> bool {
        py_eq(&self.token_expires_in, &int(0))
    }

    fn cards_dict(&self) -> PyValue {
        PyValue::Dict(
            self.credit_card_list
                .iter()
                .map(|(k, card)| {
                    (
                        PyValue::Str(k.clone()),
                        card.lock().unwrap_or_else(PoisonError::into_inner).clone(),
                    )
                })
                .collect(),
        )
    }

    fn bookings_dict(&self) -> PyValue {
        PyValue::Dict(
            self.booking_record
                .iter()
                .map(|(k, v)| (PyValue::Str(k.clone()), v.clone()))
                .collect(),
        )
    }
}

/// The bound arguments as an array (the core binds one per parameter).
fn take<const N: usize>(mut args: Vec<PyValue>) -> [PyValue; N] {
    args.resize(N, PyValue::None);
    args.try_into()
        .unwrap_or_else(|_| std::array::from_fn(|_| PyValue::None))
}

fn value(v: PyValue) -> Result<Output, String> {
    Ok(Output::Value(v))
}

fn failed(status: &str, error: &str) -> Result<Output, String> {
    value(dict([
        (status, PyValue::Bool(false)),
        ("error", text(error)),
    ]))
}

fn error(message: &str) -> Result<Output, String> {
    value(dict([("error", text(message))]))
}

const AIRPORTS: [&str; 23] = [
    "RMS", "SBK", "MPC", "SVP", "SHD", "CDG", "LHR", "SSV", "OKD", "WLB", "PEK", "HND", "HKG",
    "CIA", "CRH", "ATV", "PHV", "GFD", "SFO", "LAX", "JFK", "ORD", "BOS",
];

const CITY_AIRPORTS: [(&str, &str); 23] = [
    ("Rivermist", "RMS"),
    ("Stonebrook", "SBK"),
    ("Maplecrest", "MPC"),
    ("Silverpine", "SVP"),
    ("Shadowridge", "SHD"),
    ("London", "LHR"),
    ("Paris", "CDG"),
    ("Sunset Valley", "SSV"),
    ("Oakendale", "OKD"),
    ("Willowbend", "WLB"),
    ("Crescent Hollow", "CRH"),
    ("Autumnville", "ATV"),
    ("Pinehaven", "PHV"),
    ("Greenfield", "GFD"),
    ("San Francisco", "SFO"),
    ("Los Angeles", "LAX"),
    ("New York", "JFK"),
    ("Chicago", "ORD"),
    ("Boston", "BOS"),
    ("Beijing", "PEK"),
    ("Hong Kong", "HKG"),
    ("Rome", "CIA"),
    ("Tokyo", "HND"),
];

fn passport_is_us(passport: &PyValue) -> Result<bool, String> {
    match passport {
        PyValue::Str(text) => Ok(text.0.starts_with(&[u32::from('U'), u32::from('S')])),
        PyValue::Bytes(_) => {
            Err("startswith first arg must be bytes or a tuple of bytes, not str".into())
        }
        other => Err(format!(
            "'{}' object has no attribute 'startswith'",
            other.type_name()
        )),
    }
}

const fn req(name: &'static str) -> Param {
    Param::required(name)
}

const fn none(name: &'static str) -> Param {
    Param::optional(name, "None")
}

const METHODS: &[Signature] = &[
    Signature {
        name: "authenticate_travel",
        params: &[
            req("client_id"),
            req("client_secret"),
            req("refresh_token"),
            req("grant_type"),
            req("user_first_name"),
            req("user_last_name"),
        ],
    },
    Signature {
        name: "travel_get_login_status",
        params: &[],
    },
    Signature {
        name: "get_budget_fiscal_year",
        params: &[none("lastModifiedAfter"), none("includeRemoved")],
    },
    Signature {
        name: "register_credit_card",
        params: &[
            req("access_token"),
            req("card_number"),
            req("expiration_date"),
            req("cardholder_name"),
            req("card_verification_number"),
        ],
    },
    Signature {
        name: "get_flight_cost",
        params: &[
            req("travel_from"),
            req("travel_to"),
            req("travel_date"),
            req("travel_class"),
        ],
    },
    Signature {
        name: "get_credit_card_balance",
        params: &[req("access_token"), req("card_id")],
    },
    Signature {
        name: "book_flight",
        params: &[
            req("access_token"),
            req("card_id"),
            req("travel_date"),
            req("travel_from"),
            req("travel_to"),
            req("travel_class"),
        ],
    },
    Signature {
        name: "retrieve_invoice",
        params: &[
            req("access_token"),
            none("booking_id"),
            none("insurance_id"),
        ],
    },
    Signature {
        name: "get_booking_history",
        params: &[req("access_token")],
    },
    Signature {
        name: "list_all_airports",
        params: &[],
    },
    Signature {
        name: "cancel_booking",
        params: &[req("access_token"), req("booking_id")],
    },
    Signature {
        name: "compute_exchange_rate",
        params: &[req("base_currency"), req("target_currency"), req("value")],
    },
    Signature {
        name: "verify_traveler_information",
        params: &[
            req("first_name"),
            req("last_name"),
            req("date_of_birth"),
            req("passport_number"),
        ],
    },
    Signature {
        name: "set_budget_limit",
        params: &[req("access_token"), req("budget_limit")],
    },
    Signature {
        name: "get_nearest_airport_by_city",
        params: &[req("location")],
    },
    Signature {
        name: "purchase_insurance",
        params: &[
            req("access_token"),
            req("insurance_type"),
            req("booking_id"),
            req("insurance_cost"),
            req("card_id"),
        ],
    },
    Signature {
        name: "contact_customer_support",
        params: &[req("booking_id"), req("message")],
    },
    Signature {
        name: "get_all_credit_cards",
        params: &[],
    },
];

impl ApiClass for TravelApi {
    fn class_name(&self) -> &'static str {
        "TravelAPI"
    }

    fn methods(&self) -> &'static [Signature] {
        METHODS
    }

    fn call(&mut self, method: &str, args: Vec<PyValue>) -> Result<Output, String> {
        match method {
            "authenticate_travel" => {
                let [_, _, _, grant_type, first, last] = take(args);
                self.authenticate(grant_type, first, last)
            }
            "travel_get_login_status" => {
                let logged_out =
                    matches!(self.token_expires_in, PyValue::None) || self.token_expired();
                value(dict([("status", PyValue::Bool(!logged_out))]))
            }
            "get_budget_fiscal_year" => value(dict([("budget_fiscal_year", text("2018"))])),
            "register_credit_card" => self.register_credit_card(take(args)),
            "get_flight_cost" => {
                let [from, to, date, class] = take(args);
                let (list, _) = flight_costs(&from, &to, &date, &class, self.long_context)?;
                let list = list.into_iter().map(PyValue::Float).collect();
                value(dict([("travel_cost_list", PyValue::List(list))]))
            }
            "get_credit_card_balance" => {
                let [token, card_id] = take(args);
                self.card_balance(&token, &card_id)
            }
            "book_flight" => self.book_flight(take(args)),
            "retrieve_invoice" => {
                let [token, booking_id, _] = take(args);
                self.retrieve_invoice(&token, booking_id)
            }
            "get_booking_history" => {
                let [token] = take(args);
                match self.check_token(&token) {
                    Some(problem) => error(problem),
                    None => value(dict([("booking_history", self.bookings_dict())])),
                }
            }
            "list_all_airports" => value(PyValue::List(AIRPORTS.iter().map(|a| text(a)).collect())),
            "cancel_booking" => {
                let [token, booking_id] = take(args);
                self.cancel_booking(&token, &booking_id)
            }
            "compute_exchange_rate" => {
                let [base, target, amount] = take(args);
                compute_exchange_rate(&base, &target, &amount)
            }
            "verify_traveler_information" => self.verify_traveler(take(args)),
            "set_budget_limit" => {
                let [token, limit] = take(args);
                if let Some(problem) = self.check_token(&token) {
                    return error(problem);
                }
                let limit = py_float(&limit)?;
                self.budget_limit = PyValue::Float(limit);
                value(dict([("budget_limit", PyValue::Float(limit))]))
            }
            "get_nearest_airport_by_city" => {
                let [location] = take(args);
                hashable(&location)?;
                let airport = CITY_AIRPORTS
                    .iter()
                    .find(|(city, _)| same_text(&location, city))
                    .map_or("Unknown", |(_, airport)| airport);
                value(dict([("nearest_airport", text(airport))]))
            }
            "purchase_insurance" => self.purchase_insurance(take(args)),
            "contact_customer_support" => {
                let [booking_id, _] = take(args);
                if self.booking_record.lookup(&booking_id)?.is_none() {
                    return error("Booking not found");
                }
                value(dict([(
                    "customer_support_message",
                    text(
                        "Thank you for contacting customer support. Your message has been \
                       received and we will get back to you shortly.",
                    ),
                )]))
            }
            "get_all_credit_cards" => value(dict([("credit_card_list", self.cards_dict())])),
            other => Err(format!("'TravelAPI' object has no attribute '{other}'")),
        }
    }

    fn state(&self) -> Vec<(&'static str, State)> {
        let cards = State::Dict(
            self.credit_card_list
                .iter()
                .map(|(k, card)| {
                    (
                        State::Str(k.to_string_lossy()),
                        State::from(&*card.lock().unwrap_or_else(PoisonError::into_inner)),
                    )
                })
                .collect(),
        );
        vec![
            ("credit_card_list", cards),
            ("booking_record", State::from(&self.bookings_dict())),
            ("access_token", State::from(&self.access_token)),
            ("token_type", State::from(&self.token_type)),
            ("token_expires_in", State::from(&self.token_expires_in)),
            ("token_scope", State::from(&self.token_scope)),
            ("user_first_name", State::from(&self.user_first_name)),
            ("user_last_name", State::from(&self.user_last_name)),
            ("budget_limit", State::from(&self.budget_limit)),
            ("long_context", State::Bool(self.long_context)),
        ]
    }
}

impl TravelApi {
    /// The error of the token checks most methods start with
    /// (`token_expires_in == 0`, then a token other than the instance's).
    fn check_token(&self, token: &PyValue) -> Option<&'static str> {
        if self.token_expired() {
            Some("Token expired")
        } else if !py_eq(token, &self.access_token) {
            Some("Invalid access token")
        } else {
            None
        }
    }

    fn authenticate(
        &mut self,
        grant_type: PyValue,
        first: PyValue,
        last: PyValue,
    ) -> Result<Output, String> {
        self.token_expires_in = int(2);
        self.access_token = self.draw(100_000, 999_999);
        self.token_type = text("Bearer");
        self.token_scope = grant_type.clone();
        self.user_first_name = first;
        self.user_last_name = last;
        value(dict([
            ("expires_in", int(2)),
            ("access_token", self.access_token.clone()),
            ("token_type", text("Bearer")),
            ("scope", grant_type),
        ]))
    }

    fn register_credit_card(&mut self, args: [PyValue; 5]) -> Result<Output, String> {
        let [token, number, expiration, holder, verification] = args;
        if matches!(self.token_expires_in, PyValue::None) {
            return error("Token not initialized");
        }
        if let Some(problem) = self.check_token(&token) {
            return error(problem);
        }
        if self.credit_card_list.lookup(&number)?.is_some() {
            return error("Card already registered");
        }
        let card_id = self.draw(100_000_000_000, 999_999_999_999);
        let balance = self.random.randint(10_000, 99_999).unwrap_or(10_000);
        let card = dict([
            ("card_number", number),
            ("expiration_date", expiration),
            ("cardholder_name", holder),
            ("card_verification_number", verification),
            ("balance", int(balance)),
        ]);
        if let PyValue::Str(id) = &card_id {
            self.credit_card_list
                .insert(id.clone(), Arc::new(Mutex::new(card)));
        }
        value(dict([("card_id", card_id)]))
    }

    fn card_balance(&self, token: &PyValue, card_id: &PyValue) -> Result<Output, String> {
        if let Some(problem) = self.check_token(token) {
            return error(problem);
        }
        let Some(card) = self.credit_card_list.lookup(card_id)? else {
            let ids = PyValue::List(
                self.credit_card_list
                    .iter()
                    .map(|(k, _)| PyValue::Str(k.clone()))
                    .collect(),
            );
            return error(&format!(
                "Card not registered. Here are a list of card_id's: {}",
                str_text(&ids)
            ));
        };
        let balance = get_item(
            &card.lock().unwrap_or_else(PoisonError::into_inner),
            "balance",
        )?
        .clone();
        value(dict([("card_balance", balance)]))
    }
}

/// `prefix + str(v)`, code points kept.
fn with_str(prefix: &str, v: &PyValue) -> PyValue {
    let mut text = PyStr::new(prefix).0;
    text.extend(py_str(v));
    PyValue::Str(PyStr(text))
}

impl TravelApi {
    fn book_flight(&mut self, args: [PyValue; 6]) -> Result<Output, String> {
        let [token, card_id, date, from, to, class] = args;
        const STATUS: &str = "booking_status";
        if let Some(problem) = self.check_token(&token) {
            return failed(STATUS, problem);
        }
        let Some(card) = self.credit_card_list.lookup(&card_id)?.cloned() else {
            return failed(STATUS, "Card not registered");
        };
        if !contains(
            &card.lock().unwrap_or_else(PoisonError::into_inner),
            &text("balance"),
        )? {
            return failed(STATUS, "Balance not found");
        }
        for (airport, what) in [(&from, "departure"), (&to, "destination")] {
            if !AIRPORTS.iter().any(|a| same_text(airport, a)) {
                let message = with_str(&format!("Invalid {what} airport code: "), airport);
                return value(dict([(STATUS, PyValue::Bool(false)), ("error", message)]));
            }
        }
        if strptime_or_none(&date, "%Y-%m-%d")?.is_none() {
            return failed(STATUS, "Invalid date format. Use YYYY-MM-DD.");
        }
        hashable(&class)?;
        if !["economy", "business", "first"]
            .iter()
            .any(|c| same_text(&class, c))
        {
            return failed(
                STATUS,
                "Invalid travel class. Must be one of {'first', 'business', 'economy'}",
            );
        }
        let cost = match flight_costs(&from, &to, &date, &class, self.long_context) {
            Ok((_, cost)) => cost,
            Err(e) => return failed(STATUS, &e),
        };
        let cost_value = PyValue::Float(cost);
        let balance = get_item(
            &card.lock().unwrap_or_else(PoisonError::into_inner),
            "balance",
        )?
        .clone();
        if compare(Cmp::Lt, &balance, &cost_value)? {
            return failed(STATUS, "Insufficient funds");
        }
        if !matches!(self.budget_limit, PyValue::None)
            && compare(Cmp::Lt, &balance, &self.budget_limit)?
        {
            return failed(STATUS, "Balance is less than budget limit");
        }
        let left = augmented(Op::Sub, &balance, &cost_value)?;
        set_item(
            &mut card.lock().unwrap_or_else(PoisonError::into_inner),
            "balance",
            left,
        )?;
        let booking_id = self.draw(1_000_000, 9_999_999);
        let transaction_id = self.draw(10_000_000, 99_999_999);
        let record = dict([
            ("card_id", card_id),
            ("travel_date", date),
            ("travel_from", from),
            ("travel_to", to),
            ("travel_class", class),
            ("travel_cost", cost_value),
            ("transaction_id", transaction_id.clone()),
        ]);
        if let PyValue::Str(id) = &booking_id {
            self.booking_record.insert(id.clone(), record);
        }
        let history = if self.long_context {
            self.bookings_dict()
        } else {
            PyValue::Dict(Vec::new())
        };
        value(dict([
            ("booking_id", booking_id),
            ("transaction_id", transaction_id),
            (STATUS, PyValue::Bool(true)),
            ("booking_history", history),
        ]))
    }

    fn retrieve_invoice(&self, token: &PyValue, booking_id: PyValue) -> Result<Output, String> {
        if let Some(problem) = self.check_token(token) {
            return error(problem);
        }
        let Some(record) = self.booking_record.lookup(&booking_id)? else {
            return error("Booking not found");
        };
        let mut invoice = vec![(text("booking_id"), booking_id.clone())];
        for field in [
            "travel_date",
            "travel_from",
            "travel_to",
            "travel_class",
            "travel_cost",
            "transaction_id",
        ] {
            invoice.push((text(field), get_item(record, field)?.clone()));
        }
        value(dict([("invoice", PyValue::Dict(invoice))]))
    }

    fn cancel_booking(&mut self, token: &PyValue, booking_id: &PyValue) -> Result<Output, String> {
        const STATUS: &str = "cancel_status";
        if let Some(problem) = self.check_token(token) {
            return failed(STATUS, problem);
        }
        let Some(record) = self.booking_record.lookup(booking_id)? else {
            return failed(STATUS, "Booking not found");
        };
        let card_id = get_item(record, "card_id")?.clone();
        let cost = get_item(record, "travel_cost")?.clone();
        let card = self
            .credit_card_list
            .lookup(&card_id)?
            .cloned()
            .ok_or_else(|| repr_text(&card_id))?;
        let balance = get_item(
            &card.lock().unwrap_or_else(PoisonError::into_inner),
            "balance",
        )?
        .clone();
        let refunded = augmented(Op::Add, &balance, &cost)?;
        set_item(
            &mut card.lock().unwrap_or_else(PoisonError::into_inner),
            "balance",
            refunded,
        )?;
        if let PyValue::Str(id) = booking_id {
            self.booking_record.remove(id);
        }
        value(dict([(STATUS, PyValue::Bool(true))]))
    }

    fn verify_traveler(&self, args: [PyValue; 4]) -> Result<Output, String> {
        let [first, last, birth, passport] = args;
        const STATUS: &str = "verification_status";
        let refuse = |why: PyValue| {
            value(dict([
                (STATUS, PyValue::Bool(false)),
                ("verification_failure", why),
            ]))
        };
        if !py_eq(&self.user_first_name, &first) || !py_eq(&self.user_last_name, &last) {
            let mut text =
                PyStr::new("Cannot book flight information for another user.Expected ").0;
            for (i, part) in [&self.user_first_name, &self.user_last_name, &first, &last]
                .into_iter()
                .enumerate()
            {
                text.extend(py_str(part));
                text.extend(PyStr::new([" ", ", got ", " ", ""][i]).0);
            }
            return refuse(PyValue::Str(PyStr(text)));
        }
        let Some(born) = strptime_or_none(&birth, "%Y-%m-%d")? else {
            return refuse(text("Invalid date of birth format. Please use YYYY-MM-DD."));
        };
        let (today_year, today_month, today_day) = TODAY;
        let (year, month, day) = (i64::from(born.year), born.month, born.day);
        let age = today_year - year - i64::from((today_month, today_day) < (month, day));
        if age < 18 {
            return refuse(text("Traveler must be at least 18 years old."));
        }
        if !passport_is_us(&passport)? {
            return refuse(text("Passport must be issued by the United States."));
        }
        value(dict([(STATUS, PyValue::Bool(true))]))
    }

    fn purchase_insurance(&mut self, args: [PyValue; 5]) -> Result<Output, String> {
        let [token, _, booking_id, cost, card_id] = args;
        const STATUS: &str = "insurance_status";
        if let Some(problem) = self.check_token(&token) {
            return failed(STATUS, problem);
        }
        if !matches!(self.budget_limit, PyValue::None)
            && compare(Cmp::Lt, &self.budget_limit, &cost)?
        {
            return failed(STATUS, "Exceeded budget limit");
        }
        if self.booking_record.lookup(&booking_id)?.is_none() {
            return failed(STATUS, "Booking not found");
        }
        let Some(card) = self.credit_card_list.lookup(&card_id)?.cloned() else {
            return failed(STATUS, "Credit card not registered");
        };
        let balance = get_item(
            &card.lock().unwrap_or_else(PoisonError::into_inner),
            "balance",
        )?
        .clone();
        let left = augmented(Op::Sub, &balance, &cost)?;
        set_item(
            &mut card.lock().unwrap_or_else(PoisonError::into_inner),
            "balance",
            left,
        )?;
        let insurance_id = self.draw(100_000_000, 999_999_999);
        value(dict([
            ("insurance_id", insurance_id),
            (STATUS, PyValue::Bool(true)),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::bfcl::multi_turn::apis::py_ops::testing::run_tuple as run;
    use crate::benchmarks::bfcl::multi_turn::state::state_id;
    use crate::benchmarks::python::testing::lit;

    fn travel(config: &str, long_context: bool, globals: &Globals) -> TravelApi {
        TravelApi::new(&lit(config), long_context, globals)
    }

    // Model-written values of every kind, run in this order on one
    // instance; each expected text is what the official class gave under
    // CPython 3.11.7 (the draws of the successful booking and insurance
    // purchases included).
    #[test]
    fn hostile_arguments_give_cpythons_results() {
        let config = "{'access_token': 'tok', 'token_expires_in': 2, 'budget_limit': 100.0, \
                      'credit_card_list': {'c1': {'balance': 5000}}, \
                      'booking_record': {'b1': {'card_id': 'c1'}}}";
        let mut api = travel(config, false, &Globals::default());
        let cases = [
            (
                "compute_exchange_rate",
                "('USD', 'RMB', '100')",
                r#"{"exchanged_value": 1.001001001001001e+20}"#,
            ),
            (
                "compute_exchange_rate",
                "('USD', 'EUR', '100')",
                "Error during execution: can't multiply sequence by non-int of type 'float'",
            ),
            (
                "compute_exchange_rate",
                "('RMB', 'USD', 100000000000000000001)",
                r#"{"exchanged_value": 1.4285714285714287e+19}"#,
            ),
            (
                "compute_exchange_rate",
                "('JPY', 'USD', 18446744073709551623)",
                r#"{"exchanged_value": 1.6769767339735955e+17}"#,
            ),
            (
                "compute_exchange_rate",
                "('EUR', 'USD', 0.1)",
                r#"{"exchanged_value": 0.12}"#,
            ),
            (
                "compute_exchange_rate",
                "('USD', 'RMB', [1])",
                "Error during execution: float() argument must be a string or a real number, not 'list'",
            ),
            (
                "compute_exchange_rate",
                "('USD', 'RMB', None)",
                "Error during execution: unsupported operand type(s) for *: 'NoneType' and 'int'",
            ),
            (
                "compute_exchange_rate",
                "('RMB', 'USD', '7')",
                "Error during execution: unsupported operand type(s) for /: 'str' and 'int'",
            ),
            (
                "compute_exchange_rate",
                "('RMB', 'USD', 1j)",
                "Error during execution: type complex doesn't define __round__ method",
            ),
            (
                "compute_exchange_rate",
                "('USD', 'GBP', b'1')",
                "Error during execution: can't multiply sequence by non-int of type 'float'",
            ),
            (
                "compute_exchange_rate",
                "('USD', 'RMB', b'1')",
                r#"{"exchanged_value": 1111111.0}"#,
            ),
            (
                "compute_exchange_rate",
                "('USD', 'XXX', 1)",
                "Error during execution: No available exchange rate for the given currencies.",
            ),
            (
                "get_flight_cost",
                "('SFO', 'LAX', ['12', 'x'], 'economy')",
                r#"{"travel_cost_list": [400.0]}"#,
            ),
            (
                "get_flight_cost",
                "('SFO', 'LAX', [1], 'economy')",
                "Error during execution: 'int' object has no attribute 'isdigit'",
            ),
            (
                "get_flight_cost",
                "('SFO', 'LAX', 5, 'economy')",
                "Error during execution: 'int' object is not iterable",
            ),
            (
                "get_flight_cost",
                "('SFO', ['LAX'], '2024', 'economy')",
                "Error during execution: unhashable type: 'list'",
            ),
            (
                "get_flight_cost",
                "('SFO', 'LAX', {'11': 1}, 'first')",
                r#"{"travel_cost_list": [1000.0]}"#,
            ),
            (
                "book_flight",
                "('tok', 'c1', None, 'SFO', 'LAX', 'economy')",
                "Error during execution: strptime() argument 1 must be str, not None",
            ),
            (
                "book_flight",
                "('tok', 'c1', '2024-02-30', 'SFO', 'LAX', 'economy')",
                r#"{"booking_status": false, "error": "Invalid date format. Use YYYY-MM-DD."}"#,
            ),
            (
                "book_flight",
                "('tok', 'c1', '2024-1-5', 'SFO', 'LAX', 'economy')",
                r#"{"booking_id": "3426812", "transaction_id": "45451592", "booking_status": true, "booking_history": {}}"#,
            ),
            (
                "book_flight",
                "('tok', 'c1', '2024-01-05', 'SFO', 'LAX', 'premium')",
                r#"{"booking_status": false, "error": "Invalid travel class. Must be one of {'first', 'business', 'economy'}"}"#,
            ),
            (
                "book_flight",
                "('tok', 'c1', '2024-01-05', 'SFO', 'LAX', ['x'])",
                "Error during execution: unhashable type: 'list'",
            ),
            (
                "book_flight",
                "('tok', ['c1'], '2024-01-05', 'SFO', 'LAX', 'economy')",
                "Error during execution: unhashable type: 'list'",
            ),
            (
                "set_budget_limit",
                "('tok', ' 1_000.5 ')",
                r#"{"budget_limit": 1000.5}"#,
            ),
            (
                "set_budget_limit",
                "('tok', '1__0')",
                "Error during execution: could not convert string to float: '1__0'",
            ),
            (
                "set_budget_limit",
                "('tok', [1])",
                "Error during execution: float() argument must be a string or a real number, not 'list'",
            ),
            (
                "purchase_insurance",
                "('tok', 'x', 'b1', '20', 'c1')",
                "Error during execution: '<' not supported between instances of 'float' and 'str'",
            ),
            (
                "purchase_insurance",
                "('tok', 'x', 'b1', 20, 'c1')",
                r#"{"insurance_id": "498276044", "insurance_status": true}"#,
            ),
            (
                "purchase_insurance",
                "('tok', 'x', 'b1', 2.5, 'c1')",
                r#"{"insurance_id": "304283040", "insurance_status": true}"#,
            ),
            (
                "cancel_booking",
                "('tok', 'b1')",
                "Error during execution: 'travel_cost'",
            ),
            (
                "retrieve_invoice",
                "('tok', 'b1')",
                "Error during execution: 'travel_date'",
            ),
            (
                "verify_traveler_information",
                "(None, None, '2000-01-01', 7)",
                "Error during execution: 'int' object has no attribute 'startswith'",
            ),
            (
                "verify_traveler_information",
                "(None, None, 20000101, 'US1')",
                "Error during execution: strptime() argument 1 must be str, not int",
            ),
            (
                "verify_traveler_information",
                "(None, None, '2000-13-01', 'US1')",
                r#"{"verification_status": false, "verification_failure": "Invalid date of birth format. Please use YYYY-MM-DD."}"#,
            ),
            (
                "get_nearest_airport_by_city",
                "({'a': 1},)",
                "Error during execution: unhashable type: 'dict'",
            ),
            (
                "get_credit_card_balance",
                "('tok', 'zz')",
                r#"{"error": "Card not registered. Here are a list of card_id's: ['c1']"}"#,
            ),
            (
                "contact_customer_support",
                "(['b1'], 'm')",
                "Error during execution: unhashable type: 'list'",
            ),
        ];
        for (method, args, want) in cases {
            assert_eq!(run(&mut api, method, args), want, "{method}{args}");
        }
        // 5000 - 400.0 (the booking) - 20 - 2.5.
        assert_eq!(
            run(&mut api, "get_credit_card_balance", "('tok', 'c1')"),
            r#"{"card_balance": 4577.5}"#
        );
    }

    #[test]
    fn long_context_cards_are_shared_by_the_instances_of_a_run() {
        let config = "{'access_token': 'tok', 'token_expires_in': 2}";
        let run_globals = Globals::default();
        let mut a = travel(config, true, &run_globals);
        let mut b = travel(config, true, &run_globals);
        let card = "('tok', '1234567812345678')";
        assert_eq!(
            run(
                &mut a,
                "purchase_insurance",
                "('tok', 'x', 'booking_901', 100.0, '1234567812345678')"
            ),
            r#"{"insurance_id": "255316027", "insurance_status": true}"#
        );
        assert_eq!(
            run(&mut b, "get_credit_card_balance", card),
            r#"{"card_balance": 4900.0}"#
        );
        let booked = run(
            &mut b,
            "book_flight",
            "('tok', '1234567812345678', '2024-01-05', 'SFO', 'LAX', 'economy')",
        );
        assert!(
            booked.contains(r#""booking_history": {"booking_901": {"card_id""#),
            "{booked}"
        );
        assert_eq!(
            run(&mut a, "get_credit_card_balance", card),
            r#"{"card_balance": 4500.0}"#
        );
        assert_eq!(
            state_id(&a.state()),
            state_id(
                &{
                    let mut c = travel(config, true, &run_globals);
                    run(&mut c, "get_budget_fiscal_year", "()");
                    c
                }
                .state()
            )
        );
        // Another run starts from the module's own values.
        let mut fresh = travel(config, true, &Globals::default());
        assert_eq!(
            run(&mut fresh, "get_credit_card_balance", card),
            r#"{"card_balance": 5000.0}"#
        );
        // A short-context instance does not see the extension at all.
        let mut short = travel(config, false, &run_globals);
        assert!(
            run(&mut short, "get_credit_card_balance", card)
                .starts_with(r#"{"error": "Card not registered"#)
        );
    }

    #[test]
    fn age_is_counted_on_the_fixed_date() {
        let mut api = travel(
            "{'user_first_name': 'A', 'user_last_name': 'B'}",
            false,
            &Globals::default(),
        );
        let (y, m, d) = TODAY;
        let eighteen = format!("('A', 'B', '{}-{m:02}-{d:02}', 'FR1')", y - 18);
        assert!(run(&mut api, "verify_traveler_information", &eighteen).contains("United States"));
        let younger = format!("('A', 'B', '{}-{m:02}-{:02}', 'FR1')", y - 18, d + 1);
        assert!(run(&mut api, "verify_traveler_information", &younger).contains("at least 18"));
        assert_eq!(
            run(
                &mut api,
                "verify_traveler_information",
                "('A', 'C', '2000-01-01', 'US1')"
            ),
            r#"{"verification_status": false, "verification_failure": "Cannot book flight information for another user.Expected A B, got A C"}"#
        );
    }

    #[test]
    fn huge_arguments_cost_linear_work() {
        let mut api = travel("{}", false, &Globals::default());
        let long = "7".repeat(200_000);
        // float('7' * 200000 * 7) overflows to inf, as in Python.
        assert_eq!(
            run(
                &mut api,
                "compute_exchange_rate",
                &format!("('USD', 'RMB', '{long}')")
            ),
            r#"{"exchanged_value": Infinity}"#
        );
        let digits = format!("('SFO', 'LAX', '{long}', 'economy')");
        assert_eq!(
            run(&mut api, "get_flight_cost", &digits),
            r#"{"travel_cost_list": [400.0]}"#
        );
        let items = format!("('SFO', 'LAX', ['{}'], 'economy')", "1".repeat(4301));
        assert!(run(&mut api, "get_flight_cost", &items).ends_with(
            "value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit"
        ));
    }
}

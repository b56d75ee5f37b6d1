//! The stateful API classes of BFCL's multi-turn categories, one file per
//! class, each a port of the official class at gorilla `6ea5797`
//! (`bfcl_eval/eval_checker/multi_turn_eval/func_source_code/`): the same
//! public methods and parameters, the same return values and error texts,
//! the same public state.

use std::sync::Arc;
use std::sync::{Mutex, OnceLock};

use super::api::ApiClass;
use crate::benchmarks::python::{PyStr, PyValue, json_loads_str};

pub mod decimal;
pub mod gorilla_file_system;
pub mod math_api;
pub mod message_api;
pub mod mpf;
pub mod posting_api;
mod py_hash;
pub mod py_num;
mod py_ops;
mod strptime;
pub mod ticket_api;
pub mod trading_bot;
pub mod travel_booking;
mod travel_booking_costs;
pub mod vehicle_control;

/// The classes, by the names the questions' `involved_classes` use, each
/// with the stem of its official file (and of its function docs,
/// `multi_turn_func_doc/<stem>.json`).
pub const CLASSES: &[(&str, &str)] = &[
    ("GorillaFileSystem", "gorilla_file_system"),
    ("MathAPI", "math_api"),
    ("MessageAPI", "message_api"),
    ("TwitterAPI", "posting_api"),
    ("TicketAPI", "ticket_api"),
    ("TradingBot", "trading_bot"),
    ("TravelAPI", "travel_booking"),
    ("VehicleControlAPI", "vehicle_control"),
];

/// The module-level objects that instances of one scoring process share
/// (the official classes mutate some of them in long-context mode): one
/// value per run of a category, passed to every instance it creates.
#[derive(Debug, Default)]
pub struct Globals {
    /// `TwitterAPI.post_tweet`'s default `mentions` list, one object that
    /// every call omitting `mentions` stores and `mention` may extend.
    pub post_tweet_mentions: Arc<Mutex<Vec<PyValue>>>,
    /// `TravelAPI`'s long-context cards (`CREDIT_CARD_EXTENSION`'s dicts),
    /// which every long-context instance holds by reference.
    pub travel_cards: OnceLock<Vec<(PyStr, travel_booking::Card)>>,
    /// `vehicle_control.LONG_WEATHER_EXTENSION`, which
    /// `get_outside_temperature_from_google` writes in long-context mode.
    pub long_weather_extension: vehicle_control::SharedWeather,
}

/// A new instance of `class`, loaded from its `initial_config` entry
/// (`_load_scenario(deepcopy(config), long_context)`; a stateless class
/// ignores it); `None` for a class itc does not know.
pub fn new_instance(
    class: &str,
    config: &PyValue,
    long_context: bool,
    globals: &Globals,
) -> Option<Box<dyn ApiClass>> {
    match class {
        "GorillaFileSystem" => Some(Box::new(gorilla_file_system::GorillaFileSystem::new(
            config,
            long_context,
        ))),
        "MathAPI" => Some(Box::new(math_api::MathApi)),
        "MessageAPI" => Some(Box::new(message_api::MessageApi::new(config))),
        "TicketAPI" => Some(Box::new(ticket_api::TicketApi::new(config))),
        "TradingBot" => Some(Box::new(trading_bot::TradingBot::new(config, long_context))),
        "TravelAPI" => Some(Box::new(travel_booking::TravelApi::new(
            config,
            long_context,
            globals,
        ))),
        "TwitterAPI" => Some(Box::new(posting_api::TwitterApi::new(config, globals))),
        "VehicleControlAPI" => Some(Box::new(vehicle_control::VehicleControlApi::new(
            config,
            long_context,
            globals.long_weather_extension.clone(),
        ))),
        _ => None,
    }
}

/// One value of `long_context.py` by its module name
/// (`datasets/ood/bfcl/multi_turn/long_context.json`).
pub fn long_context(name: &str) -> &'static PyValue {
    static DATA: OnceLock<PyValue> = OnceLock::new();
    let data = DATA.get_or_init(|| {
        json_loads_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/datasets/ood/bfcl/multi_turn/long_context.json"
        )))
        .expect("long_context.json is valid JSON")
    });
    data.get_str(name)
        .unwrap_or_else(|| panic!("long_context.json has no {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_context_data_has_every_module_value() {
        let PyValue::List(cities) = long_context("INTERMEDIARY_CITIES") else {
            panic!("a list")
        };
        assert_eq!(cities.len(), 826);
        let PyValue::List(watch) = long_context("WATCH_LIST_EXTENSION") else {
            panic!("a list")
        };
        assert_eq!(watch.len(), 1001);
    }
}

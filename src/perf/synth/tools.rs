//! The candidate tools as tables: one [`ToolSpec`] a [`Domain`], the tools
//! of the two nested chains, and how a row becomes a [`Tool`].

use super::domain::Domain;
use super::phrases::Phrases;
use crate::spec::records::{Parameter, Tool};

/// A parameter's default value.
#[derive(Debug, Clone, Copy)]
enum DefaultValue {
    Int(i64),
    Str(&'static str),
    Bool(bool),
}

/// One parameter of a table tool.
struct ParamSpec {
    name: &'static str,
    kind: &'static str,
    description: &'static str,
    default: Option<DefaultValue>,
}

const fn param(name: &'static str, kind: &'static str, description: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind,
        description,
        default: None,
    }
}

const fn param_default(
    name: &'static str,
    kind: &'static str,
    description: &'static str,
    default: DefaultValue,
) -> ParamSpec {
    ParamSpec {
        default: Some(default),
        ..param(name, kind, description)
    }
}

impl ParamSpec {
    fn parameter(&self) -> Parameter {
        Parameter {
            name: self.name.into(),
            kind: self.kind.into(),
            description: self.description.into(),
            default: self.default.map(|d| match d {
                DefaultValue::Int(i) => i.into(),
                DefaultValue::Str(s) => s.into(),
                DefaultValue::Bool(b) => b.into(),
            }),
            ..Default::default()
        }
    }
}

/// One row of the tool tables.
pub(super) struct ToolSpec {
    /// The name calls use.
    pub(super) name: &'static str,
    category: &'static str,
    /// Served everywhere (country `GLOBAL`) rather than in the task's country.
    global: bool,
    method: &'static str,
    /// The endpoint's path under `https://api.example.com/v1/`.
    path: &'static str,
    description: &'static str,
    required: &'static [ParamSpec],
    optional: &'static [ParamSpec],
}

impl ToolSpec {
    /// The tool as a task in `lang` lists it.
    pub(super) fn tool(&self, lang: &Phrases) -> Tool {
        self.named(self.name, lang)
    }

    fn named(&self, name: &str, lang: &Phrases) -> Tool {
        // Every field is set, so no `..Tool::default()`.
        Tool {
            name: name.into(),
            description: self.description.into(),
            category: self.category.into(),
            country: if self.global {
                "GLOBAL".into()
            } else {
                lang.country.into()
            },
            method: self.method.into(),
            url: format!("https://api.example.com/v1/{}", self.path),
            required_parameters: self.required.iter().map(ParamSpec::parameter).collect(),
            optional_parameters: self.optional.iter().map(ParamSpec::parameter).collect(),
        }
    }
}

/// The tool of `domain` as a task in `lang` lists it; `localized` gives the
/// weather tool its name in `lang`.
pub(super) fn domain_tool(domain: Domain, lang: &Phrases, localized: bool) -> Tool {
    match domain {
        Domain::Weather if localized => WEATHER.named(lang.weather_tool, lang),
        Domain::Weather => WEATHER.tool(lang),
        Domain::Fx => FX.tool(lang),
        Domain::Translate => TRANSLATE.tool(lang),
        Domain::Directions => DIRECTIONS.tool(lang),
        Domain::News => NEWS.tool(lang),
        Domain::Restaurant => RESTAURANT.tool(lang),
        Domain::Stock => STOCK.tool(lang),
        Domain::Flight => FLIGHT.tool(lang),
    }
}

const WEATHER: ToolSpec = ToolSpec {
    name: "weather_forecast",
    category: "Weather",
    global: false,
    method: "GET",
    path: "weather/forecast",
    description: "Daily weather forecast for a city.",
    required: &[param("city", "string", "City name")],
    optional: &[
        param_default(
            "days",
            "integer",
            "Number of days (1-7)",
            DefaultValue::Int(1),
        ),
        param_default(
            "units",
            "string",
            "metric or imperial",
            DefaultValue::Str("metric"),
        ),
        param("include_hourly", "boolean", "Add hourly values"),
    ],
};

const FX: ToolSpec = ToolSpec {
    name: "exchange_rate",
    category: "Finance",
    global: true,
    method: "GET",
    path: "fx/latest",
    description: "Latest exchange rate between two currencies.",
    required: &[
        param("base", "string", "ISO 4217 code of the base currency"),
        param("target", "string", "ISO 4217 code of the target currency"),
    ],
    optional: &[param("amount", "number", "Amount to convert")],
};

const TRANSLATE: ToolSpec = ToolSpec {
    name: "Google Translate",
    category: "Translation",
    global: true,
    method: "POST",
    path: "translate",
    description: "Translates text into a target language.",
    required: &[
        param("text", "string", "Text to translate"),
        param(
            "target_lang",
            "string",
            "ISO 639-1 code of the target language",
        ),
    ],
    optional: &[param("formal", "boolean", "Use a formal register")],
};

const DIRECTIONS: ToolSpec = ToolSpec {
    name: "maps/directions",
    category: "Maps",
    global: false,
    method: "GET",
    path: "maps/directions",
    description: "Route between two places.",
    required: &[
        param("origin", "string", "Start address"),
        param("destination", "string", "End address"),
    ],
    optional: &[
        param_default(
            "mode",
            "string",
            "driving, walking or transit",
            DefaultValue::Str("driving"),
        ),
        param(
            "avoid",
            "array",
            "Features to avoid: tolls, highways, ferries",
        ),
    ],
};

const NEWS: ToolSpec = ToolSpec {
    name: "news.search",
    category: "News",
    global: false,
    method: "GET",
    path: "news/search",
    description: "Searches recent news articles.",
    required: &[param("query", "string", "Search terms")],
    optional: &[
        param_default(
            "limit",
            "integer",
            "Maximum number of articles",
            DefaultValue::Int(10),
        ),
        param("languages", "array", "ISO 639-1 codes of article languages"),
    ],
};

const RESTAURANT: ToolSpec = ToolSpec {
    name: "restaurant_search",
    category: "Food",
    global: false,
    method: "GET",
    path: "places/restaurants",
    description: "Finds restaurants by city and cuisine.",
    required: &[
        param("city", "string", "City name"),
        param("cuisine", "string", "Kind of food"),
    ],
    optional: &[
        param("open_now", "boolean", "Only places open now"),
        param("price_levels", "array", "Accepted price levels, 1-4"),
    ],
};

const STOCK: ToolSpec = ToolSpec {
    name: "stock_quote",
    category: "Finance",
    global: true,
    method: "GET",
    path: "markets/quote",
    description: "Latest quote of a listed stock.",
    required: &[param("symbol", "string", "Ticker symbol")],
    optional: &[
        param("exchange", "string", "Exchange code"),
        param_default(
            "realtime",
            "boolean",
            "Real-time instead of delayed",
            DefaultValue::Bool(false),
        ),
    ],
};

const FLIGHT: ToolSpec = ToolSpec {
    name: "flight_search",
    category: "Travel",
    global: true,
    method: "GET",
    path: "flights/search",
    description: "Searches flights between two airports on a date.",
    required: &[
        param("origin", "string", "IATA code of the departure airport"),
        param("destination", "string", "IATA code of the arrival airport"),
        param("date", "string", "Departure date, YYYY-MM-DD"),
    ],
    optional: &[
        param_default(
            "passengers",
            "integer",
            "Number of passengers",
            DefaultValue::Int(1),
        ),
        param("filters", "object", "max_stops, cabin, airlines"),
    ],
};

// The nested chains' tools: global, POST, the path their name with `/` and
// spaces as `_`.

/// Address → coordinates (first call of the geo chain).
pub(super) const GEOCODE: ToolSpec = ToolSpec {
    name: "geocode",
    category: "Maps",
    global: true,
    method: "POST",
    path: "geocode",
    description: "Coordinates of an address.",
    required: &[param("address", "string", "Street address")],
    optional: &[],
};

/// Coordinates → weather (second call of the geo chain).
pub(super) const WEATHER_BY_COORDS: ToolSpec = ToolSpec {
    name: "weather_by_coords",
    category: "Weather",
    global: true,
    method: "POST",
    path: "weather_by_coords",
    description: "Current weather at coordinates.",
    required: &[
        param("lat", "number", "Latitude"),
        param("lon", "number", "Longitude"),
    ],
    optional: &[param("units", "string", "metric or imperial")],
};

/// User and password → session token (first call of the orders chain).
pub(super) const LOGIN: ToolSpec = ToolSpec {
    name: "auth/login",
    category: "Commerce",
    global: true,
    method: "POST",
    path: "auth_login",
    description: "Logs in and returns a session token.",
    required: &[
        param("username", "string", "Account name"),
        param("password", "string", "Password"),
    ],
    optional: &[],
};

/// Token → the account's orders (second call of the orders chain).
pub(super) const GET_ORDERS: ToolSpec = ToolSpec {
    name: "get_orders",
    category: "Commerce",
    global: true,
    method: "POST",
    path: "get_orders",
    description: "Lists the account's orders.",
    required: &[param("token", "string", "Session token")],
    optional: &[
        param("limit", "integer", "Maximum orders"),
        param("status", "string", "Order status"),
    ],
};

/// Token and order id → one order (optional third call of the orders chain).
pub(super) const ORDER_DETAILS: ToolSpec = ToolSpec {
    name: "order_details",
    category: "Commerce",
    global: true,
    method: "POST",
    path: "order_details",
    description: "Details of one order.",
    required: &[
        param("token", "string", "Session token"),
        param("order_id", "string", "Order id"),
    ],
    optional: &[],
};

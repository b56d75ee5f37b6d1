//! `TradingBot` (`trading_bot.py`): orders, an account, a watch list and
//! stock quotes, ported method by method with the official return values,
//! error dicts and exception texts.
//!
//! Public state, in `vars()` order: `orders` (a dict whose digit-string
//! keys `_load_scenario` turned into `int`s), `account_info`,
//! `authenticated`, `market_status`, `order_counter`, `stocks`,
//! `watch_list`, `transaction_history`, `long_context`. Values from the
//! question's `initial_config` are kept as Python holds them (any type);
//! the methods raise Python's exception texts where a value of the wrong
//! type meets an operation.
//!
//! Nondeterminism, made deterministic:
//! - **Local time zone.** `_generate_transaction_timestamp` draws
//!   `randint(int(CURRENT_TIME.timestamp()), int((CURRENT_TIME +
//!   1 day).timestamp()))` and writes `datetime.fromtimestamp(r)`, both in
//!   the process's local zone. itc computes it in UTC (where the reference
//!   traces were made): the draw then only depends on the width of the
//!   range (86,401 s), and the text is `CURRENT_TIME` plus the drawn
//!   offset. Any zone with a fixed offset over 2024-09-01/02 gives the same
//!   texts; a zone with a clock change in that day would not.
//! - **Set order.** A model-written `set` of symbols
//!   (`filter_stocks_by_price`, `notify_price_change`) is visited in the
//!   order it was written; Python's order depends on string hashes.
//!
//! Where itc differs from Python (no method loops on a model-given
//! number, so no other bound is needed):
//! - a `random_seed` that is not an `int` (none in the data) seeds with the
//!   default seed, and an `orders` config that is not a dict loads as an
//!   empty dict;
//! - only ASCII digit keys of `orders` become `int`s (Python's
//!   `str.isdigit` also takes other Unicode digits), and `strptime` reads
//!   only ASCII digits (see `apis/strptime.rs`).

use std::sync::OnceLock;

use super::long_context;
use super::py_num::{self, Cmp, Op, augmented, compare, iterate};
use super::py_ops::{
    self, Text, dict, dict_get, dict_set, get_item, int, key_position, list_position, no_attribute,
    text, truthy,
};
use super::strptime::{Moment, strptime};
use crate::benchmarks::bfcl::multi_turn::api::{ApiClass, Output, Param, Signature};
use crate::benchmarks::bfcl::multi_turn::state::State;
use crate::benchmarks::python::random::PyRandom;
use crate::benchmarks::python::value::normalize_int;
use crate::benchmarks::python::{PyStr, PyValue, literal_eval, py_repr};

/// The official `DEFAULT_STATE`, as a Python literal.
const DEFAULT_STATE: &str = "{
 'orders': {12345: {'id': 12345, 'order_type': 'Buy', 'symbol': 'AAPL', 'price': 210.65, 'amount': 10, 'status': 'Completed'},
            12446: {'id': 12446, 'order_type': 'Sell', 'symbol': 'GOOG', 'price': 2840.56, 'amount': 5, 'status': 'Pending'}},
 'account_info': {'account_id': 12345, 'balance': 10000.0, 'binding_card': 1974202140965533},
 'authenticated': False,
 'market_status': 'Closed',
 'order_counter': 12446,
 'stocks': {
  'AAPL': {'price': 227.16, 'percent_change': 0.17, 'volume': 2.552, 'MA(5)': 227.11, 'MA(20)': 227.09},
  'GOOG': {'price': 2840.34, 'percent_change': 0.24, 'volume': 1.123, 'MA(5)': 2835.67, 'MA(20)': 2842.15},
  'TSLA': {'price': 667.92, 'percent_change': -0.12, 'volume': 1.654, 'MA(5)': 671.15, 'MA(20)': 668.20},
  'MSFT': {'price': 310.23, 'percent_change': 0.09, 'volume': 3.234, 'MA(5)': 309.88, 'MA(20)': 310.11},
  'NVDA': {'price': 220.34, 'percent_change': 0.34, 'volume': 1.234, 'MA(5)': 220.45, 'MA(20)': 220.67},
  'ALPH': {'price': 1320.45, 'percent_change': -0.08, 'volume': 1.567, 'MA(5)': 1321.12, 'MA(20)': 1325.78},
  'OMEG': {'price': 457.23, 'percent_change': 0.12, 'volume': 2.345, 'MA(5)': 456.78, 'MA(20)': 458.12},
  'QUAS': {'price': 725.89, 'percent_change': -0.03, 'volume': 1.789, 'MA(5)': 726.45, 'MA(20)': 728.00},
  'NEPT': {'price': 88.34, 'percent_change': 0.19, 'volume': 0.654, 'MA(5)': 88.21, 'MA(20)': 88.67},
  'SYNX': {'price': 345.67, 'percent_change': 0.11, 'volume': 2.112, 'MA(5)': 345.34, 'MA(20)': 346.12},
  'ZETA': {'price': 22.09, 'percent_change': -0.05, 'volume': 0.789, 'MA(5)': 22.12, 'MA(20)': 22.34}},
 'watch_list': ['NVDA'],
 'transaction_history': [],
 'random_seed': 1053520}";

/// `get_symbol_by_name`'s table.
const SYMBOLS: &[(&str, &str)] = &[
    ("Apple", "AAPL"),
    ("Google", "GOOG"),
    ("Tesla", "TSLA"),
    ("Microsoft", "MSFT"),
    ("Nvidia", "NVDA"),
    ("Zeta Corp", "ZETA"),
    ("Alpha Tech", "ALPH"),
    ("Omega Industries", "OMEG"),
    ("Quasar Ltd.", "QUAS"),
    ("Neptune Systems", "NEPT"),
    ("Synex Solutions", "SYNX"),
    ("Amazon", "AMZN"),
    ("Gorilla", "GORI"),
];

/// `get_available_stocks`' table (before the long-context extensions).
const SECTORS: &[(&str, &[&str])] = &[
    ("Technology", &["AAPL", "GOOG", "MSFT", "NVDA"]),
    ("Automobile", &["TSLA", "F", "GM"]),
];

/// `CURRENT_TIME = datetime(2024, 9, 1, 10, 30)`: (year, month, day, hour,
/// minute) and, in UTC, its POSIX timestamp.
const CURRENT_TIME: (i64, i64, i64, i64, i64) = (2024, 9, 1, 10, 30);
const CURRENT_TIMESTAMP_UTC: i128 = 1_725_186_600;
const SECONDS_PER_DAY: i128 = 86_400;

fn default_state() -> &'static PyValue {
    static STATE: OnceLock<PyValue> = OnceLock::new();
    STATE.get_or_init(|| literal_eval(DEFAULT_STATE).expect("DEFAULT_STATE is a literal"))
}

const METHODS: &[Signature] = &[
    Signature {
        name: "get_current_time",
        params: &[],
    },
    Signature {
        name: "get_symbol_by_name",
        params: &[Param::required("name")],
    },
    Signature {
        name: "get_stock_info",
        params: &[Param::required("symbol")],
    },
    Signature {
        name: "get_order_details",
        params: &[Param::required("order_id")],
    },
    Signature {
        name: "cancel_order",
        params: &[Param::required("order_id")],
    },
    Signature {
        name: "place_order",
        params: &[
            Param::required("order_type"),
            Param::required("symbol"),
            Param::required("price"),
            Param::required("amount"),
        ],
    },
    Signature {
        name: "withdraw_funds",
        params: &[Param::required("amount")],
    },
    Signature {
        name: "get_account_info",
        params: &[],
    },
    Signature {
        name: "trading_login",
        params: &[Param::required("username"), Param::required("password")],
    },
    Signature {
        name: "trading_get_login_status",
        params: &[],
    },
    Signature {
        name: "trading_logout",
        params: &[],
    },
    Signature {
        name: "fund_account",
        params: &[Param::required("amount")],
    },
    Signature {
        name: "remove_stock_from_watchlist",
        params: &[Param::required("symbol")],
    },
    Signature {
        name: "get_watchlist",
        params: &[],
    },
    Signature {
        name: "get_order_history",
        params: &[],
    },
    Signature {
        name: "get_transaction_history",
        params: &[
            Param::optional("start_date", "None"),
            Param::optional("end_date", "None"),
        ],
    },
    Signature {
        name: "get_available_stocks",
        params: &[Param::required("sector")],
    },
    Signature {
        name: "filter_stocks_by_price",
        params: &[
            Param::required("stocks"),
            Param::required("min_price"),
            Param::required("max_price"),
        ],
    },
    Signature {
        name: "add_to_watchlist",
        params: &[Param::required("stock")],
    },
    Signature {
        name: "notify_price_change",
        params: &[Param::required("stocks"), Param::required("threshold")],
    },
];

/// One `TradingBot` instance.
#[derive(Debug, Clone)]
pub struct TradingBot {
    orders: Vec<(PyValue, PyValue)>,
    account_info: PyValue,
    authenticated: PyValue,
    market_status: PyValue,
    order_counter: PyValue,
    stocks: PyValue,
    watch_list: PyValue,
    transaction_history: PyValue,
    long_context: bool,
    random: PyRandom,
}

type Result<T> = std::result::Result<T, String>;

impl TradingBot {
    /// `TradingBot()` then `_load_scenario(config, long_context)`.
    pub fn new(config: &PyValue, long_context: bool) -> TradingBot {
        let defaults = default_state();
        let field = |name: &str| {
            config
                .get_str(name)
                .or_else(|| defaults.get_str(name))
                .cloned()
                .unwrap_or(PyValue::None)
        };
        let orders = match field("orders") {
            PyValue::Dict(entries) => int_keys(entries),
            _ => Vec::new(),
        };
        let seed = match field("random_seed") {
            PyValue::Int(text) => text.parse::<i128>().ok(),
            PyValue::Bool(b) => Some(i128::from(b)),
            _ => None,
        };
        TradingBot {
            orders,
            account_info: field("account_info"),
            authenticated: field("authenticated"),
            market_status: field("market_status"),
            order_counter: field("order_counter"),
            stocks: field("stocks"),
            watch_list: field("watch_list"),
            transaction_history: field("transaction_history"),
            long_context,
            random: PyRandom::new(seed.unwrap_or(1_053_520)),
        }
    }

    fn run(&mut self, method: &str, args: &[PyValue]) -> Result<Output> {
        let a = |i: usize| args.get(i).unwrap_or(&PyValue::None);
        let value = match method {
            "get_current_time" => dict([("current_time", text("10:30 AM"))]),
            "get_symbol_by_name" => self.get_symbol_by_name(a(0))?,
            "get_stock_info" => self.get_stock_info(a(0))?,
            "get_order_details" => self.get_order_details(a(0))?,
            "cancel_order" => self.cancel_order(a(0))?,
            "place_order" => self.place_order(a(0), a(1), a(2), a(3))?,
            "withdraw_funds" => self.move_funds(a(0), true)?,
            "get_account_info" => self.get_account_info(),
            "trading_login" => self.trading_login(),
            "trading_get_login_status" => {
                dict([("status", PyValue::Bool(truthy(&self.authenticated)))])
            }
            "trading_logout" => self.trading_logout(),
            "fund_account" => self.move_funds(a(0), false)?,
            "remove_stock_from_watchlist" => self.remove_stock_from_watchlist(a(0))?,
            "get_watchlist" => return self.get_watchlist(),
            "get_order_history" => self.get_order_history(),
            "get_transaction_history" => self.get_transaction_history(a(0), a(1))?,
            "get_available_stocks" => self.get_available_stocks(a(0))?,
            "filter_stocks_by_price" => self.filter_stocks_by_price(a(0), a(1), a(2))?,
            "add_to_watchlist" => self.add_to_watchlist(a(0))?,
            "notify_price_change" => self.notify_price_change(a(0), a(1))?,
            other => return Err(format!("'TradingBot' object has no attribute '{other}'")),
        };
        Ok(Output::Value(value))
    }

    fn stocks_get(&self, symbol: &PyValue) -> Result<Option<&PyValue>> {
        match &self.stocks {
            PyValue::Dict(entries) => Ok(key_position(entries, symbol)?.map(|i| &entries[i].1)),
            other => Err(format!(
                "argument of type '{}' is not iterable",
                other.type_name()
            )),
        }
    }

    fn get_symbol_by_name(&self, name: &PyValue) -> Result<PyValue> {
        py_ops::hashable(name)?;
        let symbol = SYMBOLS
            .iter()
            .find(|(company, _)| matches!(name, PyValue::Str(n) if *n == PyStr::new(company)))
            .map_or("Stock not found", |(_, symbol)| symbol);
        Ok(dict([("symbol", text(symbol))]))
    }

    fn get_stock_info(&self, symbol: &PyValue) -> Result<PyValue> {
        let Some(stock) = self.stocks_get(symbol)? else {
            let error = Text::new()
                .text("Stock with symbol '")
                .v(symbol)
                .text("' not found.");
            return Ok(dict([("error", error.value())]));
        };
        if !self.long_context {
            return Ok(stock.clone());
        }
        let mut entries = copied_dict(stock, "MA(5)")?;
        dict_set(
            &mut entries,
            text("MA(5)"),
            long_context("MA_5_EXTENSION").clone(),
        )?;
        dict_set(
            &mut entries,
            text("MA(20)"),
            long_context("MA_20_EXTENSION").clone(),
        )?;
        Ok(PyValue::Dict(entries))
    }

    fn order_position(&self, order_id: &PyValue) -> Result<Option<usize>> {
        key_position(&self.orders, order_id)
    }

    fn get_order_details(&self, order_id: &PyValue) -> Result<PyValue> {
        let Some(i) = self.order_position(order_id)? else {
            let keys = PyValue::List(self.orders.iter().map(|(k, _)| k.clone()).collect());
            let error = Text::new()
                .text("Order with ID ")
                .v(order_id)
                .text(" not found.Here is the list of orders_id: ")
                .v(&keys);
            return Ok(dict([("error", error.value())]));
        };
        let order = &self.orders[i].1;
        if !self.long_context {
            return Ok(order.clone());
        }
        let mut entries = copied_dict(order, "symbol")?;
        let symbol = get_item(order, "symbol")?;
        let PyValue::Dict(extension) = long_context("ORDER_DETAIL_EXTENSION") else {
            return Err("itc: ORDER_DETAIL_EXTENSION is not a dict".into());
        };
        let mut metadata = Vec::with_capacity(extension.len());
        for (key, template) in extension {
            let PyValue::Str(template) = template else {
                return Err(no_attribute(template, "format"));
            };
            match format_symbol(template, symbol) {
                Ok(text) => metadata.push((key.clone(), text)),
                Err(missing) => {
                    let error = format!("KeyError during formatting: '{missing}'");
                    return Ok(dict([("error", text(&error))]));
                }
            }
        }
        dict_set(&mut entries, text("metadata"), PyValue::Dict(metadata))?;
        Ok(PyValue::Dict(entries))
    }

    fn cancel_order(&mut self, order_id: &PyValue) -> Result<PyValue> {
        let Some(i) = self.order_position(order_id)? else {
            let error = Text::new()
                .text("Order with ID ")
                .v(order_id)
                .text(" not found.");
            return Ok(dict([("error", error.value())]));
        };
        let order = &mut self.orders[i].1;
        if py_ops::same_text(get_item(order, "status")?, "Completed") {
            let error = Text::new()
                .text("Can't cancel order ")
                .v(order_id)
                .text(". Order is already completed.");
            return Ok(dict([("error", error.value())]));
        }
        dict_set(
            py_ops::dict_entries_mut(order)?,
            text("status"),
            text("Cancelled"),
        )?;
        Ok(dict([
            ("order_id", order_id.clone()),
            ("status", text("Cancelled")),
        ]))
    }

    fn place_order(
        &mut self,
        order_type: &PyValue,
        symbol: &PyValue,
        price: &PyValue,
        amount: &PyValue,
    ) -> Result<PyValue> {
        if !truthy(&self.authenticated) {
            let error = "User not authenticated. Please log in to place an order.";
            return Ok(dict([("error", text(error))]));
        }
        if self.stocks_get(symbol)?.is_none() {
            let error = Text::new().text("Invalid stock symbol: ").v(symbol);
            return Ok(dict([("error", error.value())]));
        }
        let zero = int(0);
        if compare(Cmp::Le, price, &zero)? || compare(Cmp::Le, amount, &zero)? {
            let error = "Price and amount must be positive values.";
            return Ok(dict([("error", text(error))]));
        }
        if is_buy(order_type)? {
            // float(price) * int(amount)
            let price = PyValue::Float(py_num::py_float(price)?);
            let amount = PyValue::Int(py_num::py_int(amount)?.to_string());
            let total_cost = py_num::binop(Op::Mul, &price, &amount)?;
            let balance = dict_get(&self.account_info, &text("balance"))?
                .cloned()
                .unwrap_or(int(0));
            if compare(Cmp::Gt, &total_cost, &balance)? {
                let error = format!(
                    "Insufficient funds: required ${} but only ${} available.",
                    py_num::format_fixed2(&total_cost)?,
                    py_num::format_fixed2(&balance)?
                );
                return Ok(dict([("error", text(&error))]));
            }
        }
        let price = PyValue::Float(py_num::py_float(price)?);
        let order_id = self.order_counter.clone();
        let order = dict([
            ("id", order_id.clone()),
            ("order_type", order_type.clone()),
            ("symbol", symbol.clone()),
            ("price", price.clone()),
            ("amount", amount.clone()),
            ("status", text("Open")),
        ]);
        dict_set(&mut self.orders, order_id.clone(), order)?;
        self.order_counter = augmented(Op::Add, &self.order_counter, &int(1))?;
        Ok(dict([
            ("order_id", order_id),
            ("order_type", order_type.clone()),
            ("status", text("Pending")),
            ("price", price),
            ("amount", amount.clone()),
        ]))
    }

    /// `withdraw_funds(amount)` (`withdraw`) or `fund_account(amount)`.
    fn move_funds(&mut self, amount: &PyValue, withdraw: bool) -> Result<PyValue> {
        if !truthy(&self.authenticated) {
            let error = if withdraw {
                "User not authenticated. Please log in to make a transaction."
            } else {
                "User not authenticated. Please log in to fund the account."
            };
            return Ok(dict([("error", text(error))]));
        }
        if withdraw && !py_ops::same_text(&self.market_status, "Open") {
            let error = "Market is closed. Transactions are not allowed.";
            return Ok(dict([("error", text(error))]));
        }
        if compare(Cmp::Le, amount, &int(0))? {
            let error = if withdraw {
                "Transaction amount must be positive."
            } else {
                "Funding amount must be positive."
            };
            return Ok(dict([("error", text(error))]));
        }
        let balance = get_item(&self.account_info, "balance")?.clone();
        if withdraw && compare(Cmp::Gt, amount, &balance)? {
            return Ok(dict([(
                "error",
                text("Insufficient funds for withdrawal."),
            )]));
        }
        let op = if withdraw { Op::Sub } else { Op::Add };
        let new_balance = augmented(op, &balance, amount)?;
        dict_set(
            py_ops::dict_entries_mut(&mut self.account_info)?,
            text("balance"),
            new_balance.clone(),
        )?;
        let PyValue::List(history) = &mut self.transaction_history else {
            return Err(no_attribute(&self.transaction_history, "append"));
        };
        let timestamp = transaction_timestamp(&mut self.random);
        history.push(dict([
            (
                "type",
                text(if withdraw { "withdrawal" } else { "deposit" }),
            ),
            ("amount", amount.clone()),
            ("timestamp", text(&timestamp)),
        ]));
        let status = if withdraw {
            "Withdrawal successful"
        } else {
            "Account funded successfully"
        };
        Ok(dict([
            ("status", text(status)),
            ("new_balance", new_balance),
        ]))
    }

    fn get_account_info(&self) -> PyValue {
        if !truthy(&self.authenticated) {
            let error = "User not authenticated. Please log in to view account information.";
            return dict([("error", text(error))]);
        }
        self.account_info.clone()
    }

    fn trading_login(&mut self) -> PyValue {
        if truthy(&self.authenticated) {
            return dict([("status", text("Already logged in"))]);
        }
        self.authenticated = PyValue::Bool(true);
        dict([("status", text("Logged in successfully"))])
    }

    fn trading_logout(&mut self) -> PyValue {
        if !truthy(&self.authenticated) {
            return dict([("status", text("No user is currently logged in"))]);
        }
        self.authenticated = PyValue::Bool(false);
        dict([("status", text("Logged out successfully"))])
    }

    fn remove_stock_from_watchlist(&mut self, symbol: &PyValue) -> Result<PyValue> {
        if !truthy(&self.authenticated) {
            let error = "User not authenticated. Please log in to modify the watchlist.";
            return Ok(dict([("error", text(error))]));
        }
        let list = watch_list_mut(&mut self.watch_list)?;
        let Some(i) = list_position(list, symbol) else {
            let error = Text::new()
                .text("Stock ")
                .v(symbol)
                .text(" not found in watchlist.");
            return Ok(dict([("error", error.value())]));
        };
        list.remove(i);
        let status = Text::new()
            .text("Stock ")
            .v(symbol)
            .text(" removed from watchlist successfully.");
        Ok(dict([("status", status.value())]))
    }

    fn get_watchlist(&self) -> Result<Output> {
        if !truthy(&self.authenticated) {
            let error = "Error: User not authenticated. Please log in to view the watchlist.";
            return Ok(Output::Value(PyValue::List(vec![text(error)])));
        }
        if !self.long_context {
            return Ok(Output::Value(dict([(
                "watchlist",
                self.watch_list.clone(),
            )])));
        }
        let PyValue::List(own) = &self.watch_list else {
            return Err(no_attribute(&self.watch_list, "copy"));
        };
        let PyValue::List(extension) = long_context("WATCH_LIST_EXTENSION") else {
            return Err("itc: WATCH_LIST_EXTENSION is not a list".into());
        };
        // `str()` of the list: the extension ends in `Ellipsis`.
        let items: Vec<String> = own
            .iter()
            .chain(extension)
            .map(|item| match item {
                PyValue::Dict(entries) if is_ellipsis(entries) => "Ellipsis".to_string(),
                other => PyStr(py_repr(other)).to_string_lossy(),
            })
            .collect();
        Ok(Output::Rendered(format!("[{}]", items.join(", "))))
    }

    fn get_order_history(&self) -> PyValue {
        if !truthy(&self.authenticated) {
            let error = "User not authenticated. Please log in to view order history.";
            return PyValue::List(vec![dict([("error", text(error))])]);
        }
        let keys = self.orders.iter().map(|(k, _)| k.clone()).collect();
        dict([("history", PyValue::List(keys))])
    }

    fn get_transaction_history(&self, start_date: &PyValue, end_date: &PyValue) -> Result<PyValue> {
        if !truthy(&self.authenticated) {
            let error = "User not authenticated. Please log in to view transaction history.";
            return Ok(PyValue::List(vec![dict([("error", text(error))])]));
        }
        let bound = |date: &PyValue| -> Result<Option<Moment>> {
            if truthy(date) {
                strptime(date, "%Y-%m-%d").map(Some).map_err(String::from)
            } else {
                Ok(None)
            }
        };
        let start = bound(start_date)?;
        let end = bound(end_date)?;
        let mut filtered = Vec::new();
        for transaction in iterate(&self.transaction_history)? {
            let moment = strptime(get_item(&transaction, "timestamp")?, "%Y-%m-%d %H:%M:%S")?;
            if start.is_none_or(|s| s <= moment) && end.is_none_or(|e| moment <= e) {
                filtered.push(transaction);
            }
        }
        if self.long_context
            && let PyValue::List(extension) = long_context("TRANSACTION_HISTORY_EXTENSION")
        {
            filtered.extend(extension.iter().cloned());
        }
        Ok(dict([("transaction_history", PyValue::List(filtered))]))
    }

    fn get_available_stocks(&self, sector: &PyValue) -> Result<PyValue> {
        py_ops::hashable(sector)?;
        let found = SECTORS
            .iter()
            .find(|(name, _)| py_ops::same_text(sector, name));
        let Some((name, symbols)) = found else {
            return Ok(dict([("stock_list", PyValue::List(Vec::new()))]));
        };
        let mut list: Vec<PyValue> = symbols.iter().map(|x| text(x)).collect();
        if self.long_context {
            let extension = if *name == "Technology" {
                "TECHNOLOGY_EXTENSION"
            } else {
                "AUTOMOBILE_EXTENSION"
            };
            if let PyValue::List(more) = long_context(extension) {
                list.extend(more.iter().cloned());
            }
        }
        Ok(dict([("stock_list", PyValue::List(list))]))
    }

    fn filter_stocks_by_price(
        &self,
        stocks: &PyValue,
        min_price: &PyValue,
        max_price: &PyValue,
    ) -> Result<PyValue> {
        let mut filtered = Vec::new();
        for symbol in iterate(stocks)? {
            let price = |bot: &TradingBot| -> Result<PyValue> {
                let empty = PyValue::Dict(Vec::new());
                let stock = bot.stocks_get(&symbol)?.unwrap_or(&empty);
                Ok(dict_get(stock, &text("price"))?.cloned().unwrap_or(int(0)))
            };
            if compare(Cmp::Ge, &price(self)?, min_price)?
                && compare(Cmp::Le, &price(self)?, max_price)?
            {
                filtered.push(symbol);
            }
        }
        Ok(dict([("filtered_stocks", PyValue::List(filtered))]))
    }

    fn add_to_watchlist(&mut self, stock: &PyValue) -> Result<PyValue> {
        let listed = list_position(watch_list_mut(&mut self.watch_list)?, stock).is_some();
        if !listed && self.stocks_get(stock)?.is_some() {
            watch_list_mut(&mut self.watch_list)?.push(stock.clone());
        }
        Ok(dict([("watchlist", self.watch_list.clone())]))
    }

    fn notify_price_change(&self, stocks: &PyValue, threshold: &PyValue) -> Result<PyValue> {
        let mut changed: Vec<PyValue> = Vec::new();
        for symbol in iterate(stocks)? {
            let Some(stock) = self.stocks_get(&symbol)? else {
                continue;
            };
            let change = py_num::abs(get_item(stock, "percent_change")?)?;
            if compare(Cmp::Ge, &change, threshold)? {
                changed.push(symbol);
            }
        }
        if changed.is_empty() {
            let none = "No significant price changes in the selected stocks.";
            return Ok(dict([("notification", text(none))]));
        }
        let mut notification = Text::new().text("Stocks ");
        for (i, symbol) in changed.iter().enumerate() {
            if i > 0 {
                notification = notification.text(", ");
            }
            if !matches!(symbol, PyValue::Str(_)) {
                return Err(format!(
                    "sequence item {i}: expected str instance, {} found",
                    symbol.type_name()
                ));
            }
            notification = notification.v(symbol);
        }
        let notification = notification.text(" have significant price changes.");
        Ok(dict([("notification", notification.value())]))
    }
}

impl ApiClass for TradingBot {
    fn class_name(&self) -> &'static str {
        "TradingBot"
    }

    fn methods(&self) -> &'static [Signature] {
        METHODS
    }

    fn call(&mut self, method: &str, args: Vec<PyValue>) -> Result<Output> {
        self.run(method, &args)
    }

    fn state(&self) -> Vec<(&'static str, State)> {
        vec![
            (
                "orders",
                State::Dict(
                    self.orders
                        .iter()
                        .map(|(k, v)| (State::from(k), State::from(v)))
                        .collect(),
                ),
            ),
            ("account_info", State::from(&self.account_info)),
            ("authenticated", State::from(&self.authenticated)),
            ("market_status", State::from(&self.market_status)),
            ("order_counter", State::from(&self.order_counter)),
            ("stocks", State::from(&self.stocks)),
            ("watch_list", State::from(&self.watch_list)),
            (
                "transaction_history",
                State::from(&self.transaction_history),
            ),
            ("long_context", State::Bool(self.long_context)),
        ]
    }
}

/// `{int(k) if isinstance(k, str) and k.isdigit() else k: v}` (ASCII
/// digits only); a later duplicate key takes the first one's place.
fn int_keys(entries: Vec<(PyValue, PyValue)>) -> Vec<(PyValue, PyValue)> {
    let mut out: Vec<(PyValue, PyValue)> = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let key = match &key {
            PyValue::Str(text)
                if !text.is_empty() && text.0.iter().all(|&c| (0x30..=0x39).contains(&c)) =>
            {
                PyValue::Int(normalize_int(&text.to_string_lossy()))
            }
            _ => key,
        };
        // Keys of a loaded dict are hashable; a failure cannot happen here.
        let _ = dict_set(&mut out, key, value);
    }
    out
}

/// `value.copy()` of a dict, to be used with `key` next: Python's error
/// for a list or set (which have `copy`, but not string keys) or for a
/// type without `copy`.
fn copied_dict(value: &PyValue, key: &str) -> Result<Vec<(PyValue, PyValue)>> {
    match value {
        PyValue::Dict(entries) => Ok(entries.clone()),
        PyValue::List(_) | PyValue::Set(_) => get_item(value, key).map(|_| Vec::new()),
        other => Err(no_attribute(other, "copy")),
    }
}

/// `order_type.lower() == "buy"` (`bytes.lower()` never equals a `str`).
fn is_buy(order_type: &PyValue) -> Result<bool> {
    match order_type {
        PyValue::Str(text) => Ok(crate::benchmarks::bfcl::check_values::py_lower(&text.0)
            .iter()
            .copied()
            .eq("buy".chars().map(u32::from))),
        PyValue::Bytes(_) => Ok(false),
        other => Err(no_attribute(other, "lower")),
    }
}

/// The watch list as a list to change, else the error of `.remove` /
/// `.append` / `in` on another type.
fn watch_list_mut(watch_list: &mut PyValue) -> Result<&mut Vec<PyValue>> {
    match watch_list {
        PyValue::List(items) => Ok(items),
        other => Err(format!(
            "argument of type '{}' is not iterable",
            other.type_name()
        )),
    }
}

/// The long-context data's spelling of `...`.
fn is_ellipsis(entries: &[(PyValue, PyValue)]) -> bool {
    matches!(entries, [(PyValue::Str(k), PyValue::Str(v))]
        if *k == PyStr::new("__python__") && *v == PyStr::new("Ellipsis"))
}

/// `template.format(symbol=symbol)`: `{symbol}` replaced by
/// `format(symbol, '')` (its `str()` for the types a call can hold),
/// `{{`/`}}` by a brace; another field name is a `KeyError` (its name).
fn format_symbol(template: &PyStr, symbol: &PyValue) -> std::result::Result<PyValue, String> {
    let symbol_text = crate::benchmarks::python::py_str(symbol);
    let text = &template.0;
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    let open = u32::from('{');
    let close = u32::from('}');
    while i < text.len() {
        let c = text[i];
        if (c == open || c == close) && text.get(i + 1) == Some(&c) {
            out.push(c);
            i += 2;
        } else if c == open {
            let end = text[i..].iter().position(|&x| x == close).map(|e| i + e);
            let Some(end) = end else {
                return Err("itc: single '{' in a format string".into());
            };
            let name: String = PyStr(text[i + 1..end].to_vec()).to_string_lossy();
            if name != "symbol" {
                return Err(name);
            }
            out.extend_from_slice(&symbol_text);
            i = end + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(PyValue::Str(PyStr(out)))
}

/// `_generate_transaction_timestamp()` in UTC (see the module docs): a
/// draw in `[CURRENT_TIME, CURRENT_TIME + 1 day]`, as `%Y-%m-%d %H:%M:%S`.
fn transaction_timestamp(random: &mut PyRandom) -> String {
    let start = CURRENT_TIMESTAMP_UTC;
    let drawn = random
        .randint(start, start + SECONDS_PER_DAY)
        .unwrap_or(start);
    let offset = (drawn - start) as i64;
    let (year, month, day, hour, minute) = CURRENT_TIME;
    let seconds = hour * 3600 + minute * 60 + offset;
    let (days, seconds) = (seconds / 86_400, seconds % 86_400);
    // September has 30 days; the offset is at most one day.
    let (month, day) = if day + days > 30 {
        (month + 1, day + days - 30)
    } else {
        (month, day + days)
    };
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        seconds / 3600,
        seconds % 3600 / 60,
        seconds % 60
    )
}

#[cfg(test)]
#[path = "trading_bot_tests.rs"]
mod tests;

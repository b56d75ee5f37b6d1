//! The computations of `TravelAPI` that hold no state: `get_flight_cost`'s
//! route table and prices, `compute_exchange_rate`'s rates (split from
//! `travel_booking.rs` for its size).

use super::py_num::{Op, binop, py_float, round_float};
use super::py_ops::{dict, hashable, int, same_text};
use crate::benchmarks::bfcl::multi_turn::api::Output;
use crate::benchmarks::python::{PyStr, PyValue};

/// `get_flight_cost`'s base costs, in the dict's order.
const BASE_COSTS: [(&str, &str, u32); 153] = [
    ("SFO", "LAX", 200),
    ("SFO", "JFK", 500),
    ("SFO", "ORD", 400),
    ("SFO", "BOS", 450),
    ("SFO", "RMS", 300),
    ("SFO", "SBK", 350),
    ("SFO", "MPC", 370),
    ("SFO", "SVP", 320),
    ("SFO", "SHD", 330),
    ("SFO", "SSV", 340),
    ("SFO", "OKD", 360),
    ("SFO", "WLB", 310),
    ("SFO", "CRH", 380),
    ("SFO", "ATV", 390),
    ("SFO", "PHV", 420),
    ("SFO", "GFD", 430),
    ("SFO", "CIA", 700),
    ("LAX", "SFO", 100),
    ("LAX", "JFK", 600),
    ("LAX", "ORD", 500),
    ("LAX", "BOS", 550),
    ("LAX", "RMS", 310),
    ("LAX", "SBK", 320),
    ("LAX", "MPC", 330),
    ("LAX", "SVP", 340),
    ("LAX", "SHD", 350),
    ("LAX", "SSV", 360),
    ("LAX", "OKD", 370),
    ("LAX", "WLB", 380),
    ("LAX", "CRH", 390),
    ("LAX", "ATV", 400),
    ("LAX", "PHV", 410),
    ("LAX", "GFD", 420),
    ("LAX", "HND", 430),
    ("JFK", "ORD", 300),
    ("JFK", "BOS", 250),
    ("JFK", "RMS", 450),
    ("JFK", "SBK", 460),
    ("JFK", "MPC", 470),
    ("JFK", "SVP", 480),
    ("JFK", "SHD", 490),
    ("JFK", "SSV", 500),
    ("JFK", "OKD", 510),
    ("JFK", "WLB", 520),
    ("JFK", "CRH", 530),
    ("JFK", "ATV", 540),
    ("JFK", "PHV", 550),
    ("JFK", "GFD", 560),
    ("JFK", "LAX", 570),
    ("JFK", "HND", 800),
    ("JFK", "PVG", 950),
    ("JFK", "PEK", 1000),
    ("ORD", "LAX", 180),
    ("ORD", "BOS", 200),
    ("ORD", "RMS", 350),
    ("ORD", "SBK", 360),
    ("ORD", "MPC", 370),
    ("ORD", "SVP", 380),
    ("ORD", "SHD", 390),
    ("ORD", "SSV", 400),
    ("ORD", "OKD", 410),
    ("ORD", "WLB", 420),
    ("ORD", "CRH", 430),
    ("ORD", "ATV", 440),
    ("ORD", "PHV", 450),
    ("ORD", "GFD", 460),
    ("BOS", "RMS", 400),
    ("BOS", "SBK", 410),
    ("BOS", "MPC", 420),
    ("BOS", "SVP", 430),
    ("BOS", "SHD", 440),
    ("BOS", "SSV", 450),
    ("BOS", "OKD", 460),
    ("BOS", "WLB", 470),
    ("BOS", "CRH", 480),
    ("BOS", "ATV", 490),
    ("BOS", "PHV", 500),
    ("BOS", "GFD", 510),
    ("RMS", "BOS", 200),
    ("RMS", "JFK", 210),
    ("RMS", "SBK", 220),
    ("RMS", "MPC", 230),
    ("RMS", "SVP", 240),
    ("RMS", "SHD", 250),
    ("RMS", "SSV", 260),
    ("RMS", "OKD", 270),
    ("RMS", "WLB", 280),
    ("RMS", "CRH", 290),
    ("RMS", "ATV", 300),
    ("RMS", "PHV", 310),
    ("RMS", "GFD", 320),
    ("RMS", "LAX", 330),
    ("SBK", "MPC", 200),
    ("SBK", "SVP", 210),
    ("SBK", "SHD", 220),
    ("SBK", "SSV", 230),
    ("SBK", "OKD", 240),
    ("SBK", "WLB", 250),
    ("SBK", "CRH", 260),
    ("SBK", "ATV", 270),
    ("SBK", "PHV", 280),
    ("SBK", "GFD", 290),
    ("MPC", "SVP", 210),
    ("MPC", "SHD", 220),
    ("MPC", "SSV", 230),
    ("MPC", "OKD", 240),
    ("MPC", "WLB", 250),
    ("MPC", "CRH", 260),
    ("MPC", "ATV", 270),
    ("MPC", "PHV", 280),
    ("MPC", "GFD", 290),
    ("SVP", "SHD", 230),
    ("SVP", "SSV", 240),
    ("SVP", "OKD", 250),
    ("SVP", "WLB", 260),
    ("SVP", "CRH", 270),
    ("SVP", "ATV", 280),
    ("SVP", "PHV", 290),
    ("SVP", "GFD", 300),
    ("SHD", "SSV", 220),
    ("SHD", "OKD", 230),
    ("SHD", "WLB", 240),
    ("SHD", "CRH", 250),
    ("SHD", "ATV", 260),
    ("SHD", "PHV", 270),
    ("SHD", "GFD", 280),
    ("SSV", "OKD", 240),
    ("SSV", "WLB", 250),
    ("SSV", "CRH", 260),
    ("SSV", "ATV", 270),
    ("SSV", "PHV", 280),
    ("SSV", "GFD", 290),
    ("OKD", "WLB", 230),
    ("OKD", "CRH", 240),
    ("OKD", "ATV", 250),
    ("OKD", "PHV", 260),
    ("OKD", "GFD", 270),
    ("WLB", "CRH", 250),
    ("WLB", "ATV", 260),
    ("WLB", "PHV", 270),
    ("WLB", "GFD", 280),
    ("CRH", "ATV", 240),
    ("CRH", "PHV", 250),
    ("CRH", "GFD", 260),
    ("CRH", "SFO", 270),
    ("CRH", "RMS", 280),
    ("CRH", "HKG", 290),
    ("CRH", "JFK", 300),
    ("ATV", "PHV", 230),
    ("ATV", "GFD", 240),
    ("PHV", "GFD", 220),
    ("LHR", "CDG", 100),
    ("OKD", "LAX", 220),
];

/// A rate of `compute_exchange_rate`: an `int` or a `float` literal.
#[derive(Clone, Copy)]
enum Rate {
    Int(i128),
    Float(f64),
}

impl Rate {
    fn value(self) -> PyValue {
        match self {
            Rate::Int(i) => int(i),
            Rate::Float(x) => PyValue::Float(x),
        }
    }
}

const EXCHANGE_RATES: [(&str, &str, Rate); 10] = [
    ("USD", "RMB", Rate::Int(7)),
    ("USD", "EUR", Rate::Float(0.8)),
    ("USD", "JPY", Rate::Int(110)),
    ("USD", "GBP", Rate::Float(0.7)),
    ("USD", "CAD", Rate::Float(1.3)),
    ("USD", "AUD", Rate::Float(1.4)),
    ("USD", "INR", Rate::Int(70)),
    ("USD", "RUB", Rate::Int(60)),
    ("USD", "BRL", Rate::Float(3.8)),
    ("USD", "MXN", Rate::Int(20)),
];

/// Python 3.11's limit on the digits `int(str)` converts.
const INT_MAX_STR_DIGITS: usize = 4300;

/// The parity of `sum(int(c) for c in date if c.isdigit())`, or the
/// exception text: a `str` gives its characters, a list, tuple, set or
/// dict (its keys) its items, whose `isdigit()` and `int()` Python calls.
fn digit_sum_parity(date: &PyValue) -> Result<u32, String> {
    let item_parity = |item: &PyValue| -> Result<u32, String> {
        let digits: Vec<u32> = match item {
            PyValue::Str(text) => text.0.clone(),
            PyValue::Bytes(bytes) => bytes.iter().map(|&b| u32::from(b)).collect(),
            other => {
                return Err(format!(
                    "'{}' object has no attribute 'isdigit'",
                    other.type_name()
                ));
            }
        };
        let is_digit = |c: &u32| (0x30..=0x39).contains(c);
        if digits.is_empty() || !digits.iter().all(is_digit) {
            return Ok(0);
        }
        if digits.len() > INT_MAX_STR_DIGITS {
            return Err(format!(
                "Exceeds the limit ({INT_MAX_STR_DIGITS} digits) for integer string conversion: \
                 value has {} digits; use sys.set_int_max_str_digits() to increase the limit",
                digits.len()
            ));
        }
        Ok(digits.last().map_or(0, |d| d % 2))
    };
    let items: Vec<&PyValue> = match date {
        PyValue::Str(text) => {
            return Ok(text
                .0
                .iter()
                .filter(|c| (0x30..=0x39).contains(*c))
                .map(|c| c % 2)
                .sum::<u32>()
                % 2);
        }
        PyValue::Bytes(bytes) if bytes.is_empty() => return Ok(0),
        PyValue::Bytes(_) => return Err("'int' object has no attribute 'isdigit'".into()),
        PyValue::List(items) | PyValue::Tuple(items) | PyValue::Set(items) => {
            items.iter().collect()
        }
        PyValue::Dict(entries) => entries.iter().map(|(k, _)| k).collect(),
        other => return Err(format!("'{}' object is not iterable", other.type_name())),
    };
    let mut parity = 0;
    for item in items {
        parity ^= item_parity(item)?;
    }
    Ok(parity)
}

/// `get_flight_cost`: the cost list, and the cost of the asked route.
pub fn flight_costs(
    from: &PyValue,
    to: &PyValue,
    date: &PyValue,
    class: &PyValue,
    long_context: bool,
) -> Result<(Vec<f64>, f64), String> {
    hashable(from)?;
    hashable(to)?;
    let base = BASE_COSTS
        .iter()
        .find(|(f, t, _)| same_text(from, f) && same_text(to, t))
        .map(|(_, _, cost)| *cost)
        .ok_or("No available route for the given airports.")?;
    let factor = if same_text(class, "economy") {
        1
    } else if same_text(class, "business") {
        2
    } else if same_text(class, "first") {
        5
    } else {
        return Err("Invalid travel class. Options are: economy, business, first.".into());
    };
    let multiplier = if digit_sum_parity(date)? == 0 { 2 } else { 1 };
    let cost = f64::from(base * factor * multiplier);
    let list = if long_context {
        BASE_COSTS
            .iter()
            .map(|(_, _, b)| f64::from(b * factor * multiplier))
            .collect()
    } else {
        vec![cost]
    };
    Ok((list, cost))
}

/// `value * rate`, then `float()` of it.
fn exchange_forward(amount: &PyValue, rate: Rate) -> Result<f64, String> {
    let sequence = matches!(
        amount,
        PyValue::Str(_) | PyValue::Bytes(_) | PyValue::List(_) | PyValue::Tuple(_)
    );
    match (amount, rate) {
        (PyValue::Bool(_) | PyValue::Int(_) | PyValue::Float(_), _) => {
            Ok(py_float(&binop(Op::Mul, amount, &rate.value())?)?)
        }
        (_, Rate::Float(_)) if sequence => {
            Err("can't multiply sequence by non-int of type 'float'".into())
        }
        (PyValue::Str(text), Rate::Int(n)) => {
            let repeated = text.0.repeat(n as usize);
            Ok(py_float(&PyValue::Str(PyStr(repeated)))?)
        }
        (PyValue::Bytes(bytes), Rate::Int(n)) => {
            Ok(py_float(&PyValue::Bytes(bytes.repeat(n as usize)))?)
        }
        (PyValue::List(_) | PyValue::Tuple(_) | PyValue::Complex(_), _) => Ok(py_float(amount)?),
        (other, rate) => Err(format!(
            "unsupported operand type(s) for *: '{}' and '{}'",
            other.type_name(),
            rate.value().type_name()
        )),
    }
}

/// `round(value / rate, 2)`.
fn exchange_backward(amount: &PyValue, rate: Rate) -> Result<f64, String> {
    if let PyValue::Complex(_) = amount {
        return Err("type complex doesn't define __round__ method".into());
    }
    let quotient = py_float(&binop(Op::Div, amount, &rate.value())?)?;
    Ok(round_float(quotient, &2.into())?)
}

/// `compute_exchange_rate(base_currency, target_currency, value)`.
pub fn compute_exchange_rate(
    base: &PyValue,
    target: &PyValue,
    amount: &PyValue,
) -> Result<Output, String> {
    for (from, to, rate) in EXCHANGE_RATES {
        let exchanged = if same_text(base, from) && same_text(target, to) {
            exchange_forward(amount, rate)?
        } else if same_text(base, to) && same_text(target, from) {
            exchange_backward(amount, rate)?
        } else {
            continue;
        };
        return Ok(Output::Value(dict([(
            "exchanged_value",
            PyValue::Float(exchanged),
        )])));
    }
    Err("No available exchange rate for the given currencies.".into())
}

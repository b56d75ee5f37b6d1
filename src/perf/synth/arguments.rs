//! Gold arguments of the table tools' calls: what each [`Domain`]'s call
//! passes, drawn in the task's language (values of every JSON type).

use fastrand::Rng;

use super::domain::Domain;
use super::phrases::{LANGUAGES, Phrases};
use crate::spec::records::Value;

/// A call's arguments, in order.
type Arguments = Vec<(String, Value)>;

/// A string value.
pub(super) fn str_value(s: &str) -> Value {
    Value::Str(s.to_string())
}

/// Gold arguments of one call in `domain`, in the task's language, about
/// `lang.places[place]`.
pub(super) fn gold_arguments(
    rng: &mut Rng,
    domain: Domain,
    lang: &Phrases,
    place: usize,
) -> Arguments {
    let city = lang.places[place];
    let mut args = Arguments::new();
    let add = match domain {
        Domain::Weather => weather,
        Domain::Fx => exchange_rate,
        Domain::Translate => translation,
        Domain::Directions => directions,
        Domain::News => news,
        Domain::Restaurant => restaurants,
        Domain::Stock => stock_quote,
        Domain::Flight => flights,
    };
    add(rng, lang, city, &mut args);
    args
}

fn arg(args: &mut Arguments, key: &str, value: Value) {
    args.push((key.to_string(), value));
}

fn weather(rng: &mut Rng, _lang: &Phrases, city: &str, args: &mut Arguments) {
    arg(args, "city", str_value(city));
    if rng.bool() {
        arg(args, "days", Value::Int(rng.i64(1..=7)));
    }
    if rng.f64() < 0.3 {
        arg(
            args,
            "units",
            str_value(if rng.bool() { "metric" } else { "imperial" }),
        );
    }
    if rng.f64() < 0.15 {
        arg(args, "include_hourly", Value::Bool(rng.bool()));
    }
}

fn exchange_rate(rng: &mut Rng, lang: &Phrases, _city: &str, args: &mut Arguments) {
    arg(args, "base", str_value(lang.currency));
    let target = ["USD", "EUR", "JPY", "GBP", "CNY"]
        .into_iter()
        .find(|c| *c != lang.currency && rng.bool())
        .unwrap_or(if lang.currency == "USD" { "EUR" } else { "USD" });
    arg(args, "target", str_value(target));
    if rng.bool() {
        arg(
            args,
            "amount",
            Value::Float(f64::from(rng.u32(10..5000)) + 0.5),
        );
    }
}

fn translation(rng: &mut Rng, lang: &Phrases, _city: &str, args: &mut Arguments) {
    arg(args, "text", str_value(lang.phrase));
    let target = LANGUAGES[rng.usize(..LANGUAGES.len())].code;
    arg(
        args,
        "target_lang",
        str_value(if target == lang.code { "en" } else { target }),
    );
    if rng.f64() < 0.3 {
        arg(args, "formal", Value::Bool(rng.bool()));
    }
}

fn directions(rng: &mut Rng, lang: &Phrases, city: &str, args: &mut Arguments) {
    arg(args, "origin", str_value(lang.address));
    arg(args, "destination", str_value(city));
    if rng.bool() {
        arg(
            args,
            "mode",
            str_value(["driving", "walking", "transit"][rng.usize(..3)]),
        );
    }
    if rng.f64() < 0.3 {
        let mut avoid = vec![str_value("tolls")];
        if rng.bool() {
            avoid.push(str_value("highways"));
        }
        arg(args, "avoid", Value::List(avoid));
    }
}

fn news(rng: &mut Rng, lang: &Phrases, city: &str, args: &mut Arguments) {
    arg(args, "query", str_value(&format!("{} {}", lang.news, city)));
    if rng.bool() {
        arg(args, "limit", Value::Int(rng.i64(3..=20)));
    }
    if rng.f64() < 0.3 {
        arg(
            args,
            "languages",
            Value::List(vec![str_value(lang.code), str_value("en")]),
        );
    }
}

fn restaurants(rng: &mut Rng, lang: &Phrases, city: &str, args: &mut Arguments) {
    arg(args, "city", str_value(city));
    arg(args, "cuisine", str_value(lang.cuisine));
    if rng.bool() {
        arg(args, "open_now", Value::Bool(true));
    }
    if rng.f64() < 0.3 {
        arg(
            args,
            "price_levels",
            Value::List(vec![Value::Int(1), Value::Int(rng.i64(2..=4))]),
        );
    }
}

fn stock_quote(rng: &mut Rng, lang: &Phrases, _city: &str, args: &mut Arguments) {
    arg(args, "symbol", str_value(lang.symbol));
    if rng.f64() < 0.3 {
        arg(
            args,
            "exchange",
            str_value(lang.symbol.rsplit('.').next().unwrap_or("NYSE")),
        );
    }
    if rng.f64() < 0.3 {
        arg(args, "realtime", Value::Bool(rng.bool()));
    }
}

fn flights(rng: &mut Rng, lang: &Phrases, _city: &str, args: &mut Arguments) {
    arg(args, "origin", str_value(lang.airport));
    let to = LANGUAGES[rng.usize(..LANGUAGES.len())].airport;
    arg(
        args,
        "destination",
        str_value(if to == lang.airport { "LHR" } else { to }),
    );
    arg(
        args,
        "date",
        str_value(&format!(
            "2025-{:02}-{:02}",
            rng.u32(1..=12),
            rng.u32(1..=28)
        )),
    );
    if rng.bool() {
        arg(args, "passengers", Value::Int(rng.i64(1..=4)));
    }
    if rng.f64() < 0.35 {
        let mut filters = vec![
            ("max_stops".to_string(), Value::Int(rng.i64(0..=2))),
            ("cabin".to_string(), str_value("economy")),
        ];
        if rng.bool() {
            filters.push((
                "airlines".to_string(),
                Value::List(vec![str_value("LH"), str_value("NH")]),
            ));
        }
        arg(args, "filters", Value::Dict(filters));
    }
}

/// Makes the k-th call of a repeated task differ from the others.
pub(super) fn vary_repeated(domain: Domain, k: usize, args: &mut [(String, Value)]) {
    if matches!(domain, Domain::Fx | Domain::Stock) {
        let targets = ["USD", "EUR", "JPY", "GBP"];
        let symbols = ["AAPL", "MSFT", "7203.T", "SAP.DE"];
        for (key, v) in args.iter_mut() {
            match key.as_str() {
                "target" => *v = str_value(targets[k % 4]),
                "symbol" => *v = str_value(symbols[k % 4]),
                _ => {}
            }
        }
    }
}

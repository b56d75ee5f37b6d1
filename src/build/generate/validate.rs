//! Deterministic checks on a generated query, before any judge sees it
//! (ITC §3.3): it uses only the sampled APIs, in the shape its kind asks
//! for; every required parameter gets a value, and that value is stated in
//! the query; the query is written in the target language. `no_tool`
//! queries have checks of their own ([`validate_no_tool`]): no call, and
//! either a reason why no candidate serves them or a required value that
//! really is left out of the query.

use std::collections::HashSet;

use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;

use super::no_tool::{NoToolUnit, NoToolVariant};
use super::parse::{DraftCall, DraftQuery};
use crate::spec::kind::{CallShape, ReferenceAt, ShapeError};
use crate::spec::language::check_language;
use crate::spec::records::{LanguageOutcome, NoToolPlan, TaskKind, Tool};
use crate::spec::reference::parse_placeholder;

/// How strictly required values are checked against the query text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueCheck {
    /// Each string or number given to a required parameter must appear in
    /// the query (case, width and spacing aside).
    #[default]
    Literal,
    /// Required parameters must have values; the query is not searched.
    Present,
}

impl ValueCheck {
    /// The name on the command line and in `pipeline.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            ValueCheck::Literal => "literal",
            ValueCheck::Present => "present",
        }
    }
}

impl std::str::FromStr for ValueCheck {
    type Err = String;

    /// Reads `literal` or `present`, in any case.
    fn from_str(name: &str) -> Result<Self, String> {
        match name.to_ascii_lowercase().as_str() {
            "literal" => Ok(ValueCheck::Literal),
            "present" => Ok(ValueCheck::Present),
            _ => Err(format!("unknown value check `{name}`")),
        }
    }
}

/// What a query is checked against: its target APIs and their schemas.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The kind of task asked for.
    pub kind: TaskKind,
    /// The target language (ISO 639-1).
    pub language: &'a str,
    /// Names of the sampled APIs the query was written for.
    pub apis: &'a [String],
    /// The candidate tools (targets and distractors).
    pub tools: &'a [Tool],
}

/// Checks a draft; the error says what is wrong.
pub fn validate(draft: &DraftQuery, target: &Target, values: ValueCheck) -> Result<(), String> {
    check_length(&draft.query)?;
    check_shape(&draft.calls, target)?;
    let normalized_query = normalize(&draft.query);
    for (i, call) in draft.calls.iter().enumerate() {
        check_call(
            &format!("call {}", i + 1),
            call,
            target,
            &normalized_query,
            values,
            None,
        )?;
    }
    check_query_language(&draft.query, target.language)
}

fn check_length(query: &str) -> Result<(), String> {
    if query.chars().count() > 1000 {
        return Err("the query is longer than 1000 characters".into());
    }
    Ok(())
}

/// Checks one call (`at` names it): a candidate tool, declared
/// parameters, every required one valued and, with [`ValueCheck::Literal`],
/// its value stated in the query — but for `left_out`, which is not
/// looked at here.
fn check_call(
    at: &str,
    call: &DraftCall,
    target: &Target,
    normalized_query: &str,
    values: ValueCheck,
    left_out: Option<&str>,
) -> Result<(), String> {
    let tool = target
        .tools
        .iter()
        .find(|t| t.name == call.api)
        .ok_or_else(|| format!("{at}: `{}` is not among the candidate tools", call.api))?;
    for name in call.arguments.keys() {
        let declared = tool
            .required_parameters
            .iter()
            .chain(&tool.optional_parameters)
            .any(|p| &p.name == name);
        if !declared {
            return Err(format!(
                "{at} ({}): parameter `{name}` is not declared",
                call.api
            ));
        }
    }
    for parameter in &tool.required_parameters {
        let value = call
            .arguments
            .get(&parameter.name)
            .filter(|v| !is_empty(v))
            .ok_or_else(|| {
                format!(
                    "{at} ({}): required parameter `{}` has no value",
                    call.api, parameter.name
                )
            })?;
        // Where a reference points was checked with the kind's shape.
        if is_placeholder(value) || left_out == Some(parameter.name.as_str()) {
            continue;
        }
        if values == ValueCheck::Literal && !stated_in(value, normalized_query) {
            return Err(format!(
                "{at} ({}): the value {value} of `{}` is not stated in the query",
                call.api, parameter.name
            ));
        }
    }
    Ok(())
}

/// Checks a `no_tool` draft of a unit asking for `asked` and returns what
/// the generator planned. Both variants: no call (the shared shape rule),
/// at most 1000 characters, the target language. Unservable: a `reason`
/// why no candidate serves the request. Missing parameter: `missing` names
/// a required parameter of the target API; `full_call` calls that API with
/// declared parameters and every required one valued, each value but the
/// left-out one stated in the query (with [`ValueCheck::Literal`]); and the
/// left-out value is *not* in the query, whatever `values` says.
pub fn validate_no_tool(
    draft: &DraftQuery,
    target: &Target,
    asked: &NoToolUnit,
    values: ValueCheck,
) -> Result<NoToolPlan, String> {
    check_length(&draft.query)?;
    let shapes = draft
        .calls
        .iter()
        .enumerate()
        .map(|(i, call)| call_shape(i, call))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(problem) = TaskKind::NoTool.shape_error(&shapes) {
        return Err(shape_message(TaskKind::NoTool, &problem, &draft.calls));
    }
    let plan = match asked.variant() {
        NoToolVariant::Unservable => match draft.reason.as_deref() {
            Some(reason) if !reason.is_empty() => NoToolPlan::Unservable {
                reason: reason.to_string(),
            },
            _ => {
                return Err(
                    "an unservable no_tool query needs a `reason`: why none of the candidate APIs serves it"
                        .into(),
                );
            }
        },
        NoToolVariant::MissingParameter => left_out(draft, target, values)?,
    };
    check_query_language(&draft.query, target.language)?;
    Ok(plan)
}

/// The left-out parameter and value of a missing-parameter draft, checked.
fn left_out(draft: &DraftQuery, target: &Target, values: ValueCheck) -> Result<NoToolPlan, String> {
    let what = "a no_tool query with a missing parameter";
    let parameter = draft
        .missing
        .as_deref()
        .filter(|m| !m.is_empty())
        .ok_or_else(|| format!("{what} must name the left-out parameter in `missing`"))?;
    let call = draft
        .full_call
        .as_ref()
        .ok_or_else(|| format!("{what} needs the `full_call` it would take"))?;
    if !target.apis.contains(&call.api) {
        return Err(format!(
            "`full_call`: `{}` is not one of the sampled APIs ({})",
            call.api,
            target.apis.join(", ")
        ));
    }
    let required = target
        .tools
        .iter()
        .find(|t| t.name == call.api)
        .is_some_and(|t| t.required_parameters.iter().any(|p| p.name == parameter));
    if !required {
        return Err(format!(
            "`missing`: `{parameter}` is not a required parameter of `{}`",
            call.api
        ));
    }
    let normalized_query = normalize(&draft.query);
    check_call(
        "`full_call`",
        call,
        target,
        &normalized_query,
        values,
        Some(parameter),
    )?;
    let withheld = &call.arguments[parameter];
    match appears_in(withheld, &normalized_query) {
        Some(false) => Ok(NoToolPlan::MissingParameter {
            parameter: parameter.to_string(),
            withheld: withheld.clone(),
        }),
        Some(true) => Err(format!(
            "the left-out value {withheld} of `{parameter}` is stated in the query"
        )),
        None => Err(format!(
            "the left-out value {withheld} of `{parameter}` is not a string or a number, so its absence cannot be checked"
        )),
    }
}

/// Whether a left-out value (a string, a number, or a list of them) shows
/// in the (normalised) query: any of a list's items does; `None` for a
/// value that cannot be searched for.
fn appears_in(value: &Value, normalized_query: &str) -> Option<bool> {
    match value {
        Value::String(_) | Value::Number(_) => Some(stated_in(value, normalized_query)),
        Value::Array(items) if !items.is_empty() => {
            let mut found = false;
            for item in items {
                found |= appears_in(item, normalized_query)?;
            }
            Some(found)
        }
        _ => None,
    }
}

/// The calls fit the sampled APIs and the shape of their kind
/// ([`TaskKind::shape_error`], the rule the gold-answer check shares).
fn check_shape(calls: &[DraftCall], target: &Target) -> Result<(), String> {
    let no_calls: [DraftShape; 0] = [];
    if calls.is_empty() && target.kind.shape_error(&no_calls).is_some() {
        return Err("no calls are given for the query".into());
    }
    for (i, call) in calls.iter().enumerate() {
        if !target.apis.contains(&call.api) {
            return Err(format!(
                "call {}: `{}` is not one of the sampled APIs ({})",
                i + 1,
                call.api,
                target.apis.join(", ")
            ));
        }
    }
    let shapes = calls
        .iter()
        .enumerate()
        .map(|(i, call)| call_shape(i, call))
        .collect::<Result<Vec<_>, _>>()?;
    let distinct: HashSet<&str> = calls.iter().map(|c| c.api.as_str()).collect();
    if matches!(target.kind, TaskKind::Parallel | TaskKind::Nested)
        && distinct.len() < target.apis.len()
    {
        return Err(format!(
            "a {} query needs every target API ({}), it uses {}",
            target.kind,
            target.apis.join(", "),
            distinct.len()
        ));
    }
    match target.kind.shape_error(&shapes) {
        Some(problem) => Err(shape_message(target.kind, &problem, calls)),
        None => Ok(()),
    }
}

/// A draft call as the kind's shape rules see it.
type DraftShape<'a> = CallShape<'a, &'a Map<String, Value>>;

/// Call `i` (0-based) as the shape rules see it; an error for a
/// placeholder that names no call (`"$0.id"`).
fn call_shape(i: usize, call: &DraftCall) -> Result<DraftShape<'_>, String> {
    let mut references = Vec::new();
    for (key, value) in &call.arguments {
        let mut calls = Vec::new();
        placeholders_in(value, &mut calls)
            .map_err(|why| format!("call {} ({}): `{key}`: {why}", i + 1, call.api))?;
        references.extend(calls.into_iter().map(|call| ReferenceAt {
            parameter: key,
            call,
        }));
    }
    Ok(CallShape {
        tool: &call.api,
        arguments: &call.arguments,
        references,
    })
}

/// The (0-based) calls the `"$N.field"` placeholders in a value point to,
/// inside lists and objects too.
fn placeholders_in(value: &Value, out: &mut Vec<usize>) -> Result<(), String> {
    match value {
        Value::String(text) => {
            if let Some(reference) =
                parse_placeholder(text).map_err(|why| format!("`{text}`: {why}"))?
            {
                out.push(reference.call);
            }
        }
        Value::Array(items) => {
            for item in items {
                placeholders_in(item, out)?;
            }
        }
        Value::Object(entries) => {
            for item in entries.values() {
                placeholders_in(item, out)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Whether a value is a `"$N.field"` placeholder (`"$5.00"` is money).
fn is_placeholder(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|text| matches!(parse_placeholder(text), Ok(Some(_))))
}

/// What a draft of this kind lacks, in words.
fn shape_message(kind: TaskKind, problem: &ShapeError, calls: &[DraftCall]) -> String {
    match *problem {
        ShapeError::NotOneCall { calls } => format!("a {kind} query needs one call, not {calls}"),
        ShapeError::NotOneToolRepeated { calls, tools } => format!(
            "a {kind} query needs one API called at least twice ({calls} calls to {tools} APIs)"
        ),
        ShapeError::SameArguments { .. } => {
            format!("a {kind} query needs different arguments in each call")
        }
        ShapeError::TooFewTools { calls, tools } => format!(
            "a {kind} query needs calls to at least two different APIs ({calls} calls to {tools} APIs)"
        ),
        ShapeError::Dependent { .. } => {
            format!("a {kind} query's calls must not depend on each other")
        }
        ShapeError::NotNested { .. } => format!(
            "a {kind} query needs a later call that uses an earlier call's result (\"$1.field\")"
        ),
        ShapeError::CallsForNoTool { calls } => {
            format!("a {kind} query needs no call, not {calls}")
        }
        ShapeError::ForwardReference {
            call,
            ref parameter,
            target,
        } => format!(
            "call {} ({}): `{parameter}` refers to call {}, which does not come before it",
            call + 1,
            calls[call].api,
            target + 1
        ),
    }
}

/// Languages whatlang confuses with each other on short texts.
const CLOSE_LANGUAGES: &[&[&str]] = &[
    &["ru", "uk", "be", "bg", "sr", "mk"],
    &["es", "pt", "gl", "ca", "it"],
    &["da", "no", "nb", "sv"],
    &["cs", "sk"],
    &["hr", "sr", "bs", "sl"],
    &["id", "ms", "jv"],
    &["hi", "mr", "ne"],
    &["fa", "ur", "ar"],
];

fn close(a: &str, b: &str) -> bool {
    CLOSE_LANGUAGES
        .iter()
        .any(|group| group.contains(&a) && group.contains(&b))
}

fn check_query_language(query: &str, language: &str) -> Result<(), String> {
    let check = check_language(query, language);
    let detected = check.detected.unwrap_or("another language");
    match check.outcome {
        LanguageOutcome::Match | LanguageOutcome::MatchUnreliable => Ok(()),
        // An unsure verdict between close relatives (Russian read as
        // Bulgarian) is the detector's doubt, not the generator's error.
        LanguageOutcome::MismatchUnreliable if close(detected, language) => Ok(()),
        LanguageOutcome::Undetectable => Err(format!(
            "the query's language could not be detected (expected {language})"
        )),
        LanguageOutcome::Mismatch | LanguageOutcome::MismatchUnreliable => Err(format!(
            "the query is written in {detected}, not {language}"
        )),
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

/// Lower case, NFKC (full-width digits and letters become plain), one
/// space between words.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.nfkc().flat_map(char::to_lowercase) {
        if c.is_whitespace() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The text without digit-group separators (`12,500`, `12'500`, `12 500`).
fn without_digit_separators(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let separates = matches!(c, ',' | '\'' | ' ' | '\u{202f}' | '.')
            && i > 0
            && chars[i - 1].is_ascii_digit()
            && chars
                .get(i + 1..i + 4)
                .is_some_and(|g| g.iter().all(char::is_ascii_digit))
            && !chars.get(i + 4).is_some_and(char::is_ascii_digit);
        if !separates {
            out.push(c);
        }
    }
    out
}

/// Whether a scalar value is stated in the (normalised) query. Booleans,
/// lists and objects are not searched for: they rarely appear verbatim.
fn stated_in(value: &Value, normalized_query: &str) -> bool {
    match value {
        Value::String(s) => normalized_query.contains(&normalize(s)),
        Value::Number(n) => {
            let text = n.to_string();
            normalized_query.contains(&text)
                || normalized_query.contains(&text.replace('.', ","))
                || without_digit_separators(normalized_query).contains(&text)
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::records::Parameter;
    use serde_json::json;

    fn tool(name: &str, required: &[&str], optional: &[&str]) -> Tool {
        let params = |names: &[&str]| {
            names
                .iter()
                .map(|n| Parameter {
                    name: n.to_string(),
                    kind: "string".into(),
                    description: String::new(),
                    default: None,
                    ..Default::default()
                })
                .collect()
        };
        Tool {
            name: name.into(),
            country: "DE".into(),
            required_parameters: params(required),
            optional_parameters: params(optional),
            ..Tool::default()
        }
    }

    fn draft(query: &str, calls: Value) -> DraftQuery {
        let calls = calls
            .as_array()
            .unwrap()
            .iter()
            .map(|c| DraftCall {
                api: c[0].as_str().unwrap().into(),
                arguments: c[1].as_object().unwrap().clone(),
            })
            .collect();
        DraftQuery {
            query: query.into(),
            calls,
            ..DraftQuery::default()
        }
    }

    fn check(kind: TaskKind, apis: &[&str], query: &str, calls: Value) -> Result<(), String> {
        let tools = vec![
            tool("wetter", &["ort"], &["tage"]),
            tool("bahn", &["von", "nach"], &[]),
            tool("abfahrten", &["station_id"], &[]),
            tool("decoy", &["ort"], &[]),
        ];
        let apis: Vec<String> = apis.iter().map(|s| s.to_string()).collect();
        let target = Target {
            kind,
            language: "de",
            apis: &apis,
            tools: &tools,
        };
        validate(&draft(query, calls), &target, ValueCheck::Literal)
    }

    const GRAZ: &str = "Wie wird das Wetter morgen in Graz, ich möchte wandern gehen?";

    #[test]
    fn a_good_single_query_passes() {
        assert_eq!(
            check(
                TaskKind::Single,
                &["wetter"],
                GRAZ,
                json!([["wetter", {"ort": "graz"}]])
            ),
            Ok(())
        );
    }

    #[test]
    fn only_sampled_apis_may_be_used() {
        let err = check(
            TaskKind::Single,
            &["wetter"],
            GRAZ,
            json!([["decoy", {"ort": "Graz"}]]),
        );
        assert_eq!(
            err.unwrap_err(),
            "call 1: `decoy` is not one of the sampled APIs (wetter)"
        );
    }

    #[test]
    fn required_values_must_be_given_and_stated() {
        let err = check(
            TaskKind::Single,
            &["wetter"],
            GRAZ,
            json!([["wetter", {"tage": "2"}]]),
        );
        assert_eq!(
            err.unwrap_err(),
            "call 1 (wetter): required parameter `ort` has no value"
        );
        let err = check(
            TaskKind::Single,
            &["wetter"],
            GRAZ,
            json!([["wetter", {"ort": "Linz"}]]),
        );
        assert_eq!(
            err.unwrap_err(),
            "call 1 (wetter): the value \"Linz\" of `ort` is not stated in the query"
        );
        let err = check(
            TaskKind::Single,
            &["wetter"],
            GRAZ,
            json!([["wetter", {"ort": "Graz", "stadt": "Graz"}]]),
        );
        assert_eq!(
            err.unwrap_err(),
            "call 1 (wetter): parameter `stadt` is not declared"
        );
    }

    #[test]
    fn numbers_match_across_separators_and_widths() {
        let q = normalize("Überweisung von １２,５００ Euro und 3,5 Prozent");
        assert!(stated_in(&json!(12500), &q));
        assert!(stated_in(&json!(3.5), &q));
        assert!(!stated_in(&json!(125), &normalize("1 2 5")));
        assert!(stated_in(&json!(1250000), &normalize("1.250.000 Euro")));
        assert!(!stated_in(&json!(35), &q), "3,5 is not 35");
    }

    #[test]
    fn kinds_have_their_shapes() {
        let two_cities =
            "Wie wird das Wetter morgen in Graz und in Linz, ich möchte wandern gehen?";
        let repeated = json!([["wetter", {"ort": "Graz"}], ["wetter", {"ort": "Linz"}]]);
        assert_eq!(
            check(
                TaskKind::Repeated,
                &["wetter"],
                two_cities,
                repeated.clone()
            ),
            Ok(())
        );
        assert!(check(TaskKind::Single, &["wetter"], two_cities, repeated).is_err());
        let same_twice = json!([["wetter", {"ort": "Graz"}], ["wetter", {"ort": "Graz"}]]);
        assert_eq!(
            check(TaskKind::Repeated, &["wetter"], two_cities, same_twice).unwrap_err(),
            "a repeated query needs different arguments in each call"
        );
        let trip = "Wie wird das Wetter in Graz, und welcher Zug fährt von Wien nach Graz?";
        let parallel =
            json!([["wetter", {"ort": "Graz"}], ["bahn", {"von": "Wien", "nach": "Graz"}]]);
        assert_eq!(
            check(TaskKind::Parallel, &["wetter", "bahn"], trip, parallel),
            Ok(())
        );
        let only_one = json!([["wetter", {"ort": "Graz"}]]);
        assert!(check(TaskKind::Parallel, &["wetter", "bahn"], trip, only_one).is_err());
    }

    #[test]
    fn nested_queries_need_a_backward_reference() {
        let q = "Welche Züge fahren von Wien nach Graz, und was sind die nächsten Abfahrten dort am Bahnhof?";
        let nested = json!([["bahn", {"von": "Wien", "nach": "Graz"}], ["abfahrten", {"station_id": "$1.id"}]]);
        assert_eq!(
            check(TaskKind::Nested, &["bahn", "abfahrten"], q, nested),
            Ok(())
        );
        let flat = json!([["bahn", {"von": "Wien", "nach": "Graz"}], ["abfahrten", {"station_id": "Graz"}]]);
        assert!(
            check(TaskKind::Nested, &["bahn", "abfahrten"], q, flat)
                .unwrap_err()
                .contains("earlier call")
        );
        let forward = json!([["abfahrten", {"station_id": "$2.id"}], ["bahn", {"von": "Wien", "nach": "Graz"}]]);
        assert_eq!(
            check(TaskKind::Nested, &["bahn", "abfahrten"], q, forward).unwrap_err(),
            "call 1 (abfahrten): `station_id` refers to call 2, which does not come before it"
        );
    }

    #[test]
    fn the_query_must_be_in_the_target_language() {
        let err = check(
            TaskKind::Single,
            &["wetter"],
            "What will the weather be like in Graz tomorrow? I would like to go hiking there.",
            json!([["wetter", {"ort": "Graz"}]]),
        );
        assert_eq!(err.unwrap_err(), "the query is written in en, not de");
    }

    #[test]
    fn unsure_verdicts_between_close_languages_pass() {
        let russian =
            "Проверь, пожалуйста, что за организация зарегистрирована под ИНН 7707083893.";
        assert_eq!(check_query_language(russian, "ru"), Ok(()));
        assert!(check_query_language(russian, "ja").is_err());
        assert!(close("ru", "bg") && !close("en", "de"));
    }

    #[test]
    fn money_is_a_value_and_zero_is_no_call() {
        let q = "Wie wird das Wetter in Graz, und welcher Zug fährt von Wien nach Graz für $5.00?";
        // "$5.00" is money: a literal, so it must be stated in the query.
        let money =
            json!([["wetter", {"ort": "Graz"}], ["bahn", {"von": "Wien", "nach": "$5.00"}]]);
        assert_eq!(
            check(TaskKind::Parallel, &["wetter", "bahn"], q, money),
            Ok(())
        );
        let unstated =
            json!([["wetter", {"ort": "Graz"}], ["bahn", {"von": "Wien", "nach": "$7.50"}]]);
        assert_eq!(
            check(TaskKind::Parallel, &["wetter", "bahn"], q, unstated).unwrap_err(),
            "call 2 (bahn): the value \"$7.50\" of `nach` is not stated in the query"
        );
        let zero = json!([["bahn", {"von": "Wien", "nach": "Graz"}], ["abfahrten", {"station_id": "$0.id"}]]);
        assert_eq!(
            check(TaskKind::Nested, &["bahn", "abfahrten"], q, zero).unwrap_err(),
            "call 2 (abfahrten): `station_id`: `$0.id`: calls are counted from 1"
        );
    }

    #[test]
    fn shape_edge_cases_follow_the_shared_rule() {
        let q = "Wie wird das Wetter morgen in Graz und in Linz, und welcher Zug fährt von Wien nach Graz?";
        // Identical arguments, written in another order, are still identical.
        let reordered = json!([["bahn", {"von": "Wien", "nach": "Graz"}], ["bahn", {"nach": "Graz", "von": "Wien"}]]);
        assert_eq!(
            check(TaskKind::Repeated, &["bahn"], q, reordered).unwrap_err(),
            "a repeated query needs different arguments in each call"
        );
        // A repeated query whose calls use each other's outputs is nested.
        let chained = json!([["wetter", {"ort": "Graz"}], ["wetter", {"ort": "$1.nachbarort"}]]);
        assert_eq!(
            check(TaskKind::Repeated, &["wetter"], q, chained).unwrap_err(),
            "a repeated query's calls must not depend on each other"
        );
        // Parallel needs two different APIs, even when only one was sampled.
        let same_api = json!([["wetter", {"ort": "Graz"}], ["wetter", {"ort": "Linz"}]]);
        assert_eq!(
            check(TaskKind::Parallel, &["wetter"], q, same_api).unwrap_err(),
            "a parallel query needs calls to at least two different APIs (2 calls to 1 APIs)"
        );
        // A reference inside a list counts.
        let listed = json!([["wetter", {"ort": "Graz"}], ["bahn", {"von": "Wien", "nach": "Graz", "via": ["$1.ort"]}]]);
        let tools = vec![
            tool("wetter", &["ort"], &[]),
            tool("bahn", &["von", "nach"], &["via"]),
        ];
        let apis = vec!["wetter".to_string(), "bahn".to_string()];
        let target = |kind| Target {
            kind,
            language: "de",
            apis: &apis,
            tools: &tools,
        };
        assert_eq!(
            validate(
                &draft(q, listed.clone()),
                &target(TaskKind::Parallel),
                ValueCheck::Literal
            )
            .unwrap_err(),
            "a parallel query's calls must not depend on each other"
        );
        assert_eq!(
            validate(
                &draft(q, listed),
                &target(TaskKind::Nested),
                ValueCheck::Literal
            ),
            Ok(())
        );
        // A self-reference in an optional parameter is caught too.
        let own = json!([["wetter", {"ort": "Graz"}], ["bahn", {"von": "Wien", "nach": "Graz", "via": "$2.via"}]]);
        assert_eq!(
            validate(
                &draft(q, own),
                &target(TaskKind::Nested),
                ValueCheck::Literal
            )
            .unwrap_err(),
            "call 2 (bahn): `via` refers to call 2, which does not come before it"
        );
        // One call cannot use an earlier call's output.
        let alone = json!([["wetter", {"ort": "Graz", "tage": "$1.tage"}]]);
        assert_eq!(
            check(TaskKind::Nested, &["wetter"], q, alone).unwrap_err(),
            "a nested query needs a later call that uses an earlier call's result (\"$1.field\")"
        );
    }

    fn no_tool(
        asked: &NoToolUnit,
        query: &str,
        item: Value,
        values: ValueCheck,
    ) -> Result<NoToolPlan, String> {
        let tools = vec![
            tool("bahn", &["von", "nach"], &["datum"]),
            tool("wetter", &["ort"], &[]),
        ];
        let apis = vec!["bahn".to_string()];
        let target = Target {
            kind: TaskKind::NoTool,
            language: "de",
            apis: &apis,
            tools: &tools,
        };
        let mut object = item.as_object().unwrap().clone();
        object.insert("query".into(), json!(query));
        let reply = super::super::parse::read_reply(&Value::Object(object).to_string());
        let draft = reply.items[0].clone().unwrap();
        validate_no_tool(&draft, &target, asked, values)
    }

    const NO_ORIGIN: &str =
        "Ich muss morgen früh unbedingt nach Leipzig. Welche Züge fahren da am Vormittag?";

    fn leave_out(parameter: &str) -> NoToolUnit {
        NoToolUnit::MissingParameter {
            parameter: parameter.into(),
        }
    }

    #[test]
    fn unservable_queries_need_no_call_and_a_reason() {
        let q = "Kannst du mir für morgen zwei Sitzplätze im ICE nach Berlin reservieren?";
        let reason = "Seats are booked, but the APIs only list connections and weather.";
        assert_eq!(
            no_tool(
                &NoToolUnit::Unservable,
                q,
                json!({"calls": [], "reason": reason}),
                ValueCheck::Literal
            ),
            Ok(NoToolPlan::Unservable {
                reason: reason.into()
            })
        );
        assert_eq!(
            no_tool(
                &NoToolUnit::Unservable,
                q,
                json!({"calls": [], "reason": " "}),
                ValueCheck::Literal
            )
            .unwrap_err(),
            "an unservable no_tool query needs a `reason`: why none of the candidate APIs serves it"
        );
        // The shared shape rule: a call makes it no no_tool query.
        assert_eq!(
            no_tool(
                &NoToolUnit::Unservable,
                q,
                json!({"calls": [{"api": "bahn", "arguments": {"von": "Köln", "nach": "Berlin"}}], "reason": reason}),
                ValueCheck::Literal
            )
            .unwrap_err(),
            "a no_tool query needs no call, not 1"
        );
        assert_eq!(
            no_tool(
                &NoToolUnit::Unservable,
                "Can you book two seats on tomorrow's train to Berlin for me?",
                json!({"calls": [], "reason": reason}),
                ValueCheck::Literal
            )
            .unwrap_err(),
            "the query is written in en, not de"
        );
    }

    #[test]
    fn a_left_out_value_must_really_be_left_out() {
        let full = |von: Value| json!({"calls": [], "missing": "von", "full_call": {"api": "bahn", "arguments": {"von": von, "nach": "Leipzig", "datum": "morgen"}}});
        assert_eq!(
            no_tool(
                &leave_out("von"),
                NO_ORIGIN,
                full(json!("Dresden")),
                ValueCheck::Literal
            ),
            Ok(NoToolPlan::MissingParameter {
                parameter: "von".into(),
                withheld: json!("Dresden")
            })
        );
        // The value is in the query after all: rejected, in either mode.
        let stated =
            "Ich muss morgen früh von Dresden nach Leipzig. Welche Züge fahren da am Vormittag?";
        for values in [ValueCheck::Literal, ValueCheck::Present] {
            assert_eq!(
                no_tool(&leave_out("von"), stated, full(json!("dresden")), values).unwrap_err(),
                "the left-out value \"dresden\" of `von` is stated in the query"
            );
        }
        // Numbers and lists are searched for too; booleans cannot be.
        let platform = "Ich muss morgen früh nach Leipzig, der Zug fährt auf Gleis 12 ab.";
        assert!(
            no_tool(
                &leave_out("von"),
                platform,
                full(json!(12)),
                ValueCheck::Literal
            )
            .unwrap_err()
            .starts_with("the left-out value 12 of `von` is stated")
        );
        assert!(
            no_tool(
                &leave_out("von"),
                NO_ORIGIN,
                full(json!(["Halle", "Leipzig"])),
                ValueCheck::Literal
            )
            .unwrap_err()
            .contains("is stated in the query")
        );
        assert_eq!(
            no_tool(
                &leave_out("von"),
                NO_ORIGIN,
                full(json!(true)),
                ValueCheck::Literal
            )
            .unwrap_err(),
            "the left-out value true of `von` is not a string or a number, so its absence cannot be checked"
        );
    }

    #[test]
    fn a_missing_parameter_query_names_a_required_parameter_and_its_full_call() {
        let asked = leave_out("von");
        let check = |item: Value| no_tool(&asked, NO_ORIGIN, item, ValueCheck::Literal);
        assert_eq!(
            check(json!({"calls": [], "full_call": {"api": "bahn", "arguments": {"von": "Halle", "nach": "Leipzig"}}})).unwrap_err(),
            "a no_tool query with a missing parameter must name the left-out parameter in `missing`"
        );
        assert_eq!(
            check(json!({"calls": [], "missing": "von"})).unwrap_err(),
            "a no_tool query with a missing parameter needs the `full_call` it would take"
        );
        assert_eq!(
            check(json!({"calls": [], "missing": "datum", "full_call": {"api": "bahn", "arguments": {"von": "Halle", "nach": "Leipzig", "datum": "12.5."}}})).unwrap_err(),
            "`missing`: `datum` is not a required parameter of `bahn`"
        );
        assert_eq!(
            check(json!({"calls": [], "missing": "ort", "full_call": {"api": "wetter", "arguments": {"ort": "Halle"}}})).unwrap_err(),
            "`full_call`: `wetter` is not one of the sampled APIs (bahn)"
        );
        // The other required values must be given and stated: only one is missing.
        assert_eq!(
            check(json!({"calls": [], "missing": "von", "full_call": {"api": "bahn", "arguments": {"von": "Halle"}}})).unwrap_err(),
            "`full_call` (bahn): required parameter `nach` has no value"
        );
        assert_eq!(
            check(json!({"calls": [], "missing": "von", "full_call": {"api": "bahn", "arguments": {"von": "Halle", "nach": "Erfurt"}}})).unwrap_err(),
            "`full_call` (bahn): the value \"Erfurt\" of `nach` is not stated in the query"
        );
        // Another required parameter than the one asked for is fine when it
        // is really left out.
        let no_destination =
            "Ich fahre morgen früh von Halle los. Welche Züge gibt es am Vormittag?";
        assert_eq!(
            no_tool(
                &asked,
                no_destination,
                json!({"calls": [], "missing": "nach", "full_call": {"api": "bahn", "arguments": {"von": "Halle", "nach": "Jena"}}}),
                ValueCheck::Literal
            ),
            Ok(NoToolPlan::MissingParameter {
                parameter: "nach".into(),
                withheld: json!("Jena")
            })
        );
    }
}

//! What every multi-turn API class offers the executor ([`ApiClass`]): its
//! public methods and their parameters ([`Signature`]), a call on
//! arguments already bound to those parameters, and its public state.
//!
//! Binding ([`bind`]) is Python's: positional then keyword arguments,
//! defaults filled in, and CPython 3.11's `TypeError` text when they do not
//! fit (`GorillaFileSystem.cd() got an unexpected keyword argument 'x'`),
//! which the official checker compares as a result string.

use super::state::State;
use crate::benchmarks::python::dumps::json_dumps;
use crate::benchmarks::python::{PyStr, PyValue, literal_eval, py_str};

/// One parameter of a method (`self` not included).
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Its name.
    pub name: &'static str,
    /// Its default as a Python literal (`"None"`, `"False"`, `"'/'"`), if any.
    pub default: Option<&'static str>,
}

impl Param {
    /// A parameter without a default.
    pub const fn required(name: &'static str) -> Param {
        Param {
            name,
            default: None,
        }
    }

    /// A parameter with a default, written as a Python literal.
    pub const fn optional(name: &'static str, default: &'static str) -> Param {
        Param {
            name,
            default: Some(default),
        }
    }
}

/// A public method: its name and parameters in declaration order.
#[derive(Debug, Clone, Copy)]
pub struct Signature {
    /// The method's name.
    pub name: &'static str,
    /// Its parameters, `self` excluded.
    pub params: &'static [Param],
}

/// What a method returned, before the executor turns it into the result
/// string (a `str` as is, a `dict` through `json.dumps`, anything else
/// through `str()`).
#[derive(Debug, Clone)]
pub enum Output {
    /// A value of the kinds [`PyValue`] holds.
    Value(PyValue),
    /// A value it cannot hold (an `mpf`, an object), as the exact result
    /// string Python would give for it.
    Rendered(String),
}

impl Output {
    /// The official result string: a `str` as is, a `dict` through
    /// `json.dumps` (its `str()` when not serialisable), anything else
    /// through `str()`.
    pub fn result_string(self) -> String {
        match self {
            Output::Rendered(text) => text,
            Output::Value(PyValue::Str(s)) => s.to_string_lossy(),
            Output::Value(value @ PyValue::Dict(_)) => {
                json_dumps(&value).unwrap_or_else(|_| PyStr(py_str(&value)).to_string_lossy())
            }
            Output::Value(value) => PyStr(py_str(&value)).to_string_lossy(),
        }
    }
}

/// One of BFCL's stateful API classes, as one instance of it.
pub trait ApiClass: Send {
    /// The class name (`GorillaFileSystem`).
    fn class_name(&self) -> &'static str;

    /// Its public methods (names not starting with `_`).
    fn methods(&self) -> &'static [Signature];

    /// Runs `method` on arguments bound to its parameters (one value per
    /// parameter, in order): what it returns, or the `str()` of the
    /// exception it raises.
    fn call(&mut self, method: &str, args: Vec<PyValue>) -> Result<Output, String>;

    /// Its public attributes (not starting with `_`) in `vars()` order.
    fn state(&self) -> Vec<(&'static str, State)>;
}

/// The arguments of a call as written: positional, then keyword.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments {
    /// Positional arguments, in order.
    pub positional: Vec<PyValue>,
    /// Keyword arguments, in order.
    pub keywords: Vec<(String, PyValue)>,
}

/// Binds `args` to `signature`'s parameters as CPython binds a method call:
/// one value per parameter, or the `TypeError` text.
pub fn bind(class: &str, signature: &Signature, args: Arguments) -> Result<Vec<PyValue>, String> {
    let function = format!("{class}.{}()", signature.name);
    let params = signature.params;
    let mut bound: Vec<Option<PyValue>> = vec![None; params.len()];
    let given_positional = args.positional.len();
    for (slot, value) in bound.iter_mut().zip(args.positional) {
        *slot = Some(value);
    }
    for (name, value) in args.keywords {
        let Some(index) = params.iter().position(|p| p.name == name) else {
            return Err(format!(
                "{function} got an unexpected keyword argument '{name}'"
            ));
        };
        if bound[index].is_some() {
            return Err(format!(
                "{function} got multiple values for argument '{name}'"
            ));
        }
        bound[index] = Some(value);
    }
    if given_positional > params.len() {
        return Err(too_many_positional(&function, params, given_positional));
    }
    let missing: Vec<&str> = params
        .iter()
        .zip(&bound)
        .filter(|(p, v)| v.is_none() && p.default.is_none())
        .map(|(p, _)| p.name)
        .collect();
    if !missing.is_empty() {
        return Err(missing_arguments(&function, &missing));
    }
    Ok(params
        .iter()
        .zip(bound)
        .map(|(p, v)| v.unwrap_or_else(|| default_value(p)))
        .collect())
}

fn default_value(param: &Param) -> PyValue {
    param
        .default
        .and_then(|text| literal_eval(text).ok())
        .unwrap_or(PyValue::None)
}

/// `… takes 2 positional arguments but 3 were given` (counting `self`).
fn too_many_positional(function: &str, params: &[Param], given: usize) -> String {
    let most = params.len() + 1;
    let least = params.iter().filter(|p| p.default.is_none()).count() + 1;
    let takes = if least == most {
        format!(
            "{most} positional argument{}",
            if most == 1 { "" } else { "s" }
        )
    } else {
        format!("from {least} to {most} positional arguments")
    };
    let given = given + 1;
    let were = if given == 1 { "was" } else { "were" };
    format!("{function} takes {takes} but {given} {were} given")
}

/// `… missing 2 required positional arguments: 'a' and 'b'`.
fn missing_arguments(function: &str, missing: &[&str]) -> String {
    let quoted: Vec<String> = missing.iter().map(|n| format!("'{n}'")).collect();
    let names = match quoted.as_slice() {
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
        [] => String::new(),
    };
    let plural = if missing.len() == 1 { "" } else { "s" };
    format!(
        "{function} missing {} required positional argument{plural}: {names}",
        missing.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::PyStr;

    const MV: Signature = Signature {
        name: "mv",
        params: &[
            Param::required("source"),
            Param::required("destination"),
            Param::optional("force", "False"),
        ],
    };

    fn s(text: &str) -> PyValue {
        PyValue::Str(PyStr::new(text))
    }

    fn keywords(pairs: &[(&str, &str)]) -> Arguments {
        Arguments {
            positional: vec![],
            keywords: pairs.iter().map(|(k, v)| (k.to_string(), s(v))).collect(),
        }
    }

    // Every message below is CPython 3.11's for the same call on
    // `class FS: def mv(self, source, destination, force=False)`.
    #[test]
    fn arguments_bind_by_position_then_keyword_with_defaults() {
        let args = Arguments {
            positional: vec![s("a")],
            keywords: vec![("destination".into(), s("b"))],
        };
        assert_eq!(
            bind("FS", &MV, args).unwrap(),
            vec![s("a"), s("b"), PyValue::Bool(false)]
        );
    }

    #[test]
    fn binding_errors_read_as_cpythons() {
        let e = |args| bind("FS", &MV, args).unwrap_err();
        assert_eq!(
            e(keywords(&[("src", "a")])),
            "FS.mv() got an unexpected keyword argument 'src'"
        );
        assert_eq!(
            e(keywords(&[])),
            "FS.mv() missing 2 required positional arguments: 'source' and 'destination'"
        );
        assert_eq!(
            e(keywords(&[("source", "a")])),
            "FS.mv() missing 1 required positional argument: 'destination'"
        );
        let four = Arguments {
            positional: vec![s("a"), s("b"), s("c"), s("d")],
            keywords: vec![],
        };
        assert_eq!(
            e(four),
            "FS.mv() takes from 3 to 4 positional arguments but 5 were given"
        );
        let twice = Arguments {
            positional: vec![s("a")],
            keywords: vec![("source".into(), s("b"))],
        };
        assert_eq!(
            e(twice),
            "FS.mv() got multiple values for argument 'source'"
        );
    }

    #[test]
    fn results_are_strings_dicts_as_json_and_others_as_str() {
        let dict = literal_eval("{'a': 1.5, 'b': 'é'}").unwrap();
        assert_eq!(
            Output::Value(dict).result_string(),
            r#"{"a": 1.5, "b": "\u00e9"}"#
        );
        let set = literal_eval("{'a': {1}}").unwrap();
        assert_eq!(Output::Value(set).result_string(), "{'a': {1}}");
        assert_eq!(Output::Value(PyValue::None).result_string(), "None");
        let list = literal_eval("['x', 2]").unwrap();
        assert_eq!(Output::Value(list).result_string(), "['x', 2]");
    }

    #[test]
    fn three_missing_names_take_a_serial_comma() {
        assert_eq!(
            missing_arguments("f()", &["a", "b", "c"]),
            "f() missing 3 required positional arguments: 'a', 'b', and 'c'"
        );
        assert_eq!(
            too_many_positional("f()", &[], 1),
            "f() takes 1 positional argument but 2 were given"
        );
    }
}

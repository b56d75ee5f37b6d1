//! Runs call strings on one entry's API instances as the official
//! `execute_multi_turn_func_call` runs them, without `eval`:
//!
//! 1. the instances are created at the first execution for the entry, one
//!    per involved class, from its `initial_config`;
//! 2. every `name(` whose name is a public method of an involved class is
//!    prefixed with the instance's name, as the official regex does, string
//!    literals included (so `'archive diff()'` becomes
//!    `'archive <instance>.diff()'`);
//! 3. a call of `kill`, `exit`, `quit`, `remove`, `unlink`, `popen`, `Popen`
//!    or `run` is refused with the official message;
//! 4. the text is parsed as a Python expression; a call of a method of an
//!    instance gets its arguments as literal values, bound by Python's rules,
//!    and runs the Rust port of the method;
//! 5. the result string: a `str` as is, a `dict` through `json.dumps` (its
//!    `str()` when not serialisable), anything else through `str()`, an
//!    exception as `Error during execution: <message>`.
//!
//! Where the official `eval` would reach further, itc gives an error
//! instead (listed in `docs/ood.md`): a name that is not a method of an
//! involved class (Python builtins such as `sum` or `round` included) is
//! `name 'x' is not defined`; a call inside an argument, or any other
//! expression than a literal, literal arithmetic, or a method call, is
//! refused.

use std::collections::HashMap;

use super::api::{Arguments, bind};
use super::apis::{Globals, new_instance};
use super::state::State;
use crate::benchmarks::bfcl::arith::Arith;
use crate::benchmarks::bfcl::decode::naive_depth;
use crate::benchmarks::bfcl::expr::{Expr, Kind, UnOp};
use crate::benchmarks::bfcl::pyexpr::parse_eval;
use crate::benchmarks::python::PyValue;
use crate::benchmarks::python::value::DictBuilder;

use super::api::ApiClass;

/// The names the official executor refuses to run.
const REFUSED_NAMES: &[&str] = &[
    "kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run",
];

/// Call strings nested deeper than this many brackets are refused (the
/// parse recurses once per level).
const MAX_BRACKET_DEPTH: usize = 32;

/// What one entry's calls run against: its question's classes and
/// configuration, and how its instances are named.
#[derive(Debug, Clone)]
pub struct EntrySetup {
    /// The entry's id (`multi_turn_base_0`).
    pub entry_id: String,
    /// `involved_classes`, in order.
    pub involved_classes: Vec<String>,
    /// `initial_config` (a dict by class name).
    pub initial_config: PyValue,
    /// Whether the category is a long-context one.
    pub long_context: bool,
}

/// One executed call.
#[derive(Debug, Clone, PartialEq)]
pub struct Executed {
    /// The result string the checker compares; `None` where the call went
    /// to a stand-in class ([`Instances::with_stand_ins`]).
    pub result: Option<String>,
    /// The class whose method ran, if any.
    pub class: Option<String>,
}

struct Slot {
    class: String,
    instance_name: String,
    api: Option<Box<dyn ApiClass>>,
    methods: Vec<String>,
}

/// The instances of one side (the model's or the ground truth's) of one
/// entry; they keep their state from turn to turn.
pub struct Instances {
    setup: EntrySetup,
    /// `<model name>_eval` or `<model name>_ground_truth_eval`.
    name_prefix: String,
    slots: Option<Vec<Slot>>,
    stand_ins: HashMap<String, Vec<String>>,
}

impl Instances {
    /// The instances of a side whose official model name (the name the
    /// official runner uses, `_ground_truth` appended for the ground
    /// truth's side) is `side_name`; none exist until the first execution.
    pub fn new(setup: EntrySetup, side_name: &str) -> Instances {
        Instances {
            setup,
            name_prefix: format!("{side_name}_eval"),
            slots: None,
            stand_ins: HashMap::new(),
        }
    }

    /// Lets classes that have no Rust port yet take part by their method
    /// names only: calls to them are dispatched but not run
    /// ([`Executed::result`] is `None`). For checking ports one at a time.
    pub fn with_stand_ins(mut self, methods: HashMap<String, Vec<String>>) -> Instances {
        self.stand_ins = methods;
        self
    }

    /// Whether the instances exist (a call has been executed).
    pub fn created(&self) -> bool {
        self.slots.is_some()
    }

    /// The public state of each involved class with a port, in
    /// `involved_classes` order; empty before the first execution.
    pub fn states(&self) -> Vec<(String, Vec<(&'static str, State)>)> {
        self.slots
            .iter()
            .flatten()
            .filter_map(|slot| Some((slot.class.clone(), slot.api.as_ref()?.state())))
            .collect()
    }

    /// Runs `calls` in order (creating the instances first if needed).
    pub fn execute(&mut self, calls: &[String], globals: &Globals) -> Vec<Executed> {
        if self.slots.is_none() {
            self.slots = Some(self.create(globals));
        }
        calls.iter().map(|call| self.execute_one(call)).collect()
    }

    fn create(&self, globals: &Globals) -> Vec<Slot> {
        let empty = PyValue::Dict(vec![]);
        self.setup
            .involved_classes
            .iter()
            .map(|class| {
                let config = self.setup.initial_config.get_str(class).unwrap_or(&empty);
                let api = new_instance(class, config, self.setup.long_context, globals);
                let methods = match &api {
                    Some(api) => api.methods().iter().map(|s| s.name.to_string()).collect(),
                    None => self.stand_ins.get(class).cloned().unwrap_or_default(),
                };
                let raw = format!(
                    "{}_{}_{class}_instance",
                    self.name_prefix, self.setup.entry_id
                );
                Slot {
                    class: class.clone(),
                    instance_name: raw.replace(['-', '.', '/', ':'], "_"),
                    api,
                    methods,
                }
            })
            .collect()
    }

    fn execute_one(&mut self, call: &str) -> Executed {
        let slots = self.slots.as_mut().expect("instances are created first");
        // Later classes win a method name, as the official mapping does.
        let mut owner: HashMap<&str, usize> = HashMap::new();
        for (index, slot) in slots.iter().enumerate() {
            for method in &slot.methods {
                owner.insert(method.as_str(), index);
            }
        }
        let rewritten = prefix_method_names(call, |name| {
            owner.get(name).map(|&i| slots[i].instance_name.clone())
        });
        let mut head = rewritten.split('(').next().unwrap_or("");
        if head.contains('.') {
            head = head.split('.').nth(1).unwrap_or("");
        }
        if REFUSED_NAMES.contains(&head) {
            return failed(format!("Function call {head} is not allowed."), None);
        }
        let target = match parse_call(&rewritten) {
            Ok(target) => target,
            Err(message) => return failed(message, None),
        };
        let Some(index) = slots
            .iter()
            .position(|s| s.instance_name == target.instance)
        else {
            return failed(format!("name '{}' is not defined", target.instance), None);
        };
        let slot = &mut slots[index];
        let class = Some(slot.class.clone());
        let Some(api) = slot.api.as_mut() else {
            return Executed {
                result: None,
                class,
            };
        };
        let Some(signature) = api.methods().iter().find(|s| s.name == target.method) else {
            return failed(
                format!(
                    "'{}' object has no attribute '{}'",
                    slot.class, target.method
                ),
                class,
            );
        };
        let outcome = bind(&slot.class, signature, target.arguments)
            .and_then(|bound| api.call(&target.method, bound));
        match outcome {
            Ok(output) => Executed {
                result: Some(output.result_string()),
                class,
            },
            Err(message) => failed(message, class),
        }
    }
}

fn failed(message: String, class: Option<String>) -> Executed {
    Executed {
        result: Some(format!("Error during execution: {message}")),
        class,
    }
}

/// Python's `\w` for one character (`str` patterns are Unicode-aware).
fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// `re.sub(r"\b([a-zA-Z_]\w*)\s*(?=\()", …, text)`: every run of word
/// characters that starts with an ASCII letter or `_` at a word boundary
/// and is followed (after optional whitespace) by `(` is replaced by
/// `<instance>.<name>` where `instance_of(name)` gives an instance.
pub fn prefix_method_names(text: &str, instance_of: impl Fn(&str) -> Option<String>) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let at_boundary = i == 0 || !is_word(chars[i - 1]);
        if !(at_boundary && (c == '_' || c.is_ascii_alphabetic())) {
            out.push(c);
            i += 1;
            continue;
        }
        let mut end = i;
        while end < chars.len() && is_word(chars[end]) {
            end += 1;
        }
        let name: String = chars[i..end].iter().collect();
        let mut after = end;
        while after < chars.len() && chars[after].is_whitespace() {
            after += 1;
        }
        match instance_of(&name) {
            Some(instance) if chars.get(after) == Some(&'(') => {
                out.push_str(&instance);
                out.push('.');
            }
            _ => {}
        }
        out.push_str(&name);
        i = end;
    }
    out
}

/// A parsed call of a method of an instance.
struct Target {
    instance: String,
    method: String,
    arguments: Arguments,
}

/// Parses a rewritten call string: `<instance>.<method>(args)`; any other
/// shape is refused with the error `eval` would raise, as near as itc can
/// say it without evaluating.
fn parse_call(text: &str) -> Result<Target, String> {
    let chars: Vec<char> = text.chars().collect();
    if naive_depth(&chars) > MAX_BRACKET_DEPTH {
        return Err(format!(
            "itc does not run a call nested more than {MAX_BRACKET_DEPTH} brackets deep"
        ));
    }
    let expr = parse_eval(&chars).map_err(|_| "invalid syntax (<string>, line 1)".to_string())?;
    let Kind::Call(function, positional, keywords) = &expr.kind else {
        return Err("itc runs only function calls".into());
    };
    let (instance, method) = match &function.kind {
        Kind::Attribute(object, method) => match &object.kind {
            Kind::Name(instance) => (instance.clone(), method.clone()),
            _ => return Err("itc runs only calls of an API method".into()),
        },
        Kind::Name(name) => return Err(format!("name '{name}' is not defined")),
        _ => return Err("itc runs only calls of an API method".into()),
    };
    let mut arith = Arith::default();
    let mut arguments = Arguments::default();
    for arg in positional {
        arguments.positional.push(literal(arg, &mut arith)?);
    }
    for (name, value) in keywords {
        let Some(name) = name else {
            return Err("itc does not run a call with **arguments".into());
        };
        arguments
            .keywords
            .push((name.clone(), literal(value, &mut arith)?));
    }
    Ok(Target {
        instance,
        method,
        arguments,
    })
}

/// A plain call string (`sort('report.pdf', reverse=True)`, as the ground
/// truth writes them) with every argument named as the method's signature
/// names it, positional ones too, as a function-calling API gives calls;
/// `None` when it is not a call with literal arguments of a method of one
/// of `classes`. For scripted models that answer with the ground truth.
pub fn named_call(text: &str, classes: &[String]) -> Option<(String, Vec<(String, PyValue)>)> {
    let chars: Vec<char> = text.chars().collect();
    if naive_depth(&chars) > MAX_BRACKET_DEPTH {
        return None;
    }
    let expr = parse_eval(&chars).ok()?;
    let Kind::Call(function, positional, keywords) = &expr.kind else {
        return None;
    };
    let Kind::Name(method) = &function.kind else {
        return None;
    };
    let globals = Globals::default();
    let empty = PyValue::Dict(vec![]);
    let signature = classes
        .iter()
        .filter_map(|class| new_instance(class, &empty, false, &globals))
        .find_map(|api| api.methods().iter().find(|m| m.name == method.as_str()))?;
    let mut arith = Arith::default();
    let mut named = Vec::new();
    for (param, arg) in signature.params.iter().zip(positional) {
        named.push((param.name.to_string(), literal(arg, &mut arith).ok()?));
    }
    for (name, value) in keywords {
        named.push((name.clone()?, literal(value, &mut arith).ok()?));
    }
    Some((method.clone(), named))
}

/// The value of an argument made of literals (and arithmetic on them).
fn literal(expr: &Expr, arith: &mut Arith) -> Result<PyValue, String> {
    Ok(match &expr.kind {
        Kind::Const(value, _) => value.clone(),
        Kind::List(items) => PyValue::List(literals(items, arith)?),
        Kind::Tuple(items) => PyValue::Tuple(literals(items, arith)?),
        Kind::Set(items) => PyValue::Set(literals(items, arith)?),
        Kind::Dict(entries) => {
            let mut dict = DictBuilder::new();
            for (key, value) in entries {
                let Some(key) = key else {
                    return Err("itc does not run a call with **arguments".into());
                };
                dict.insert(literal(key, arith)?, literal(value, arith)?);
            }
            PyValue::Dict(dict.finish())
        }
        Kind::Unary(UnOp::Neg | UnOp::Pos, _) | Kind::Bin(..) => arith.eval(expr)?,
        Kind::Name(name) => return Err(format!("name '{name}' is not defined")),
        Kind::Call(..) => return Err("itc does not run a call inside a call's arguments".into()),
        _ => return Err("itc runs only literal arguments".into()),
    })
}

fn literals(items: &[Expr], arith: &mut Arith) -> Result<Vec<PyValue>, String> {
    items.iter().map(|item| literal(item, arith)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(name: &str) -> Option<String> {
        ["cd", "diff", "mv"]
            .contains(&name)
            .then(|| "fs".to_string())
    }

    #[test]
    fn method_names_are_prefixed_inside_strings_too() {
        assert_eq!(
            prefix_method_names("mv(source='log.txt',destination='archive diff()')", mapping),
            "fs.mv(source='log.txt',destination='archive fs.diff()')"
        );
        assert_eq!(
            prefix_method_names("cd (folder='x')", mapping),
            "fs.cd (folder='x')"
        );
        // Not at a word boundary, not followed by `(`, or unknown: kept.
        assert_eq!(
            prefix_method_names("xcd(a=cd, b=lcd())", mapping),
            "xcd(a=cd, b=lcd())"
        );
        assert_eq!(prefix_method_names("é cd()", mapping), "é fs.cd()");
    }

    #[test]
    fn arguments_are_literals_with_arithmetic() {
        let target = parse_call("fs.mv('a', n=-2, xs=[1, (2,)], d={'k': 1+1})").unwrap();
        assert_eq!(target.instance, "fs");
        assert_eq!(target.method, "mv");
        assert_eq!(target.arguments.positional.len(), 1);
        let repr: Vec<String> = target
            .arguments
            .keywords
            .iter()
            .map(|(k, v)| {
                format!(
                    "{k}={}",
                    crate::benchmarks::python::PyStr(crate::benchmarks::python::py_repr(v))
                )
            })
            .collect();
        assert_eq!(repr, vec!["n=-2", "xs=[1, (2,)]", "d={'k': 2}"]);
    }

    #[test]
    fn what_eval_would_reach_beyond_the_apis_is_refused() {
        assert_eq!(
            parse_call("round(number=2.5)").err().unwrap(),
            "name 'round' is not defined"
        );
        assert_eq!(
            parse_call("a.b.c()").err().unwrap(),
            "itc runs only calls of an API method"
        );
        assert!(parse_call("fs.cd(folder=fs.pwd())").is_err());
        assert!(parse_call("fs.cd(folder=__import__('os'))").is_err());
        let deep = format!("fs.cd(folder={}1{})", "[".repeat(40), "]".repeat(40));
        assert!(parse_call(&deep).is_err());
    }
}

//! `default_decode_ast_prompting` (BFCL, Python return format), reproduced
//! without running Python: the text is tokenized and parsed as Python 3.11
//! parses it ([`super::pyexpr`]), and each call is resolved as the official
//! `resolve_ast_call` / `resolve_ast_by_type` resolve it, quirks included
//! (positional arguments dropped, bare names as strings, any unary operator
//! on a constant negating it, calls without keywords as their
//! `ast.unparse` text, binary operations evaluated by
//! [`super::arith`]).
//!
//! Where itc differs from Python, the text fails to decode with a message
//! saying so, never the other way round:
//! - arithmetic beyond itc's bounds, or on what is not a literal (see
//!   [`super::arith`]);
//! - a text longer than [`MAX_ANSWER_BYTES`];
//! - an expression nested deeper than [`PY_EXPR_MAX_DEPTH`] levels outside
//!   brackets (Python: about 2,900);
//! - `ast.unparse` of a comprehension, f-string, `await` or
//!   `yield` inside a call without keywords or a subscript (see
//!   [`super::unparse`]);
//! - hexadecimal, octal and binary integer literals beyond 128 bits, and
//!   `\N{…}` escapes in strings.

use super::Call;
use super::arith::Arith;
use super::pyexpr::{Expr, Kind, parse_eval};
use super::unparse::unparse;
use crate::ood::python::value::{dict_insert, normalize_int};
use crate::ood::python::{PyStr, PyValue};
use crate::spec::limits::MAX_ANSWER_BYTES;
#[cfg(doc)]
use crate::spec::limits::PY_EXPR_MAX_DEPTH;

/// Why a text does not decode (the message; not Python's own wording).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// Decodes a prompt-mode model's text as the official decoder does: the
/// calls in order, each with its dotted name and its keyword arguments.
pub fn decode_ast_prompting(text: &str) -> Result<Vec<Call>, DecodeError> {
    decode(text).map_err(DecodeError)
}

/// The official decoder's text preparation: strip backticks, `\n` and
/// spaces from both ends (only those), then add `[` and `]` where missing.
pub fn wrap_text(text: &str) -> String {
    let t = text.trim_matches(['`', '\n', ' ']);
    let mut s = String::with_capacity(t.len() + 2);
    if !t.starts_with('[') {
        s.push('[');
    }
    s.push_str(t);
    if !s.ends_with(']') {
        s.push(']');
    }
    s
}

fn decode(text: &str) -> Result<Vec<Call>, String> {
    if text.len() > MAX_ANSWER_BYTES {
        return Err(format!(
            "the answer is longer than {MAX_ANSWER_BYTES} bytes (itc's limit)"
        ));
    }
    let wrapped = wrap_text(text);
    if wrapped.contains('\0') {
        return Err("ValueError: source code string cannot contain null bytes".into());
    }
    // Python's tokenizer reads `\r\n` and `\r` as `\n`.
    let mut chars: Vec<char> = Vec::with_capacity(wrapped.len());
    let mut it = wrapped.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\r' {
            if it.peek() == Some(&'\n') {
                it.next();
            }
            chars.push('\n');
        } else {
            chars.push(c);
        }
    }
    let body = parse_eval(&chars).map_err(|e| format!("SyntaxError: {e}"))?;
    let mut arith = Arith::default();
    match &body.kind {
        Kind::Call(..) => Ok(vec![resolve_call(&body, &mut arith)?]),
        Kind::List(elts) | Kind::Tuple(elts) | Kind::Set(elts) => elts
            .iter()
            .map(|e| match e.kind {
                Kind::Call(..) => resolve_call(e, &mut arith),
                _ => Err("AssertionError: an element of the list is not a call".to_string()),
            })
            .collect(),
        _ => Err("AttributeError: the expression is neither a call nor a list of calls".into()),
    }
}

/// `resolve_ast_call`: the dotted name (attribute names up to a root name;
/// another root is dropped) and the keyword arguments.
fn resolve_call(e: &Expr, arith: &mut Arith) -> Result<Call, String> {
    let Kind::Call(func, _, keywords) = &e.kind else {
        unreachable!("resolve_call takes a call")
    };
    let mut parts: Vec<&str> = Vec::new();
    let mut f: &Expr = func;
    while let Kind::Attribute(value, attr) = &f.kind {
        parts.push(attr);
        f = value;
    }
    if let Kind::Name(n) = &f.kind {
        parts.push(n);
    }
    parts.reverse();
    let mut args = Vec::new();
    for (name, value) in keywords {
        let v = resolve(value, arith)?;
        let key = match name {
            Some(n) => PyValue::Str(PyStr::new(n)),
            None => PyValue::None,
        };
        dict_insert(&mut args, key, v);
    }
    Ok(Call {
        name: parts.join("."),
        args,
    })
}

fn text_value(cps: Vec<u32>) -> PyValue {
    PyValue::Str(PyStr(cps))
}

/// `resolve_ast_by_type`.
fn resolve(e: &Expr, arith: &mut Arith) -> Result<PyValue, String> {
    Ok(match &e.kind {
        Kind::Const(v, _) => v.clone(),
        Kind::Ellipsis => PyValue::Str(PyStr::new("...")),
        Kind::Unary(_, operand) => negate_constant(operand)?,
        Kind::List(items) => PyValue::List(
            items
                .iter()
                .map(|x| resolve(x, arith))
                .collect::<Result<_, _>>()?,
        ),
        Kind::Dict(entries) => {
            let mut out = Vec::new();
            for (k, v) in entries {
                let Some(k) = k else {
                    return Err("Exception: Unsupported AST type: <class 'NoneType'>".into());
                };
                let k = resolve(k, arith)?;
                let v = resolve(v, arith)?;
                check_hashable(&k)?;
                dict_insert(&mut out, k, v);
            }
            PyValue::Dict(out)
        }
        Kind::Bin(..) => arith.eval(e)?,
        Kind::Name(n) => PyValue::Str(PyStr::new(n)),
        Kind::Call(_, _, keywords) if keywords.is_empty() => text_value(unparse(e)?),
        Kind::Call(..) => {
            let call = resolve_call(e, arith)?;
            PyValue::Dict(vec![(
                PyValue::Str(PyStr::new(&call.name)),
                PyValue::Dict(call.args),
            )])
        }
        Kind::Tuple(items) => PyValue::Tuple(
            items
                .iter()
                .map(|x| resolve(x, arith))
                .collect::<Result<_, _>>()?,
        ),
        Kind::Subscript(value, slice) => {
            // `unparse(value) + "[" + unparse(slice) + "]"`, each on its own.
            let mut text = unparse(value)?;
            text.push(u32::from('['));
            text.extend(unparse(slice)?);
            text.push(u32::from(']'));
            text_value(text)
        }
        other => {
            return Err(format!(
                "Exception: Unsupported AST type: <class 'ast.{}'>",
                ast_class(other)
            ));
        }
    })
}

/// `-operand.value`: any unary operator negates a constant operand
/// (`+3` is -3, `not True` is -1); any other operand fails.
fn negate_constant(operand: &Expr) -> Result<PyValue, String> {
    let Kind::Const(v, _) = &operand.kind else {
        return Err("AttributeError: the operand of a unary operator is not a constant".into());
    };
    match v {
        PyValue::Int(t) => Ok(PyValue::Int(match t.strip_prefix('-') {
            Some(abs) => abs.to_string(),
            None => normalize_int(&format!("-{t}")),
        })),
        PyValue::Bool(b) => Ok(PyValue::Int(if *b { "-1" } else { "0" }.into())),
        PyValue::Float(x) => Ok(PyValue::Float(-x)),
        PyValue::Complex(x) => Ok(PyValue::Complex(-x)),
        other => Err(format!(
            "TypeError: bad operand type for unary -: '{}'",
            other.type_name()
        )),
    }
}

fn check_hashable(v: &PyValue) -> Result<(), String> {
    match v {
        PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_) => {
            Err(format!("TypeError: unhashable type: '{}'", v.type_name()))
        }
        PyValue::Tuple(items) => items.iter().try_for_each(check_hashable),
        _ => Ok(()),
    }
}

fn ast_class(k: &Kind) -> &'static str {
    match k {
        Kind::FString => "JoinedStr",
        Kind::Set(_) => "Set",
        Kind::Attribute(..) => "Attribute",
        Kind::Slice(..) => "Slice",
        Kind::Starred(_) => "Starred",
        Kind::BoolOp(..) => "BoolOp",
        Kind::Compare(..) => "Compare",
        Kind::IfExp(..) => "IfExp",
        Kind::Named(..) => "NamedExpr",
        Kind::Lambda(..) => "Lambda",
        Kind::Other(kind, _) => kind,
        _ => "expr",
    }
}

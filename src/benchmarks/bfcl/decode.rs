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
//! - `ast.unparse` of a comprehension or an f-string inside a call
//!   without keywords or a subscript (see
//!   [`super::unparse`]);
//! - hexadecimal, octal and binary integer literals beyond 128 bits, and
//!   `\N{…}` escapes in strings.

use super::Call;
use super::arith::Arith;
use super::pyexpr::{Expr, Kind, parse_eval};
use super::unparse::unparse;
use crate::benchmarks::python::value::{DictBuilder, normalize_int};
use crate::benchmarks::python::{PyStr, PyValue};
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

/// [`decode_ast_prompting`] on a Python string, which may hold lone
/// surrogates (JSON's `"\ud800"`): Python's `ast.parse` cannot encode such
/// a text as UTF-8 and the official decoder fails with the encoder's
/// message, its position counted in the prepared text.
pub fn decode_ast_prompting_str(text: &PyStr) -> Result<Vec<Call>, DecodeError> {
    let Some(first) = text.first_surrogate() else {
        return decode_ast_prompting(&text.to_string_lossy());
    };
    // `wrap_text`'s strip: a surrogate is never among the stripped ends.
    let strip = |c: &u32| [u32::from('`'), u32::from('\n'), u32::from(' ')].contains(c);
    let start = text.0.iter().position(|c| !strip(c)).unwrap_or(0);
    let opened = usize::from(text.0[start] != u32::from('['));
    let run = text.0[first..]
        .iter()
        .take_while(|c| (0xd800..=0xdfff).contains(*c))
        .count();
    let at = first - start + opened;
    let what = if run == 1 {
        format!("character '\\u{:04x}' in position {at}", text.0[first])
    } else {
        format!("characters in position {at}-{}", at + run - 1)
    };
    Err(DecodeError(format!(
        "'utf-8' codec can't encode {what}: surrogates not allowed"
    )))
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

/// Texts at most this long, and nesting brackets at most
/// [`INLINE_MAX_BRACKETS`] deep, are decoded on the caller's thread: their
/// parse recurses little. Others are decoded on a thread of their own with a
/// stack of [`DECODE_STACK_BYTES`], so that Python's nesting limits (200
/// brackets, [`PY_EXPR_MAX_DEPTH`] levels) are reached, and refused, long
/// before the stack runs out, whatever the caller's stack (2 MiB for Rust's
/// threads), in debug builds too.
const INLINE_MAX_CHARS: usize = 512;

/// See [`INLINE_MAX_CHARS`].
const INLINE_MAX_BRACKETS: usize = 16;

/// The stack of a thread decoding a long or deeply nested text (address
/// space; only the pages used are touched).
const DECODE_STACK_BYTES: usize = 64 << 20;

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
    if chars.len() <= INLINE_MAX_CHARS && naive_depth(&chars) <= INLINE_MAX_BRACKETS {
        return decode_chars(&chars);
    }
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("bfcl-decode".into())
            .stack_size(DECODE_STACK_BYTES)
            .spawn_scoped(scope, || decode_chars(&chars))
            .map_err(|e| format!("could not start the decoding thread: {e}"))?;
        worker
            .join()
            .unwrap_or_else(|_| Err("the decoding thread panicked".into()))
    })
}

/// The deepest nesting of brackets, counted without regard to strings (an
/// upper bound on the parse's nesting).
pub(crate) fn naive_depth(chars: &[char]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for c in chars {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Parses and resolves the prepared text.
fn decode_chars(chars: &[char]) -> Result<Vec<Call>, String> {
    let body = parse_eval(chars).map_err(|e| format!("SyntaxError: {e}"))?;
    let mut arith = Arith::default();
    match &body.kind {
        Kind::Call(..) => Ok(vec![resolve_call(&body, &mut arith, 0)?]),
        Kind::List(elts) | Kind::Tuple(elts) | Kind::Set(elts) => elts
            .iter()
            .map(|e| match e.kind {
                Kind::Call(..) => resolve_call(e, &mut arith, 0),
                _ => Err("AssertionError: an element of the list is not a call".to_string()),
            })
            .collect(),
        _ => Err("AttributeError: the expression is neither a call nor a list of calls".into()),
    }
}

/// `resolve_ast_call`: the dotted name (attribute names up to a root name;
/// another root is dropped) and the keyword arguments. `frames`: the
/// Python frames the official decoder stacks above a top-level call's
/// (see [`UNPARSE_MAX_FRAMES`]).
fn resolve_call(e: &Expr, arith: &mut Arith, frames: usize) -> Result<Call, String> {
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
    let mut args = DictBuilder::new();
    for (name, value) in keywords {
        let v = resolve(value, arith, frames)?;
        let key = match name {
            Some(n) => PyValue::Str(PyStr::new(n)),
            None => PyValue::None,
        };
        args.insert(key, v);
    }
    Ok(Call {
        name: parts.join("."),
        args: args.finish(),
    })
}

fn text_value(cps: Vec<u32>) -> PyValue {
    PyValue::Str(PyStr(cps))
}

/// `resolve_ast_by_type`; `frames` as for [`resolve_call`].
fn resolve(e: &Expr, arith: &mut Arith, frames: usize) -> Result<PyValue, String> {
    // An element of a display, or a keyword of a nested call, is resolved
    // two Python frames deeper (a comprehension's or `resolve_ast_call`'s,
    // and `resolve_ast_by_type`'s).
    let inner = frames + 2;
    Ok(match &e.kind {
        Kind::Const(v, _) => v.clone(),
        Kind::Ellipsis => PyValue::Str(PyStr::new("...")),
        Kind::Unary(_, operand) => negate_constant(operand)?,
        Kind::List(items) => PyValue::List(
            items
                .iter()
                .map(|x| resolve(x, arith, inner))
                .collect::<Result<_, _>>()?,
        ),
        Kind::Dict(entries) => {
            let mut out = DictBuilder::new();
            for (k, v) in entries {
                let Some(k) = k else {
                    return Err("Exception: Unsupported AST type: <class 'NoneType'>".into());
                };
                let k = resolve(k, arith, inner)?;
                let v = resolve(v, arith, inner)?;
                check_hashable(&k)?;
                out.insert(k, v);
            }
            PyValue::Dict(out.finish())
        }
        Kind::Bin(..) => {
            check_unparse_frames(e, frames)?;
            arith.eval(e)?
        }
        Kind::Name(n) => PyValue::Str(PyStr::new(n)),
        Kind::Call(_, _, keywords) if keywords.is_empty() => text_value(unparse(e)?),
        Kind::Call(..) => {
            let call = resolve_call(e, arith, inner)?;
            PyValue::Dict(vec![(
                PyValue::Str(PyStr::new(&call.name)),
                PyValue::Dict(call.args),
            )])
        }
        Kind::Tuple(items) => PyValue::Tuple(
            items
                .iter()
                .map(|x| resolve(x, arith, inner))
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

/// The official decoder evaluates a binary operation as
/// `eval(ast.unparse(node))`, and `ast.unparse` recurses in Python: an
/// operation nested deeply enough exceeds CPython's recursion limit (1,000
/// frames), a `RecursionError` the runner reports as a decode failure. The
/// frames an operation needs beyond a top-level keyword's, as measured on
/// CPython 3.11.7 (`scripts/bfcl/recursion_frames.py`): 3 per unary or
/// binary operator on the deepest path, for a display of literals inside
/// the operation 4 (a list, a tuple of one item), 5 (a tuple of more), 6
/// (a dict) plus its deepest item, 2 for `()` and 1 for `[]` and `{}`; and
/// 2 per display or nested call around the operation in the call. With
/// `bfcl evaluate`'s stack (bfcl-eval 2026.3.23) an operation decodes when
/// these come to at most this many: `1 + 1 + … + 1` decodes up to 324 terms.
pub const UNPARSE_MAX_FRAMES: usize = 970;

/// Refuses the binary operation `e` where the official decoder's
/// `ast.unparse` exceeds Python's recursion limit ([`UNPARSE_MAX_FRAMES`]).
fn check_unparse_frames(e: &Expr, frames: usize) -> Result<(), String> {
    let need = frames + unparse_frames(e);
    if need > UNPARSE_MAX_FRAMES {
        return Err(format!(
            "RecursionError: maximum recursion depth exceeded (ast.unparse of this operation needs {need} Python frames, more than the {UNPARSE_MAX_FRAMES} that bfcl evaluate leaves on CPython 3.11)"
        ));
    }
    Ok(())
}

/// The frames `ast.unparse` stacks for `e` below the operation's own (see
/// [`UNPARSE_MAX_FRAMES`]; other nodes are refused by the arithmetic).
fn unparse_frames(e: &Expr) -> usize {
    let deepest = |es: &mut dyn Iterator<Item = &Expr>| es.map(unparse_frames).max();
    match &e.kind {
        Kind::Unary(_, v) => 3 + unparse_frames(v),
        Kind::Bin(l, _, r) => 3 + unparse_frames(l).max(unparse_frames(r)),
        Kind::List(items) => deepest(&mut items.iter()).map_or(1, |d| 4 + d),
        Kind::Tuple(items) if items.is_empty() => 2,
        Kind::Tuple(items) => deepest(&mut items.iter()).unwrap_or(0) + 3 + items.len().min(2),
        Kind::Dict(entries) => {
            deepest(&mut entries.iter().flat_map(|(k, v)| k.iter().chain([v]))).map_or(1, |d| 6 + d)
        }
        _ => 0,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::{literal_eval, py_repr};

    fn calls(text: &str) -> Vec<Call> {
        decode_ast_prompting(text).unwrap_or_else(|e| panic!("{text:?}: {}", e.0))
    }

    fn fails(text: &str) -> bool {
        decode_ast_prompting(text).is_err()
    }

    /// The value of `a` in `[f(a=<value>)]`.
    fn value(v: &str) -> PyValue {
        let c = calls(&format!("[f(a={v})]"));
        assert_eq!(c.len(), 1);
        c[0].args[0].1.clone()
    }

    /// `repr` of the value of `a` in `[f(a=<value>)]`.
    fn repr(v: &str) -> String {
        PyStr(py_repr(&value(v))).to_string_lossy()
    }

    fn lit(text: &str) -> PyValue {
        literal_eval(text).unwrap()
    }

    fn s(text: &str) -> PyValue {
        PyValue::Str(PyStr::new(text))
    }

    #[test]
    fn names_are_dotted_and_only_keywords_are_kept() {
        let c = calls("[math.factorial(5, n=5), x[0].f(a=1), f()(b=2)]");
        assert_eq!(c[0].name, "math.factorial");
        assert_eq!(c[0].args, vec![(s("n"), lit("5"))]);
        assert_eq!(c[1].name, "f");
        assert_eq!(c[2].name, "");
        assert_eq!(calls("[get_weather('NYC')]")[0].args, vec![]);
        // `**d` is the parameter None; a repeated keyword keeps its first
        // position and takes its last value.
        let c = calls("[f(**{'city': 'NYC'})]");
        assert_eq!(c[0].args, vec![(PyValue::None, lit("{'city': 'NYC'}"))]);
        let c = calls("[f(a=1, b=2, a=3)]");
        assert_eq!(c[0].args, vec![(s("a"), lit("3")), (s("b"), lit("2"))]);
        assert!(fails("[f(a=1, 2)]"));
        assert!(fails("[f(**d, *a)]"));
        assert_eq!(calls("[f(*a, b=1, *c)]")[0].args, vec![(s("b"), lit("1"))]);
    }

    #[test]
    fn the_text_is_stripped_and_wrapped_as_the_official_decoder_does() {
        assert_eq!(calls("f(a=1), g(b=2)").len(), 2);
        assert_eq!(calls("```\n[f(a=1)]\n```").len(), 1);
        assert_eq!(calls("  [f(a=1)]  \n").len(), 1);
        assert_eq!(calls("[f(a=1)] # a comment").len(), 1);
        assert_eq!(calls("[f(a=1),\n g(b=2)]").len(), 2);
        assert_eq!(calls("[f(a=1),]").len(), 1);
        assert!(calls("").is_empty());
        assert!(calls("[]").is_empty());
        for bad in [
            "```python\n[f(a=1)]\n```",
            "```json\n[f(a=1)]\n```",
            "[f(a=1)]\r\n",
            "\t[f(a=1)]",
            "[f(a=1)].",
            "'[f(a=1)]'",
            "(f(a=1),)",
            "[f(a=1)], [g()]",
            "[f(a=1)\ng(b=2)]",
            "f(a=1)\ng(b=2)",
            "[f(a=1)]\n[g()]",
            "[{\"name\": \"f\"}]",
            "None",
            "I cannot help with that.",
            "I would call f(x=1) here.",
            "[f(a=1",
            "[f(a=1);]",
            "[f(a=1)\0]",
        ] {
            assert!(fails(bad), "{bad:?} decodes");
        }
    }

    #[test]
    fn literals_decode_to_themselves() {
        assert_eq!(value("'a' \"b\""), s("ab"));
        assert_eq!(value("..."), s("..."));
        assert_eq!(value("r'\\n'"), s("\\n"));
        assert_eq!(value("'''x\ny'''"), s("x\ny"));
        assert_eq!(value("'a\\\nb'"), s("ab"));
        assert_eq!(repr("b'\\x00' b'y'"), "b'\\x00y'");
        assert_eq!(repr("1e999999"), "inf");
        assert_eq!(repr("0x1F"), "31");
        assert_eq!(repr("0o17"), "15");
        assert_eq!(repr("0b101"), "5");
        assert_eq!(repr("1_000"), "1000");
        assert_eq!(repr("1.5e-7"), "1.5e-07");
        assert_eq!(repr("2j"), "2j");
        assert_eq!(repr("00"), "0");
        assert_eq!(value("True"), PyValue::Bool(true));
        assert_eq!(value("None"), PyValue::None);
        assert_eq!(value("3.0"), PyValue::Float(3.0));
        assert_eq!(
            repr("(1.0, [2, (3,)], {'k': ()})"),
            "(1.0, [2, (3,)], {'k': ()})"
        );
        assert_eq!(
            repr("{1: 'a', True: 'b', 'k': 1, 'k': 2}"),
            "{1: 'b', 'k': 2}"
        );
        for bad in ["0777", "1_", "1__0", "0x", "1e", "'abc", "'\\N{DIGIT ONE}'"] {
            assert!(fails(&format!("[f(a={bad})]")), "{bad}");
        }
    }

    #[test]
    fn bare_names_are_strings() {
        assert_eq!(value("Paris"), s("Paris"));
        assert_eq!(value("my_data"), s("my_data"));
        assert_eq!(value("ｐａｒｉｓ"), s("paris"), "NFKC, as Python's parser");
        assert!(fails("[f(a=\u{a0})]"));
    }

    #[test]
    fn any_unary_operator_on_a_constant_negates_it() {
        assert_eq!(repr("-3"), "-3");
        assert_eq!(repr("+3"), "-3");
        assert_eq!(repr("~3"), "-3");
        assert_eq!(repr("not True"), "-1");
        assert_eq!(repr("not 0"), "0");
        assert_eq!(repr("-1.5"), "-1.5");
        assert_eq!(repr("-True"), "-1");
        for bad in [
            "-(-3)", "-(1+2)", "-x", "-'x'", "-None", "-...", "not 'x'", "-[1]",
        ] {
            assert!(fails(&format!("[f(a={bad})]")), "{bad}");
        }
    }

    #[test]
    fn binary_operations_on_literals_are_evaluated() {
        let cases = [
            ("1 + 2", "3"),
            ("10/4", "2.5"),
            ("4/2", "2.0"),
            ("'a'*2", "'aa'"),
            ("[1]+[2]", "[1, 2]"),
            ("7//2", "3"),
            ("-7//2", "-4"),
            ("7%-3", "-2"),
            ("-7.5//2", "-4.0"),
            ("1.5%0.4", "0.29999999999999993"),
            ("2**-1", "0.5"),
            ("2**10", "1024"),
            ("True+True", "2"),
            ("True&False", "False"),
            ("1<<3", "8"),
            ("-9>>1", "-5"),
            ("5^3", "6"),
            ("(1,)+(2,)", "(1, 2)"),
            ("(1,2)*2", "(1, 2, 1, 2)"),
            ("'ab'*-1", "''"),
            ("b'a'+b'b'", "b'ab'"),
            ("{'a': 1} | {'b': 2}", "{'a': 1, 'b': 2}"),
            ("-(-3) + 0", "3"),
            ("~3 + 0", "-4"),
            ("(not 3) + 1", "1"),
            ("2 ** 0.5", "1.4142135623730951"),
            ("1 >> 10**9", "0"),
            ("-1 >> 10**9", "-1"),
            ("0.0 ** 0", "1.0"),
            ("True * 'a'", "'a'"),
        ];
        for (text, want) in cases {
            assert_eq!(repr(text), want, "{text}");
        }
        for bad in [
            "1/0",
            "1.0//0",
            "1 % 0",
            "0 ** -1",
            "x + 1",
            "'a' + 1",
            "[1] * 2.0",
            "1 @ 2",
            "1 << -1",
            "(1, 2) + [3]",
            "10.0 ** 400",
            "(-8) ** 0.5",
            "len('a') + 1",
            "2 ** 128",
        ] {
            assert!(fails(&format!("[f(a={bad})]")), "{bad}");
        }
    }

    #[test]
    fn calls_without_keywords_are_their_unparsed_text() {
        let cases = [
            ("now( )", "now()"),
            ("g(1,2)", "g(1, 2)"),
            ("g(\"x\")", "g('x')"),
            ("g(\"it's\")", "g(\"it's\")"),
            ("a.b(c, *d)", "a.b(c, *d)"),
            ("g(x)(y)", "g(x)(y)"),
            ("g(1 if a else 2)", "g(1 if a else 2)"),
            (
                "g(lambda x, y=1, *a, z, **k: x)",
                "g(lambda x, y=1, *a, z, **k: x)",
            ),
            ("g(not a, -b, +c, ~d)", "g(not a, -b, +c, ~d)"),
            ("g(a or b and c or d)", "g(a or (b and c) or d)"),
            (
                "g(1 .real, 1.5.real, True.real)",
                "g(1 .real, 1.5.real, True .real)",
            ),
            (
                "g(2**-1, (-1)**2, -1**2)",
                "g(2 ** (-1), (-1) ** 2, -1 ** 2)",
            ),
            ("g({1:2, **d}, {1,2})", "g({1: 2, **d}, {1, 2})"),
            (
                "g(a<b<=c, a is not b, a not in b)",
                "g(a < b <= c, a is not b, a not in b)",
            ),
            ("g((1,), ())", "g((1,), ())"),
            (
                "g(1e999, 1e999j, 2j, 1e16, 1e-5, 0.1)",
                "g(1e309, 1e309j, 2j, 1e+16, 1e-05, 0.1)",
            ),
            ("g(u'x', U'y', b'z')", "g(u'x', 'y', b'z')"),
            ("g(x := 1)", "g((x := 1))"),
            ("g(*a or b)", "g(*(a or b))"),
            ("g(x)[0]", "g(x)[0]"),
            ("g(...)", "g(...)"),
            ("g(a,)", "g(a)"),
        ];
        for (text, want) in cases {
            assert_eq!(value(text), s(want), "{text}");
        }
        // With keywords: a nested call.
        assert_eq!(
            repr("lookup(name='NYC', n=g(1))"),
            "{'lookup': {'name': 'NYC', 'n': 'g(1)'}}"
        );
    }

    /// Python 3.11's `ast.unparse` texts (issue 50): `await` binds as
    /// `_Precedence.AWAIT`, `yield` as `YIELD`, each operand as an atom.
    #[test]
    fn await_and_yield_inside_a_call_are_unparsed() {
        let cases = [
            ("g(await x)", "g(await x)"),
            ("g(await (a+b))", "g(await (a + b))"),
            ("g(await f(x))", "g(await f(x))"),
            ("g(await x.y, await x[0])", "g(await x.y, await x[0])"),
            ("g(-(await x))", "g(-await x)"),
            ("g((await x) ** 2)", "g(await x ** 2)"),
            ("g(await (yield))", "g(await (yield))"),
            ("g((yield))", "g((yield))"),
            ("g((yield x))", "g((yield x))"),
            ("g((yield from x))", "g((yield from x))"),
            ("x[await y]", "x[await y]"),
        ];
        for (text, want) in cases {
            assert_eq!(value(text), s(want), "{text}");
        }
        let c = calls("[f(type=g(await x))]");
        assert_eq!(c[0].args, vec![(s("type"), s("g(await x)"))]);
    }

    /// `[f(a=<text>)]` with `<text>` the term joined by `op` `n` times.
    fn chained(wrap: &str, term: &str, op: &str, n: usize) -> String {
        wrap.replace("{}", &vec![term; n].join(op))
    }

    /// The first failing lengths measured with `bfcl evaluate` (bfcl-eval
    /// 2026.3.23, CPython 3.11.7; `scripts/bfcl/recursion_frames.py`).
    #[test]
    fn arithmetic_too_deep_for_pythons_unparse_fails_as_in_bfcl_evaluate() {
        for (wrap, term, op, first_failing) in [
            ("[f(a={})]", "1", "+", 325),
            ("[f(a={})]", "'a'", "+", 325),
            ("[f(a={})]", "1", "**", 325),
            ("[f(a={})]", "b'a'", "+", 325),
            ("[f(a=[{}])]", "1", "+", 324),
            ("[f(a=g(b={}))]", "1", "+", 324),
            ("[f(a={'k': {}})]", "1", "+", 324),
            ("[f(a=(0, {}))]", "1", "+", 324),
            ("[f(a=-{})]", "1", "+", 324),
            ("[f(a=g(b=h(c={})))]", "1", "+", 324),
            ("[f(a={})]", "(1,)", "+", 324),
            ("[f(x=1), f(a={})]", "1", "+", 325),
        ] {
            let ok = chained(wrap, term, op, first_failing - 1);
            assert!(
                decode_ast_prompting(&ok).is_ok(),
                "{wrap} {term} {}",
                first_failing - 1
            );
            let bad = chained(wrap, term, op, first_failing);
            let err = decode_ast_prompting(&bad).unwrap_err().0;
            assert!(err.starts_with("RecursionError"), "{wrap} {term}: {err}");
        }
    }

    /// The messages of bfcl-eval 2026.3.23's decoder on these texts
    /// (CPython 3.11.7's `UnicodeEncodeError`).
    #[test]
    fn a_lone_surrogate_fails_with_pythons_encoder_message() {
        let fails_with = |cps: &[u32], want: &str| {
            let got = decode_ast_prompting_str(&PyStr(cps.to_vec())).unwrap_err();
            assert_eq!(got.0, want);
        };
        let with = |before: &str, middle: &[u32], after: &str| {
            let mut cps = PyStr::new(before).0;
            cps.extend_from_slice(middle);
            cps.extend(PyStr::new(after).0);
            cps
        };
        let one = "'utf-8' codec can't encode character";
        fails_with(
            &with("[f(a='", &[0xd800], "')]"),
            &format!("{one} '\\ud800' in position 6: surrogates not allowed"),
        );
        fails_with(
            &with("f(a='", &[0xd800], "')"),
            &format!("{one} '\\ud800' in position 6: surrogates not allowed"),
        );
        fails_with(
            &with("  ` [f(a='", &[0xdc00, 0xd800], "x')]"),
            "'utf-8' codec can't encode characters in position 6-7: surrogates not allowed",
        );
        fails_with(
            &with("\n", &[0xdfff, 0xdfff, 0xdfff], ""),
            "'utf-8' codec can't encode characters in position 1-3: surrogates not allowed",
        );
        let text = PyStr::new("[f(a='\u{1F600}')]");
        assert_eq!(decode_ast_prompting_str(&text).unwrap()[0].name, "f");
    }

    #[test]
    fn subscripts_are_their_unparsed_parts() {
        assert_eq!(value("x[0]"), s("x[0]"));
        assert_eq!(value("x[1:2]"), s("x[1:2]"));
        assert_eq!(value("x[::2]"), s("x[::2]"));
        assert_eq!(value("x[1, 2]"), s("x[(1, 2)]"));
        assert_eq!(value("(a+b)[0]"), s("a + b[0]"));
        assert_eq!(value("x['k']"), s("x['k']"));
        assert_eq!(value("x[*a]"), s("x[(*a,)]"));
        assert_eq!(value("x[a:=1]"), s("x[(a := 1)]"));
    }

    #[test]
    fn what_the_official_decoder_does_not_support_fails() {
        for bad in [
            "lambda x: x",
            "Unit.celsius",
            "f'NYC'",
            "'a' f'b'",
            "{'rain'}",
            "1 < 2",
            "x and y",
            "1 if x else 2",
            "[x for x in y]",
            "(x for x in y)",
            "{[1]: 2}",
            "{(1, [2]): 3}",
            "{g(k=1): 2}",
            "{**d}",
            "(yield)",
            "await x",
            "(x := 1)",
        ] {
            assert!(fails(&format!("[f(a={bad})]")), "{bad}");
        }
        assert!(fails("[f(a=*x)]"));
        // As a dropped positional argument, each of these parses.
        for ok in [
            "lambda x: x",
            "[x for x in y]",
            "f'{x!r:>{w}}'",
            "(yield)",
            "await x",
        ] {
            assert_eq!(calls(&format!("[f({ok}, a=1)]"))[0].args.len(), 1, "{ok}")
        }
        for bad in [
            "[f(x for x in y, a=1)]",
            "[f(f'{}', a=1)]",
            "[f(f'{x!z}', a=1)]",
            "[f(lambda x=1, y: x, a=1)]",
            "[f(lambda *: 1, a=1)]",
        ] {
            assert!(fails(bad), "{bad}");
        }
    }

    #[test]
    fn nesting_stops_at_pythons_bracket_limit() {
        let depth = crate::spec::limits::PY_MAX_BRACKETS;
        let ok = format!(
            "[f(a={}{}{})]",
            "[".repeat(depth - 2),
            "1",
            "]".repeat(depth - 2)
        );
        assert_eq!(calls(&ok).len(), 1);
        let deep = format!(
            "[f(a={}{}{})]",
            "[".repeat(depth - 1),
            "1",
            "]".repeat(depth - 1)
        );
        assert!(fails(&deep));
    }

    #[test]
    fn hostile_inputs_return_promptly() {
        // Each returns a value or an error without hanging, overflowing the
        // stack or allocating without bound.
        assert!(fails(&"[".repeat(100_000)));
        assert!(fails(&("[f(a=".to_string() + &"(".repeat(100_000))));
        assert!(fails(&("[f(a=".to_string() + &"-".repeat(100_000) + "1)]")));
        assert!(fails(
            &("[f(a=".to_string() + &"not ".repeat(100_000) + "1)]")
        ));
        assert!(fails(
            &("[f(a=1".to_string() + &"+1".repeat(100_000) + ")]")
        ));
        assert!(fails(
            &("[f(a=2".to_string() + &"**2".repeat(100_000) + ")]")
        ));
        assert!(fails(
            &("[f(a=x".to_string() + &".y".repeat(100_000) + ")]")
        ));
        assert!(fails(
            &("[f(a=x".to_string() + &"()".repeat(100_000) + ")]")
        ));
        assert!(fails(
            &("[f(a=".to_string() + &"lambda: ".repeat(100_000) + "1)]")
        ));
        assert!(fails(
            &("[f(a=".to_string() + &"1 if 1 else ".repeat(100_000) + "1)]")
        ));
        assert_eq!(repr("1e999999"), "inf");
        for bomb in [
            "9**9**9",
            "10**10**10",
            "'a'*10**12",
            "[1]*10**12",
            "[0]*10**9",
            "1 << 10**9",
            "'ab' * 10**6 * 10**6",
            "[[0] * 1000] * 1000 * 1000",
        ] {
            let e = decode_ast_prompting(&format!("[f(a={bomb})]")).unwrap_err();
            assert!(e.0.contains("itc"), "{bomb}: {}", e.0);
        }
        // Within the bound, repetition works.
        assert_eq!(value("'ab' * 1000"), s(&"ab".repeat(1000)));
        // A 1 MB line, 100,000 calls, and one byte too many.
        let long = format!("[f(a='{}')]", "x".repeat(MAX_ANSWER_BYTES - 20));
        assert_eq!(calls(&long).len(), 1);
        let many = vec!["f(a=1)"; 100_000].join(", ");
        assert_eq!(calls(&many).len(), 100_000);
        assert!(fails(&"x".repeat(MAX_ANSWER_BYTES + 1)));
    }

    #[test]
    fn wide_literals_decode_in_linear_time() {
        // The issue's attack (120,000 int keys, as many as a 1 MiB answer
        // holds) and other wide literals: scanning for repeated keys took
        // minutes on each in a debug build. Python's rules are kept
        // (a repeated key keeps its first position and takes its last value).
        let decoded =
            |text: String| decode_ast_prompting(&text).unwrap_or_else(|e| panic!("{}", e.0));
        let value = |v: String| decoded(format!("[f(a={v})]"))[0].args[0].1.clone();
        let ints: Vec<String> = (0..120_000).map(|k| format!("{k}:0")).collect();
        let v = value(format!("{{{}, 5.0: 'x', True: 't'}}", ints.join(",")));
        let PyValue::Dict(entries) = v else {
            panic!("not a dict")
        };
        assert_eq!(entries.len(), 120_000);
        assert_eq!(entries[1], (lit("1"), s("t")));
        assert_eq!(entries[5], (lit("5"), s("x")));
        assert_eq!(entries[119_999], (lit("119999"), lit("0")));

        let strs: Vec<String> = (0..30_000).map(|k| format!("'k{k}':0")).collect();
        let v = value(format!("{{{}, 'k7': 1}}", strs.join(",")));
        let PyValue::Dict(entries) = v else {
            panic!("not a dict")
        };
        assert_eq!(entries.len(), 30_000);
        assert_eq!(entries[7], (s("k7"), lit("1")));

        let kwargs: Vec<String> = (0..30_000).map(|k| format!("a{k}=0")).collect();
        let c = decoded(format!("[f({}, a3=g(b=1, b=2))]", kwargs.join(",")));
        assert_eq!(c[0].args.len(), 30_000);
        assert_eq!(c[0].args[3].1, lit("{'g': {'b': 2}}"));

        // `|` of two wide dicts, half their keys shared.
        let left: Vec<String> = (0..20_000).map(|k| format!("{k}:0")).collect();
        let right: Vec<String> = (10_000..30_000).map(|k| format!("{k}:1")).collect();
        let v = value(format!("{{{}}} | {{{}}}", left.join(","), right.join(",")));
        let PyValue::Dict(entries) = v else {
            panic!("not a dict")
        };
        assert_eq!(entries.len(), 30_000);
        assert_eq!(entries[9_999].1, lit("0"));
        assert_eq!(entries[10_000].1, lit("1"));
    }
}

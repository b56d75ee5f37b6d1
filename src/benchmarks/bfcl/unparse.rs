//! Python 3.11's `ast.unparse`, for the nodes the BFCL decoder turns into
//! text (a call without keyword arguments, a subscript): the same spacing,
//! parentheses (by `ast._Precedence`, quirks included) and constant reprs
//! (`inf` as `1e309`). Comprehensions and f-strings are not reproduced: a
//! text that would need them fails to decode (Python would print them).

use super::pyexpr::{Expr, Kind, UnOp};
use crate::benchmarks::python::{PyValue, float_repr, py_repr};

/// `ast._Precedence`, lowest first.
mod prec {
    pub const NAMED_EXPR: u8 = 0;
    pub const TUPLE: u8 = 1;
    pub const YIELD: u8 = 2;
    pub const TEST: u8 = 3;
    pub const OR: u8 = 4;
    pub const AND: u8 = 5;
    pub const NOT: u8 = 6;
    pub const CMP: u8 = 7;
    pub const EXPR: u8 = 8;
    pub const BOR: u8 = 8;
    pub const BXOR: u8 = 9;
    pub const BAND: u8 = 10;
    pub const SHIFT: u8 = 11;
    pub const ARITH: u8 = 12;
    pub const TERM: u8 = 13;
    pub const FACTOR: u8 = 14;
    pub const POWER: u8 = 15;
    pub const AWAIT: u8 = 16;
    pub const ATOM: u8 = 17;

    /// `_Precedence.next()`: one higher, capped at `ATOM`.
    pub fn next(p: u8) -> u8 {
        (p + 1).min(ATOM)
    }
}

/// `ast.unparse(node)` as code points.
pub(crate) fn unparse(e: &Expr) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    write(e, prec::TEST, &mut out)?;
    Ok(out)
}

fn push(out: &mut Vec<u32>, text: &str) {
    out.extend(text.chars().map(u32::from));
}

fn binop_prec(op: &str) -> u8 {
    match op {
        "+" | "-" => prec::ARITH,
        "*" | "@" | "/" | "%" | "//" => prec::TERM,
        "<<" | ">>" => prec::SHIFT,
        "|" => prec::BOR,
        "^" => prec::BXOR,
        "&" => prec::BAND,
        _ => prec::POWER,
    }
}

/// `_write_constant` / `visit_Constant`.
fn constant(v: &PyValue, u: bool, out: &mut Vec<u32>) {
    match v {
        PyValue::Float(x) => push(out, &nonfinite(&float_repr(*x))),
        PyValue::Complex(_) => {
            let r: String = py_repr(v)
                .iter()
                .filter_map(|&c| char::from_u32(c))
                .collect();
            push(out, &nonfinite(&r));
        }
        _ => {
            if u {
                push(out, "u");
            }
            out.extend(py_repr(v));
        }
    }
}

fn nonfinite(repr: &str) -> String {
    repr.replace("inf", "1e309").replace("nan", "(1e309-1e309)")
}

fn items(es: &[Expr], out: &mut Vec<u32>) -> Result<(), String> {
    for (k, e) in es.iter().enumerate() {
        if k > 0 {
            push(out, ", ");
        }
        write(e, prec::TEST, out)?;
    }
    Ok(())
}

/// `items_view`: one item gets a trailing comma.
fn items_view(es: &[Expr], out: &mut Vec<u32>) -> Result<(), String> {
    items(es, out)?;
    if es.len() == 1 {
        push(out, ",");
    }
    Ok(())
}

/// Writes `e` where the context sets precedence `p` (its parentheses are
/// added when the node's own precedence is lower).
fn write(e: &Expr, p: u8, out: &mut Vec<u32>) -> Result<(), String> {
    match &e.kind {
        Kind::Name(n) => push(out, n),
        Kind::Const(v, u) => constant(v, *u, out),
        Kind::Ellipsis => push(out, "..."),
        Kind::List(es) => {
            push(out, "[");
            items(es, out)?;
            push(out, "]");
        }
        Kind::Tuple(es) => {
            let paren = es.is_empty() || p > prec::TUPLE;
            push(out, if paren { "(" } else { "" });
            items_view(es, out)?;
            push(out, if paren { ")" } else { "" });
        }
        Kind::Set(es) => {
            push(out, "{");
            items(es, out)?;
            push(out, "}");
        }
        Kind::Dict(entries) => {
            push(out, "{");
            for (k, (key, v)) in entries.iter().enumerate() {
                if k > 0 {
                    push(out, ", ");
                }
                match key {
                    None => {
                        push(out, "**");
                        write(v, prec::EXPR, out)?;
                    }
                    Some(key) => {
                        write(key, prec::TEST, out)?;
                        push(out, ": ");
                        write(v, prec::TEST, out)?;
                    }
                }
            }
            push(out, "}");
        }
        Kind::Attribute(v, name) => {
            write(v, prec::ATOM, out)?;
            // `isinstance(value, int)`: a bool too (`True .real`).
            if matches!(v.kind, Kind::Const(PyValue::Int(_) | PyValue::Bool(_), _)) {
                push(out, " ");
            }
            push(out, ".");
            push(out, name);
        }
        Kind::Subscript(v, s) => {
            write(v, prec::ATOM, out)?;
            push(out, "[");
            match &s.kind {
                Kind::Tuple(es) if !es.is_empty() => items_view(es, out)?,
                _ => write(s, prec::TEST, out)?,
            }
            push(out, "]");
        }
        Kind::Slice(lo, hi, step) => {
            if let Some(lo) = lo {
                write(lo, prec::TEST, out)?;
            }
            push(out, ":");
            if let Some(hi) = hi {
                write(hi, prec::TEST, out)?;
            }
            if let Some(step) = step {
                push(out, ":");
                write(step, prec::TEST, out)?;
            }
        }
        Kind::Call(f, args, kws) => {
            write(f, prec::ATOM, out)?;
            push(out, "(");
            items(args, out)?;
            for (k, (name, v)) in kws.iter().enumerate() {
                if k > 0 || !args.is_empty() {
                    push(out, ", ");
                }
                match name {
                    Some(n) => {
                        push(out, n);
                        push(out, "=");
                    }
                    None => push(out, "**"),
                }
                write(v, prec::TEST, out)?;
            }
            push(out, ")");
        }
        Kind::Starred(v) => {
            push(out, "*");
            write(v, prec::EXPR, out)?;
        }
        Kind::Unary(..)
        | Kind::Bin(..)
        | Kind::BoolOp(..)
        | Kind::Compare(..)
        | Kind::IfExp(..)
        | Kind::Named(..)
        | Kind::Lambda(..) => write_operation(e, p, out)?,
        Kind::Other("Await" | "Yield" | "YieldFrom", _) => write_await_or_yield(e, p, out)?,
        Kind::FString => return Err(not_reproduced("an f-string")),
        Kind::Other(kind, _) => return Err(not_reproduced(kind)),
    }
    Ok(())
}

/// The operators, lambdas and assignment expressions: parenthesised when
/// their precedence is below the context's `p`.
fn write_operation(e: &Expr, p: u8, out: &mut Vec<u32>) -> Result<(), String> {
    let wrap = |own: u8, out: &mut Vec<u32>, body: &dyn Fn(&mut Vec<u32>) -> Result<(), String>| {
        let paren = p > own;
        if paren {
            push(out, "(");
        }
        body(out)?;
        if paren {
            push(out, ")");
        }
        Ok::<(), String>(())
    };
    match &e.kind {
        Kind::Unary(op, v) => {
            let (text, own) = match op {
                UnOp::Not => ("not ", prec::NOT),
                UnOp::Neg => ("-", prec::FACTOR),
                UnOp::Pos => ("+", prec::FACTOR),
                UnOp::Invert => ("~", prec::FACTOR),
            };
            wrap(own, out, &|out| {
                push(out, text);
                write(v, own, out)
            })?;
        }
        Kind::Bin(l, op, r) => {
            let own = binop_prec(op);
            let (lp, rp) = if *op == "**" {
                (prec::next(own), own)
            } else {
                (own, prec::next(own))
            };
            wrap(own, out, &|out| {
                write(l, lp, out)?;
                push(out, &format!(" {op} "));
                write(r, rp, out)
            })?;
        }
        Kind::BoolOp(and, values) => {
            let own = if *and { prec::AND } else { prec::OR };
            wrap(own, out, &|out| {
                // The precedence rises with each value (unparse's quirk).
                let mut level = own;
                for (k, v) in values.iter().enumerate() {
                    if k > 0 {
                        push(out, if *and { " and " } else { " or " });
                    }
                    level = prec::next(level);
                    write(v, level, out)?;
                }
                Ok(())
            })?;
        }
        Kind::Compare(l, rest) => {
            wrap(prec::CMP, out, &|out| {
                write(l, prec::next(prec::CMP), out)?;
                for (op, v) in rest {
                    push(out, &format!(" {op} "));
                    write(v, prec::next(prec::CMP), out)?;
                }
                Ok(())
            })?;
        }
        Kind::IfExp(body, test, orelse) => {
            wrap(prec::TEST, out, &|out| {
                write(body, prec::next(prec::TEST), out)?;
                push(out, " if ");
                write(test, prec::next(prec::TEST), out)?;
                push(out, " else ");
                write(orelse, prec::TEST, out)
            })?;
        }
        Kind::Named(target, value) => {
            wrap(prec::NAMED_EXPR, out, &|out| {
                write(target, prec::ATOM, out)?;
                push(out, " := ");
                write(value, prec::ATOM, out)
            })?;
        }
        Kind::Lambda(params, body) => {
            wrap(prec::TEST, out, &|out| {
                push(out, "lambda");
                for (k, param) in params.iter().enumerate() {
                    push(out, if k == 0 { " " } else { ", " });
                    push(out, &param.text);
                    if let Some(d) = &param.default {
                        push(out, "=");
                        write(d, prec::TEST, out)?;
                    }
                }
                push(out, ": ");
                write(body, prec::TEST, out)
            })?;
        }
        _ => unreachable!("write_operation takes an operation"),
    }
    Ok(())
}

/// `visit_Await`, `visit_Yield`, `visit_YieldFrom`: the keyword, then the
/// operand (if any) as an atom; parenthesised below the context's `p`.
fn write_await_or_yield(e: &Expr, p: u8, out: &mut Vec<u32>) -> Result<(), String> {
    let Kind::Other(kind, operands) = &e.kind else {
        unreachable!("write_await_or_yield takes an await or a yield")
    };
    let (keyword, own) = match *kind {
        "Await" => ("await", prec::AWAIT),
        "Yield" => ("yield", prec::YIELD),
        _ => ("yield from", prec::YIELD),
    };
    let paren = p > own;
    push(out, if paren { "(" } else { "" });
    push(out, keyword);
    if let Some(v) = operands.first() {
        push(out, " ");
        write(v, prec::ATOM, out)?;
    }
    push(out, if paren { ")" } else { "" });
    Ok(())
}

fn not_reproduced(what: &str) -> String {
    format!("itc does not reproduce ast.unparse of {what} (a call's text would hold it)")
}

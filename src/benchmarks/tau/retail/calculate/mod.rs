//! The `calculate` tool: `str(round(float(eval(expression)), 2))` after the
//! official character check, reproduced without evaluating anything a model
//! writes as code. The expression (digits, `+ - * / ( ) .` and spaces) is
//! read by a parser of our own that follows CPython 3.12's tokenizer and
//! PEG parser on this alphabet, error messages included ([`parse`]), and
//! computed with Python's `int`, `float` and `complex` arithmetic
//! ([`value`]).
//!
//! Bounds: CPython's own. Parentheses nest at most 200 deep (the
//! tokenizer's limit), the parser's stack overflows where CPython's does
//! (`MemoryError`), an expression nesting 2,996 operations fails as
//! CPython's compiler does (`RecursionError`); integer literals have at
//! most 4,300 digits. One bound of ours: an integer beyond
//! [`value::INT_BITS_LIMIT`] bits, which CPython would compute (for
//! seconds or hours), gives `int too large to convert to float`, what the
//! final `float()` would say of it. Everything runs in time linear in the
//! expression's length, on a thread of its own with a large stack.

mod parse;
mod value;

use super::py::{PyResult, iterate, round2};
use parse::{Op, Program};
use value::{Arg, Value};

use crate::benchmarks::python::{PyValue, float_repr};

/// The characters the official check lets through.
const ALLOWED: &str = "0123456789+-*/(). ";

/// Stack of the thread a calculation runs on: the parser recurses once per
/// `**` (at most 3,000 deep before CPython's own limit stops it).
const STACK_BYTES: usize = 64 << 20;

/// The `calculate` tool on its argument as the model sent it.
pub fn calculate(expression: &PyValue) -> PyResult<String> {
    check_characters(expression)?;
    let PyValue::Str(text) = expression else {
        return Err("eval() arg 1 must be a string, bytes or code object".into());
    };
    let text = text.clone();
    let worker = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || {
            let chars: Vec<u8> = text.0.iter().map(|&c| c as u8).collect();
            let result = evaluate(&parse::parse(&chars)?)?;
            let x = result.to_float()?;
            Ok(float_repr(round2(x)))
        });
    match worker {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Err("calculation failed".into())),
        Err(e) => Err(format!("cannot start a calculation: {e}")),
    }
}

/// Runs a parsed expression's operations with a value stack: its value or
/// the exception's text.
fn evaluate(program: &Program) -> PyResult<Value> {
    let mut stack: Vec<Value> = Vec::new();
    for op in &program.ops {
        let value = match op {
            Op::Const(v) => v.clone(),
            Op::Unary(negative) => value::unary(*negative, stack.pop().expect("operand"))?,
            Op::Binary(op) => {
                let b = stack.pop().expect("operand");
                let a = stack.pop().expect("operand");
                value::binary(*op, a, b)?
            }
            Op::Call(arg) => {
                let arg_value = if *arg == Arg::None { None } else { stack.pop() };
                value::call(stack.pop().expect("callee"), *arg, arg_value)?
            }
        };
        stack.push(value);
    }
    stack.pop().ok_or_else(|| "empty expression".to_string())
}

/// `all(char in "0123456789+-*/(). " for char in expression)`, raising
/// where Python raises (iterating a number, `in <string>` with a non-string).
fn check_characters(expression: &PyValue) -> PyResult<()> {
    let allowed: Vec<u32> = ALLOWED.chars().map(u32::from).collect();
    if let PyValue::Str(text) = expression {
        if text.0.iter().all(|c| allowed.contains(c)) {
            return Ok(());
        }
        return Err("Invalid characters in expression".into());
    }
    for item in iterate(expression)? {
        match item {
            PyValue::Str(s) => {
                let found = s.is_empty() || allowed.windows(s.len()).any(|w| w == s.0.as_slice());
                if !found {
                    return Err("Invalid characters in expression".into());
                }
            }
            other => {
                return Err(format!(
                    "'in <string>' requires string as left operand, not {}",
                    other.type_name()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::json_loads_str;

    fn calc(expression: &str) -> String {
        match calculate(&PyValue::Str(crate::benchmarks::python::PyStr::new(
            expression,
        ))) {
            Ok(text) => text,
            Err(e) => format!("Error: {e}"),
        }
    }

    // Every expected text below is what CPython 3.12.1 gives for
    // `str(round(float(eval(e, {"__builtins__": None}, {})), 2))`.
    #[test]
    fn arithmetic_follows_python_floats_and_ints() {
        for (e, want) in [
            ("2**100", "1.2676506002282294e+30"),
            ("0/-5", "-0.0"),
            ("123456789*987654321/7", "1.7418947301805038e+16"),
            ("10**400/10**399", "10.0"),
            ("1/10**400", "0.0"),
            ("-7//2", "-4.0"),
            ("-7.5//2", "-4.0"),
            ("0.0//-1", "-0.0"),
            ("2**-1075", "0.0"),
            ("(2**1023)*2.0", "inf"),
            ("2**2**2**2", "65536.0"),
            ("-2 ** 2", "-4.0"),
            ("2**0.5**-1", "4.0"),
            ("10**20*1.5", "1.5e+20"),
            ("(10**20)//3.0", "3.333333333333333e+19"),
            ("5//(10**400)", "0.0"),
            ("(-2)**-1", "-0.5"),
            ("(-0.0)**3", "-0.0"),
            ("01.5", "1.5"),
            ("1.", "1.0"),
        ] {
            assert_eq!(calc(e), want, "{e}");
        }
    }

    #[test]
    fn runtime_errors_read_as_cpythons() {
        for (e, want) in [
            ("10**400/3", "integer division result too large for a float"),
            ("10.0**400", "(34, 'Numerical result out of range')"),
            ("1//0", "integer division or modulo by zero"),
            ("1.0//0", "float floor division by zero"),
            (
                "(-8)**0.5",
                "float() argument must be a string or a real number, not 'complex'",
            ),
            ("(-8)**0.5/0", "complex division by zero"),
            (
                "(-1)**0.5//1",
                "unsupported operand type(s) for //: 'complex' and 'int'",
            ),
            ("(0*(-1)**0.5)**-1", "0.0 to a negative or complex power"),
            (
                "()*2",
                "float() argument must be a string or a real number, not 'tuple'",
            ),
            ("()+1", "can only concatenate tuple (not \"int\") to tuple"),
            (
                "1+()",
                "unsupported operand type(s) for +: 'int' and 'tuple'",
            ),
            ("-...", "bad operand type for unary -: 'ellipsis'"),
            (
                "() * 1.5",
                "can't multiply sequence by non-int of type 'float'",
            ),
            (
                "() * (2**100)",
                "cannot fit 'int' into an index-sized integer",
            ),
            (
                "()**2",
                "unsupported operand type(s) for ** or pow(): 'tuple' and 'int'",
            ),
            ("(1)(*2)", "1 argument after * must be an iterable, not int"),
            (
                "(())(**())",
                "() argument after ** must be a mapping, not tuple",
            ),
            ("(1.5)(2)", "'float' object is not callable"),
            (
                "...(*2)",
                "Ellipsis argument after * must be an iterable, not int",
            ),
            (
                "(2*(-1)**0.5)(*2)",
                "(1.2246467991473532e-16+2j) argument after * must be an iterable, not int",
            ),
            (
                "(0*(-1)**0.5)(*2)",
                "0j argument after * must be an iterable, not int",
            ),
            ("(1)(1/0)", "division by zero"),
            (
                "(1)(*1)(1/0)",
                "1 argument after * must be an iterable, not int",
            ),
        ] {
            assert_eq!(calc(e), format!("Error: {want}"), "{e}");
        }
    }

    #[test]
    fn syntax_errors_read_as_cpythons() {
        let comma = "invalid syntax. Perhaps you forgot a comma? (<string>, line 1)";
        let invalid = "invalid syntax (<string>, line 1)";
        let never = "'(' was never closed (<string>, line 1)";
        let zeros = "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)";
        for (e, want) in [
            ("(1 2)", comma),
            ("1 2", invalid),
            ("((1 2)", comma),
            ("(1 2", never),
            ("1 (2 3)", comma),
            ("(1) 2 (3 4)", invalid),
            ("1 + (2 3", never),
            ("1 2 + (3 4)", invalid),
            ("(1 2 (", never),
            ("(1 ...)", comma),
            ("1 ...", invalid),
            ("((1).", never),
            ("(1).", invalid),
            ("(1 .)", invalid),
            (
                "(*1)",
                "cannot use starred expression here (<string>, line 1)",
            ),
            (
                "(**1)",
                "cannot use double starred expression here (<string>, line 1)",
            ),
            ("(*1 2)", comma),
            ("(1)(*1 2)", comma),
            (
                "(*1)(1)",
                "cannot use starred expression here (<string>, line 1)",
            ),
            ("(1)(*)", invalid),
            ("*()", invalid),
            ("(1 2) 3 01", zeros),
            ("01 (", zeros),
            ("1 2)", "unmatched ')' (<string>, line 1)"),
            ("....", invalid),
            ("", "invalid syntax (<string>, line 0)"),
            ("  ", "invalid syntax (<string>, line 0)"),
        ] {
            assert_eq!(calc(e), format!("Error: {want}"), "{e:?}");
        }
    }

    #[test]
    fn cpythons_limits_are_kept() {
        let parens = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(calc(&parens(200)), "1.0");
        assert_eq!(
            calc(&parens(201)),
            "Error: too many nested parentheses (<string>, line 1)"
        );
        assert_eq!(calc(&format!("{}1", "-".repeat(2995))), "-1.0");
        let recursion = "Error: maximum recursion depth exceeded during compilation";
        assert_eq!(calc(&format!("{}1", "-".repeat(2996))), recursion);
        assert_eq!(calc(&vec!["1"; 2997].join("+")), recursion);
        let overflow = "Error: Parser stack overflowed - Python source too complex to parse";
        assert_eq!(calc(&format!("{}1", "1**".repeat(2988))), overflow);
        assert_eq!(calc(&format!("{}1", "1**".repeat(2987))), "1.0");
        assert_eq!(
            calc(&format!(
                "{}{}1{}",
                "(".repeat(200),
                "-".repeat(375),
                ")".repeat(200)
            )),
            overflow
        );
        assert_eq!(
            calc(&format!(
                "{}{}1{}",
                "(".repeat(200),
                "-".repeat(374),
                ")".repeat(200)
            )),
            "1.0"
        );
        assert!(calc(&"1".repeat(4301)).starts_with(
            "Error: Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits"
        ));
        assert_eq!(calc(&"0".repeat(4301)), "0.0");
    }

    #[test]
    fn hostile_expressions_end_quickly_with_an_error_or_a_result() {
        let long = format!("{}1", "1+".repeat(50_000));
        assert_eq!(long.len(), 100_001);
        assert!(calc(&long).starts_with("Error: maximum recursion depth"));
        let nested = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(calc(&nested).starts_with("Error: too many nested parentheses"));
        assert!(calc(&"-".repeat(100_000)).starts_with("Error: "));
        assert!(calc("9**9**9**9").starts_with("Error: int too large"));
        let digits = "9".repeat(100_000);
        assert!(calc(&digits).starts_with("Error: Exceeds the limit"));
    }

    #[test]
    fn non_string_expressions_fail_as_in_python() {
        let call = |json: &str| calculate(&json_loads_str(json).unwrap()).unwrap_err();
        assert_eq!(call("12345"), "'int' object is not iterable");
        assert_eq!(call(r#"["x"]"#), "Invalid characters in expression");
        assert_eq!(
            call(r#"["12"]"#),
            "eval() arg 1 must be a string, bytes or code object"
        );
        assert_eq!(
            call("[1]"),
            "'in <string>' requires string as left operand, not int"
        );
        assert_eq!(
            call("{}"),
            "eval() arg 1 must be a string, bytes or code object"
        );
    }
}

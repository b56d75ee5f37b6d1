//! CPython 3.12's reading of an expression over `0-9 + - * / ( ) .` and
//! spaces: its tokenizer (numbers, `...`, operators, parenthesis levels and
//! their errors) and the part of its PEG grammar these tokens reach, with
//! the second, error-reporting pass (`invalid_expression`'s "Perhaps you
//! forgot a comma?", `invalid_group`'s starred expressions), the priority
//! of tokenizer errors, and the parser's and compiler's depth limits.
//!
//! The parse yields the operations in evaluation order ([`Program`]), so
//! evaluating needs no recursion.

use num_bigint::BigInt;

use super::value::{Arg, BinOp, Value};

/// CPython's `MAXLEVEL`: parentheses open at once.
const MAX_PAREN_LEVEL: usize = 200;
/// CPython's `MAXSTACK`: the parser's rule depth.
const MAX_PARSER_DEPTH: usize = 6000;
/// Parser depth at the outermost expression, and what one parenthesis, one
/// unary sign and one `**` add to it (measured with CPython 3.12.1: 200
/// parentheses leave room for 374 signs or 187 powers, no parenthesis for
/// 2,987 powers).
const DEPTH_BASE: usize = 26;
const DEPTH_PAREN: usize = 28;
const DEPTH_UNARY: usize = 1;
const DEPTH_POWER: usize = 2;
/// Nested operations at which CPython's compiler gives up.
const MAX_COMPILE_DEPTH: usize = 2996;
/// `sys.int_info.default_max_str_digits`.
const MAX_INT_DIGITS: usize = 4300;

const OVERFLOW: &str = "Parser stack overflowed - Python source too complex to parse";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    Ellipsis,
    Dot,
    Plus,
    Minus,
    Star,
    DoubleStar,
    Slash,
    DoubleSlash,
    LPar,
    RPar,
    /// `NEWLINE` / `ENDMARKER` at the end of a balanced input.
    End,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
    /// Parenthesis level after the token.
    level: usize,
}

/// What follows the last token.
enum Tail {
    End,
    /// End of input inside parentheses.
    NeverClosed,
    /// A tokenizer error at the next token.
    Error(String),
}

fn syntax(message: &str) -> String {
    format!("{message} (<string>, line 1)")
}

fn tokenize(text: &[u8]) -> (Vec<Token>, Tail) {
    let mut tokens = Vec::new();
    let mut level = 0usize;
    let mut i = 0;
    let at = |i: usize| text.get(i).copied().unwrap_or(0);
    while i < text.len() {
        let c = text[i];
        let start = i;
        let kind = match c {
            b' ' => {
                i += 1;
                continue;
            }
            b'0'..=b'9' => match number(text, i) {
                Ok(end) => {
                    i = end;
                    Kind::Number
                }
                Err(message) => return (tokens, Tail::Error(syntax(message))),
            },
            b'.' if at(i + 1).is_ascii_digit() => {
                i = digits(text, i + 1);
                Kind::Number
            }
            b'.' if at(i + 1) == b'.' && at(i + 2) == b'.' => {
                i += 3;
                Kind::Ellipsis
            }
            b'.' => {
                i += 1;
                Kind::Dot
            }
            b'*' | b'/' if at(i + 1) == c => {
                i += 2;
                if c == b'*' {
                    Kind::DoubleStar
                } else {
                    Kind::DoubleSlash
                }
            }
            _ => {
                i += 1;
                match c {
                    b'+' => Kind::Plus,
                    b'-' => Kind::Minus,
                    b'*' => Kind::Star,
                    b'/' => Kind::Slash,
                    b'(' if level >= MAX_PAREN_LEVEL => {
                        return (tokens, Tail::Error(syntax("too many nested parentheses")));
                    }
                    b'(' => {
                        level += 1;
                        Kind::LPar
                    }
                    b')' if level == 0 => {
                        return (tokens, Tail::Error(syntax("unmatched ')'")));
                    }
                    _ => {
                        level -= 1;
                        Kind::RPar
                    }
                }
            }
        };
        tokens.push(Token {
            kind,
            start,
            end: i,
            level,
        });
    }
    let tail = if level > 0 {
        Tail::NeverClosed
    } else {
        Tail::End
    };
    (tokens, tail)
}

fn digits(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && text[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// The end of the number starting at `i` (a digit), or the tokenizer's
/// error for `01`.
fn number(text: &[u8], i: usize) -> Result<usize, &'static str> {
    let mut j = i;
    if text[i] == b'0' {
        while j < text.len() && text[j] == b'0' {
            j += 1;
        }
        let after_zeros = j;
        j = digits(text, j);
        if text.get(j) == Some(&b'.') {
            return Ok(digits(text, j + 1));
        }
        if j > after_zeros {
            return Err(
                "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
            );
        }
        return Ok(j);
    }
    j = digits(text, j);
    if text.get(j) == Some(&b'.') {
        j = digits(text, j + 1);
    }
    Ok(j)
}

/// An operation of the program.
#[derive(Debug, Clone)]
pub enum Op {
    /// Push a constant.
    Const(Value),
    /// Unary `-` (`true`) or `+`.
    Unary(bool),
    /// A binary operator on the two top values.
    Binary(BinOp),
    /// A call of the value below its argument (if any).
    Call(Arg),
}

/// A parsed expression: its operations in evaluation order.
#[derive(Debug)]
pub struct Program {
    /// The operations, postfix.
    pub ops: Vec<Op>,
}

/// Why a rule did not produce a node.
enum Stop {
    /// No match here (PEG backtracks).
    NoMatch,
    /// An error that ends the parse.
    Abort(Abort),
}

enum Abort {
    Syntax(String),
    Other(String),
}

type R<T> = Result<T, Stop>;

struct Parser<'a> {
    text: &'a [u8],
    tokens: &'a [Token],
    tail: &'a Tail,
    /// The second pass: `invalid_*` rules on.
    invalid: bool,
    depth: usize,
    ops: Vec<Op>,
    /// Operation nesting of each pushed value (for the compiler's limit).
    nesting: Vec<usize>,
}

/// Reads `text` as CPython's `eval` would compile it.
pub fn parse(text: &[u8]) -> Result<Program, String> {
    let (tokens, tail) = tokenize(text);
    if tokens.is_empty() && matches!(tail, Tail::End) {
        return Err("invalid syntax (<string>, line 0)".into());
    }
    let tokenizer_error = match &tail {
        Tail::Error(message) => Some(message.clone()),
        _ => None,
    };
    let mut parser = Parser {
        text,
        tokens: &tokens,
        tail: &tail,
        invalid: false,
        depth: DEPTH_BASE,
        ops: Vec::new(),
        nesting: Vec::new(),
    };
    let failure = match parser.top() {
        Ok(()) => {
            if parser.nesting.last().copied().unwrap_or(0) >= MAX_COMPILE_DEPTH {
                return Err("maximum recursion depth exceeded during compilation".into());
            }
            return Ok(Program { ops: parser.ops });
        }
        Err(Stop::Abort(abort)) => abort,
        Err(Stop::NoMatch) => {
            parser.invalid = true;
            parser.depth = DEPTH_BASE;
            match parser.top() {
                Err(Stop::Abort(abort)) => abort,
                _ => Abort::Syntax(syntax("invalid syntax")),
            }
        }
    };
    match failure {
        // A tokenizer error anywhere in the input outranks the parser's.
        Abort::Syntax(message) => Err(tokenizer_error.unwrap_or(message)),
        Abort::Other(message) => Err(message),
    }
}

impl Parser<'_> {
    fn peek(&self, i: usize) -> R<Kind> {
        if let Some(token) = self.tokens.get(i) {
            return Ok(token.kind);
        }
        match self.tail {
            Tail::End => Ok(Kind::End),
            Tail::NeverClosed => Err(Stop::Abort(Abort::Syntax(syntax("'(' was never closed")))),
            Tail::Error(message) => Err(Stop::Abort(Abort::Syntax(message.clone()))),
        }
    }

    fn enter(&mut self, cost: usize) -> R<()> {
        self.depth += cost;
        if self.depth > MAX_PARSER_DEPTH {
            return Err(Stop::Abort(Abort::Other(OVERFLOW.into())));
        }
        Ok(())
    }

    fn push(&mut self, op: Op, operands: usize) {
        let below = self.nesting.len() - operands;
        let inner = self.nesting[below..].iter().copied().max();
        self.nesting.truncate(below);
        self.nesting.push(match op {
            Op::Const(_) => 0,
            _ => inner.unwrap_or(0) + 1,
        });
        self.ops.push(op);
    }

    /// Undoes the pushes after a failed alternative.
    fn rewind(&mut self, ops: usize, values: usize) {
        self.ops.truncate(ops);
        self.nesting.truncate(values);
    }

    fn top(&mut self) -> R<()> {
        self.ops.clear();
        self.nesting.clear();
        let end = self.expression(0)?;
        match self.peek(end)? {
            Kind::End => Ok(()),
            _ => Err(Stop::NoMatch),
        }
    }

    /// `expression`, with `invalid_expression` first in the second pass.
    fn expression(&mut self, pos: usize) -> R<usize> {
        let end = self.sum(pos)?;
        if self.invalid {
            let (ops, values) = (self.ops.len(), self.nesting.len());
            self.invalid = false;
            let b = self.sum(end);
            self.invalid = true;
            self.rewind(ops, values);
            match b {
                Ok(b_end) if self.tokens[b_end - 1].level != 0 => {
                    return Err(Stop::Abort(Abort::Syntax(syntax(
                        "invalid syntax. Perhaps you forgot a comma?",
                    ))));
                }
                Err(Stop::Abort(abort)) => return Err(Stop::Abort(abort)),
                _ => {}
            }
        }
        Ok(end)
    }

    fn binary_loop(
        &mut self,
        pos: usize,
        ops: &[(Kind, BinOp)],
        operand: fn(&mut Self, usize) -> R<usize>,
    ) -> R<usize> {
        let mut end = operand(self, pos)?;
        loop {
            let kind = self.peek(end)?;
            let Some(&(_, op)) = ops.iter().find(|(k, _)| *k == kind) else {
                return Ok(end);
            };
            let (saved_ops, saved_values) = (self.ops.len(), self.nesting.len());
            match operand(self, end + 1) {
                Ok(next) => {
                    self.push(Op::Binary(op), 2);
                    end = next;
                }
                Err(Stop::NoMatch) => {
                    self.rewind(saved_ops, saved_values);
                    return Ok(end);
                }
                Err(abort) => return Err(abort),
            }
        }
    }

    fn sum(&mut self, pos: usize) -> R<usize> {
        self.binary_loop(
            pos,
            &[(Kind::Plus, BinOp::Add), (Kind::Minus, BinOp::Sub)],
            Self::term,
        )
    }

    fn term(&mut self, pos: usize) -> R<usize> {
        let ops = [
            (Kind::Star, BinOp::Mul),
            (Kind::Slash, BinOp::Div),
            (Kind::DoubleSlash, BinOp::FloorDiv),
        ];
        self.binary_loop(pos, &ops, Self::factor)
    }

    /// `factor: ('+' | '-') factor | power`, the signs counted in a loop.
    fn factor(&mut self, pos: usize) -> R<usize> {
        let depth = self.depth;
        let mut signs = Vec::new();
        let mut at = pos;
        loop {
            match self.peek(at)? {
                Kind::Minus => signs.push(true),
                Kind::Plus => signs.push(false),
                _ => break,
            }
            self.enter(DEPTH_UNARY)?;
            at += 1;
        }
        let end = self.power(at);
        self.depth = depth;
        let end = end?;
        for negative in signs.into_iter().rev() {
            self.push(Op::Unary(negative), 1);
        }
        Ok(end)
    }

    /// `power: primary '**' factor | primary`.
    fn power(&mut self, pos: usize) -> R<usize> {
        let end = self.primary(pos)?;
        if self.peek(end)? != Kind::DoubleStar {
            return Ok(end);
        }
        let (ops, values) = (self.ops.len(), self.nesting.len());
        let depth = self.depth;
        self.enter(DEPTH_POWER)?;
        let right = self.factor(end + 1);
        self.depth = depth;
        match right {
            Ok(next) => {
                self.push(Op::Binary(BinOp::Pow), 2);
                Ok(next)
            }
            Err(Stop::NoMatch) => {
                self.rewind(ops, values);
                Ok(end)
            }
            Err(abort) => Err(abort),
        }
    }

    /// `primary: atom ('(' [arguments] ')' | '.' NAME)*`.
    fn primary(&mut self, pos: usize) -> R<usize> {
        let mut end = self.atom(pos)?;
        loop {
            match self.peek(end)? {
                Kind::LPar => {
                    let (ops, values) = (self.ops.len(), self.nesting.len());
                    match self.call(end) {
                        Ok(next) => end = next,
                        Err(Stop::NoMatch) => {
                            self.rewind(ops, values);
                            return Ok(end);
                        }
                        Err(abort) => return Err(abort),
                    }
                }
                Kind::Dot => {
                    // '.' NAME: no name can follow, but the token is read.
                    self.peek(end + 1)?;
                    return Ok(end);
                }
                _ => return Ok(end),
            }
        }
    }

    fn call(&mut self, pos: usize) -> R<usize> {
        let depth = self.depth;
        self.enter(DEPTH_PAREN)?;
        let result = self.call_inside(pos + 1);
        self.depth = depth;
        result
    }

    fn call_inside(&mut self, pos: usize) -> R<usize> {
        let (arg, end) = match self.peek(pos)? {
            Kind::RPar => (Arg::None, pos),
            Kind::Star => (Arg::Star, self.expression(pos + 1)?),
            Kind::DoubleStar => (Arg::DoubleStar, self.expression(pos + 1)?),
            _ => (Arg::Plain, self.expression(pos)?),
        };
        if self.peek(end)? != Kind::RPar {
            return Err(Stop::NoMatch);
        }
        let operands = if arg == Arg::None { 1 } else { 2 };
        if matches!(arg, Arg::Star | Arg::DoubleStar) {
            // The `Starred` / keyword node around the argument.
            if let Some(last) = self.nesting.last_mut() {
                *last += 1;
            }
        }
        self.push(Op::Call(arg), operands);
        Ok(end + 1)
    }

    fn atom(&mut self, pos: usize) -> R<usize> {
        match self.peek(pos)? {
            Kind::Number => {
                let token = self.tokens[pos];
                let value = number_value(&self.text[token.start..token.end])
                    .map_err(|m| Stop::Abort(Abort::Syntax(syntax(&m))))?;
                self.push(Op::Const(value), 0);
                Ok(pos + 1)
            }
            Kind::Ellipsis => {
                self.push(Op::Const(Value::Ellipsis), 0);
                Ok(pos + 1)
            }
            Kind::LPar => {
                let depth = self.depth;
                self.enter(DEPTH_PAREN)?;
                let result = self.group(pos + 1);
                self.depth = depth;
                result
            }
            _ => Err(Stop::NoMatch),
        }
    }

    /// After `(`: `()`, a parenthesized expression, or (second pass) a
    /// starred one, which `invalid_group` reports.
    fn group(&mut self, pos: usize) -> R<usize> {
        let starred = match self.peek(pos)? {
            Kind::RPar => {
                self.push(Op::Const(Value::Tuple), 0);
                return Ok(pos + 1);
            }
            Kind::Star => Some("cannot use starred expression here"),
            Kind::DoubleStar if self.invalid => Some("cannot use double starred expression here"),
            Kind::DoubleStar => return Err(Stop::NoMatch),
            _ => None,
        };
        let inner = if starred.is_some() { pos + 1 } else { pos };
        let end = self.expression(inner)?;
        if self.peek(end)? != Kind::RPar {
            return Err(Stop::NoMatch);
        }
        match starred {
            Some(message) if self.invalid => Err(Stop::Abort(Abort::Syntax(syntax(message)))),
            Some(_) => Err(Stop::NoMatch),
            None => Ok(end + 1),
        }
    }
}

/// The value of a number token: an `int` (at most 4,300 digits) or a
/// `float` (correctly rounded, `inf` beyond the range).
fn number_value(text: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(text).unwrap_or("0");
    if text.contains('.') {
        return Ok(Value::Float(text.parse().unwrap_or(f64::NAN)));
    }
    let significant = text.trim_start_matches('0').len();
    if significant > MAX_INT_DIGITS {
        return Err(format!(
            "Exceeds the limit ({MAX_INT_DIGITS} digits) for integer string conversion: value has {significant} digits; use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals to avoid decimal conversion limits."
        ));
    }
    // At most 4,300 digits, well below `INT_BITS_LIMIT`.
    let value: BigInt = text.parse().unwrap_or_default();
    Ok(Value::Int(value))
}

//! Python 3.11's expression grammar (`ast.parse(text, mode="eval")`), to a
//! small tree: exactly the texts Python parses are accepted, and the nodes
//! the BFCL decoder looks at are kept (`Kind`); lambdas, comprehensions,
//! `await` and `yield` are parsed and kept only by kind.
//!
//! No tree is deeper than [`PY_EXPR_MAX_DEPTH`] (checked as each node is
//! built), so every later walk of it recurses a bounded number of times.

pub(crate) use super::expr::{Expr, Kind, Param, UnOp};
use super::lexer::{StrTok, Tok, tokenize};
use crate::benchmarks::python::{PyStr, PyValue};
use crate::spec::limits::PY_EXPR_MAX_DEPTH;

/// Parses `text` as `ast.parse(text, mode="eval")` does (the text's
/// newlines already translated to `\n`).
pub(crate) fn parse_eval(text: &[char]) -> Result<Expr, String> {
    let toks = tokenize(text)?;
    let mut p = Parser {
        t: &toks,
        i: 0,
        depth: 0,
    };
    let e = p.expressions()?;
    while p.peek() == Some(&Tok::Newline) {
        p.i += 1;
    }
    if p.i != toks.len() {
        return p.err("invalid syntax");
    }
    Ok(e)
}

/// Parses the inside of an f-string's replacement field as Python does
/// (`(` + text + `)`).
pub(crate) fn parse_fstring_field(text: &[char]) -> Result<(), String> {
    let toks = tokenize(text)?;
    let mut p = Parser {
        t: &toks,
        i: 0,
        depth: 0,
    };
    if p.peek() == Some(&Tok::Kw("yield")) {
        p.yield_expr()?;
    } else {
        p.star_expressions()?;
    }
    if p.i != toks.len() {
        return p.err("f-string: invalid syntax");
    }
    Ok(())
}

pub(crate) struct Parser<'a> {
    t: &'a [Tok],
    i: usize,
    depth: usize,
}

type R = Result<Expr, String>;

fn boxed(e: Expr) -> Box<Expr> {
    Box::new(e)
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.t.get(self.i + k)
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Some(Tok::Kw(k)) if *k == kw)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        let yes = self.is_op(op);
        self.i += usize::from(yes);
        yes
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        let yes = self.is_kw(kw);
        self.i += usize::from(yes);
        yes
    }

    fn expect_op(&mut self, op: &str) -> Result<(), String> {
        if self.eat_op(op) {
            Ok(())
        } else {
            self.err(&format!("expected '{op}'"))
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} (at token {})", self.i))
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > PY_EXPR_MAX_DEPTH {
            return self.err("an expression nested too deeply (itc's limit)");
        }
        Ok(())
    }

    /// Whether the next token closes a sequence (`)`, `]`, `}`) or ends the text.
    fn at_close(&self) -> bool {
        matches!(
            self.peek(),
            None | Some(Tok::Newline) | Some(Tok::Op(")" | "]" | "}"))
        )
    }

    /// `expressions`: one expression, or a tuple without parentheses.
    fn expressions(&mut self) -> R {
        let first = self.expression()?;
        if !self.is_op(",") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") {
            if self.at_close() {
                break;
            }
            items.push(self.expression()?);
        }
        Expr::new(Kind::Tuple(items))
    }

    /// `star_expressions` (an f-string field).
    fn star_expressions(&mut self) -> R {
        let first = self.star_expression()?;
        if !self.is_op(",") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") {
            if self.at_close() {
                break;
            }
            items.push(self.star_expression()?);
        }
        Expr::new(Kind::Tuple(items))
    }

    fn star_expression(&mut self) -> R {
        if self.eat_op("*") {
            let e = self.bitwise_or()?;
            return Expr::new(Kind::Starred(boxed(e)));
        }
        self.expression()
    }

    /// `expression`: a conditional expression, a lambda or a disjunction.
    pub(crate) fn expression(&mut self) -> R {
        self.enter()?;
        let r = self.expression_inner();
        self.depth -= 1;
        r
    }

    fn expression_inner(&mut self) -> R {
        if self.is_kw("lambda") {
            return self.lambda();
        }
        let body = self.disjunction()?;
        if !self.eat_kw("if") {
            return Ok(body);
        }
        let test = self.disjunction()?;
        if !self.eat_kw("else") {
            return self.err("expected 'else' after 'if' expression");
        }
        let orelse = self.expression()?;
        Expr::new(Kind::IfExp(boxed(body), boxed(test), boxed(orelse)))
    }

    /// `named_expression`: `NAME := expression` or an expression.
    fn named_expression(&mut self) -> R {
        if matches!(self.peek(), Some(Tok::Name(_)))
            && matches!(self.peek_at(1), Some(Tok::Op(":=")))
        {
            let Some(Tok::Name(n)) = self.peek().cloned() else {
                unreachable!()
            };
            self.i += 2;
            let value = self.expression()?;
            let target = Expr::new(Kind::Name(n))?;
            return Expr::new(Kind::Named(boxed(target), boxed(value)));
        }
        let e = self.expression()?;
        if self.is_op(":=") {
            return self.err("cannot use assignment expressions with this target");
        }
        Ok(e)
    }

    /// `star_named_expression`: `*a` or a named expression.
    fn star_named_expression(&mut self) -> R {
        if self.eat_op("*") {
            let e = self.bitwise_or()?;
            return Expr::new(Kind::Starred(boxed(e)));
        }
        self.named_expression()
    }

    fn lambda(&mut self) -> R {
        self.i += 1; // lambda
        let mut params = Vec::new();
        self.lambda_params(&mut params)?;
        self.expect_op(":")?;
        let body = self.expression()?;
        Expr::new(Kind::Lambda(params, boxed(body)))
    }

    /// Lambda parameters, with the order rules of Python's grammar.
    fn lambda_params(&mut self, params: &mut Vec<Param>) -> Result<(), String> {
        let (mut seen_default, mut seen_star, mut seen_slash, mut kwargs) =
            (false, false, false, false);
        let mut bare_star_needs_kw = false;
        let mut count = 0;
        while !self.is_op(":") {
            if kwargs {
                return self.err("arguments cannot follow var-keyword argument");
            }
            if self.eat_op("/") {
                if seen_slash || seen_star || count == 0 {
                    return self.err("invalid '/' in lambda parameters");
                }
                seen_slash = true;
                params.push(Param {
                    text: "/".into(),
                    default: None,
                });
            } else if self.eat_op("**") {
                let name = self.param_name()?;
                params.push(Param {
                    text: format!("**{name}"),
                    default: None,
                });
                if bare_star_needs_kw {
                    return self.err("named arguments must follow bare *");
                }
                kwargs = true;
            } else if self.eat_op("*") {
                if seen_star {
                    return self.err("* argument may appear only once");
                }
                seen_star = true;
                let text = if let Some(Tok::Name(n)) = self.peek().cloned() {
                    self.i += 1;
                    format!("*{n}")
                } else {
                    bare_star_needs_kw = true;
                    "*".into()
                };
                params.push(Param {
                    text,
                    default: None,
                });
            } else {
                let name = self.param_name()?;
                let default = if self.eat_op("=") {
                    Some(self.expression()?)
                } else {
                    None
                };
                let has_default = default.is_some();
                params.push(Param {
                    text: name,
                    default,
                });
                if has_default {
                    if !seen_star {
                        seen_default = true;
                    }
                } else if seen_default && !seen_star {
                    return self.err("non-default argument follows default argument");
                }
                if seen_star {
                    bare_star_needs_kw = false;
                }
            }
            count += 1;
            if !self.eat_op(",") {
                break;
            }
        }
        if bare_star_needs_kw {
            return self.err("named arguments must follow bare *");
        }
        Ok(())
    }

    fn param_name(&mut self) -> Result<String, String> {
        if let Some(Tok::Name(n)) = self.peek().cloned() {
            self.i += 1;
            Ok(n)
        } else {
            self.err("expected a parameter name")
        }
    }

    fn disjunction(&mut self) -> R {
        self.bool_chain("or")
    }

    fn bool_chain(&mut self, op: &'static str) -> R {
        let first = if op == "or" {
            self.bool_chain("and")?
        } else {
            self.inversion()?
        };
        if !self.is_kw(op) {
            return Ok(first);
        }
        let mut values = vec![first];
        while self.eat_kw(op) {
            values.push(if op == "or" {
                self.bool_chain("and")?
            } else {
                self.inversion()?
            });
        }
        Expr::new(Kind::BoolOp(op == "and", values))
    }

    /// `not` prefixes (a loop, not recursion) and a comparison.
    fn inversion(&mut self) -> R {
        let mut nots = 0;
        while self.eat_kw("not") {
            nots += 1;
            if nots > PY_EXPR_MAX_DEPTH {
                return self.err("an expression nested too deeply (itc's limit)");
            }
        }
        let mut e = self.comparison()?;
        for _ in 0..nots {
            e = Expr::new(Kind::Unary(UnOp::Not, boxed(e)))?;
        }
        Ok(e)
    }

    fn compare_op(&mut self) -> Option<&'static str> {
        let op = match self.peek()? {
            Tok::Op(o @ ("==" | "!=" | "<" | "<=" | ">" | ">=")) => *o,
            Tok::Kw("in") => "in",
            Tok::Kw("not") if self.peek_at(1) == Some(&Tok::Kw("in")) => {
                self.i += 1;
                "not in"
            }
            Tok::Kw("is") if self.peek_at(1) == Some(&Tok::Kw("not")) => {
                self.i += 1;
                "is not"
            }
            Tok::Kw("is") => "is",
            _ => return None,
        };
        self.i += 1;
        Some(op)
    }

    fn comparison(&mut self) -> R {
        let first = self.bitwise_or()?;
        let mut rest = Vec::new();
        while let Some(op) = self.compare_op() {
            rest.push((op, self.bitwise_or()?));
        }
        if rest.is_empty() {
            Ok(first)
        } else {
            Expr::new(Kind::Compare(boxed(first), rest))
        }
    }

    /// The binary operators from `|` down to `*`, by precedence climbing.
    fn bitwise_or(&mut self) -> R {
        self.binary(0)
    }

    fn binary(&mut self, level: usize) -> R {
        const LEVELS: [&[&str]; 6] = [
            &["|"],
            &["^"],
            &["&"],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "//", "%", "@"],
        ];
        if level == LEVELS.len() {
            return self.factor();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(Tok::Op(op)) = self.peek() {
            let Some(op) = LEVELS[level].iter().find(|o| *o == op).copied() else {
                break;
            };
            self.i += 1;
            let right = self.binary(level + 1)?;
            left = Expr::new(Kind::Bin(boxed(left), op, boxed(right)))?;
        }
        Ok(left)
    }

    /// Unary `+`, `-`, `~` prefixes (a loop) and a power.
    fn factor(&mut self) -> R {
        let mut ops = Vec::new();
        loop {
            let op = match self.peek() {
                Some(Tok::Op("-")) => UnOp::Neg,
                Some(Tok::Op("+")) => UnOp::Pos,
                Some(Tok::Op("~")) => UnOp::Invert,
                _ => break,
            };
            self.i += 1;
            ops.push(op);
            if ops.len() > PY_EXPR_MAX_DEPTH {
                return self.err("an expression nested too deeply (itc's limit)");
            }
        }
        let mut e = self.power()?;
        while let Some(op) = ops.pop() {
            e = Expr::new(Kind::Unary(op, boxed(e)))?;
        }
        Ok(e)
    }

    /// `a ** b`: right-associative, its right side a factor.
    fn power(&mut self) -> R {
        let base = self.await_primary()?;
        if !self.eat_op("**") {
            return Ok(base);
        }
        self.enter()?;
        let exp = self.factor();
        self.depth -= 1;
        Expr::new(Kind::Bin(boxed(base), "**", boxed(exp?)))
    }

    fn await_primary(&mut self) -> R {
        if self.eat_kw("await") {
            self.enter()?;
            let e = self.primary();
            self.depth -= 1;
            return Expr::new(Kind::Other("Await", vec![e?]));
        }
        self.primary()
    }

    /// An atom and its trailers: `.name`, `(args)`, `[slices]`.
    fn primary(&mut self) -> R {
        let mut e = self.atom()?;
        loop {
            if self.eat_op(".") {
                let Some(Tok::Name(n)) = self.peek().cloned() else {
                    return self.err("expected a name after '.'");
                };
                self.i += 1;
                e = Expr::new(Kind::Attribute(boxed(e), n))?;
            } else if self.eat_op("(") {
                e = self.call(e)?;
            } else if self.eat_op("[") {
                let s = self.slices()?;
                self.expect_op("]")?;
                e = Expr::new(Kind::Subscript(boxed(e), boxed(s)))?;
            } else {
                return Ok(e);
            }
        }
    }

    /// A call's arguments, after `(`.
    fn call(&mut self, func: Expr) -> R {
        let mut args = Vec::new();
        let mut kws: Vec<(Option<String>, Expr)> = Vec::new();
        let mut seen_kw = false;
        let mut seen_dstar = false;
        let mut count = 0;
        while !self.is_op(")") {
            if self.eat_op("**") {
                kws.push((None, self.expression()?));
                seen_dstar = true;
            } else if self.eat_op("*") {
                if seen_dstar {
                    return self
                        .err("iterable argument unpacking follows keyword argument unpacking");
                }
                let e = self.expression()?;
                args.push(Expr::new(Kind::Starred(boxed(e)))?);
            } else if let (Some(Tok::Name(n)), Some(Tok::Op("="))) =
                (self.peek().cloned(), self.peek_at(1))
            {
                self.i += 2;
                kws.push((Some(n), self.expression()?));
                seen_kw = true;
            } else {
                let e = self.named_expression()?;
                if self.is_op("=") {
                    return self.err("expression cannot contain assignment");
                }
                let e = if self.is_kw("for") || self.is_kw("async") {
                    let genexp = self.comprehension("GeneratorExp", vec![e])?;
                    if count > 0 || !self.is_op(")") {
                        return self.err("Generator expression must be parenthesized");
                    }
                    genexp
                } else {
                    e
                };
                if seen_dstar {
                    return self.err("positional argument follows keyword argument unpacking");
                }
                if seen_kw {
                    return self.err("positional argument follows keyword argument");
                }
                args.push(e);
            }
            count += 1;
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op(")")?;
        Expr::new(Kind::Call(boxed(func), args, kws))
    }

    /// What is inside `[` `]` of a subscript.
    fn slices(&mut self) -> R {
        let first = self.slice()?;
        if !self.is_op(",") {
            if matches!(first.kind, Kind::Starred(_)) {
                // `x[*a]` is `x[(*a,)]`.
                return Expr::new(Kind::Tuple(vec![first]));
            }
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") {
            if self.is_op("]") {
                break;
            }
            items.push(self.slice()?);
        }
        Expr::new(Kind::Tuple(items))
    }

    fn slice(&mut self) -> R {
        if self.eat_op("*") {
            let e = self.bitwise_or()?;
            return Expr::new(Kind::Starred(boxed(e)));
        }
        let lower = if self.is_op(":") {
            None
        } else {
            let e = self.named_expression()?;
            if !self.is_op(":") {
                return Ok(e);
            }
            if matches!(e.kind, Kind::Named(..)) {
                return self.err("invalid syntax");
            }
            Some(boxed(e))
        };
        self.expect_op(":")?;
        let bound = |p: &mut Self| -> Result<Option<Box<Expr>>, String> {
            if p.is_op(":") || p.is_op(",") || p.is_op("]") {
                Ok(None)
            } else {
                Ok(Some(boxed(p.expression()?)))
            }
        };
        let upper = bound(self)?;
        let step = if self.eat_op(":") { bound(self)? } else { None };
        Expr::new(Kind::Slice(lower, upper, step))
    }

    /// `for … in … if …` clauses after the element(s) of a comprehension.
    fn comprehension(&mut self, kind: &'static str, mut kids: Vec<Expr>) -> R {
        loop {
            let is_async = self.eat_kw("async");
            if !self.eat_kw("for") {
                if is_async {
                    return self.err("expected 'for' after 'async'");
                }
                break;
            }
            kids.push(self.targets()?);
            if !self.eat_kw("in") {
                return self.err("expected 'in'");
            }
            kids.push(self.disjunction()?);
            while self.eat_kw("if") {
                kids.push(self.disjunction()?);
            }
        }
        Expr::new(Kind::Other(kind, kids))
    }

    /// The target list of a `for` clause (`x`, `a, b`, `(a, *b)`, `x.y`, `x[0]`).
    fn targets(&mut self) -> R {
        let mut items = Vec::new();
        loop {
            let e = if self.eat_op("*") {
                let e = self.bitwise_or()?;
                Expr::new(Kind::Starred(boxed(e)))?
            } else {
                self.bitwise_or()?
            };
            if !is_target(&e) {
                return self.err("cannot assign to this expression");
            }
            items.push(e);
            if !self.eat_op(",") || self.is_kw("in") {
                break;
            }
        }
        if items.len() == 1 && !matches!(items[0].kind, Kind::Starred(_)) {
            return Ok(items.pop().expect("one target"));
        }
        Expr::new(Kind::Tuple(items))
    }
    fn atom(&mut self) -> R {
        let Some(tok) = self.peek().cloned() else {
            return self.err("unexpected end of the text");
        };
        self.i += 1;
        match tok {
            Tok::Name(n) => Expr::new(Kind::Name(n)),
            Tok::Kw("True") => Ok(Expr::constant(PyValue::Bool(true))),
            Tok::Kw("False") => Ok(Expr::constant(PyValue::Bool(false))),
            Tok::Kw("None") => Ok(Expr::constant(PyValue::None)),
            Tok::Num(v) => Ok(Expr::constant(v)),
            Tok::Str(first, u) => self.strings(first, u),
            Tok::Op("...") => Expr::new(Kind::Ellipsis),
            Tok::Op("(") => self.paren(),
            Tok::Op("[") => self.list(),
            Tok::Op("{") => self.brace(),
            _ => {
                self.i -= 1;
                self.err("invalid syntax")
            }
        }
    }

    /// Adjacent string literals, concatenated (an f-string among them makes
    /// the whole an f-string; bytes and str do not mix).
    fn strings(&mut self, first: StrTok, u: bool) -> R {
        let mut parts = vec![first];
        while let Some(Tok::Str(next, _)) = self.peek() {
            parts.push(next.clone());
            self.i += 1;
        }
        let bytes = parts
            .iter()
            .filter(|p| matches!(p, StrTok::Bytes(_)))
            .count();
        if bytes != 0 && bytes != parts.len() {
            return self.err("cannot mix bytes and nonbytes literals");
        }
        let mut fstring = false;
        for p in &parts {
            if let StrTok::FString(body) = p {
                super::fstring::check(body, &parse_fstring_field)?;
                fstring = true;
            }
        }
        if fstring {
            return Expr::new(Kind::FString);
        }
        let v = if bytes != 0 {
            let mut all = Vec::new();
            for p in parts {
                if let StrTok::Bytes(b) = p {
                    all.extend(b);
                }
            }
            PyValue::Bytes(all)
        } else {
            let mut all = Vec::new();
            for p in parts {
                if let StrTok::Str(s) = p {
                    all.extend(s);
                }
            }
            PyValue::Str(PyStr(all))
        };
        Expr::new(Kind::Const(v, u))
    }

    /// After `(`: `()`, a group, a tuple, a generator expression or `(yield)`.
    fn paren(&mut self) -> R {
        self.enter()?;
        let r = self.paren_inner();
        self.depth -= 1;
        r
    }

    fn paren_inner(&mut self) -> R {
        if self.eat_op(")") {
            return Expr::new(Kind::Tuple(Vec::new()));
        }
        if self.is_kw("yield") {
            let e = self.yield_expr()?;
            self.expect_op(")")?;
            return Ok(e);
        }
        let first = self.star_named_expression()?;
        if self.is_kw("for") || self.is_kw("async") {
            if matches!(first.kind, Kind::Starred(_)) {
                return self.err("iterable unpacking cannot be used in comprehension");
            }
            let e = self.comprehension("GeneratorExp", vec![first])?;
            self.expect_op(")")?;
            return Ok(e);
        }
        if self.eat_op(")") {
            if matches!(first.kind, Kind::Starred(_)) {
                return self.err("cannot use starred expression here");
            }
            return Ok(first);
        }
        self.expect_op(",")?;
        let mut items = vec![first];
        while !self.is_op(")") {
            items.push(self.star_named_expression()?);
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op(")")?;
        Expr::new(Kind::Tuple(items))
    }

    fn yield_expr(&mut self) -> R {
        self.i += 1; // yield
        if self.eat_kw("from") {
            let e = self.expression()?;
            return Expr::new(Kind::Other("YieldFrom", vec![e]));
        }
        if self.at_close() {
            return Expr::new(Kind::Other("Yield", Vec::new()));
        }
        let e = self.star_expressions()?;
        Expr::new(Kind::Other("Yield", vec![e]))
    }

    /// After `[`: a list or a list comprehension.
    fn list(&mut self) -> R {
        self.enter()?;
        let r = self.list_inner();
        self.depth -= 1;
        r
    }

    fn list_inner(&mut self) -> R {
        let mut items = Vec::new();
        while !self.is_op("]") {
            let e = self.star_named_expression()?;
            if items.is_empty() && (self.is_kw("for") || self.is_kw("async")) {
                if matches!(e.kind, Kind::Starred(_)) {
                    return self.err("iterable unpacking cannot be used in comprehension");
                }
                let c = self.comprehension("ListComp", vec![e])?;
                self.expect_op("]")?;
                return Ok(c);
            }
            items.push(e);
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op("]")?;
        Expr::new(Kind::List(items))
    }

    /// After `{`: a dict, a set, or their comprehensions.
    fn brace(&mut self) -> R {
        self.enter()?;
        let r = self.brace_inner();
        self.depth -= 1;
        r
    }

    fn brace_inner(&mut self) -> R {
        if self.eat_op("}") {
            return Expr::new(Kind::Dict(Vec::new()));
        }
        if self.is_op("**") {
            return self.dict(Vec::new());
        }
        // A dict when the first item is `expression ':'` (read once).
        let first = self.star_named_expression()?;
        if self.is_op(":") && !matches!(first.kind, Kind::Starred(_) | Kind::Named(..)) {
            self.i += 1;
            let v = self.expression()?;
            if self.is_kw("for") || self.is_kw("async") {
                let c = self.comprehension("DictComp", vec![first, v])?;
                self.expect_op("}")?;
                return Ok(c);
            }
            let entries = vec![(Some(first), v)];
            if !self.eat_op(",") {
                self.expect_op("}")?;
                return Expr::new(Kind::Dict(entries));
            }
            return self.dict(entries);
        }
        let mut items = vec![first];
        if self.is_kw("for") || self.is_kw("async") {
            if matches!(items[0].kind, Kind::Starred(_)) {
                return self.err("iterable unpacking cannot be used in comprehension");
            }
            let c = self.comprehension("SetComp", items)?;
            self.expect_op("}")?;
            return Ok(c);
        }
        if !self.eat_op(",") {
            self.expect_op("}")?;
            return Expr::new(Kind::Set(items));
        }
        while !self.is_op("}") {
            let e = self.star_named_expression()?;
            items.push(e);
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op("}")?;
        Expr::new(Kind::Set(items))
    }

    /// The rest of a dict display, after the entries already read.
    fn dict(&mut self, mut entries: Vec<(Option<Expr>, Expr)>) -> R {
        while !self.is_op("}") {
            if self.eat_op("**") {
                entries.push((None, self.bitwise_or()?));
            } else {
                let k = self.expression()?;
                self.expect_op(":")?;
                let v = self.expression()?;
                entries.push((Some(k), v));
            }
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op("}")?;
        Expr::new(Kind::Dict(entries))
    }
}

/// Whether an expression can be assigned to (a comprehension's target).
fn is_target(e: &Expr) -> bool {
    match &e.kind {
        Kind::Name(_) | Kind::Attribute(..) | Kind::Subscript(..) => true,
        Kind::Starred(inner) => is_target(inner) && !matches!(inner.kind, Kind::Starred(_)),
        Kind::List(items) | Kind::Tuple(items) => items.iter().all(is_target),
        _ => false,
    }
}

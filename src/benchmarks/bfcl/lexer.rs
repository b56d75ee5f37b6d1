//! Python 3.11's tokenizer, for the one expression the BFCL decoder parses
//! (`ast.parse(text, mode="eval")`): names (NFKC-normalised, Unicode
//! identifiers), keywords, numbers, string literals (escapes read by
//! [`crate::benchmarks::python::literal`]), operators, and the newlines that end a
//! logical line outside brackets. Bracket matching and the nesting limit are
//! checked here, as Python's tokenizer does.

use unicode_normalization::UnicodeNormalization;

use crate::benchmarks::python::PyValue;
use crate::benchmarks::python::literal::string_literal_body;
use crate::benchmarks::python::value::{INT_MAX_STR_DIGITS, normalize_int};
use crate::spec::limits::PY_MAX_BRACKETS;

/// Python's keywords (soft keywords such as `match` are names).
const KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Operators, longest first.
const OPERATORS: [&str; 48] = [
    "**=", "//=", ">>=", "<<=", "...", "!=", "%=", "&=", "**", "*=", "+=", "-=", "->", "//", "/=",
    ":=", "<<", "<=", "<>", "==", ">=", ">>", "@=", "^=", "|=", "%", "&", "(", ")", "*", "+", ",",
    "-", ".", "/", ":", ";", "<", "=", ">", "@", "[", "]", "^", "{", "|", "}", "~",
];

/// One string literal token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StrTok {
    /// A `str` literal: its code points.
    Str(Vec<u32>),
    /// A `bytes` literal.
    Bytes(Vec<u8>),
    /// An f-string's body, as written (its value is never needed: a
    /// JoinedStr fails to decode; the parser checks its syntax).
    FString(Vec<char>),
}

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// An identifier (NFKC-normalised).
    Name(String),
    /// A keyword.
    Kw(&'static str),
    /// A number literal (`int` as decimal text, `float`, imaginary).
    Num(PyValue),
    /// A string literal; `u` when its prefix holds `u` (kept by `ast.unparse`).
    Str(StrTok, bool),
    /// An operator or delimiter.
    Op(&'static str),
    /// The end of a logical line (outside brackets).
    Newline,
}

/// Tokenizes `text` (newlines already translated to `\n`).
pub(crate) fn tokenize(text: &[char]) -> Result<Vec<Tok>, String> {
    let mut lx = Lexer {
        s: text,
        i: 0,
        out: Vec::new(),
        brackets: Vec::new(),
    };
    lx.run()?;
    Ok(lx.out)
}

struct Lexer<'a> {
    s: &'a [char],
    i: usize,
    out: Vec<Tok>,
    brackets: Vec<char>,
}

fn is_id_start(c: char) -> bool {
    c == '_' || c.is_ascii_alphabetic() || (!c.is_ascii() && unicode_ident::is_xid_start(c))
}

fn is_id_continue(c: char) -> bool {
    c == '_' || c.is_ascii_alphanumeric() || (!c.is_ascii() && unicode_ident::is_xid_continue(c))
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} (at char {})", self.i))
    }

    fn run(&mut self) -> Result<(), String> {
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\x0c' => self.i += 1,
                '\n' => {
                    self.i += 1;
                    if self.brackets.is_empty() && !matches!(self.out.last(), Some(Tok::Newline)) {
                        self.out.push(Tok::Newline);
                    }
                }
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\\' => {
                    if self.peek(1) != Some('\n') {
                        return self.err("unexpected character after line continuation character");
                    }
                    self.i += 2;
                }
                '0'..='9' => self.number()?,
                '.' if self.peek(1).is_some_and(|c| c.is_ascii_digit()) => self.number()?,
                '\'' | '"' => self.string(false, false, false, false)?,
                _ if c.is_ascii_alphabetic() || c == '_' || !c.is_ascii() => self.word()?,
                _ => self.operator()?,
            }
        }
        if let Some(open) = self.brackets.last() {
            return self.err(&format!("'{open}' was never closed"));
        }
        Ok(())
    }

    fn operator(&mut self) -> Result<(), String> {
        let c = self.peek(0).expect("a character");
        let Some(op) = OPERATORS.iter().find(|op| {
            op.chars()
                .enumerate()
                .all(|(k, oc)| self.peek(k) == Some(oc))
        }) else {
            if c.is_control() {
                return self.err(&format!(
                    "invalid non-printable character U+{:04X}",
                    c as u32
                ));
            }
            return self.err(&format!("invalid character {c:?}"));
        };
        match *op {
            "(" | "[" | "{" => {
                if self.brackets.len() >= PY_MAX_BRACKETS {
                    return self.err("too many nested parentheses");
                }
                self.brackets.push(c);
            }
            ")" | "]" | "}" => {
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                match self.brackets.pop() {
                    Some(open) if open == want => {}
                    Some(open) => {
                        return self.err(&format!(
                            "closing parenthesis '{c}' does not match opening parenthesis '{open}'"
                        ));
                    }
                    None => return self.err(&format!("unmatched '{c}'")),
                }
            }
            _ => {}
        }
        self.i += op.len();
        self.out.push(Tok::Op(op));
        Ok(())
    }

    /// A name, a keyword, or the prefix of a string literal.
    fn word(&mut self) -> Result<(), String> {
        let start = self.i;
        while self
            .peek(0)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii())
        {
            self.i += 1;
        }
        let word: String = self.s[start..self.i].iter().collect();
        if matches!(self.peek(0), Some('\'' | '"')) {
            let lower = word.to_ascii_lowercase();
            if matches!(
                lower.as_str(),
                "r" | "u" | "b" | "br" | "rb" | "f" | "fr" | "rf"
            ) {
                return self.string(
                    lower.contains('r'),
                    lower.contains('b'),
                    lower.contains('f'),
                    // `ast.unparse` keeps a lowercase `u` prefix only.
                    word == "u",
                );
            }
        }
        let mut chars = word.chars();
        let first = chars.next().expect("a word is not empty");
        if !is_id_start(first) {
            self.i = start;
            return self.err(&format!("invalid character {first:?}"));
        }
        if let Some(bad) = chars.find(|&c| !is_id_continue(c)) {
            return self.err(&format!("invalid character {bad:?}"));
        }
        if let Some(kw) = KEYWORDS.iter().find(|k| **k == word) {
            self.out.push(Tok::Kw(kw));
        } else if word.is_ascii() {
            self.out.push(Tok::Name(word));
        } else {
            self.out.push(Tok::Name(word.nfkc().collect()));
        }
        Ok(())
    }

    fn string(&mut self, raw: bool, bytes: bool, fstring: bool, u: bool) -> Result<(), String> {
        let q = self.peek(0).expect("a quote");
        let triple = self.peek(1) == Some(q) && self.peek(2) == Some(q);
        let start = self.i + if triple { 3 } else { 1 };
        // An f-string's body is read raw here: only its end matters.
        let (body, end) = string_literal_body(self.s, start, q, triple, raw || fstring, bytes)
            .map_err(|e| format!("{e} (a string literal)"))?;
        let tok = if fstring {
            StrTok::FString(self.s[start..end - if triple { 3 } else { 1 }].to_vec())
        } else if bytes {
            StrTok::Bytes(body.iter().map(|&c| c as u8).collect())
        } else {
            StrTok::Str(body)
        };
        self.i = end;
        self.out.push(Tok::Str(tok, u));
        Ok(())
    }

    fn digits(&mut self, ok: impl Fn(char) -> bool) -> Result<usize, String> {
        let start = self.i;
        while let Some(c) = self.peek(0) {
            if ok(c) || (c == '_' && self.peek(1).is_some_and(&ok)) {
                self.i += 1;
            } else if c == '_' {
                return self.err("invalid decimal literal");
            } else {
                break;
            }
        }
        Ok(self.i - start)
    }

    fn number(&mut self) -> Result<(), String> {
        let start = self.i;
        let radix = match (self.peek(0), self.peek(1).map(|c| c.to_ascii_lowercase())) {
            (Some('0'), Some('x')) => 16,
            (Some('0'), Some('o')) => 8,
            (Some('0'), Some('b')) => 2,
            _ => 10,
        };
        if radix != 10 {
            self.i += 2;
            if self.peek(0) == Some('_') {
                self.i += 1;
            }
            let n = self.digits(|c| c.is_digit(radix))?;
            if let Some(c) = self.peek(0).filter(|c| c.is_ascii_digit()) {
                return self.err(&format!("invalid digit '{c}' in a base-{radix} literal"));
            }
            if n == 0 {
                return self.err("invalid number literal");
            }
            let digits: String = self.s[start + 2..self.i]
                .iter()
                .filter(|c| **c != '_')
                .collect();
            self.end_of_number()?;
            let v = u128::from_str_radix(&digits, radix).map_err(|_| {
                format!("an integer literal beyond 128 bits, not read by itc (at char {start})")
            })?;
            self.out.push(Tok::Num(PyValue::Int(v.to_string())));
            return Ok(());
        }
        let int_digits = self.digits(|c| c.is_ascii_digit())?;
        let mut is_float = false;
        if self.peek(0) == Some('.') {
            is_float = true;
            self.i += 1;
            if self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                self.digits(|c| c.is_ascii_digit())?;
            }
        }
        if matches!(self.peek(0), Some('e' | 'E')) {
            let sign = usize::from(matches!(self.peek(1), Some('+' | '-')));
            if self.peek(1 + sign).is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1 + sign;
                self.digits(|c| c.is_ascii_digit())?;
                is_float = true;
            } else if sign == 1 {
                return self.err("invalid decimal literal");
            }
        }
        let text: String = self.s[start..self.i]
            .iter()
            .filter(|c| **c != '_')
            .collect();
        if matches!(self.peek(0), Some('j' | 'J')) {
            self.i += 1;
            self.end_of_number()?;
            let x: f64 = text.parse().map_err(|_| format!("bad number {text:?}"))?;
            self.out.push(Tok::Num(PyValue::Complex(x)));
            return Ok(());
        }
        self.end_of_number()?;
        if is_float {
            let x: f64 = text.parse().map_err(|_| format!("bad number {text:?}"))?;
            self.out.push(Tok::Num(PyValue::Float(x)));
            return Ok(());
        }
        if int_digits > 1 && text.starts_with('0') && text.chars().any(|c| c != '0') {
            return self.err("leading zeros in decimal integer literals are not permitted");
        }
        if text.len() > INT_MAX_STR_DIGITS {
            return self.err("Exceeds the limit (4300 digits) for integer string conversion");
        }
        self.out.push(Tok::Num(PyValue::Int(normalize_int(&text))));
        Ok(())
    }

    /// Python's `verify_end_of_number`: a letter right after a number is an
    /// error, unless a keyword starts there (`1if x else 2`).
    fn end_of_number(&self) -> Result<(), String> {
        let Some(c) = self.peek(0) else {
            return Ok(());
        };
        if !(c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii()) {
            return Ok(());
        }
        let rest: String = self.s[self.i..(self.i + 5).min(self.s.len())]
            .iter()
            .collect();
        let keyword = ["and", "else", "for", "if", "in", "is", "not", "or"]
            .iter()
            .any(|k| rest.starts_with(k));
        if keyword {
            Ok(())
        } else {
            self.err("invalid decimal literal")
        }
    }
}

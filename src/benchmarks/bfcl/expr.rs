//! The tree [`pyexpr`](super::pyexpr) builds: the nodes the BFCL decoder
//! looks at (`Kind`), each with its depth, never deeper than
//! [`PY_EXPR_MAX_DEPTH`].

use crate::benchmarks::python::PyValue;
use crate::spec::limits::PY_EXPR_MAX_DEPTH;

/// A unary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnOp {
    /// `-`
    Neg,
    /// `+`
    Pos,
    /// `~`
    Invert,
    /// `not`
    Not,
}

/// One lambda parameter as `ast.unparse` writes it (`a`, `/`, `*`, `*a`,
/// `**a`), and its default.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Param {
    /// The parameter's text without its default.
    pub text: String,
    /// `= default`.
    pub default: Option<Expr>,
}

/// One expression node and the depth of the tree below it (1 for a leaf).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expr {
    /// What the node is.
    pub kind: Kind,
    /// Nodes on the longest path down from here.
    pub depth: usize,
}

/// The node kinds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// A name.
    Name(String),
    /// A constant; `true` for a string whose first literal has a `u` prefix.
    Const(PyValue, bool),
    /// `...`
    Ellipsis,
    /// An f-string (`ast.JoinedStr`).
    FString,
    /// `[a, b]`
    List(Vec<Expr>),
    /// `(a, b)`
    Tuple(Vec<Expr>),
    /// `{a, b}`
    Set(Vec<Expr>),
    /// `{k: v, **d}` (`None` key for `**d`).
    Dict(Vec<(Option<Expr>, Expr)>),
    /// `a.b`
    Attribute(Box<Expr>, String),
    /// `a[b]`
    Subscript(Box<Expr>, Box<Expr>),
    /// `a:b:c` inside a subscript.
    Slice(Option<Box<Expr>>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// `f(args, k=v, **d)` (`None` keyword for `**d`).
    Call(Box<Expr>, Vec<Expr>, Vec<(Option<String>, Expr)>),
    /// `*a`
    Starred(Box<Expr>),
    /// A unary operation.
    Unary(UnOp, Box<Expr>),
    /// A binary operation (the operator as Python writes it).
    Bin(Box<Expr>, &'static str, Box<Expr>),
    /// `a and b` (`true`) or `a or b`.
    BoolOp(bool, Vec<Expr>),
    /// `a < b <= c` (operators as Python writes them).
    Compare(Box<Expr>, Vec<(&'static str, Expr)>),
    /// `a if b else c`: body, test, orelse.
    IfExp(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a := b`
    Named(Box<Expr>, Box<Expr>),
    /// `lambda params: body`.
    Lambda(Vec<Param>, Box<Expr>),
    /// Another node (`ListComp`, `GeneratorExp`, `Await`, …),
    /// with its children.
    Other(&'static str, Vec<Expr>),
}

impl Expr {
    /// A node over `kind`, refused when the tree would be too deep.
    pub(crate) fn new(kind: Kind) -> Result<Expr, String> {
        let mut d = 0;
        let mut see = |e: &Expr| d = d.max(e.depth);
        match &kind {
            Kind::Name(_) | Kind::Const(..) | Kind::Ellipsis | Kind::FString => {}
            Kind::List(v) | Kind::Tuple(v) | Kind::Set(v) | Kind::BoolOp(_, v) => {
                v.iter().for_each(see)
            }
            Kind::Other(_, v) => v.iter().for_each(see),
            Kind::Lambda(params, body) => {
                params
                    .iter()
                    .filter_map(|p| p.default.as_ref())
                    .for_each(&mut see);
                see(body);
            }
            Kind::Dict(v) => v.iter().for_each(|(k, x)| {
                k.iter().for_each(&mut see);
                see(x);
            }),
            Kind::Attribute(a, _) | Kind::Starred(a) | Kind::Unary(_, a) => see(a),
            Kind::Subscript(a, b) | Kind::Bin(a, _, b) | Kind::Named(a, b) => {
                see(a);
                see(b);
            }
            Kind::Slice(a, b, c) => [a, b, c].into_iter().flatten().for_each(|e| see(e)),
            Kind::Call(f, args, kws) => {
                see(f);
                args.iter().for_each(&mut see);
                kws.iter().for_each(|(_, e)| see(e));
            }
            Kind::Compare(a, rest) => {
                see(a);
                rest.iter().for_each(|(_, e)| see(e));
            }
            Kind::IfExp(a, b, c) => {
                see(a);
                see(b);
                see(c);
            }
        }
        if d + 1 > PY_EXPR_MAX_DEPTH {
            return Err(format!(
                "an expression nested more than {PY_EXPR_MAX_DEPTH} levels deep (itc's limit)"
            ));
        }
        Ok(Expr { kind, depth: d + 1 })
    }

    /// A constant.
    pub(crate) fn constant(v: PyValue) -> Expr {
        Expr {
            kind: Kind::Const(v, false),
            depth: 1,
        }
    }
}

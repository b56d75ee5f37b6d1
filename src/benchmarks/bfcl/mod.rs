//! The Berkeley Function Calling Leaderboard (BFCL v4): its Python AST
//! categories read, converted to SPEC tasks, and scored exactly as its
//! official checker scores them (`itc ood score bfcl --compat official`),
//! without ever running Python or `eval`.
//!
//! - [`files`]: the question and possible-answer files (JSON Lines named `.json`).
//! - [`decode`]: `default_decode_ast_prompting`: a model's text to calls,
//!   arithmetic on literals done by a small bounded evaluator of our own.
//! - [`check`]: the simple, multiple and order-free parallel checkers, the
//!   type rules and "variable mode".
//! - [`check_values`]: string normalisation (Python's `lower()`), and the
//!   string, list, dict and list-of-dict value rules.
//! - [`verdict`]: the official error types, verdicts and checker failures.
//! - [`convert`]: questions to SPEC tasks, the possible answer kept on each
//!   ([`task_fields`]: a task's language and tools, single- or multi-turn).
//! - [`run`]: an itc run's answers scored by the official rules from the task file.
//! - [`official`]: the runner: dispatch by category name, relevance rules,
//!   accuracy as the score file's header states it.
//! - [`requests`]: the requests bfcl-eval sends a model, per API (its
//!   model handlers); [`ask`]: the multi-turn loop that sends them in `itc eval`.
//! - [`multi_turn`]: the multi-turn categories: the stateful API classes,
//!   the executor, result decoding and the official checker.
//! - [`leaderboard`]: the official leaderboard's aggregate columns (Overall,
//!   Non-Live, Live, Irrelevance, Relevance) from per-category figures.

pub mod arith;
pub mod ask;
pub mod check;
pub mod check_values;
pub mod convert;
pub mod decode;
pub mod expr;
pub mod files;
pub mod fstring;
pub mod leaderboard;
pub mod lexer;
pub mod multi_turn;
pub mod official;
pub mod pyexpr;
pub mod requests;
pub mod result_decoder;
pub mod run;
pub mod task_fields;
pub mod unparse;
pub mod verdict;

use std::fmt;
use std::str::FromStr;

use crate::benchmarks::python::PyValue;

/// One BFCL category: the Python AST family, then the multi-turn one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// `simple_python`: one function, one call.
    SimplePython,
    /// `multiple`: 2–4 functions, one call.
    Multiple,
    /// `parallel`: one function, several calls.
    Parallel,
    /// `parallel_multiple`: several functions, several calls.
    ParallelMultiple,
    /// `irrelevance`: no function fits; the right answer makes no call.
    Irrelevance,
    /// `live_simple`.
    LiveSimple,
    /// `live_multiple`.
    LiveMultiple,
    /// `live_parallel`.
    LiveParallel,
    /// `live_parallel_multiple`.
    LiveParallelMultiple,
    /// `live_irrelevance`: no call is right.
    LiveIrrelevance,
    /// `live_relevance`: any call is right.
    LiveRelevance,
    /// `multi_turn_base`: several user turns on stateful APIs.
    MultiTurnBase,
    /// `multi_turn_miss_func`: a function is held out until a later turn.
    MultiTurnMissFunc,
    /// `multi_turn_miss_param`: a turn lacks a parameter's value.
    MultiTurnMissParam,
    /// `multi_turn_long_context`: the APIs hold long data.
    MultiTurnLongContext,
}

impl Category {
    /// The eleven single-turn (Python AST) categories, non-live first, in
    /// BFCL's order.
    pub const SINGLE_TURN: [Category; 11] = [
        Category::SimplePython,
        Category::Multiple,
        Category::Parallel,
        Category::ParallelMultiple,
        Category::Irrelevance,
        Category::LiveSimple,
        Category::LiveMultiple,
        Category::LiveParallel,
        Category::LiveParallelMultiple,
        Category::LiveIrrelevance,
        Category::LiveRelevance,
    ];

    /// The four multi-turn categories, in BFCL's order.
    pub const MULTI_TURN: [Category; 4] = [
        Category::MultiTurnBase,
        Category::MultiTurnMissFunc,
        Category::MultiTurnMissParam,
        Category::MultiTurnLongContext,
    ];

    /// Every category itc knows: [`Category::SINGLE_TURN`], then
    /// [`Category::MULTI_TURN`].
    pub fn every() -> impl Iterator<Item = Category> {
        Category::SINGLE_TURN
            .into_iter()
            .chain(Category::MULTI_TURN)
    }

    /// The name in BFCL's file names (`BFCL_v4_<name>.json`).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::SimplePython => "simple_python",
            Category::Multiple => "multiple",
            Category::Parallel => "parallel",
            Category::ParallelMultiple => "parallel_multiple",
            Category::Irrelevance => "irrelevance",
            Category::LiveSimple => "live_simple",
            Category::LiveMultiple => "live_multiple",
            Category::LiveParallel => "live_parallel",
            Category::LiveParallelMultiple => "live_parallel_multiple",
            Category::LiveIrrelevance => "live_irrelevance",
            Category::LiveRelevance => "live_relevance",
            Category::MultiTurnBase => "multi_turn_base",
            Category::MultiTurnMissFunc => "multi_turn_miss_func",
            Category::MultiTurnMissParam => "multi_turn_miss_param",
            Category::MultiTurnLongContext => "multi_turn_long_context",
        }
    }

    /// Whether the category is one of the six live ones.
    pub fn is_live(self) -> bool {
        self.as_str().starts_with("live_")
    }

    /// Whether the category is one of the four multi-turn ones.
    pub fn is_multi_turn(self) -> bool {
        self.as_str().starts_with("multi_turn_")
    }

    /// Whether the category has a possible-answer file (all but the
    /// relevance and irrelevance ones).
    pub fn has_possible_answers(self) -> bool {
        !self.as_str().contains("relevance")
    }

    /// The question file's name.
    pub fn question_file(self) -> String {
        format!("BFCL_v4_{}.json", self.as_str())
    }

    /// The possible-answer file's path under the data folder.
    pub fn possible_answer_file(self) -> String {
        format!("possible_answer/BFCL_v4_{}.json", self.as_str())
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Category {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Category> {
        let name = s.trim();
        Category::every()
            .find(|c| c.as_str() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = Category::every().map(|c| c.as_str()).collect();
                anyhow::anyhow!(
                    "unknown BFCL category {name:?}; known: {}",
                    known.join(", ")
                )
            })
    }
}

/// A set of categories, as `--dataset bfcl:<category>[,<category>…]`
/// names it (also `all`, the 15; `single-turn`, `non-live`, `live` for the
/// Python AST categories; `multi-turn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CategorySet(u16);

impl CategorySet {
    /// Every category itc knows: the eleven single-turn ones and the four
    /// multi-turn ones.
    pub const ALL: CategorySet = CategorySet((1 << 15) - 1);
    /// The eleven single-turn (Python AST) categories.
    pub const SINGLE_TURN: CategorySet = CategorySet((1 << 11) - 1);
    /// The four multi-turn categories.
    pub const MULTI_TURN: CategorySet = CategorySet(0b1111 << 11);
    /// The five non-live categories.
    pub const NON_LIVE: CategorySet = CategorySet(0b11111);
    /// The six live categories.
    pub const LIVE: CategorySet = CategorySet(0b111111 << 5);

    /// The set holding one category.
    pub fn one(c: Category) -> CategorySet {
        CategorySet(1 << c as u16)
    }

    /// Whether `c` is in the set.
    pub fn contains(self, c: Category) -> bool {
        self.0 & (1 << c as u16) != 0
    }

    /// The categories of the set, in [`Category::every`]'s order.
    pub fn categories(self) -> Vec<Category> {
        Category::every().filter(|c| self.contains(*c)).collect()
    }
}

impl fmt::Display for CategorySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CategorySet::ALL => f.write_str("all"),
            CategorySet::SINGLE_TURN => f.write_str("single-turn"),
            CategorySet::NON_LIVE => f.write_str("non-live"),
            CategorySet::LIVE => f.write_str("live"),
            CategorySet::MULTI_TURN => f.write_str("multi-turn"),
            set => {
                let names: Vec<&str> = set.categories().iter().map(|c| c.as_str()).collect();
                f.write_str(&names.join(","))
            }
        }
    }
}

impl FromStr for CategorySet {
    type Err = anyhow::Error;

    /// `all`, `single-turn`, `non-live`, `live`, `multi-turn`, or
    /// categories separated by commas.
    fn from_str(s: &str) -> anyhow::Result<CategorySet> {
        let mut set = CategorySet(0);
        for part in s.split(',').map(str::trim) {
            set.0 |= match part {
                "all" => CategorySet::ALL.0,
                "single-turn" | "single_turn" => CategorySet::SINGLE_TURN.0,
                "non-live" | "non_live" => CategorySet::NON_LIVE.0,
                "live" => CategorySet::LIVE.0,
                "multi-turn" | "multi_turn" => CategorySet::MULTI_TURN.0,
                name => CategorySet::one(name.parse()?).0,
            };
        }
        Ok(set)
    }
}

/// One decoded call, `{name: {param: value}}` in the official decoder's
/// output: the dotted name, and the keyword arguments in order (a key is a
/// `str`, or `None` for `**d`; a repeated keyword keeps its first position
/// and takes its last value).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The dotted name (`math.factorial`).
    pub name: String,
    /// The keyword arguments, as a Python dict's entries.
    pub args: Vec<(PyValue, PyValue)>,
}

//! The shape of calls each task kind needs (SPEC §0): the one definition
//! that both the generator's check of draft calls and the check of gold
//! answers use.
//!
//! - `single`: exactly one call;
//! - `repeated`: two or more calls of one tool, no two with the same
//!   arguments, none using another's output;
//! - `parallel`: two or more calls of at least two different tools (a tool
//!   may come twice), none using another's output;
//! - `nested`: two or more calls, a later one using an earlier one's output
//!   through a reference;
//! - `no_tool`: no call.
//!
//! In every kind a reference points to an earlier call, never to its own
//! call or a later one.

use std::collections::HashSet;

use super::records::TaskKind;

/// One call as the shape rules see it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallShape<'a, A> {
    /// The tool called.
    pub tool: &'a str,
    /// The arguments, in a form whose `==` means "the same arguments" (a
    /// map: the order they were written in does not count).
    pub arguments: A,
    /// The references among the arguments (inside lists and objects too).
    pub references: Vec<ReferenceAt<'a>>,
}

/// A reference inside a call's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReferenceAt<'a> {
    /// The parameter whose value holds it.
    pub parameter: &'a str,
    /// The call whose output it uses (0-based).
    pub call: usize,
}

impl ReferenceAt<'_> {
    /// Whether it uses the output of a call before the call at `holder`
    /// (0-based), the only outputs there are when that call is made.
    pub fn points_back(&self, holder: usize) -> bool {
        self.call < holder
    }
}

/// How calls fail the shape of their kind. Call numbers are 0-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShapeError {
    /// `single`: not exactly one call.
    NotOneCall {
        /// Calls given.
        calls: usize,
    },
    /// `repeated`: fewer than two calls, or more than one tool.
    NotOneToolRepeated {
        /// Calls given.
        calls: usize,
        /// Different tools among them.
        tools: usize,
    },
    /// `repeated`: two calls with the same arguments.
    SameArguments {
        /// The earlier call.
        first: usize,
        /// The later call, a copy of it.
        second: usize,
    },
    /// `parallel`: fewer than two calls, or fewer than two tools.
    TooFewTools {
        /// Calls given.
        calls: usize,
        /// Different tools among them.
        tools: usize,
    },
    /// `repeated` or `parallel`: a call uses another's output.
    Dependent {
        /// The call holding the reference.
        call: usize,
    },
    /// `nested`: fewer than two calls, or no reference.
    NotNested {
        /// Calls given.
        calls: usize,
        /// Whether any call refers to another.
        has_reference: bool,
    },
    /// `no_tool`: some call is given.
    CallsForNoTool {
        /// Calls given.
        calls: usize,
    },
    /// A reference to the output of its own call or a later one.
    ForwardReference {
        /// The call holding the reference.
        call: usize,
        /// The parameter whose value holds it.
        parameter: String,
        /// The call it points to.
        target: usize,
    },
}

impl TaskKind {
    /// The first way the calls fail this kind's shape, if any: first the
    /// number of calls and tools, then the arguments of `repeated`, then
    /// whether calls use each other's outputs, last the direction of the
    /// references.
    pub fn shape_error<A: PartialEq>(self, calls: &[CallShape<'_, A>]) -> Option<ShapeError> {
        self.count_error(calls)
            .or_else(|| self.argument_error(calls))
            .or_else(|| self.dependency_error(calls))
            .or_else(|| forward_reference(calls))
    }

    fn count_error<A>(self, calls: &[CallShape<'_, A>]) -> Option<ShapeError> {
        let n = calls.len();
        let tools = calls.iter().map(|c| c.tool).collect::<HashSet<_>>().len();
        match self {
            TaskKind::Single if n != 1 => Some(ShapeError::NotOneCall { calls: n }),
            TaskKind::Repeated if n < 2 || tools != 1 => {
                Some(ShapeError::NotOneToolRepeated { calls: n, tools })
            }
            TaskKind::Parallel if n < 2 || tools < 2 => {
                Some(ShapeError::TooFewTools { calls: n, tools })
            }
            TaskKind::Nested if n < 2 => Some(ShapeError::NotNested {
                calls: n,
                has_reference: has_reference(calls),
            }),
            TaskKind::NoTool if n != 0 => Some(ShapeError::CallsForNoTool { calls: n }),
            _ => None,
        }
    }

    fn argument_error<A: PartialEq>(self, calls: &[CallShape<'_, A>]) -> Option<ShapeError> {
        match self {
            TaskKind::Repeated => same_arguments(calls),
            _ => None,
        }
    }

    fn dependency_error<A>(self, calls: &[CallShape<'_, A>]) -> Option<ShapeError> {
        match self {
            TaskKind::Repeated | TaskKind::Parallel => calls
                .iter()
                .position(|c| !c.references.is_empty())
                .map(|call| ShapeError::Dependent { call }),
            TaskKind::Nested if !has_reference(calls) => Some(ShapeError::NotNested {
                calls: calls.len(),
                has_reference: false,
            }),
            _ => None,
        }
    }
}

fn has_reference<A>(calls: &[CallShape<'_, A>]) -> bool {
    calls.iter().any(|c| !c.references.is_empty())
}

/// The first call whose arguments repeat an earlier call's.
fn same_arguments<A: PartialEq>(calls: &[CallShape<'_, A>]) -> Option<ShapeError> {
    (1..calls.len()).find_map(|second| {
        let first = calls[..second]
            .iter()
            .position(|c| c.arguments == calls[second].arguments)?;
        Some(ShapeError::SameArguments { first, second })
    })
}

/// The first reference that does not point back.
fn forward_reference<A>(calls: &[CallShape<'_, A>]) -> Option<ShapeError> {
    calls.iter().enumerate().find_map(|(i, call)| {
        let r = call.references.iter().find(|r| !r.points_back(i))?;
        Some(ShapeError::ForwardReference {
            call: i,
            parameter: r.parameter.to_string(),
            target: r.call,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `"tool(args)"` or `"tool(args)->k"` (a reference to call k in `parameter`).
    fn calls(spec: &[&'static str]) -> Vec<CallShape<'static, &'static str>> {
        spec.iter()
            .map(|s| {
                let (call, target) = s.split_once("->").unwrap_or((s, ""));
                let (tool, arguments) = call.split_once('(').unwrap();
                CallShape {
                    tool,
                    arguments,
                    references: target
                        .split(',')
                        .filter(|t| !t.is_empty())
                        .map(|t| ReferenceAt {
                            parameter: "p",
                            call: t.parse().unwrap(),
                        })
                        .collect(),
                }
            })
            .collect()
    }

    fn error(kind: TaskKind, spec: &[&'static str]) -> Option<ShapeError> {
        kind.shape_error(&calls(spec))
    }

    #[test]
    fn single_is_one_call() {
        assert_eq!(error(TaskKind::Single, &["a(1)"]), None);
        assert_eq!(
            error(TaskKind::Single, &[]),
            Some(ShapeError::NotOneCall { calls: 0 })
        );
        assert_eq!(
            error(TaskKind::Single, &["a(1)", "a(2)"]),
            Some(ShapeError::NotOneCall { calls: 2 })
        );
        // Its only possible reference is to itself.
        assert_eq!(
            error(TaskKind::Single, &["a(1)->0"]),
            Some(ShapeError::ForwardReference {
                call: 0,
                parameter: "p".into(),
                target: 0
            })
        );
    }

    #[test]
    fn repeated_is_one_tool_with_different_arguments() {
        assert_eq!(error(TaskKind::Repeated, &["a(1)", "a(2)", "a(3)"]), None);
        assert_eq!(
            error(TaskKind::Repeated, &["a(1)"]),
            Some(ShapeError::NotOneToolRepeated { calls: 1, tools: 1 })
        );
        assert_eq!(
            error(TaskKind::Repeated, &["a(1)", "b(2)"]),
            Some(ShapeError::NotOneToolRepeated { calls: 2, tools: 2 })
        );
        assert_eq!(
            error(TaskKind::Repeated, &["a(1)", "a(2)", "a(1)"]),
            Some(ShapeError::SameArguments {
                first: 0,
                second: 2
            })
        );
        // A call using another's output makes the task nested.
        assert_eq!(
            error(TaskKind::Repeated, &["a(1)", "a(2)->0"]),
            Some(ShapeError::Dependent { call: 1 })
        );
    }

    #[test]
    fn parallel_is_independent_calls_of_several_tools() {
        assert_eq!(error(TaskKind::Parallel, &["a(1)", "b(1)"]), None);
        assert_eq!(
            error(TaskKind::Parallel, &["a(1)", "a(2)", "b(1)"]),
            None,
            "a tool may come twice beside another"
        );
        assert_eq!(
            error(TaskKind::Parallel, &["a(1)", "a(2)"]),
            Some(ShapeError::TooFewTools { calls: 2, tools: 1 })
        );
        assert_eq!(
            error(TaskKind::Parallel, &["a(1)"]),
            Some(ShapeError::TooFewTools { calls: 1, tools: 1 })
        );
        assert_eq!(
            error(TaskKind::Parallel, &["a(1)", "b(1)->0"]),
            Some(ShapeError::Dependent { call: 1 })
        );
        // A dependency is reported before its direction.
        assert_eq!(
            error(TaskKind::Parallel, &["a(1)->1", "b(1)"]),
            Some(ShapeError::Dependent { call: 0 })
        );
    }

    #[test]
    fn nested_needs_a_backward_reference() {
        assert_eq!(error(TaskKind::Nested, &["a(1)", "b(1)->0"]), None);
        assert_eq!(
            error(TaskKind::Nested, &["a(1)", "a(1)->0"]),
            None,
            "one tool may feed itself"
        );
        assert_eq!(
            error(TaskKind::Nested, &["a(1)", "b(1)", "c(1)->0,1"]),
            None
        );
        assert_eq!(
            error(TaskKind::Nested, &["a(1)", "b(1)"]),
            Some(ShapeError::NotNested {
                calls: 2,
                has_reference: false
            })
        );
        assert_eq!(
            error(TaskKind::Nested, &["a(1)->0"]),
            Some(ShapeError::NotNested {
                calls: 1,
                has_reference: true
            }),
            "one call cannot use an earlier output"
        );
        assert_eq!(
            error(TaskKind::Nested, &["a(1)->1", "b(1)"]),
            Some(ShapeError::ForwardReference {
                call: 0,
                parameter: "p".into(),
                target: 1
            })
        );
        assert_eq!(
            error(TaskKind::Nested, &["a(1)", "b(1)->1"]),
            Some(ShapeError::ForwardReference {
                call: 1,
                parameter: "p".into(),
                target: 1
            }),
            "a call cannot use its own output"
        );
    }

    #[test]
    fn no_tool_is_no_call() {
        assert_eq!(error(TaskKind::NoTool, &[]), None);
        assert_eq!(
            error(TaskKind::NoTool, &["a(1)"]),
            Some(ShapeError::CallsForNoTool { calls: 1 })
        );
    }
}

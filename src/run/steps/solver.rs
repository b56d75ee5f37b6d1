//! How a step-by-step task is searched (SPEC §6, §8).
//!
//! - *plain* (no `--solver`, SPEC §6): one conversation, at most the gold's
//!   steps plus one.
//! - *chain* (`--solver chain[:N]`): one conversation until a final answer,
//!   a give-up, a failed request or the depth limit; after a give-up or a
//!   failed request it starts again, at most `N` conversations in all.
//! - *dfsdt* (`--solver dfsdt`): a depth-first search over a tree of
//!   requests, at most [`DFSDT_CHILDREN`] children a node; a node's second
//!   child is asked with a note listing the first action of the children
//!   tried before it. A give-up abandons the node it happened under and
//!   returns to that node's parent; a dead end (depth limit, failed
//!   request, no child answered) tries the next sibling.
//!
//! Every request is a node of a [`Conversation`]; the prediction keeps all
//! of them and a [`SolverRecord`] naming the chosen path.

use serde::{Deserialize, Serialize};

use super::conversation::{Conversation, NodeEnd};
use crate::models::http::Failure;
use crate::spec::action::print_call;
use crate::spec::records::{Parameter, Task, Tool};
use crate::spec::solver::{
    DEFAULT_MAX_DEPTH, DEFAULT_MAX_REQUESTS, DFSDT_CHILDREN, Ending, FINISH_TOOL, GIVE_ANSWER,
    GIVE_UP, SolverKind, SolverRecord,
};

/// Characters of a tool output quoted in DFSDT's note.
const NOTE_OUTPUT_CHARS: usize = 600;

/// Whether the run adds the `Finish` tool (SPEC §8 finish protocol).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishProtocol {
    /// On for benchmarks that use it (StableToolBench), off otherwise.
    #[default]
    Auto,
    /// Always.
    On,
    /// Never.
    Off,
}

impl FinishProtocol {
    /// The name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            FinishProtocol::Auto => "auto",
            FinishProtocol::On => "on",
            FinishProtocol::Off => "off",
        }
    }

    /// On or off, `auto` settled by whether the tasks' benchmark uses it.
    pub fn resolve(self, benchmark_uses_it: bool) -> FinishProtocol {
        match (self, benchmark_uses_it) {
            (FinishProtocol::Auto, true) => FinishProtocol::On,
            (FinishProtocol::Auto, false) => FinishProtocol::Off,
            (other, _) => other,
        }
    }
}

/// A solver and its limits (plain values, from `itc eval`'s flags).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolverOptions {
    /// The search.
    pub kind: SolverKind,
    /// Chain: the most conversations (`chain:N`); 1 for DFSDT.
    #[serde(default = "one")]
    pub tries: u32,
    /// Most depth of a conversation: each answer, call and output counts one.
    #[serde(default = "default_max_depth")]
    pub max_depth: u32,
    /// Most model requests of one task.
    #[serde(default = "default_max_requests")]
    pub max_requests: u32,
    /// The finish protocol.
    #[serde(default)]
    pub finish: FinishProtocol,
}

fn one() -> u32 {
    1
}

fn default_max_depth() -> u32 {
    DEFAULT_MAX_DEPTH
}

fn default_max_requests() -> u32 {
    DEFAULT_MAX_REQUESTS
}

impl SolverOptions {
    /// A solver with the default limits.
    pub fn new(kind: SolverKind, tries: u32) -> SolverOptions {
        SolverOptions {
            kind,
            tries: tries.max(1),
            max_depth: DEFAULT_MAX_DEPTH,
            max_requests: DEFAULT_MAX_REQUESTS,
            finish: FinishProtocol::Auto,
        }
    }

    /// Reads `chain`, `chain:N` or `dfsdt`.
    pub fn parse(text: &str) -> Result<SolverOptions, String> {
        match text.split_once(':') {
            None if text == "chain" => Ok(SolverOptions::new(SolverKind::Chain, 1)),
            None if text == "dfsdt" => Ok(SolverOptions::new(SolverKind::Dfsdt, 1)),
            Some(("chain", n)) => match n.parse::<u32>() {
                Ok(n) if n >= 1 => Ok(SolverOptions::new(SolverKind::Chain, n)),
                _ => Err(format!(
                    "`chain:{n}`: the number of tries must be a whole number from 1"
                )),
            },
            _ => Err(format!(
                "unknown solver `{text}`: use chain, chain:N (N tries) or dfsdt"
            )),
        }
    }

    fn finish_on(&self) -> bool {
        self.finish == FinishProtocol::On
    }
}

/// The task as the solver shows it: with the `Finish` tool under the
/// finish protocol (unless a tool of the task already has its name).
pub fn task_for(task: &Task, options: &SolverOptions) -> Option<Task> {
    if !options.finish_on() || task.tools.iter().any(|t| t.name == FINISH_TOOL) {
        return None;
    }
    let mut shown = task.clone();
    shown.tools.push(finish_tool());
    Some(shown)
}

/// The finish protocol's tool.
fn finish_tool() -> Tool {
    let parameter = |name: &str, description: String| Parameter {
        name: name.into(),
        kind: "string".into(),
        description,
        default: None,
        ..Default::default()
    };
    Tool {
        name: FINISH_TOOL.into(),
        description: "Ends the task. Call it once you can answer the user, or when the \
                      tools cannot get you there from this point."
            .into(),
        required_parameters: vec![parameter(
            "return_type",
            format!(
                "`{GIVE_ANSWER}` to answer the user with final_answer; `{GIVE_UP}` to drop this \
                 attempt and try again from an earlier point"
            ),
        )],
        optional_parameters: vec![parameter(
            "final_answer",
            "The complete answer for the user, with every detail they asked for (needed with \
             give_answer)"
                .into(),
        )],
        ..Tool::default()
    }
}

/// Runs `options`'s search in `conversation`: the record of its requests,
/// limits, chosen path and ending; a failure that ends the task (the
/// model's server unreachable, a request written to a batch file, a tool
/// model that failed) as an error.
pub async fn search(
    conversation: &mut Conversation<'_>,
    options: &SolverOptions,
) -> Result<SolverRecord, Failure> {
    let (ending, last) = match options.kind {
        SolverKind::Chain => chain(conversation, options).await?,
        SolverKind::Dfsdt => {
            let mut dfs = Dfs {
                conversation,
                options,
                found: None,
                out_of_requests: false,
            };
            dfs.search().await?;
            let ending = match (dfs.found, dfs.out_of_requests) {
                (Some(node), _) => ending_of(dfs.conversation.end(node)),
                (None, true) => Ending::RequestLimit,
                (None, false) => dead_end(dfs.conversation),
            };
            let last = dfs.found.or(dfs.conversation.last());
            (ending, last)
        }
    };
    Ok(SolverRecord {
        kind: options.kind,
        tries: options.tries,
        max_depth: options.max_depth,
        max_requests: options.max_requests,
        finish: options.finish_on(),
        requests: conversation.requests(),
        path: last.map(|n| conversation.path(n)).unwrap_or_default(),
        ending,
    })
}

/// The ending of a node that stops the search.
fn ending_of(end: NodeEnd) -> Ending {
    match end {
        NodeEnd::Answer => Ending::Answer,
        NodeEnd::Finish => Ending::Finish,
        NodeEnd::GiveUp => Ending::GaveUp,
        NodeEnd::Failed => Ending::Error,
        NodeEnd::Continue => Ending::DepthLimit,
    }
}

/// How a search that found nothing ended: by its last node.
fn dead_end(conversation: &Conversation<'_>) -> Ending {
    conversation
        .last()
        .map_or(Ending::Error, |n| ending_of(conversation.end(n)))
}

/// The chain solver: `(ending, last node)`.
async fn chain(
    conversation: &mut Conversation<'_>,
    options: &SolverOptions,
) -> Result<(Ending, Option<usize>), Failure> {
    let mut last = None;
    for attempt in 0..options.tries {
        let mut at = None;
        loop {
            if conversation.requests() >= options.max_requests {
                return Ok((Ending::RequestLimit, last));
            }
            let node = conversation.ask(at, None, attempt).await?;
            last = Some(node);
            match conversation.end(node) {
                NodeEnd::Answer | NodeEnd::Finish => {
                    return Ok((ending_of(conversation.end(node)), last));
                }
                NodeEnd::GiveUp | NodeEnd::Failed => break,
                NodeEnd::Continue if conversation.depth(node) >= options.max_depth => {
                    return Ok((Ending::DepthLimit, last));
                }
                NodeEnd::Continue => at = Some(node),
            }
        }
    }
    let ending = last.map_or(Ending::Error, |n| ending_of(conversation.end(n)));
    Ok((ending, last))
}

/// A node whose children DFSDT is trying: the node (`None`: the task's
/// first request) and the children asked so far.
struct Frame {
    node: Option<usize>,
    children: Vec<usize>,
}

/// The DFSDT search's state.
struct Dfs<'c, 'a> {
    conversation: &'c mut Conversation<'a>,
    options: &'c SolverOptions,
    found: Option<usize>,
    out_of_requests: bool,
}

impl Dfs<'_, '_> {
    /// Searches the whole tree from the task's first request, with the
    /// path being searched kept in a list rather than on the call stack, so
    /// a search of any depth runs to its limits. A frame ends when its
    /// children are used up (a dead end) or one of them gives up; either
    /// way its parent tries its next child.
    async fn search(&mut self) -> Result<(), Failure> {
        let mut stack = vec![Frame {
            node: None,
            children: Vec::with_capacity(DFSDT_CHILDREN),
        }];
        while let Some(frame) = stack.last_mut() {
            if frame.children.len() >= DFSDT_CHILDREN {
                stack.pop();
                continue;
            }
            if self.conversation.requests() >= self.options.max_requests {
                self.out_of_requests = true;
                return Ok(());
            }
            let note = (!frame.children.is_empty()).then(|| self.note(&frame.children));
            let child = self
                .conversation
                .ask(frame.node, note.as_deref(), 0)
                .await?;
            frame.children.push(child);
            match self.conversation.end(child) {
                NodeEnd::Answer | NodeEnd::Finish => {
                    self.found = Some(child);
                    return Ok(());
                }
                NodeEnd::GiveUp => {
                    stack.pop();
                }
                NodeEnd::Failed => {}
                NodeEnd::Continue if self.conversation.depth(child) >= self.options.max_depth => {}
                NodeEnd::Continue => stack.push(Frame {
                    node: Some(child),
                    children: Vec::with_capacity(DFSDT_CHILDREN),
                }),
            }
        }
        Ok(())
    }

    /// The note of a node's next child: the first action of each child
    /// tried before, with its output, and the request for another one.
    fn note(&self, children: &[usize]) -> String {
        let mut note = String::from(
            "This point of the task has been tried before. The earlier attempts began like this:\n",
        );
        for (i, &child) in children.iter().enumerate() {
            note.push_str(&format!("{}. ", i + 1));
            match self.conversation.first_action(child) {
                Some((call, output)) => {
                    print_call(call, &mut note);
                    let output = output.map(|o| o.to_string()).unwrap_or_default();
                    let cut: String = output.chars().take(NOTE_OUTPUT_CHARS).collect();
                    let more = if cut.len() < output.len() { " …" } else { "" };
                    note.push_str(&format!(" returned {cut}{more}\n"));
                }
                None => note.push_str("(no action: the request failed)\n"),
            }
        }
        note.push_str("Do something different from all of these.");
        note
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solvers_are_read_with_their_tries() {
        assert_eq!(SolverOptions::parse("chain").unwrap().tries, 1);
        let chain = SolverOptions::parse("chain:3").unwrap();
        assert_eq!((chain.kind, chain.tries), (SolverKind::Chain, 3));
        let dfsdt = SolverOptions::parse("dfsdt").unwrap();
        assert_eq!(
            (dfsdt.kind, dfsdt.max_depth, dfsdt.max_requests),
            (SolverKind::Dfsdt, 12, 200)
        );
        for bad in ["chain:0", "chain:x", "chain:", "dfsdt:2", "bfs", ""] {
            assert!(SolverOptions::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn auto_finish_follows_the_benchmark_and_an_explicit_choice_wins() {
        assert_eq!(FinishProtocol::Auto.resolve(true), FinishProtocol::On);
        assert_eq!(FinishProtocol::Auto.resolve(false), FinishProtocol::Off);
        assert_eq!(FinishProtocol::Off.resolve(true), FinishProtocol::Off);
        assert_eq!(FinishProtocol::On.resolve(false), FinishProtocol::On);
    }

    #[test]
    fn the_finish_tool_is_added_once_and_only_under_the_protocol() {
        let task: Task = serde_json::from_value(serde_json::json!({
            "id": "t", "kind": "single", "language": "en", "query": "q",
            "tools": [{"name": "f"}], "gold": {"calls": []}}))
        .unwrap();
        let mut on = SolverOptions::new(SolverKind::Dfsdt, 1);
        on.finish = FinishProtocol::On;
        let shown = task_for(&task, &on).unwrap();
        let names: Vec<&str> = shown.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["f", FINISH_TOOL]);
        assert!(
            task_for(&shown, &on).is_none(),
            "a task that has Finish keeps its own"
        );
        let mut off = on.clone();
        off.finish = FinishProtocol::Off;
        assert!(task_for(&task, &off).is_none());
    }

    #[test]
    fn old_step_settings_read_with_the_default_limits() {
        let read: SolverOptions = serde_json::from_str(r#"{"kind": "chain"}"#).unwrap();
        assert_eq!(read, SolverOptions::new(SolverKind::Chain, 1));
    }
}

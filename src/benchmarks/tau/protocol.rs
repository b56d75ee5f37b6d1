//! τ³-bench's protocol texts: the agent's system prompt (its instructions
//! and the domain's policy), the user simulator's (its guidelines and the
//! task's scenario), the greeting that opens every conversation, the
//! user's stop tokens and the NL-assertion judge's prompts. They are benchmark data, read from
//! `datasets/ood/tau/protocol.json` (compiled in), which
//! `scripts/tau/extract_protocol.py` takes from the pinned official source.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

use crate::benchmarks::python::value::is_space_char as is_py_space;

/// The texts of `datasets/ood/tau/protocol.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Protocol {
    /// Where the texts come from.
    pub source: String,
    /// `AGENT_INSTRUCTION` (`src/tau2/agent/llm_agent.py`).
    pub agent_instruction: String,
    /// `SYSTEM_PROMPT` of the agent, with `{agent_instruction}` and
    /// `{domain_policy}` to fill.
    pub agent_system_prompt: String,
    /// `SYSTEM_PROMPT` of the user simulator, with
    /// `{global_user_sim_guidelines_with_persona}` and `{instructions}`.
    pub user_system_prompt: String,
    /// `data/tau2/user_simulator/simulation_guidelines.md`.
    pub user_simulation_guidelines: String,
    /// `DEFAULT_FIRST_AGENT_MESSAGE`'s text: the conversation's first message.
    pub first_agent_message: String,
    /// The texts that end the conversation when the user's message holds one.
    pub stop_tokens: StopTokens,
    /// The NL-assertion judge's prompts and settings.
    pub nl_judge: NlJudgeTexts,
}

/// `NLAssertionsEvaluator.evaluate_nl_assertions`'s prompts
/// (`src/tau2/evaluator/evaluator_nl_assertions.py`) and the official
/// judge's settings (`src/tau2/config.py`).
#[derive(Debug, Clone, Deserialize)]
pub struct NlJudgeTexts {
    /// The system prompt, as written (indentation included).
    pub system_prompt: String,
    /// The user prompt, with `{trajectory_str}` and `{nl_assertions}` to fill.
    pub user_prompt: String,
    /// `DEFAULT_LLM_NL_ASSERTIONS`: the official judge model.
    pub model: String,
    /// `DEFAULT_LLM_NL_ASSERTIONS_TEMPERATURE`.
    pub temperature: f64,
}

/// The user simulator's stop tokens (`user_simulator_base.py`).
#[derive(Debug, Clone, Deserialize)]
pub struct StopTokens {
    /// The user's goal is reached (`###STOP###`).
    pub stop: String,
    /// The user was transferred to a human (`###TRANSFER###`).
    pub transfer: String,
    /// The scenario does not say how to go on (`###OUT-OF-SCOPE###`).
    pub out_of_scope: String,
}

const PROTOCOL_JSON: &str = include_str!("../../../datasets/ood/tau/protocol.json");

/// The protocol texts (read once).
pub fn protocol() -> &'static Protocol {
    static PROTOCOL: OnceLock<Protocol> = OnceLock::new();
    PROTOCOL.get_or_init(|| {
        serde_json::from_str(PROTOCOL_JSON).expect("datasets/ood/tau/protocol.json is valid")
    })
}

impl Protocol {
    /// `LLMAgent.system_prompt`: the instructions and the domain's policy.
    pub fn agent_system_prompt(&self, policy: &str) -> String {
        py_format(
            &self.agent_system_prompt,
            &[
                ("agent_instruction", &self.agent_instruction),
                ("domain_policy", policy),
            ],
        )
    }

    /// `UserSimulator.system_prompt` for a task's `user_scenario` (the
    /// guidelines without tools and without a persona configuration, as a
    /// text run has them).
    pub fn user_system_prompt(&self, user_scenario: &Value) -> String {
        py_format(
            &self.user_system_prompt,
            &[
                (
                    "global_user_sim_guidelines_with_persona",
                    &self.user_simulation_guidelines,
                ),
                ("instructions", &scenario_text(user_scenario)),
            ],
        )
    }

    /// The NL judge's user prompt: the conversation as `role: content`
    /// lines and the assertions as Python writes a list of strings.
    pub fn nl_judge_user_prompt(&self, trajectory: &str, assertions: &str) -> String {
        py_format(
            &self.nl_judge.user_prompt,
            &[
                ("trajectory_str", trajectory),
                ("nl_assertions", assertions),
            ],
        )
    }

    /// `UserSimulator.is_stop`: whether a user's text holds a stop token.
    pub fn is_stop(&self, text: &str) -> bool {
        let t = &self.stop_tokens;
        text.contains(&t.stop) || text.contains(&t.transfer) || text.contains(&t.out_of_scope)
    }
}

/// `str(UserScenario)`: the persona when there is one, then the
/// instructions (a text, or `StructuredUserInstructions` written field by
/// field), each indented by a tab as `textwrap.indent` indents.
pub fn scenario_text(scenario: &Value) -> String {
    let mut lines = Vec::new();
    if let Some(persona) = scenario.get("persona").and_then(Value::as_str) {
        lines.push("Persona:".to_string());
        lines.push(indent(persona, "\t"));
    }
    lines.push("Instructions:".to_string());
    let instructions = match scenario.get("instructions") {
        Some(Value::String(text)) => text.clone(),
        Some(structured) => structured_instructions(structured),
        None => String::new(),
    };
    lines.push(indent(&instructions, "\t"));
    lines.join("\n")
}

/// `str(StructuredUserInstructions)`.
fn structured_instructions(instructions: &Value) -> String {
    let field = |name: &str| instructions.get(name).and_then(Value::as_str);
    let mut lines = vec![format!("Domain: {}", field("domain").unwrap_or_default())];
    let mut section = |title: &str, text: &str| {
        lines.push(format!("{title}:\n{}", indent(text, "\t")));
    };
    section(
        "Reason for call",
        field("reason_for_call").unwrap_or_default(),
    );
    if let Some(known) = field("known_info") {
        section("Known info", known);
    }
    if let Some(unknown) = field("unknown_info") {
        section("Unknown info", unknown);
    }
    section(
        "Task instructions",
        field("task_instructions").unwrap_or_default(),
    );
    lines.join("\n")
}

/// Python's `textwrap.indent(text, prefix)`: `prefix` before every line
/// that is not only whitespace, lines split as `str.splitlines(True)`
/// splits them.
pub fn indent(text: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(text.len() + prefix.len() * 8);
    for line in split_lines_keep_ends(text) {
        if !line.trim_matches(is_py_space).is_empty() {
            out.push_str(prefix);
        }
        out.push_str(line);
    }
    out
}

/// Python's `str.splitlines(keepends=True)`.
fn split_lines_keep_ends(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '\r' => match chars.peek() {
                Some((_, '\n')) => {
                    chars.next();
                    i + 2
                }
                _ => i + 1,
            },
            '\n' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        lines.push(&text[start..end]);
        start = end;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Python's `template.format(**fields)` for templates whose only fields
/// are `{name}` and whose braces are otherwise doubled (`{{`, `}}`): one
/// pass, so a value holding `{name}` is not filled again.
fn py_format(template: &str, fields: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + fields.iter().map(|f| f.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        let filled = tail.strip_prefix('{').and_then(|t| {
            let close = t.find('}')?;
            let value = fields.iter().find(|(name, _)| *name == &t[..close])?.1;
            Some((value, &t[close + 1..]))
        });
        match filled {
            Some((value, after)) => {
                out.push_str(value);
                rest = after;
            }
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: &str = include_str!("../../../datasets/ood/tau/retail/policy.md");

    #[test]
    fn the_agent_prompt_is_the_official_one() {
        let expected = include_str!(
            "../../../datasets/ood/tau/retail/reference/prompts/agent_system_prompt.txt"
        );
        assert_eq!(protocol().agent_system_prompt(POLICY), expected);
    }

    #[test]
    fn the_user_prompt_of_task_0_is_the_official_one() {
        let tasks: Value =
            serde_json::from_str(include_str!("../../../datasets/ood/tau/retail/tasks.json"))
                .unwrap();
        let expected = include_str!(
            "../../../datasets/ood/tau/retail/reference/prompts/user_simulator_system_prompt_task_0.txt"
        );
        assert_eq!(
            protocol().user_system_prompt(&tasks[0]["user_scenario"]),
            expected
        );
    }

    #[test]
    fn scenarios_are_written_as_python_writes_them() {
        let scenario = serde_json::json!({
            "persona": "Calm.\n\nPatient.",
            "instructions": "Ask for a refund.\r\nThen stop."
        });
        assert_eq!(
            scenario_text(&scenario),
            "Persona:\n\tCalm.\n\n\tPatient.\nInstructions:\n\tAsk for a refund.\r\n\tThen stop."
        );
        let structured = serde_json::json!({"persona": null, "instructions": {
            "domain": "retail", "reason_for_call": "Return.", "known_info": null,
            "unknown_info": "Email.", "task_instructions": "Be brief."}});
        assert_eq!(
            scenario_text(&structured),
            "Instructions:\n\tDomain: retail\n\tReason for call:\n\t\tReturn.\n\tUnknown info:\n\t\tEmail.\n\tTask instructions:\n\t\tBe brief."
        );
    }

    #[test]
    fn stop_tokens_end_the_conversation_anywhere_in_the_text() {
        let p = protocol();
        assert!(p.is_stop("Thanks! ###STOP###"));
        assert!(p.is_stop("###TRANSFER###"));
        assert!(p.is_stop("ok ###OUT-OF-SCOPE### bye"));
        assert!(!p.is_stop("### STOP ###"));
        assert_eq!(p.first_agent_message, "Hi! How can I help you today?");
    }

    #[test]
    fn format_fills_each_field_once() {
        assert_eq!(
            py_format("<{a}>{{x}}<{b}>", &[("a", "{b}"), ("b", "B")]),
            "<{b}>{x}<B>"
        );
    }
}

//! [`AnswerStyle`]: the ways a synthetic prediction answers its task, and
//! how common each is before a model's own leanings.

/// How one synthetic prediction answers its task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AnswerStyle {
    /// Strict format, right calls (values sometimes in a loosely equal form: `'12'` for 12).
    StrictCorrect,
    /// Strict format, a call to a confuser candidate or a hallucinated tool.
    WrongTool,
    /// Strict format, one argument with a wrong value (or an invented literal for a reference).
    WrongValue,
    /// Strict format, one argument left out.
    MissingArgument,
    /// Strict format, one argument too many.
    ExtraArgument,
    /// Strict format, `[]` (right only for `no_tool` tasks).
    Refusal,
    /// Strict format, the Thought written in another language.
    WrongLanguage,
    /// The strict object inside a ```` ```json ```` fence (still FM).
    Fenced,
    /// `json{...}`, as in the ITC paper's own examples (still FM).
    JsonPrefix,
    /// The JSON object between sentences of prose (fails FM).
    ProseWrapped,
    /// A Python dict with single-quoted strings (fails FM).
    PythonDict,
    /// Calls written bare in a sentence: `I will call f(a=1) to …`.
    BareCalls,
    /// A Thought, then `Action: [...]` without JSON.
    CallList,
    /// Native function calling: `calls` set, `output` empty or a short text.
    Native,
    /// No answer obtained: the record carries an `error`.
    Error,
}

impl AnswerStyle {
    /// Every style, in report order.
    pub const ALL: [AnswerStyle; 15] = [
        AnswerStyle::StrictCorrect,
        AnswerStyle::WrongTool,
        AnswerStyle::WrongValue,
        AnswerStyle::MissingArgument,
        AnswerStyle::ExtraArgument,
        AnswerStyle::Refusal,
        AnswerStyle::WrongLanguage,
        AnswerStyle::Fenced,
        AnswerStyle::JsonPrefix,
        AnswerStyle::ProseWrapped,
        AnswerStyle::PythonDict,
        AnswerStyle::BareCalls,
        AnswerStyle::CallList,
        AnswerStyle::Native,
        AnswerStyle::Error,
    ];

    /// The styles written in the strict format of SPEC §1, right or wrong
    /// in content.
    pub const STRICT_FORMAT: [AnswerStyle; 7] = [
        AnswerStyle::StrictCorrect,
        AnswerStyle::WrongTool,
        AnswerStyle::WrongValue,
        AnswerStyle::MissingArgument,
        AnswerStyle::ExtraArgument,
        AnswerStyle::Refusal,
        AnswerStyle::WrongLanguage,
    ];

    /// Name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerStyle::StrictCorrect => "strict_correct",
            AnswerStyle::WrongTool => "wrong_tool",
            AnswerStyle::WrongValue => "wrong_value",
            AnswerStyle::MissingArgument => "missing_argument",
            AnswerStyle::ExtraArgument => "extra_argument",
            AnswerStyle::Refusal => "refusal",
            AnswerStyle::WrongLanguage => "wrong_language",
            AnswerStyle::Fenced => "fenced",
            AnswerStyle::JsonPrefix => "json_prefix",
            AnswerStyle::ProseWrapped => "prose_wrapped",
            AnswerStyle::PythonDict => "python_dict",
            AnswerStyle::BareCalls => "bare_calls",
            AnswerStyle::CallList => "call_list",
            AnswerStyle::Native => "native",
            AnswerStyle::Error => "error",
        }
    }

    /// Position in [`AnswerStyle::ALL`].
    pub(super) fn index(self) -> usize {
        AnswerStyle::ALL
            .iter()
            .position(|s| *s == self)
            .unwrap_or(0)
    }

    /// Base share (percent) of each style before per-model variation.
    pub(super) fn base_weight(self) -> f64 {
        match self {
            AnswerStyle::StrictCorrect => 38.0,
            AnswerStyle::WrongTool => 5.0,
            AnswerStyle::WrongValue => 9.0,
            AnswerStyle::MissingArgument => 4.0,
            AnswerStyle::ExtraArgument => 3.0,
            AnswerStyle::Refusal => 3.0,
            AnswerStyle::WrongLanguage => 5.0,
            AnswerStyle::Fenced => 8.0,
            AnswerStyle::JsonPrefix => 2.0,
            AnswerStyle::ProseWrapped => 6.0,
            AnswerStyle::PythonDict => 3.0,
            AnswerStyle::BareCalls => 4.0,
            AnswerStyle::CallList => 2.0,
            AnswerStyle::Native => 7.0,
            AnswerStyle::Error => 1.0,
        }
    }
}

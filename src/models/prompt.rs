//! The instructions a model receives: system prompts rendered from the
//! minijinja templates in `prompts/`, the candidate tools as JSON, and the
//! JSON schema of a structured answer.

use std::sync::OnceLock;

use minijinja::{Environment, context};
use serde::Serialize;
use serde_json::{Value, json};

use super::config::{Mode, ModelConfig, PromptStyle};
use crate::spec::records::{Parameter, Task, Tool};

/// Template for the *prompt* and *structured* modes (tools listed in the prompt).
pub const SYSTEM_TEMPLATE: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/prompts/system.jinja"));
/// Template for the *native* mode (tools declared through the API).
pub const NATIVE_TEMPLATE: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/prompts/native.jinja"));
/// Template of the Gorilla answer style (`<<<api_call>>>` fields; APIBench).
pub const GORILLA_TEMPLATE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/prompts/gorilla.jinja"
));
/// Template of the Seal-Tools answer style (a JSON list of `{api, parameters, responses}`).
pub const SEAL_TOOLS_TEMPLATE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/prompts/seal_tools.jinja"
));

/// Template of the BFCL answer style (a Python list of calls).
pub const BFCL_TEMPLATE: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/prompts/bfcl.jinja"));

/// SHA-256 of every built-in prompt template, by file name (for manifests).
pub fn template_hashes() -> std::collections::BTreeMap<&'static str, String> {
    [
        ("prompts/system.jinja", SYSTEM_TEMPLATE),
        ("prompts/native.jinja", NATIVE_TEMPLATE),
        ("prompts/gorilla.jinja", GORILLA_TEMPLATE),
        ("prompts/seal_tools.jinja", SEAL_TOOLS_TEMPLATE),
        ("prompts/bfcl.jinja", BFCL_TEMPLATE),
    ]
    .into_iter()
    .map(|(name, text)| (name, crate::util::hash::sha256_hex(text.as_bytes())))
    .collect()
}

impl ModelConfig {
    /// Reads the `system_prompt` template, if any, and checks that it
    /// parses and renders; errors name the model, the file and the line.
    pub fn load_system_prompt(&mut self) -> anyhow::Result<()> {
        self.system_prompt_sha256 = None;
        let Some(path) = &self.system_prompt else {
            return Ok(());
        };
        let place = format!("model `{}`.system_prompt", self.name);
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("{place}: reading {}: {e}", path.display()))?;
        check_system_template(&text)
            .map_err(|e| anyhow::anyhow!("{place}: {}: {e}", path.display()))?;
        self.system_prompt_sha256 = Some(crate::util::hash::sha256_hex(text.as_bytes()));
        self.system_prompt_text = Some(std::sync::Arc::from(text));
        Ok(())
    }
}

fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        // Plain text: nothing is HTML-escaped.
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.add_template("system", SYSTEM_TEMPLATE)
            .expect("prompts/system.jinja parses");
        env.add_template("native", NATIVE_TEMPLATE)
            .expect("prompts/native.jinja parses");
        env.add_template("gorilla", GORILLA_TEMPLATE)
            .expect("prompts/gorilla.jinja parses");
        env.add_template("seal_tools", SEAL_TOOLS_TEMPLATE)
            .expect("prompts/seal_tools.jinja parses");
        env.add_template("bfcl", BFCL_TEMPLATE)
            .expect("prompts/bfcl.jinja parses");
        env
    })
}

/// The messages of one request: a system prompt and the user's query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// System instructions.
    pub system: String,
    /// The user turn: the task's query.
    pub user: String,
}

#[derive(Serialize)]
struct ToolView<'a> {
    name: &'a str,
    description: &'a str,
    required_parameters: &'a [Parameter],
    optional_parameters: &'a [Parameter],
}

/// The candidate tools as the pretty-printed JSON list the prompt shows
/// (name, description, parameters; catalog metadata left out).
pub fn tools_json(task: &Task) -> String {
    tools_view_json(&task.tools.iter().collect::<Vec<_>>())
}

/// Tools as BFCL writes function docs: `{name, description, parameters:
/// {type: "dict", properties, required}}`, each property with its type,
/// description, `enum`, `items`, nested `properties` and `default`.
pub fn function_docs_json(task: &Task) -> String {
    let docs: Vec<serde_json::Value> = task
        .tools
        .iter()
        .map(|t| {
            let mut properties = serde_json::Map::new();
            for p in t.required_parameters.iter().chain(&t.optional_parameters) {
                let mut schema = serde_json::Map::new();
                schema.insert("type".into(), p.kind.clone().into());
                schema.insert("description".into(), p.description.clone().into());
                let extra = [
                    ("enum", p.allowed.clone().map(serde_json::Value::from)),
                    ("items", p.items.clone()),
                    ("properties", p.properties.clone()),
                    ("default", p.default.clone()),
                ];
                for (key, value) in extra {
                    if let Some(v) = value {
                        schema.insert(key.into(), v);
                    }
                }
                properties.insert(p.name.clone(), schema.into());
            }
            let required: Vec<&str> = t
                .required_parameters
                .iter()
                .map(|p| p.name.as_str())
                .collect();
            serde_json::json!({
                "name": t.name,
                "description": t.description,
                "parameters": {"type": "dict", "properties": properties, "required": required},
            })
        })
        .collect();
    serde_json::to_string_pretty(&docs).expect("docs serialize")
}

/// Tools as every prompt shows them (task prompts and the task-set
/// building stages): name, description and parameters, as pretty JSON.
pub fn tools_view_json(tools: &[&Tool]) -> String {
    let views: Vec<ToolView> = tools
        .iter()
        .map(|t| ToolView {
            name: &t.name,
            description: &t.description,
            required_parameters: &t.required_parameters,
            optional_parameters: &t.optional_parameters,
        })
        .collect();
    serde_json::to_string_pretty(&views).expect("tools serialize")
}

/// Renders the prompt of a task for a mode.
///
/// `schema_enforced` tells the *structured* template the server constrains
/// the answer's shape, so it need not spell the shape out.
pub fn render(task: &Task, mode: Mode, schema_enforced: bool) -> Prompt {
    let env = environment();
    let system = match mode {
        Mode::Native => env
            .get_template("native")
            .and_then(|t| t.render(context! {})),
        Mode::Prompt | Mode::Structured => env.get_template("system").and_then(|t| {
            t.render(context! {
                tools => tools_json(task),
                structured => mode == Mode::Structured && schema_enforced,
            })
        }),
    }
    .expect("prompt templates render");
    Prompt {
        system,
        user: task.query.clone(),
    }
}

/// Renders the prompt of a task for a mode in an answer style. The Gorilla
/// and Seal-Tools styles exist for the *prompt* mode only (checked when the
/// model is configured); in the other modes the style is ignored.
pub fn render_styled(task: &Task, mode: Mode, schema_enforced: bool, style: PromptStyle) -> Prompt {
    let name = match (style, mode) {
        (PromptStyle::Gorilla, Mode::Prompt) => "gorilla",
        (PromptStyle::SealTools, Mode::Prompt) => "seal_tools",
        (PromptStyle::BfclItc, Mode::Prompt) => "bfcl",
        _ => return render(task, mode, schema_enforced),
    };
    let tools = match style {
        PromptStyle::BfclItc => function_docs_json(task),
        _ => tools_json(task),
    };
    let system = environment()
        .get_template(name)
        .and_then(|t| t.render(context! { tools => tools }))
        .expect("prompt templates render");
    Prompt {
        system,
        user: task.query.clone(),
    }
}

/// The prompt a backend sends for a task: the configured answer style, or
/// the user's own system template (ITC style, *prompt* and *structured*
/// modes) when one is configured.
pub fn prompt_for(
    task: &Task,
    mode: Mode,
    style: PromptStyle,
    system_template: Option<&str>,
    schema_enforced: bool,
) -> Prompt {
    match (system_template, style, mode) {
        (Some(template), PromptStyle::Itc, Mode::Prompt | Mode::Structured) => Prompt {
            system: render_custom(template, task, mode, schema_enforced)
                .expect("system templates are checked when the model is configured"),
            user: task.query.clone(),
        },
        (_, PromptStyle::Itc, mode) => render(task, mode, schema_enforced),
        (_, style, mode) => render_styled(task, mode, schema_enforced, style),
    }
}

/// Renders a user's system template. Its variables: `tools` (the candidate
/// tools as pretty JSON), `structured` (the server enforces the answer
/// schema), `language`, `country`, `category`, `kind` and `query`.
fn render_custom(
    template: &str,
    task: &Task,
    mode: Mode,
    schema_enforced: bool,
) -> Result<String, minijinja::Error> {
    let mut env = Environment::new();
    // minijinja keeps the names and places behind an error only in debug
    // mode, which is off by default in release builds: users' templates
    // need them in the build they run.
    env.set_debug(true);
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.render_str(
        template,
        context! {
            tools => tools_json(task),
            structured => mode == Mode::Structured && schema_enforced,
            language => &task.language,
            country => &task.country,
            category => &task.category,
            kind => task.kind.as_str(),
            query => &task.query,
        },
    )
}

/// Checks a user's system template: it parses, and renders for a sample
/// task without touching an unknown variable. The error says where.
pub fn check_system_template(template: &str) -> Result<(), String> {
    let sample = Task {
        id: "check".into(),
        kind: crate::spec::records::TaskKind::Single,
        language: "en".into(),
        country: "GLOBAL".into(),
        category: "Check".into(),
        query: "check".into(),
        tools: Vec::new(),
        gold: Default::default(),
        turns: Vec::new(),
    };
    render_custom(template, &sample, Mode::Prompt, false)
        .map(|_| ())
        .map_err(|e| {
            let mut message = e.to_string();
            if let Some(line) = e.line() {
                message = format!("line {line}: {message}");
            }
            message
        })
}

/// JSON Schema of the answer object `{Thought: string, Action: string}`.
pub fn answer_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "Thought": {"type": "string"},
            "Action": {"type": "string"}
        },
        "required": ["Thought", "Action"],
        "additionalProperties": false
    })
}

/// [`answer_schema`] with the `Action` string constrained by
/// [`action_pattern`], for servers that enforce schema patterns
/// (OpenAI-compatible ones: llama.cpp turns the pattern into grammar, so
/// even a small model writes an action list the strict parser reads).
pub fn answer_schema_with_action_pattern() -> Value {
    let mut schema = answer_schema();
    schema["properties"]["Action"]["pattern"] = Value::String(action_pattern());
    schema
}

/// A regular expression for the action string (SPEC §1), as far as the
/// subset of regular expressions that schema-to-grammar converters share
/// allows (llama.cpp's: anchors at both ends only, groups, classes,
/// `* + ?` and `|`; no `\d`, `\w`, `\s`, look-arounds or back-references).
///
/// It accepts a subset of the strict grammar, the shape the prompt asks
/// for: `[name(key=value, …), …]` with single-quoted strings, numbers,
/// `true`/`false`/`null` (or Python's spellings), and lists and dicts (with
/// quoted keys) nested two deep; white space is spaces; tool and parameter
/// names of up to 64 characters, parameter names starting with a letter,
/// `_`, `$` or `@`. (With bare dict keys bounded too, llama.cpp refuses the
/// grammar as too large.) Text never holds `"`, `\` or
/// control characters: servers apply patterns to the JSON text of the
/// string (llama.cpp) or to its decoded value (the JSON Schema rule), and
/// without those characters both are the same; it also keeps a grammar
/// from closing the JSON string early. So a string value cannot hold a
/// quote or a backslash.
pub fn action_pattern() -> String {
    // A single-quoted string without escapes.
    let string = r#"'[^'"\\\x00-\x1F]*'"#;
    let number = r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?";
    let scalar = format!("({string}|{number}|true|false|null|True|False|None)");
    // Parameter names as the parser reads them bare (ASCII), starting with
    // a letter, `_`, `$` or `@`; at most 64 characters.
    let key = r"[A-Za-z_$@][A-Za-z0-9_.$@-]{0,63}";
    let nested = |item: &str| {
        format!(
            r"({scalar}|\[ *({item}( *, *{item})*)? *\]|\{{ *({string} *: *{item}( *, *{string} *: *{item})*)? *\}})"
        )
    };
    let value = nested(&nested(&scalar));
    // A tool name: text up to '(' without structural characters, starting
    // with a non-space; at most 64 characters, so that a constrained model
    // that rambles on in a name must come to its '(' (a name does not end
    // otherwise).
    let name = r#"[^ ()\[\]{},'"=\\\x00-\x1F][^()\[\]{},'"=\\\x00-\x1F]{0,63}"#;
    let argument = format!("{key} *= *{value}");
    let call = format!(r"{name}\( *({argument}( *, *{argument})*)? *\)");
    format!(r"^\[ *({call}( *, *{call})*)? *\]$")
}

#[cfg(test)]
mod custom_template_tests {
    use super::*;
    use crate::models::backend::RequestSettings;
    use crate::models::config::Backend;

    fn task() -> Task {
        serde_json::from_value(json!({
            "id": "t", "kind": "single", "language": "ja", "country": "JP", "category": "Weather",
            "query": "札幌の天気は？",
            "tools": [{"name": "jma_forecast", "description": "forecast"}],
            "gold": {"calls": []}
        }))
        .unwrap()
    }

    fn settings(template: Option<&str>, mode: Mode, style: PromptStyle) -> RequestSettings {
        let mut config = ModelConfig::new("m", Backend::Openai);
        config.mode = mode;
        config.prompt_style = style;
        config.system_prompt_text = template.map(std::sync::Arc::from);
        RequestSettings::from_config(&config)
    }

    #[test]
    fn a_custom_template_replaces_the_system_prompt_and_sees_the_task() {
        let template = "Answer in {{ language }} ({{ kind }}, {{ country }}).{% if structured %} JSON.{% endif %}\n{{ tools }}";
        let p = settings(Some(template), Mode::Prompt, PromptStyle::Itc).prompt(&task(), true);
        assert!(
            p.system.starts_with("Answer in ja (single, JP)."),
            "{}",
            p.system
        );
        assert!(p.system.contains("\"name\": \"jma_forecast\""));
        assert!(!p.system.contains("JSON."));
        assert_eq!(p.user, "札幌の天気は？");
        let p = settings(Some(template), Mode::Structured, PromptStyle::Itc).prompt(&task(), true);
        assert!(p.system.contains("JSON."));
        // Native mode and the benchmark styles keep their own prompts.
        let native = settings(Some(template), Mode::Native, PromptStyle::Itc).prompt(&task(), true);
        assert_eq!(native, render(&task(), Mode::Native, true));
        let gorilla =
            settings(Some(template), Mode::Prompt, PromptStyle::Gorilla).prompt(&task(), true);
        assert_eq!(
            gorilla,
            render_styled(&task(), Mode::Prompt, true, PromptStyle::Gorilla)
        );
        // Without one, the built-in prompt.
        let default = settings(None, Mode::Prompt, PromptStyle::Itc).prompt(&task(), true);
        assert_eq!(default, render(&task(), Mode::Prompt, true));
    }

    #[test]
    fn bad_templates_are_refused_with_the_line() {
        assert_eq!(check_system_template("fine {{ tools }}"), Ok(()));
        let syntax = check_system_template("ok\n{% if %}").unwrap_err();
        assert!(syntax.starts_with("line 2:"), "{syntax}");
        let unknown = check_system_template("{{ tool_list }}").unwrap_err();
        assert!(unknown.contains("undefined"), "{unknown}");
        // The error names the variable and where it is.
        assert!(unknown.contains("`tool_list`"), "{unknown}");
        assert!(unknown.starts_with("line 1:"), "{unknown}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> Task {
        serde_json::from_value(json!({
            "id": "t1", "kind": "single", "language": "ja", "query": "札幌の天気は？",
            "tools": [{"name": "jma_forecast", "description": "Forecast <by city> & day",
                       "category": "Weather", "url": "https://example.invalid",
                       "required_parameters": [{"name": "city", "type": "string", "description": "都市"}]}],
            "gold": {"calls": []}
        }))
        .unwrap()
    }

    #[test]
    fn prompt_mode_lists_tools_and_answer_format() {
        let p = render(&task(), Mode::Prompt, false);
        assert_eq!(p.user, "札幌の天気は？");
        assert!(
            p.system.contains("\"name\": \"jma_forecast\""),
            "{}",
            p.system
        );
        assert!(
            p.system.contains("Forecast <by city> & day"),
            "no HTML escaping"
        );
        assert!(
            p.system.contains("\"description\": \"都市\""),
            "non-ASCII kept as is"
        );
        assert!(
            !p.system.contains("example.invalid"),
            "catalog metadata left out"
        );
        assert!(
            p.system
                .contains(r#"{"Thought": "<your reasoning>", "Action": "[<calls>]"}"#)
        );
        assert!(p.system.contains("\"[]\""), "empty action explained");
        assert!(
            p.system
                .contains("language the user's request is written in")
        );
        assert!(!p.system.contains("{{") && !p.system.contains("{%"));
    }

    #[test]
    fn structured_and_native_variants() {
        let enforced = render(&task(), Mode::Structured, true);
        assert!(enforced.system.contains("two string fields"));
        assert!(!enforced.system.contains("<your reasoning>"));
        // Without server enforcement (Anthropic), the shape stays in the prompt.
        assert_eq!(
            render(&task(), Mode::Structured, false),
            render(&task(), Mode::Prompt, false)
        );
        let native = render(&task(), Mode::Native, false);
        assert!(
            !native.system.contains("jma_forecast"),
            "tools travel through the API"
        );
        assert!(native.system.contains("call no function"));
    }

    #[test]
    fn benchmark_styles_ask_for_their_own_format() {
        let g = render_styled(&task(), Mode::Prompt, true, PromptStyle::Gorilla);
        assert_eq!(g.user, "札幌の天気は？");
        assert!(
            g.system.contains("\"name\": \"jma_forecast\""),
            "{}",
            g.system
        );
        for field in [
            "<<<domain>>>",
            "<<<api_call>>>",
            "<<<api_provider>>>",
            "<<<explanation>>>",
        ] {
            assert!(g.system.contains(field), "{field}");
        }
        assert!(!g.system.contains("Thought"));
        let s = render_styled(&task(), Mode::Prompt, true, PromptStyle::SealTools);
        assert!(
            s.system.contains(r#"[{"api": "<API name>", "parameters":"#),
            "{}",
            s.system
        );
        assert!(s.system.contains("\"name\": \"jma_forecast\""));
        assert!(!s.system.contains("{{") && !s.system.contains("{%"));
        assert_eq!(
            render_styled(&task(), Mode::Prompt, true, PromptStyle::Itc),
            render(&task(), Mode::Prompt, true)
        );
        assert_eq!(
            render_styled(&task(), Mode::Native, true, PromptStyle::Gorilla),
            render(&task(), Mode::Native, true)
        );
    }

    #[test]
    fn answer_schema_is_strict() {
        let s = answer_schema();
        assert_eq!(s["required"], json!(["Thought", "Action"]));
        assert_eq!(s["additionalProperties"], json!(false));
    }

    /// The action pattern as a Rust regular expression (whose syntax the
    /// pattern's subset shares).
    fn action_regex() -> regex::Regex {
        regex::Regex::new(&action_pattern()).expect("the action pattern compiles")
    }

    #[test]
    fn the_action_pattern_accepts_every_sample_gold_action() {
        let re = action_regex();
        let (tasks, _) =
            crate::spec::jsonl::read_records::<Task>(&crate::spec::sample::sample_tasks(), false)
                .unwrap();
        assert!(tasks.len() > 200);
        let mut nested = 0;
        for task in &tasks {
            let action = crate::spec::action::print_actions(&task.gold.calls);
            assert!(re.is_match(&action), "{}: {action}", task.id);
            nested += usize::from(action.contains("$ref"));
        }
        assert!(nested > 0, "references to earlier outputs are covered");
    }

    #[test]
    fn the_action_pattern_accepts_what_the_prompt_asks_for() {
        let re = action_regex();
        for good in [
            "[]",
            "[ ]",
            "[city_weather(city='Lyon', days=2), exchange_rate(base='EUR', target='JPY')]",
            "[Google Translate(text='こんにちは', target='en')]",
            "[박스오피스 조회(targetDt='20240101')]",
            "[properties/list(page=1,limit=-2.5e3)]",
            "[f()]",
            "[f(a=true, b=None, c=null, d=False)]",
            "[f(a=[1, 'x', [2]], b={'k': [1, 2], 'n': {'m': 1}}, c=[], d={})]",
            "[get_user(id='$1.user_id'), g(x={'$ref': '0.token'})]",
        ] {
            assert!(re.is_match(good), "rejected: {good}");
            assert!(
                crate::spec::action::parse_actions(good, crate::spec::action::Mode::Strict).is_ok(),
                "the strict parser rejects {good}"
            );
        }
    }

    #[test]
    fn the_action_pattern_rejects_free_text_and_broken_lists() {
        let re = action_regex();
        for bad in [
            "",
            "I would call the weather API for Lyon.",
            "city_weather(city='Lyon')",
            "[city_weather(city='Lyon')] because it fits",
            "[city_weather(city='Lyon')",
            "[city_weather(city=Lyon)]",
            "[city_weather('Lyon')]",
            "[city_weather(city=\"Lyon\")]",
            "[f(a='it\\'s')]",
            "[f(a='x\ny')]",
            "[(a=1)]",
            "[ f(a=1)]x",
            "[f(a=[[[1]]])]",
            "[f(1a=1)]",
        ] {
            assert!(!re.is_match(bad), "accepted: {bad:?}");
        }
        // Names end within 64 characters.
        assert!(re.is_match(&format!("[{}(a=1)]", "n".repeat(64))));
        assert!(!re.is_match(&format!("[{}(a=1)]", "n".repeat(65))));
    }

    #[test]
    fn the_structured_schema_carries_the_pattern_in_the_subset_servers_convert() {
        let schema = answer_schema_with_action_pattern();
        let pattern = schema["properties"]["Action"]["pattern"].as_str().unwrap();
        assert_eq!(pattern, action_pattern());
        assert!(pattern.starts_with('^') && pattern.ends_with('$'));
        let inner = &pattern[1..pattern.len() - 1];
        // No anchors inside, and no escapes llama.cpp's converter lacks
        // (`\d`, `\w`, `\s`, …): only escaped punctuation and `\x..`.
        let mut chars = inner.chars().peekable();
        let mut in_class = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    let next = chars.next().unwrap();
                    assert!(
                        next == 'x' || "[](){}.*+?|\\-".contains(next),
                        "escape \\{next}"
                    );
                }
                '[' => in_class = true,
                ']' => in_class = false,
                '^' | '$' => assert!(in_class, "anchor {c} inside the pattern"),
                _ => {}
            }
        }
        assert!(!inner.contains("(?"), "no special groups");
        // The rest of the schema is the plain one.
        let mut plain = schema.clone();
        plain["properties"]["Action"]
            .as_object_mut()
            .unwrap()
            .remove("pattern");
        assert_eq!(plain, answer_schema());
    }

    #[test]
    fn answer_schema_lists_thought_before_action() {
        // Grammar-constrained servers (llama.cpp) emit properties in schema
        // order: the reasoning must come before the calls.
        let text = answer_schema().to_string();
        assert!(
            text.find("Thought").unwrap() < text.find("Action").unwrap(),
            "{text}"
        );
    }
}

//! The three answer modes against a scripted OpenAI-compatible server: what
//! the server receives, and what lands in the predictions and the scores.

mod support;

use itc::models::Mode;
use itc::score::stream::{EvalOptions, evaluate};
use itc::spec::records::{Call, Extraction, Value as V};
use serde_json::json;
use support::server::{Reply, ScriptedServer};
use support::tasks::{answer, generate, index, read_predictions};
use support::{options, run_blocking, scripted_model};

#[test]
fn native_mode_sends_tools_and_maps_tool_calls_back() {
    let server = ScriptedServer::start(|r| {
        let tools = r.body["tools"]
            .as_array()
            .expect("native requests declare tools");
        let names: Vec<&str> = tools
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["city_weather", "stock_quote"]);
        assert!(r.body.get("response_format").is_none());
        let task = r.task.clone().unwrap();
        let city = ["Oslo", "Lyon", "Sapporo"][index(&task) % 3];
        let arguments = json!({ "city": city }).to_string();
        Reply::Json(
            json!({"choices": [{"message": {"role": "assistant", "content": "Ich rufe die Wettervorhersage ab.",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "city_weather", "arguments": arguments}}]}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(3);
    let mut model = scripted_model(&server.base_url(), "native");
    model.mode = Mode::Native;
    let report = run_blocking(
        &tasks,
        &[model],
        &options(&dir.path().join("run"), None, false),
    );
    let predictions = read_predictions(&report.predictions);
    assert_eq!(
        predictions["gen-0001"].calls.as_deref(),
        Some(
            &[Call::new(
                "city weather",
                vec![("city".into(), V::Str("Lyon".into()))]
            )][..]
        )
    );
    assert_eq!(
        predictions["gen-0001"].output.as_deref(),
        Some("Ich rufe die Wettervorhersage ab.")
    );

    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &tasks);
    let evaluation = evaluate(&tasks_path, &[report.predictions], &EvalOptions::default()).unwrap();
    let outcomes = &evaluation.models[0].outcomes;
    assert!(outcomes.iter().all(|o| o.extraction == Extraction::Native));
    // Every task gets the right tool with the right city.
    assert!(outcomes.iter().all(|o| o.selection.f1 == 1.0));
}

#[test]
fn structured_mode_asks_for_the_answer_schema() {
    let server = ScriptedServer::start(|r| {
        let format = &r.body["response_format"];
        assert_eq!(format["type"], "json_schema");
        assert_eq!(
            format["json_schema"]["schema"]["required"],
            json!(["Thought", "Action"])
        );
        Reply::Answer(answer(r.task.as_deref().unwrap()))
    });
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(4);
    let mut model = scripted_model(&server.base_url(), "structured");
    model.mode = Mode::Structured;
    let report = run_blocking(
        &tasks,
        &[model],
        &options(&dir.path().join("run"), None, false),
    );
    assert_eq!((report.models[0].answered, server.requests()), (4, 4));
}

#[test]
fn reasoning_is_kept_apart_from_the_answer() {
    let server = ScriptedServer::start(|r| {
        let task = r.task.clone().unwrap();
        let content = format!(
            "<think>The user wants a forecast.</think>\n{}",
            answer(&task)
        );
        Reply::Json(
            json!({"choices": [{"message": {"role": "assistant", "content": content,
            "reasoning_content": "Weather tools exist."}}]}),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let tasks = generate(2);
    let model = scripted_model(&server.base_url(), "thinker");
    let report = run_blocking(
        &tasks,
        &[model],
        &options(&dir.path().join("run"), None, false),
    );
    let p = &read_predictions(&report.predictions)["gen-0000"];
    assert_eq!(p.output.as_deref(), Some(answer("gen-0000").as_str()));
    assert_eq!(
        p.reasoning.as_deref(),
        Some("Weather tools exist.\n\nThe user wants a forecast.")
    );

    let tasks_path = dir.path().join("tasks.jsonl");
    support::tasks::write(&tasks_path, &tasks);
    let evaluation = evaluate(&tasks_path, &[report.predictions], &EvalOptions::default()).unwrap();
    assert!(
        evaluation.models[0].outcomes.iter().all(|o| o.format_match),
        "the answer alone meets the format"
    );
}

#[test]
fn prompt_mode_shows_tools_in_the_system_prompt_and_the_query_as_user_turn() {
    let server = ScriptedServer::start(|r| {
        let messages = r.body["messages"].as_array().unwrap();
        assert_eq!(messages[0]["role"], "system");
        assert!(
            messages[0]["content"]
                .as_str()
                .unwrap()
                .contains("\"name\": \"city weather\"")
        );
        assert_eq!(messages[1]["role"], "user");
        assert!(messages[1]["content"].as_str().unwrap().contains("[[task:"));
        assert_eq!(r.body["model"], "scripted");
        assert!(r.body.get("tools").is_none());
        assert_eq!(
            r.headers.get("authorization"),
            None,
            "no key configured, none sent"
        );
        Reply::Answer(answer(r.task.as_deref().unwrap()))
    });
    let dir = tempfile::tempdir().unwrap();
    let report = run_blocking(
        &generate(2),
        &[scripted_model(&server.base_url(), "p")],
        &options(&dir.path().join("run"), None, false),
    );
    assert_eq!(report.models[0].answered, 2);
}

#[test]
fn concurrency_is_bounded_per_model() {
    let server = ScriptedServer::start(|r| {
        Reply::Delay(
            std::time::Duration::from_millis(30),
            Box::new(Reply::Answer(answer(r.task.as_deref().unwrap()))),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let mut model = scripted_model(&server.base_url(), "bounded");
    model.concurrency = Some(3);
    let report = run_blocking(
        &generate(24),
        &[model],
        &options(&dir.path().join("run"), None, false),
    );
    assert_eq!(report.models[0].answered, 24);
    assert_eq!(
        server.max_in_flight(),
        3,
        "three requests at once, never more"
    );
}

#[test]
fn anthropic_messages_over_loopback() {
    let server = ScriptedServer::start(|r| {
        assert_eq!(r.path, "/v1/messages");
        assert_eq!(
            r.headers.get("x-api-key").map(String::as_str),
            Some("anthropic-test-key")
        );
        assert_eq!(
            r.headers.get("anthropic-version").map(String::as_str),
            Some("2023-06-01")
        );
        assert_eq!(r.body["tools"][0]["name"], "city_weather");
        let task = r.task.clone().unwrap();
        let city = ["Oslo", "Lyon"][index(&task) % 2];
        Reply::Json(json!({"type": "message", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "A forecast is needed."},
            {"type": "text", "text": "I will check the forecast."},
            {"type": "tool_use", "id": "t1", "name": "city_weather", "input": {"city": city}}],
            "usage": {"input_tokens": 40, "output_tokens": 9}}))
    });
    let dir = tempfile::tempdir().unwrap();
    let mut model = scripted_model(&server.base_url(), "claude");
    model.backend = itc::models::Backend::Anthropic;
    model.mode = Mode::Native;
    model.api_key_env = Some("ITC_TEST_ANTHROPIC_KEY".into());
    let spec = itc::models::ModelSpec {
        config: model,
        key: Some(itc::models::ApiKey::new("anthropic-test-key")),
        slot_pool: None,
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let report = runtime
        .block_on(itc::run::run(
            &generate(2),
            &[spec],
            &options(&dir.path().join("run"), None, false),
        ))
        .unwrap();
    let p = &read_predictions(&report.predictions)["gen-0001"];
    assert_eq!(
        p.calls.as_deref(),
        Some(
            &[Call::new(
                "city weather",
                vec![("city".into(), V::Str("Lyon".into()))]
            )][..]
        )
    );
    assert_eq!(p.reasoning.as_deref(), Some("A forecast is needed."));
    assert_eq!(report.models[0].prompt_tokens, 80);
}

#[test]
fn gemini_generate_content_over_loopback() {
    let server = ScriptedServer::start(|r| {
        assert_eq!(
            r.path, "/v1/models/gem-test:generateContent",
            "no key in the URL"
        );
        assert_eq!(
            r.headers.get("x-goog-api-key").map(String::as_str),
            Some("gemini-test-key")
        );
        assert_eq!(
            r.body["generationConfig"]["responseMimeType"],
            "application/json"
        );
        let text = answer(r.task.as_deref().unwrap());
        Reply::Json(
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}],
            "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 12}}),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let mut model = scripted_model(&server.base_url(), "gemini");
    model.backend = itc::models::Backend::Gemini;
    model.model_id = Some("gem-test".into());
    model.mode = Mode::Structured;
    let spec = itc::models::ModelSpec {
        config: model,
        key: Some(itc::models::ApiKey::new("gemini-test-key")),
        slot_pool: None,
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let report = runtime
        .block_on(itc::run::run(
            &generate(3),
            &[spec],
            &options(&dir.path().join("run"), None, false),
        ))
        .unwrap();
    let predictions = read_predictions(&report.predictions);
    assert_eq!(
        predictions["gen-0002"].output.as_deref(),
        Some(answer("gen-0002").as_str())
    );
    assert_eq!(
        (
            report.models[0].answered,
            report.models[0].completion_tokens
        ),
        (3, 36)
    );
}

#[test]
fn requests_per_minute_spaces_requests_at_the_server() {
    let server = ScriptedServer::start(|r| Reply::Answer(answer(r.task.as_deref().unwrap())));
    let dir = tempfile::tempdir().unwrap();
    let mut model = scripted_model(&server.base_url(), "limited");
    model.concurrency = Some(32);
    // 600 a minute: a burst of 100 (10 s worth), then one per 100 ms.
    model.requests_per_minute = Some(600);
    let report = run_blocking(
        &generate(110),
        &[model],
        &options(&dir.path().join("run"), None, false),
    );
    assert_eq!(report.models[0].answered, 110);
    let log = server.log();
    let span = log.last().unwrap().at - log[0].at;
    assert!(
        span >= std::time::Duration::from_millis(900),
        "110 requests in {span:?}"
    );
}

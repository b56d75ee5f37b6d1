//! The offline baseline model: lexical tool retrieval and type-aware slot
//! filling, the floor every model is compared with.
//!
//! `itc eval` without a model answers every task with [`respond`]. The method
//! is deterministic (no randomness, no network, no learned weights, no world
//! knowledge) and never reads the gold: everything works from a [`Request`], a
//! view of a task that holds only its `query`, `language` and candidate
//! `tools`; the gold calls, gold Thought and recorded turns are not reachable
//! from it.
//!
//! # Method
//!
//! 1. **Terms** (`terms.rs`). Text is NFKC-normalised (full-width digits and letters
//!    become ASCII) and cut into runs of letters, digits and combining marks.
//!    Runs in scripts written without spaces (Han, Hiragana, Katakana, Hangul,
//!    Thai, Lao, Khmer, Myanmar, Tibetan) give overlapping character bigrams
//!    (a lone character gives itself). Other runs are split at `_ . - / :`,
//!    at camelCase humps and between letters and digits, lowercased, stripped
//!    of an Arabic article prefix (`ال وال بال فال كال لل`) and of a Latin
//!    plural `-s`, and cut to a prefix (6 characters in Latin script, 5 in
//!    others) as a crude language-independent stemmer (`forecasts`/`forecast`,
//!    `погоды`/`погода`). Pure numbers, one-letter words and a short list of
//!    function words of the supported languages are dropped.
//! 2. **Ranking** (`ranking.rs`). Each candidate tool is a document: its name (counted
//!    twice), category, description, and every parameter's name and
//!    description. A tool's score is Okapi BM25 (k1 = 1.2, b = 0.75, document
//!    frequencies and average length over the task's own candidate list) of
//!    the query's distinct terms, plus [`Config::type_bonus`] for each
//!    required parameter that a candidate value of a strong type can fill (a
//!    date for a date, an ISO 4217 code for a currency, a decimal for a
//!    coordinate, a language code, a quoted string for free text), minus
//!    [`Config::type_penalty`] for each *typed* required parameter (number,
//!    integer, coordinate, date, currency, language code) that no value in
//!    the query fits. Country or city knowledge is never used: a tool wins by
//!    sharing words with the query and by asking for the kinds of values the
//!    query contains.
//! 3. **No call** (`plan.rs`). The answer is the empty action `[]` when the best score is
//!    below [`Config::min_tool_score`], and also when the chosen tool has a
//!    typed required parameter the query gives no value for
//!    ([`Config::refuse_when_required_missing`]): the query then asks for
//!    something the tool cannot do without a guess, which is how the
//!    benchmark's `no_tool` tasks with a missing parameter are built. Required
//!    strings of no particular type never cause a refusal, since almost any
//!    query offers some candidate for them. On the sample set refusing scored
//!    better than calling anyway, in both selection and invocation F1.
//! 4. **Parallel calls** (`plan.rs`, cuts in `segments.rs`). The query is
//!    cut into *requests* at sentence ends (`. ? ! 。 ？ ！ ; ；`), at commas
//!    (`, ， 、`) not next to a digit, and at conjunctions: `and or also plus
//!    then`, `und oder sowie`, `et ou`,
//!    `y o e ed`, `и или а также`, `और तथा`, `ve veya ile`, `و أو ثم` (`و`
//!    also as a word prefix), Korean `및 그리고 또 또한` and the word endings
//!    `와 과 랑 하고 이랑`, Chinese `和 与 及 以及 还有 再 并且 跟`, Japanese
//!    `と` between non-Hiragana characters. Each request is ranked on its
//!    own; a request whose best tool reaches [`Config::min_request_score`]
//!    with a lead of at least [`Config::min_request_margin`] picks it, the
//!    others join the request before them. Two or more different picked tools
//!    give one call per tool, each filled from its own requests (if refusals
//!    leave fewer than two calls, the query is answered as below).
//! 5. **Repeated calls** (`plan.rs`, cuts in `segments.rs`). Otherwise the
//!    best tool for the whole query is called. The query is also cut into
//!    *list items*: at the conjunctions above, at `、` (not after Hiragana,
//!    where it is a clause comma), and at
//!    commas of a list closed by a conjunction (`NZ, AU and IE`) but not
//!    between the two numbers of a coordinate pair. Each item is filled on its
//!    own (required values need [`Config::min_repeated_fit`]). A parameter
//!    *varies* when two or more items give it different values from spans of
//!    one kind that the whole-query filling did not give to another parameter
//!    (so `Kuala Lumpur, Malaysia` stays one call with city and country). An
//!    array parameter that varies takes all the items' values in one call;
//!    otherwise there is one call per item, with the varying parameters from
//!    the item and the others from the whole query. Nested tasks (a later call
//!    needs an earlier call's output) are out of scope: the baseline never
//!    writes references and answers at most one step of them.
//! 6. **Slot filling** (`fill.rs`; spans in `spans.rs`, `dates.rs` and
//!    `dense_terms.rs`; parameters in `slots.rs`). The query yields
//!    candidate values (*spans*), each of a kind: quoted strings
//!    (`"…" '…' “…” ‘…’ «…» „…“ 「…」 『…』 《…》`); dates
//!    (`2024-03-01`, `2024/03/01`, `01.03.2024`, `01/03/2024`, `01-03-2024`,
//!    `20240301`, `2024-03`, `2024-03-01T08:00`, `2024年3月1日`, `2024년 3월
//!    1일`, the last two also giving their numbers alone); numbers (with sign
//!    and decimals, `5` in `5-day`); ISO 4217 currency codes; lowercase
//!    language codes (`en`, `pt-br`); other codes (capitals and digits such as
//!    `SW1A 2AA`, `NY.GDP.MKTP.CD`, `sh600519`, `30130-010`, `OLED TV`);
//!    capitalised names (runs of capitalised words such as `Kuala Lumpur`,
//!    `Rio de Janeiro`, not the first word of a sentence); terms in scripts
//!    without spaces (Han and Katakana runs cut at Hiragana, at a short list of
//!    function characters and at bigrams of the tool's own name or description
//!    that its parameter descriptions do not use; Hangul words without their
//!    particle); and the remaining plain words. Each parameter gets a slot
//!    from its declared `type`, name and description: latitude, longitude,
//!    integer, number, boolean, date (with an output format when the
//!    description spells one: `YYYYMMDD`, `DD/MM/YYYY`, `AAAA-MM-DD`, …),
//!    currency, language, free text (`q`, `query`, `text`, `keyword`, …),
//!    array, or plain string. A (parameter, span) pair scores a fixed type fit
//!    (e.g. date→date 4, quoted→free text 5, decimal→coordinate 3, integer→
//!    integer 2, name or code→string 2, plain word→string 0.5, or 1 in scripts
//!    without letter case) plus 1.5 × a cue score: the words just before the
//!    span (weights 1, 0.6, 0.4) and just after it (0.5, 0.3) that occur in
//!    the parameter's name (×2) or description (×1), capped at 3. Smaller
//!    adjustments: +1 for a code or integer when the parameter asks for a
//!    code, id or number; +1 / −1 for a four-digit year or another number
//!    when it asks for a year or season; +1 when the span is an example in
//!    the description; −1.5 for a word that only repeats the tool's own
//!    description; −2 for a value that only repeats the parameter's name;
//!    +0.3 for decimals that form a (latitude, longitude) pair in that order.
//!    Pairs are taken greedily, best first (required parameters +0.25),
//!    each parameter and each span at most once. Required parameters take a
//!    value from [`Config::min_required_fit`] up, optional ones only from
//!    [`Config::min_optional_fit`] up (a typed value next to a cue); a
//!    required boolean without a value is `true`; defaults are never written.
//!    Values are typed: integers as integers, numbers as numbers, arrays as
//!    one-element lists, everything else as strings written as in the query
//!    (dates re-formatted only when the description asks for a format).
//! 7. **Thought** (`thought.rs`). One sentence from a table of templates in
//!    the task's language (zh, ja, ko, ar, ru, hi, de, fr, es, it, pt, tr,
//!    en; English otherwise) naming the tools called, in quotes, or saying
//!    that no tool fits. The response is `{"Thought": …, "Action": …}` with
//!    the action printed by [`print_actions`], so it always meets the strict
//!    format.
//!
//! The thresholds in [`Config::default`] (`config.rs`) were set by hand and
//! checked once on the hand-made sample set (`datasets/sample`, see the
//! `sample_figures` test below).
//!
//! # Where the code is
//!
//! This file holds the entry points ([`respond`], [`predict`], [`answer`]) and
//! the tests of the whole model; each step has a file of its own, named for
//! what it holds: `terms.rs`, `ranking.rs`, `segments.rs`, `spans.rs`,
//! `dates.rs`, `dense_terms.rs`, `slots.rs`, `fill.rs`, `plan.rs` (which ties
//! steps 2 to 6 together), `thought.rs` and `config.rs`.
//!
//! # Limitations
//!
//! Retrieval is lexical: a query that shares no words with the right tool
//! (another language or script, synonyms, a tool that fits only by world
//! knowledge of where a city is) is missed, and confusers with the same
//! vocabulary are told apart only by the words and value kinds they do not
//! share. Slot filling sees surface forms: it cannot translate (`euros` is not
//! `EUR`), resolve relative dates (`tomorrow`), segment Chinese words without
//! a dictionary, tell `from` from `to` without a cue word it knows, or look up
//! codes. Nested tasks get at most one call and never a reference.

mod config;
mod dates;
mod dense_terms;
mod fill;
mod plan;
mod ranking;
mod segments;
mod slots;
mod spans;
mod terms;
mod thought;

pub use config::Config;

use crate::spec::action::print_actions;
use crate::spec::limits::{BASELINE_MAX_QUERY_BYTES, clip_to};
use crate::spec::records::{Call, Task, Tool};
use plan::plan;
use thought::thought;

/// What the baseline may look at: a task without its gold.
///
/// Built only from a task's `query`, `language` and `tools`; the gold calls,
/// the gold Thought and recorded turns are not reachable from it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The user request.
    pub query: &'a str,
    /// ISO 639-1 code of the language the Thought must use.
    pub language: &'a str,
    /// Candidate tools.
    pub tools: &'a [Tool],
}

impl<'a> Request<'a> {
    /// The gold-free view of a task, its query cut to the baseline's
    /// context window ([`BASELINE_MAX_QUERY_BYTES`]).
    pub fn of(task: &'a Task) -> Request<'a> {
        Request {
            query: clip_to(&task.query, BASELINE_MAX_QUERY_BYTES).0,
            language: &task.language,
            tools: &task.tools,
        }
    }
}

/// The baseline's answer: a Thought and the calls.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// One sentence in the task's language.
    pub thought: String,
    /// The calls (empty: no tool fits).
    pub calls: Vec<Call>,
}

impl Answer {
    /// The response text: `{"Thought": "…", "Action": "[…]"}`.
    pub fn render(&self) -> String {
        let thought = serde_json::Value::String(self.thought.clone());
        let action = serde_json::Value::String(print_actions(&self.calls));
        format!("{{\"Thought\": {thought}, \"Action\": {action}}}")
    }
}

/// The baseline's response text for a task, in the ITC format.
pub fn respond(task: &Task) -> String {
    answer(&Request::of(task), &Config::default()).render()
}

/// The baseline's calls for a task.
pub fn predict(task: &Task) -> Vec<Call> {
    answer(&Request::of(task), &Config::default()).calls
}

/// The baseline's answer to a request.
pub fn answer(request: &Request<'_>, config: &Config) -> Answer {
    let calls = plan(request, config);
    Answer {
        thought: thought(request.language, &calls),
        calls,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::stream::score_response;
    use crate::score::task::ScoreOptions;
    use crate::spec::records::{Gold, Parameter, TaskKind, Value};
    use crate::spec::response::strict_format;

    fn param(name: &str, kind: &str, description: &str) -> Parameter {
        Parameter {
            name: name.into(),
            kind: kind.into(),
            description: description.into(),
            default: None,
            ..Default::default()
        }
    }

    fn tool(
        name: &str,
        description: &str,
        required: Vec<Parameter>,
        optional: Vec<Parameter>,
    ) -> Tool {
        Tool {
            name: name.into(),
            description: description.into(),
            required_parameters: required,
            optional_parameters: optional,
            ..Tool::default()
        }
    }

    fn task(language: &str, query: &str, tools: Vec<Tool>) -> Task {
        Task {
            id: "t".into(),
            kind: TaskKind::Single,
            language: language.into(),
            country: String::new(),
            category: String::new(),
            query: query.into(),
            tools,
            gold: Gold::default(),
            turns: Vec::new(),
        }
    }

    fn weather_tools() -> Vec<Tool> {
        vec![
            tool(
                "stock_quote",
                "Latest stock price quote for a ticker symbol on an exchange.",
                vec![param("symbol", "string", "Ticker symbol, e.g. AAPL")],
                vec![],
            ),
            tool(
                "city_weather",
                "Weather forecast for a city: temperature, rain and wind for the next days.",
                vec![param("city", "string", "City name")],
                vec![param("days", "integer", "Number of forecast days (1-7)")],
            ),
            tool(
                "exchange_rate",
                "Historical currency exchange rate between two currencies on a date.",
                vec![
                    param("date", "string", "Date in YYYY-MM-DD format"),
                    param("from", "string", "Source currency code (ISO 4217)"),
                    param("to", "string", "Target currency code (ISO 4217)"),
                ],
                vec![],
            ),
            tool(
                "translate_text",
                "Translate a text into another language.",
                vec![
                    param("text", "string", "The text to translate"),
                    param("target_lang", "string", "Target language code, e.g. de"),
                ],
                vec![],
            ),
        ]
    }

    fn names(calls: &[Call]) -> Vec<&str> {
        calls.iter().map(|c| c.name.as_str()).collect()
    }

    fn arg<'c>(call: &'c Call, name: &str) -> Option<&'c Value> {
        call.arguments
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }

    #[test]
    fn reads_only_its_context_window_of_a_huge_query() {
        // Issue 12: a 50 MB query cost 1.9 GB of word lists. The window
        // ends at a character boundary, and what lies beyond is not read.
        let head = "What will the weather be like in Lisbon tomorrow? ";
        let filler = "ü".repeat(BASELINE_MAX_QUERY_BYTES);
        let t = task(
            "en",
            &format!("{head}{filler}stock price AAPL"),
            weather_tools(),
        );
        let query = Request::of(&t).query;
        assert!((BASELINE_MAX_QUERY_BYTES - 1..=BASELINE_MAX_QUERY_BYTES).contains(&query.len()));
        assert!(t.query.starts_with(query) && query.ends_with('ü'));
        let answer = answer(&Request::of(&t), &Config::default());
        assert_eq!(names(&answer.calls), ["city_weather"]);
    }

    #[test]
    fn picks_the_lexically_matching_tool_in_several_languages() {
        let cases = [
            (
                "en",
                "What will the weather be like in Lisbon over the next 3 days?",
                "city_weather",
            ),
            (
                "en",
                "Show me the latest stock price quote for AAPL.",
                "stock_quote",
            ),
            (
                "de",
                "Wie wird das Wetter morgen in Hamburg?",
                "wetter_vorhersage",
            ),
            ("zh", "帮我查一下杭州的天气预报。", "天气查询"),
            ("ja", "東京の天気予報を教えてください。", "天気予報"),
            (
                "ru",
                "Какой курс доллара сегодня по данным ЦБ?",
                "курс_валют",
            ),
        ];
        for (language, query, expected) in cases {
            let mut tools = weather_tools();
            tools.push(tool(
                "wetter_vorhersage",
                "Wettervorhersage des Deutschen Wetterdienstes für eine Stadt in Deutschland.",
                vec![param("stadt", "string", "Name der Stadt")],
                vec![],
            ));
            tools.push(tool(
                "天气查询",
                "根据城市名称查询中国城市的天气预报。",
                vec![param("city", "string", "城市名称")],
                vec![],
            ));
            tools.push(tool(
                "天気予報",
                "気象庁の府県天気予報を取得します。",
                vec![param("prefecture", "string", "都道府県名")],
                vec![],
            ));
            tools.push(tool(
                "курс_валют",
                "Официальный курс валют ЦБ РФ на дату: курс доллара, евро и других валют.",
                vec![],
                vec![param("date_req", "string", "Дата в формате DD/MM/YYYY")],
            ));
            let calls = predict(&task(language, query, tools));
            assert_eq!(names(&calls), [expected], "{language}: {query}");
        }
    }

    #[test]
    fn fills_an_integer_a_date_currency_codes_and_a_city() {
        let t = task(
            "en",
            "What will the weather be like in Lisbon over the next 3 days?",
            weather_tools(),
        );
        let calls = predict(&t);
        assert_eq!(names(&calls), ["city_weather"]);
        assert_eq!(arg(&calls[0], "city"), Some(&Value::Str("Lisbon".into())));
        assert_eq!(arg(&calls[0], "days"), Some(&Value::Int(3)));

        let t = task(
            "en",
            "What was the exchange rate from EUR to JPY on 2024-03-15?",
            weather_tools(),
        );
        let calls = predict(&t);
        assert_eq!(names(&calls), ["exchange_rate"]);
        assert_eq!(
            arg(&calls[0], "date"),
            Some(&Value::Str("2024-03-15".into()))
        );
        assert_eq!(arg(&calls[0], "from"), Some(&Value::Str("EUR".into())));
        assert_eq!(arg(&calls[0], "to"), Some(&Value::Str("JPY".into())));
    }

    #[test]
    fn dates_are_reformatted_only_when_the_description_asks() {
        let tools = vec![tool(
            "box_office",
            "Daily box office ranking for a date.",
            vec![param("targetDt", "string", "Date (YYYYMMDD)")],
            vec![],
        )];
        let calls = predict(&task(
            "en",
            "Show the daily box office for 2025-03-01.",
            tools.clone(),
        ));
        assert_eq!(
            arg(&calls[0], "targetDt"),
            Some(&Value::Str("20250301".into()))
        );
        let calls = predict(&task(
            "ja",
            "2025年3月1日の興行ランキング (box office) を見せて。",
            tools,
        ));
        assert_eq!(
            arg(&calls[0], "targetDt"),
            Some(&Value::Str("20250301".into()))
        );
        let tools = vec![tool(
            "rates",
            "Exchange rates on a date.",
            vec![param("date", "string", "Reference date")],
            vec![],
        )];
        let calls = predict(&task(
            "de",
            "Wechselkurs (exchange rates) am 14.02.2025?",
            tools,
        ));
        assert_eq!(
            arg(&calls[0], "date"),
            Some(&Value::Str("14.02.2025".into()))
        );
    }

    #[test]
    fn full_width_digits_and_quoted_text_are_read() {
        let calls = predict(&task(
            "ja",
            "「おはようございます」を en に translate してください。",
            weather_tools(),
        ));
        assert_eq!(names(&calls), ["translate_text"]);
        assert_eq!(
            arg(&calls[0], "text"),
            Some(&Value::Str("おはようございます".into()))
        );
        assert_eq!(
            arg(&calls[0], "target_lang"),
            Some(&Value::Str("en".into()))
        );
        let calls = predict(&task(
            "en",
            "Weather forecast for Oslo, next ３ days.",
            weather_tools(),
        ));
        assert_eq!(arg(&calls[0], "days"), Some(&Value::Int(3)));
    }

    #[test]
    fn returns_no_call_when_nothing_matches_or_a_typed_value_is_missing() {
        for (language, query) in [
            (
                "en",
                "Book me a table for two at an Italian restaurant tonight.",
            ),
            ("fr", "Réserve-moi une table pour deux ce soir."),
            ("ko", "내일 아침 일곱 시에 알람 맞춰 줘."),
        ] {
            let t = task(language, query, weather_tools());
            let answer = answer(&Request::of(&t), &Config::default());
            assert!(answer.calls.is_empty(), "{query}: {:?}", answer.calls);
            assert!(
                crate::spec::language::check_language(&answer.thought, language)
                    .outcome
                    .is_match(),
                "{}",
                answer.thought
            );
        }
        // The rate tool fits, but the query gives no date or currency code.
        let t = task(
            "en",
            "What was the exchange rate back then?",
            weather_tools(),
        );
        assert!(predict(&t).is_empty());
    }

    #[test]
    fn repeated_and_parallel_requests() {
        let t = task(
            "en",
            "What was the exchange rate from USD to EUR on 2024-01-02 and on 2024-02-01?",
            weather_tools(),
        );
        let calls = predict(&t);
        assert_eq!(names(&calls), ["exchange_rate", "exchange_rate"]);
        assert_eq!(
            arg(&calls[0], "date"),
            Some(&Value::Str("2024-01-02".into()))
        );
        assert_eq!(
            arg(&calls[1], "date"),
            Some(&Value::Str("2024-02-01".into()))
        );
        assert_eq!(arg(&calls[1], "from"), Some(&Value::Str("USD".into())));

        let t = task(
            "en",
            "Show me the stock price quote for MSFT, and what is the weather forecast in Madrid?",
            weather_tools(),
        );
        let calls = predict(&t);
        assert_eq!(names(&calls), ["stock_quote", "city_weather"]);
        assert_eq!(arg(&calls[0], "symbol"), Some(&Value::Str("MSFT".into())));
        assert_eq!(arg(&calls[1], "city"), Some(&Value::Str("Madrid".into())));

        // Two names that fill two different parameters are not a list.
        let mut tools = weather_tools();
        tools.push(tool(
            "prayer_times",
            "Prayer times for a city in a country.",
            vec![
                param("city", "string", "City"),
                param("country", "string", "Country"),
            ],
            vec![],
        ));
        let calls = predict(&task(
            "en",
            "Prayer times today in Kuala Lumpur, Malaysia?",
            tools,
        ));
        assert_eq!(calls.len(), 1);
        assert_eq!(
            arg(&calls[0], "city"),
            Some(&Value::Str("Kuala Lumpur".into()))
        );
        assert_eq!(
            arg(&calls[0], "country"),
            Some(&Value::Str("Malaysia".into()))
        );
    }

    #[test]
    fn responses_meet_the_strict_format_and_parse_back() {
        let queries = [
            (
                "en",
                "What will the weather be like in Lisbon over the next 3 days?",
            ),
            ("en", "Translate \"it's a 'quoted' \\ text\" into de."),
            ("zh", "今天天气怎么样？"),
            ("ar", "كم سعر سهم 2222 الآن؟"),
            ("en", "Nothing here matches at all."),
        ];
        for (language, query) in queries {
            let t = task(language, query, weather_tools());
            let text = respond(&t);
            let (thought, calls) =
                strict_format(&text).unwrap_or_else(|| panic!("not strict: {text}"));
            assert!(!thought.is_empty());
            assert_eq!(calls, predict(&t), "{text}");
        }
    }

    #[test]
    fn never_reads_the_gold() {
        let mut t = task(
            "en",
            "What was the exchange rate from EUR to JPY on 2024-03-15?",
            weather_tools(),
        );
        let before = respond(&t);
        t.kind = TaskKind::NoTool;
        t.id = "scrambled".into();
        t.gold = Gold {
            official: None,
            thought: "Call stock_quote with symbol XYZ.".into(),
            calls: vec![Call::new(
                "stock_quote",
                vec![("symbol".into(), Value::Str("XYZ".into()))],
            )],
        };
        t.turns = vec![crate::spec::records::Turn {
            calls: t.gold.calls.clone(),
            tool_outputs: vec![serde_json::json!({"symbol": "XYZ"})],
        }];
        assert_eq!(respond(&t), before);
        t.gold = Gold::default();
        t.turns.clear();
        assert_eq!(respond(&t), before);
    }

    proptest::proptest! {
        #[test]
        fn any_query_gives_a_strict_response(query in "(\\PC|[0-9０-９.,:/'\"「」«»年月日년월일、と和TUSDEUR -]){0,80}", language in "(en|zh|ja|ko|ar|xx)") {
            let mut tools = weather_tools();
            tools.push(tool("", "", vec![param("", "", "")], vec![]));
            let t = task(&language, &query, tools);
            let text = respond(&t);
            let (_, calls) = strict_format(&text).expect("strict");
            proptest::prop_assert_eq!(calls, predict(&t));
        }
    }

    #[test]
    fn baseline_beats_calling_the_first_tool_on_the_sample() {
        let Some(tasks) = load_sample() else {
            return;
        };
        let [sel, inv, lm, fm] = evaluate_on(&tasks, respond);
        let [sel0, inv0, _, _] = evaluate_on(&tasks, first_tool_response);
        assert!(
            sel > sel0 && inv > inv0,
            "baseline {sel:.3}/{inv:.3} vs first tool {sel0:.3}/{inv0:.3}"
        );
        assert!(lm > 0.9 && fm == 1.0, "LM {lm:.3} FM {fm:.3}");
    }

    fn sample_path() -> std::path::PathBuf {
        std::env::var_os("ITC_SAMPLE_TASKS")
            .map_or_else(crate::spec::sample::sample_tasks, std::path::PathBuf::from)
    }

    /// Macro selection F1, invocation F1, LM and FM of a responder on a task file.
    fn evaluate_on(tasks: &[Task], respond: impl Fn(&Task) -> String) -> [f64; 4] {
        let mut sums = [0.0; 4];
        let verbose = std::env::var_os("ITC_BASELINE_VERBOSE").is_some();
        for task in tasks {
            let output = respond(task);
            let o = score_response(task, Some(&output), None, ScoreOptions::default());
            sums[0] += o.selection.f1;
            sums[1] += o.invocation.f1;
            sums[2] += f64::from(u8::from(o.language.is_match()));
            sums[3] += f64::from(u8::from(o.format_match));
            if verbose && o.invocation.f1 < 1.0 {
                let gold = print_actions(&task.gold.calls);
                eprintln!(
                    "{} {} {} sel={:.2} inv={:.2}\n  Q: {}\n  G: {gold}\n  P: {output}",
                    task.id, task.kind, task.language, o.selection.f1, o.invocation.f1, task.query
                );
            }
        }
        sums.map(|s| s / tasks.len().max(1) as f64)
    }

    /// The trivial answer: call the first candidate tool with no arguments.
    fn first_tool_response(task: &Task) -> String {
        let calls: Vec<Call> = task
            .tools
            .iter()
            .take(1)
            .map(|tool| Call::new(tool.name.clone(), vec![]))
            .collect();
        Answer {
            thought: thought(&task.language, &calls),
            calls,
        }
        .render()
    }

    fn load_sample() -> Option<Vec<Task>> {
        let text = crate::util::embedded::read_to_string(&sample_path()).ok()?;
        let tasks: Vec<Task> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("sample task parses"))
            .collect();
        (!tasks.is_empty()).then_some(tasks)
    }

    /// Prints the baseline's figures on the sample set:
    /// `cargo test --lib models::baseline::tests::sample_figures -- --ignored --nocapture`
    /// (`ITC_SAMPLE_TASKS` points at another task file, `ITC_BASELINE_VERBOSE`
    /// lists every task not solved exactly).
    #[test]
    #[ignore = "prints figures; run on demand"]
    fn sample_figures() {
        let Some(tasks) = load_sample() else {
            eprintln!("no sample at {}", sample_path().display());
            return;
        };
        let [sel, inv, lm, fm] = evaluate_on(&tasks, respond);
        eprintln!(
            "baseline on {} tasks: selection F1 {sel:.3}, invocation F1 {inv:.3}, LM {lm:.3}, FM {fm:.3}",
            tasks.len()
        );
        for kind in TaskKind::ALL {
            let subset: Vec<Task> = tasks.iter().filter(|t| t.kind == kind).cloned().collect();
            if subset.is_empty() {
                continue;
            }
            let [sel, inv, lm, fm] = evaluate_on(&subset, respond);
            eprintln!(
                "  {kind:>9} ({:>3}): sel {sel:.3} inv {inv:.3} LM {lm:.3} FM {fm:.3}",
                subset.len()
            );
        }
        let [sel0, inv0, _, _] = evaluate_on(&tasks, first_tool_response);
        eprintln!(
            "always the first candidate, no arguments: selection F1 {sel0:.3}, invocation F1 {inv0:.3}"
        );
        let base = Config::default();
        let variants = [
            (
                "call even when a typed required value is missing",
                Config {
                    refuse_when_required_missing: false,
                    ..base
                },
            ),
            (
                "BM25 alone (no typed evidence in the ranking)",
                Config {
                    type_bonus: 0.0,
                    type_penalty: 0.0,
                    ..base
                },
            ),
        ];
        for (label, config) in variants {
            let [sel, inv, lm, fm] =
                evaluate_on(&tasks, |t| answer(&Request::of(t), &config).render());
            eprintln!("variant {label}: sel {sel:.3} inv {inv:.3} LM {lm:.3} FM {fm:.3}");
        }
    }
}

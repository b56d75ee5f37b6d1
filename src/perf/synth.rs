//! Synthetic benchmark inputs: many tasks and many models' predictions of
//! mixed kinds and answer styles, for measuring scoring throughput.
//!
//! Everything is drawn from one seeded [`fastrand::Rng`], so a seed always
//! gives byte-identical files. Tasks cover the five kinds of SPEC §0 in ten
//! languages, with 3–6 candidate tools whose names use several scripts and
//! separators, and parameters of every JSON type. Predictions mix the answer
//! styles models actually produce (see [`AnswerStyle`]) in proportions that
//! vary from model to model.
//!
//! [`write_synthetic`] streams the prediction file (memory does not grow with
//! the number of predictions); [`synthesize`] keeps everything in memory for
//! tests and micro-benchmarks.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use crate::spec::action::print_actions;
use crate::spec::records::{
    Call, Gold, Parameter, Prediction, Reference, Task, TaskKind, Tool, Turn, Usage, Value,
};

/// How much to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SynthSpec {
    /// Number of tasks.
    pub tasks: usize,
    /// Number of models; each answers every task once.
    pub models: usize,
    /// Seed of every random choice.
    pub seed: u64,
}

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

    fn index(self) -> usize {
        AnswerStyle::ALL
            .iter()
            .position(|s| *s == self)
            .unwrap_or(0)
    }

    /// Base share (percent) of each style before per-model variation.
    fn base_weight(self) -> f64 {
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

/// The files written by [`write_synthetic`] and what they hold.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthFiles {
    /// The task file (`tasks.jsonl`).
    pub tasks_path: PathBuf,
    /// The prediction file (`predictions.jsonl`), all models one after another.
    pub predictions_path: PathBuf,
    /// Size of the task file in bytes.
    pub tasks_bytes: u64,
    /// Size of the prediction file in bytes.
    pub predictions_bytes: u64,
    /// Number of tasks.
    pub task_count: usize,
    /// Number of predictions (tasks × models).
    pub prediction_count: usize,
    /// Predictions per answer style, in [`AnswerStyle::ALL`] order.
    pub style_counts: Vec<(AnswerStyle, usize)>,
    /// Tasks per kind, in [`TaskKind::ALL`] order.
    pub kind_counts: Vec<(TaskKind, usize)>,
}

/// Everything generated, in memory (for tests and micro-benchmarks).
#[derive(Debug, Clone)]
pub struct Synthetic {
    /// The tasks.
    pub tasks: Vec<Task>,
    /// Predictions, model by model, each in task order.
    pub predictions: Vec<Prediction>,
    /// The style of each prediction.
    pub styles: Vec<AnswerStyle>,
}

/// Writes `tasks.jsonl` and `predictions.jsonl` into `dir` (created if
/// needed). The prediction file is streamed through a buffer.
pub fn write_synthetic(dir: &Path, spec: &SynthSpec) -> anyhow::Result<SynthFiles> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tasks_path = dir.join("tasks.jsonl");
    let predictions_path = dir.join("predictions.jsonl");
    let mut generator = Generator::new(spec);

    let mut out = BufWriter::with_capacity(1 << 20, create(&tasks_path)?);
    for task in &generator.tasks {
        serde_json::to_writer(&mut out, task)?;
        out.write_all(b"\n")?;
    }
    out.flush()
        .with_context(|| format!("writing {}", tasks_path.display()))?;
    drop(out);

    let mut out = BufWriter::with_capacity(1 << 20, create(&predictions_path)?);
    let mut styles = [0usize; AnswerStyle::ALL.len()];
    let mut result = Ok(());
    generator.for_each_prediction(|prediction, style| {
        styles[style.index()] += 1;
        if result.is_ok() {
            result = serde_json::to_writer(&mut out, prediction)
                .map_err(anyhow::Error::from)
                .and_then(|()| out.write_all(b"\n").map_err(anyhow::Error::from));
        }
    });
    result.with_context(|| format!("writing {}", predictions_path.display()))?;
    out.flush()
        .with_context(|| format!("writing {}", predictions_path.display()))?;
    drop(out);

    Ok(SynthFiles {
        tasks_bytes: std::fs::metadata(&tasks_path)?.len(),
        predictions_bytes: std::fs::metadata(&predictions_path)?.len(),
        tasks_path,
        predictions_path,
        task_count: spec.tasks,
        prediction_count: spec.tasks * spec.models,
        style_counts: AnswerStyle::ALL
            .iter()
            .map(|s| (*s, styles[s.index()]))
            .collect(),
        kind_counts: kind_counts(&generator.tasks),
    })
}

fn create(path: &Path) -> anyhow::Result<File> {
    File::create(path).with_context(|| format!("creating {}", path.display()))
}

/// Tasks per kind, in [`TaskKind::ALL`] order.
pub fn kind_counts(tasks: &[Task]) -> Vec<(TaskKind, usize)> {
    TaskKind::ALL
        .iter()
        .map(|k| (*k, tasks.iter().filter(|t| t.kind == *k).count()))
        .collect()
}

/// Generates the same tasks and predictions as [`write_synthetic`], in memory.
pub fn synthesize(spec: &SynthSpec) -> Synthetic {
    let mut generator = Generator::new(spec);
    let mut predictions = Vec::with_capacity(spec.tasks * spec.models);
    let mut styles = Vec::with_capacity(spec.tasks * spec.models);
    generator.for_each_prediction(|p, s| {
        predictions.push(p.clone());
        styles.push(s);
    });
    Synthetic {
        tasks: generator.tasks,
        predictions,
        styles,
    }
}

/// Realistic call lists for parser benchmarks: 1–5 calls each, tool names in
/// several scripts, values of every type (nested lists and dicts included).
fn corpus_calls(count: usize, seed: u64) -> Vec<Vec<Call>> {
    let spec = SynthSpec {
        tasks: 200,
        models: 0,
        seed,
    };
    let generator = Generator::new(&spec);
    let mut rng = fastrand::Rng::with_seed(seed ^ 0xAC71_0115);
    let pool: Vec<Call> = generator
        .tasks
        .iter()
        .flat_map(|t| predicted_gold(&mut rng, t))
        .collect();
    (0..count)
        .map(|_| {
            let n = rng.usize(1..=5);
            (0..n)
                .map(|_| pool[rng.usize(..pool.len())].clone())
                .collect()
        })
        .collect()
}

/// Action strings in the strict syntax of SPEC §1 (see [`corpus_calls`]).
pub fn action_corpus(count: usize, seed: u64) -> Vec<String> {
    corpus_calls(count, seed)
        .iter()
        .map(|c| print_actions(c))
        .collect()
}

/// Action strings in the forms lenient mode adds (SPEC §1): no outer
/// brackets, positional arguments, bare words, double quotes, trailing text.
pub fn lenient_action_corpus(count: usize, seed: u64) -> Vec<String> {
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x01E4_1E47);
    corpus_calls(count, seed)
        .into_iter()
        .map(|mut calls| match rng.usize(..5) {
            0 => {
                let s = print_actions(&calls);
                s[1..s.len() - 1].to_string()
            }
            1 => {
                for call in &mut calls {
                    if let Some((k, _)) = call.arguments.first_mut() {
                        *k = "#0".into();
                    }
                }
                print_actions(&calls)
            }
            2 => {
                let s = print_actions(&calls);
                if s.contains(['"', '\\']) {
                    s
                } else {
                    s.replace('\'', "\"")
                }
            }
            3 => format!(
                "{} and then I will summarise the results.",
                print_actions(&calls)
            ),
            _ => {
                for call in &mut calls {
                    for (_, v) in &mut call.arguments {
                        if let Value::Str(s) = v
                            && !s.is_empty()
                            && !s.contains([',', ')', ']', '}', '\n', '\'', '"', '(', '[', '{'])
                            && s.trim() == s
                        {
                            *v = Value::Word(std::mem::take(s));
                        }
                    }
                }
                print_actions(&calls)
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Phrase tables

/// Topic indices: the eight single-call domains, two nested chains, and one
/// topic no tool serves.
const WEATHER: usize = 0;
const FX: usize = 1;
const TRANSLATE: usize = 2;
const DIRECTIONS: usize = 3;
const NEWS: usize = 4;
const RESTAURANT: usize = 5;
const STOCK: usize = 6;
const FLIGHT: usize = 7;
const ORDERS: usize = 8;
const GEO: usize = 9;
const UNSUPPORTED: usize = 10;

/// Domains a single, repeated or parallel task may use.
const CALL_DOMAINS: [usize; 8] = [
    WEATHER, FX, TRANSLATE, DIRECTIONS, NEWS, RESTAURANT, STOCK, FLIGHT,
];

struct Phrases {
    code: &'static str,
    country: &'static str,
    topics: [&'static str; 11],
    places: [&'static str; 4],
    queries: [&'static str; 3],
    thoughts: [&'static str; 3],
    refusals: [&'static str; 2],
    nested: &'static str,
    wrap_before: [&'static str; 2],
    wrap_after: &'static str,
    bare: &'static str,
    vague: &'static str,
    currency: &'static str,
    phrase: &'static str,
    cuisine: &'static str,
    news: &'static str,
    user: &'static str,
    address: &'static str,
    symbol: &'static str,
    airport: &'static str,
    weather_tool: &'static str,
}

const LANGUAGES: [Phrases; 10] = [
    Phrases {
        code: "en",
        country: "US",
        topics: [
            "weather forecast",
            "exchange rate",
            "translation",
            "driving directions",
            "latest news",
            "restaurant recommendations",
            "stock price",
            "flight options",
            "recent orders",
            "weather at the exact location",
            "lottery results",
        ],
        places: ["London", "Chicago", "Sydney", "Toronto"],
        queries: [
            "Can you get me the {topic} for {place}?",
            "I need the {topic} for {place}, please.",
            "Please look up the {topic} in {place} for me today.",
        ],
        thoughts: [
            "The user is asking for the {topic} in {place}, so I will call the matching tool with these arguments.",
            "To answer this I need the {topic} for {place}; the tool below provides exactly that.",
            "I should use the available tool to fetch the {topic} for {place} and then reply.",
        ],
        refusals: [
            "None of the available tools can provide the {topic}, so I will not call any of them.",
            "The request is missing a required detail, so I should ask the user instead of calling a tool.",
        ],
        nested: "First I call one tool to obtain the {ph}, then I pass the {ph} to the next tool to get the {topic}.",
        wrap_before: [
            "Sure! Here is my answer:",
            "Okay, here is the tool call you need:",
        ],
        wrap_after: "Let me know if you need anything else.",
        bare: "I will call {call} to get the {topic} for {place}.",
        vague: "Can you tell me the {topic}?",
        currency: "USD",
        phrase: "Where is the train station?",
        cuisine: "Italian",
        news: "elections",
        user: "john.smith",
        address: "221B Baker Street, London",
        symbol: "AAPL",
        airport: "JFK",
        weather_tool: "OpenWeather Forecast",
    },
    Phrases {
        code: "zh",
        country: "CN",
        topics: [
            "天气预报",
            "汇率",
            "翻译",
            "驾车路线",
            "最新新闻",
            "餐厅推荐",
            "股票价格",
            "航班信息",
            "最近的订单",
            "所在位置的天气",
            "彩票开奖结果",
        ],
        places: ["北京", "上海", "广州", "成都"],
        queries: [
            "请帮我查一下{place}的{topic}。",
            "我想知道{place}的{topic}，谢谢。",
            "能告诉我今天{place}的{topic}吗？",
        ],
        thoughts: [
            "用户想了解{place}的{topic}，所以我需要调用相应的工具并传入这些参数。",
            "为了回答这个问题，我需要查询{place}的{topic}，下面的工具正好可以提供。",
            "我应该使用可用的工具获取{place}的{topic}，然后再回复用户。",
        ],
        refusals: [
            "现有的工具都无法提供{topic}，所以我不会调用任何工具。",
            "请求中缺少必要的信息，我应该先询问用户，而不是直接调用工具。",
        ],
        nested: "首先调用一个工具获取 {ph} ，然后把 {ph} 传给下一个工具来查询{topic}。",
        wrap_before: ["好的，以下是我的回答：", "没问题，这是需要的工具调用："],
        wrap_after: "如果还需要其他帮助，请告诉我。",
        bare: "我将调用 {call} 来查询{place}的{topic}。",
        vague: "请告诉我{topic}。",
        currency: "CNY",
        phrase: "火车站在哪里？",
        cuisine: "川菜",
        news: "人工智能",
        user: "wang_lei",
        address: "北京市朝阳区建国路88号",
        symbol: "600519.SS",
        airport: "PEK",
        weather_tool: "天气查询",
    },
    Phrases {
        code: "ja",
        country: "JP",
        topics: [
            "天気予報",
            "為替レート",
            "翻訳",
            "道順",
            "最新のニュース",
            "おすすめのレストラン",
            "株価",
            "フライト情報",
            "最近の注文",
            "現在地の天気",
            "宝くじの当選番号",
        ],
        places: ["札幌", "東京", "大阪", "福岡"],
        queries: [
            "{place}の{topic}を教えてください。",
            "{place}の{topic}を調べてもらえますか？",
            "今日の{place}の{topic}が知りたいです。",
        ],
        thoughts: [
            "ユーザーは{place}の{topic}を知りたがっているので、適切なツールをこれらの引数で呼び出します。",
            "この質問に答えるには{place}の{topic}が必要です。下のツールでそれを取得できます。",
            "利用できるツールを使って{place}の{topic}を取得し、その結果を伝えます。",
        ],
        refusals: [
            "利用できるツールでは{topic}を取得できないため、ツールは呼び出しません。",
            "必要な情報が不足しているので、ツールを呼び出す前にユーザーに確認するべきです。",
        ],
        nested: "まず最初のツールで {ph} を取得し、その {ph} を次のツールに渡して{topic}を調べます。",
        wrap_before: [
            "はい、回答は以下のとおりです：",
            "承知しました。必要なツール呼び出しはこちらです：",
        ],
        wrap_after: "ほかに必要なことがあれば教えてください。",
        bare: "{place}の{topic}を調べるために {call} を呼び出します。",
        vague: "{topic}を教えてください。",
        currency: "JPY",
        phrase: "駅はどこですか？",
        cuisine: "寿司",
        news: "地震",
        user: "tanaka.yuki",
        address: "東京都千代田区丸の内1-1",
        symbol: "7203.T",
        airport: "HND",
        weather_tool: "天気予報API",
    },
    Phrases {
        code: "ko",
        country: "KR",
        topics: [
            "일기 예보",
            "환율",
            "번역",
            "길 안내",
            "최신 뉴스",
            "맛집 추천",
            "주가",
            "항공편",
            "최근 주문 내역",
            "현재 위치의 날씨",
            "복권 당첨 번호",
        ],
        places: ["서울", "부산", "인천", "대구"],
        queries: [
            "{place}의 {topic} 정보를 알려 주세요.",
            "{place} {topic} 정보를 찾아 줄 수 있나요?",
            "오늘 {place}의 {topic} 정보가 궁금합니다.",
        ],
        thoughts: [
            "사용자가 {place}의 {topic} 정보를 원하므로 적절한 도구를 이 인자들로 호출하겠습니다.",
            "이 질문에 답하려면 {place}의 {topic} 정보가 필요하며, 아래 도구가 그 정보를 제공합니다.",
            "사용 가능한 도구로 {place}의 {topic} 정보를 가져온 뒤 답변하겠습니다.",
        ],
        refusals: [
            "사용 가능한 도구로는 {topic} 정보를 얻을 수 없으므로 도구를 호출하지 않겠습니다.",
            "필수 정보가 빠져 있으므로 도구를 호출하기 전에 사용자에게 먼저 물어봐야 합니다.",
        ],
        nested: "먼저 첫 번째 도구로 {ph} 값을 얻은 다음, 그 {ph} 값을 다음 도구에 넘겨 {topic} 정보를 조회하겠습니다.",
        wrap_before: [
            "네, 답변은 다음과 같습니다:",
            "알겠습니다. 필요한 도구 호출은 다음과 같습니다:",
        ],
        wrap_after: "더 필요한 것이 있으면 말씀해 주세요.",
        bare: "{place}의 {topic} 정보를 얻기 위해 {call} 를 호출하겠습니다.",
        vague: "{topic} 정보를 알려 주세요.",
        currency: "KRW",
        phrase: "기차역이 어디에 있나요?",
        cuisine: "한식",
        news: "반도체",
        user: "kim.minji",
        address: "서울특별시 중구 세종대로 110",
        symbol: "005930.KS",
        airport: "ICN",
        weather_tool: "날씨 조회",
    },
    Phrases {
        code: "ar",
        country: "SA",
        topics: [
            "توقعات الطقس",
            "سعر الصرف",
            "الترجمة",
            "اتجاهات القيادة",
            "آخر الأخبار",
            "توصيات المطاعم",
            "سعر السهم",
            "خيارات الرحلات",
            "الطلبات الأخيرة",
            "الطقس في الموقع الحالي",
            "نتائج اليانصيب",
        ],
        places: ["الرياض", "القاهرة", "دبي", "عمّان"],
        queries: [
            "هل يمكنك أن تخبرني عن {topic} في {place}؟",
            "أحتاج إلى معرفة {topic} في {place} من فضلك.",
            "من فضلك ابحث عن {topic} في {place} اليوم.",
        ],
        thoughts: [
            "يريد المستخدم معرفة {topic} في {place}، لذلك سأستدعي الأداة المناسبة بهذه المعاملات.",
            "للإجابة عن هذا السؤال أحتاج إلى {topic} في {place}، والأداة التالية توفر ذلك.",
            "يجب أن أستخدم الأداة المتاحة للحصول على {topic} في {place} ثم أرد على المستخدم.",
        ],
        refusals: [
            "لا توجد أداة متاحة تستطيع تقديم {topic}، لذلك لن أستدعي أي أداة.",
            "الطلب ينقصه معلومة مطلوبة، لذلك يجب أن أسأل المستخدم بدلا من استدعاء أداة.",
        ],
        nested: "أولا أستدعي أداة للحصول على {ph} ، ثم أمرر {ph} إلى الأداة التالية لمعرفة {topic}.",
        wrap_before: [
            "بالتأكيد، إليك إجابتي:",
            "حسنا، هذا هو استدعاء الأداة المطلوب:",
        ],
        wrap_after: "أخبرني إذا كنت تحتاج إلى أي شيء آخر.",
        bare: "سأستدعي {call} لمعرفة {topic} في {place}.",
        vague: "أخبرني عن {topic} من فضلك.",
        currency: "SAR",
        phrase: "أين محطة القطار؟",
        cuisine: "مشويات",
        news: "الاقتصاد",
        user: "ahmed.ali",
        address: "طريق الملك فهد، الرياض",
        symbol: "2222.SR",
        airport: "RUH",
        weather_tool: "حالة_الطقس",
    },
    Phrases {
        code: "ru",
        country: "RU",
        topics: [
            "прогноз погоды",
            "курс валют",
            "перевод",
            "маршрут",
            "последние новости",
            "рекомендации ресторанов",
            "цену акций",
            "варианты перелёта",
            "последние заказы",
            "погоду в текущем месте",
            "результаты лотереи",
        ],
        places: ["Москва", "Санкт-Петербург", "Казань", "Новосибирск"],
        queries: [
            "Покажи, пожалуйста, {topic} для города {place}.",
            "Мне нужно узнать {topic} для города {place}.",
            "Найди, пожалуйста, {topic} в городе {place} на сегодня.",
        ],
        thoughts: [
            "Пользователь хочет узнать {topic} для города {place}, поэтому я вызову подходящий инструмент с этими аргументами.",
            "Чтобы ответить, нужно получить {topic} для города {place}; нужный инструмент есть в списке.",
            "Я должен использовать доступный инструмент, чтобы получить {topic} для города {place}, а затем ответить.",
        ],
        refusals: [
            "Ни один из доступных инструментов не может дать {topic}, поэтому я не буду вызывать инструменты.",
            "В запросе не хватает обязательного параметра, поэтому нужно сначала уточнить у пользователя.",
        ],
        nested: "Сначала я получу {ph} с помощью первого инструмента, а затем передам {ph} следующему инструменту, чтобы узнать {topic}.",
        wrap_before: [
            "Конечно, вот мой ответ:",
            "Хорошо, вот нужный вызов инструмента:",
        ],
        wrap_after: "Дайте знать, если нужно что-то ещё.",
        bare: "Я вызову {call}, чтобы узнать {topic} для города {place}.",
        vague: "Скажи, пожалуйста, {topic}.",
        currency: "RUB",
        phrase: "Где находится вокзал?",
        cuisine: "грузинская кухня",
        news: "выборы",
        user: "ivan.petrov",
        address: "Тверская улица, 7, Москва",
        symbol: "SBER.ME",
        airport: "SVO",
        weather_tool: "погода.прогноз",
    },
    Phrases {
        code: "hi",
        country: "IN",
        topics: [
            "मौसम का पूर्वानुमान",
            "विनिमय दर",
            "अनुवाद",
            "रास्ते की जानकारी",
            "ताज़ा समाचार",
            "रेस्टोरेंट के सुझाव",
            "शेयर की कीमत",
            "उड़ान के विकल्प",
            "हाल के ऑर्डर",
            "मौजूदा जगह का मौसम",
            "लॉटरी के नतीजे",
        ],
        places: ["दिल्ली", "मुंबई", "जयपुर", "कोलकाता"],
        queries: [
            "क्या आप मुझे {place} का {topic} बता सकते हैं?",
            "मुझे {place} के लिए {topic} चाहिए।",
            "कृपया आज {place} का {topic} देखकर बताइए।",
        ],
        thoughts: [
            "उपयोगकर्ता {place} का {topic} जानना चाहता है, इसलिए मैं इन तर्कों के साथ सही टूल को कॉल करूँगा।",
            "इस सवाल का जवाब देने के लिए मुझे {place} का {topic} चाहिए, और नीचे दिया गया टूल यही जानकारी देता है।",
            "मुझे उपलब्ध टूल का उपयोग करके {place} का {topic} लाना चाहिए और फिर जवाब देना चाहिए।",
        ],
        refusals: [
            "कोई भी उपलब्ध टूल {topic} नहीं दे सकता, इसलिए मैं किसी टूल को कॉल नहीं करूँगा।",
            "अनुरोध में एक ज़रूरी जानकारी नहीं है, इसलिए टूल कॉल करने से पहले उपयोगकर्ता से पूछना चाहिए।",
        ],
        nested: "पहले मैं एक टूल से {ph} प्राप्त करूँगा, फिर उस {ph} को अगले टूल में देकर {topic} पता करूँगा।",
        wrap_before: ["ज़रूर, यह रहा मेरा जवाब:", "ठीक है, ज़रूरी टूल कॉल यह है:"],
        wrap_after: "अगर आपको और कुछ चाहिए तो बताइए।",
        bare: "{place} का {topic} जानने के लिए मैं {call} को कॉल करूँगा।",
        vague: "मुझे {topic} बताइए।",
        currency: "INR",
        phrase: "रेलवे स्टेशन कहाँ है?",
        cuisine: "दक्षिण भारतीय",
        news: "क्रिकेट",
        user: "rahul.sharma",
        address: "कनॉट प्लेस, नई दिल्ली",
        symbol: "RELIANCE.NS",
        airport: "DEL",
        weather_tool: "मौसम/पूर्वानुमान",
    },
    Phrases {
        code: "de",
        country: "DE",
        topics: [
            "die Wettervorhersage",
            "den Wechselkurs",
            "eine Übersetzung",
            "die Wegbeschreibung",
            "die aktuellen Nachrichten",
            "Restaurantempfehlungen",
            "den Aktienkurs",
            "passende Flugverbindungen",
            "die letzten Bestellungen",
            "das Wetter am aktuellen Standort",
            "die Lottozahlen",
        ],
        places: ["Berlin", "München", "Köln", "Hamburg"],
        queries: [
            "Kannst du mir {topic} für {place} heraussuchen?",
            "Ich brauche bitte {topic} für {place}.",
            "Bitte schau heute {topic} für {place} für mich nach.",
        ],
        thoughts: [
            "Der Nutzer möchte {topic} für {place} wissen, daher rufe ich das passende Werkzeug mit diesen Argumenten auf.",
            "Um die Frage zu beantworten, brauche ich {topic} für {place}; das folgende Werkzeug liefert genau das.",
            "Ich sollte das verfügbare Werkzeug benutzen, um {topic} für {place} abzurufen, und dann antworten.",
        ],
        refusals: [
            "Keines der verfügbaren Werkzeuge kann {topic} liefern, deshalb rufe ich keines davon auf.",
            "In der Anfrage fehlt eine notwendige Angabe, deshalb sollte ich zuerst beim Nutzer nachfragen.",
        ],
        nested: "Zuerst hole ich mit dem ersten Werkzeug den Wert {ph} , dann übergebe ich {ph} an das nächste Werkzeug, um {topic} zu bekommen.",
        wrap_before: [
            "Klar, hier ist meine Antwort:",
            "Gut, hier ist der benötigte Werkzeugaufruf:",
        ],
        wrap_after: "Sag Bescheid, wenn du noch etwas brauchst.",
        bare: "Ich rufe {call} auf, um {topic} für {place} zu bekommen.",
        vague: "Kannst du mir {topic} sagen?",
        currency: "EUR",
        phrase: "Wo ist der Bahnhof?",
        cuisine: "Italienisch",
        news: "Energiewende",
        user: "m.mueller",
        address: "Unter den Linden 77, Berlin",
        symbol: "SAP.DE",
        airport: "FRA",
        weather_tool: "Wetter Vorhersage",
    },
    Phrases {
        code: "fr",
        country: "FR",
        topics: [
            "la météo",
            "le taux de change",
            "une traduction",
            "l'itinéraire",
            "les dernières nouvelles",
            "des recommandations de restaurants",
            "le cours de l'action",
            "les vols disponibles",
            "les dernières commandes",
            "la météo à ma position",
            "les résultats du loto",
        ],
        places: ["Paris", "Lyon", "Marseille", "Toulouse"],
        queries: [
            "Peux-tu me donner {topic} pour {place} ?",
            "J'ai besoin de connaître {topic} à {place}, s'il te plaît.",
            "Merci de vérifier {topic} pour {place} aujourd'hui.",
        ],
        thoughts: [
            "L'utilisateur veut connaître {topic} pour {place}, donc je vais appeler l'outil adapté avec ces arguments.",
            "Pour répondre à cette question, il faut obtenir {topic} pour {place} avec l'outil ci-dessous.",
            "Je dois utiliser l'outil disponible pour récupérer {topic} pour {place}, puis répondre à l'utilisateur.",
        ],
        refusals: [
            "Aucun des outils disponibles ne peut fournir {topic}, donc je n'appelle aucun outil.",
            "Il manque une information obligatoire dans la demande, je dois donc d'abord poser la question à l'utilisateur.",
        ],
        nested: "D'abord j'obtiens la valeur {ph} avec le premier outil, puis je transmets {ph} à l'outil suivant pour obtenir {topic}.",
        wrap_before: [
            "Bien sûr, voici ma réponse :",
            "D'accord, voici l'appel d'outil nécessaire :",
        ],
        wrap_after: "N'hésite pas si tu as besoin d'autre chose.",
        bare: "Je vais appeler {call} pour obtenir {topic} à {place}.",
        vague: "Peux-tu me donner {topic} ?",
        currency: "EUR",
        phrase: "Où est la gare ?",
        cuisine: "bistrot",
        news: "grève",
        user: "c.dupont",
        address: "10 rue de Rivoli, Paris",
        symbol: "MC.PA",
        airport: "CDG",
        weather_tool: "météo_prévisions",
    },
    Phrases {
        code: "es",
        country: "ES",
        topics: [
            "el pronóstico del tiempo",
            "el tipo de cambio",
            "una traducción",
            "la ruta en coche",
            "las últimas noticias",
            "recomendaciones de restaurantes",
            "el precio de la acción",
            "opciones de vuelo",
            "los pedidos recientes",
            "el tiempo en mi ubicación",
            "los resultados de la lotería",
        ],
        places: ["Madrid", "Sevilla", "Ciudad de México", "Bogotá"],
        queries: [
            "¿Me puedes decir {topic} para {place}?",
            "Necesito saber {topic} en {place}, por favor.",
            "Por favor, busca {topic} de {place} para hoy.",
        ],
        thoughts: [
            "El usuario quiere saber {topic} en {place}, así que llamaré a la herramienta adecuada con estos argumentos.",
            "Para responder necesito obtener {topic} en {place}; la herramienta de abajo ofrece exactamente eso.",
            "Debo usar la herramienta disponible para consultar {topic} en {place} y luego responder al usuario.",
        ],
        refusals: [
            "Ninguna de las herramientas disponibles puede dar {topic}, así que no llamaré a ninguna.",
            "A la solicitud le falta un dato obligatorio, así que primero debo preguntarle al usuario.",
        ],
        nested: "Primero obtengo el valor {ph} con la primera herramienta y después paso {ph} a la siguiente herramienta para consultar {topic}.",
        wrap_before: [
            "¡Claro! Aquí está mi respuesta:",
            "De acuerdo, esta es la llamada a la herramienta que necesitas:",
        ],
        wrap_after: "Avísame si necesitas algo más.",
        bare: "Voy a llamar a {call} para obtener {topic} en {place}.",
        vague: "¿Me puedes decir {topic}?",
        currency: "MXN",
        phrase: "¿Dónde está la estación de tren?",
        cuisine: "tapas",
        news: "fútbol",
        user: "j.garcia",
        address: "Calle de Alcalá 45, Madrid",
        symbol: "SAN.MC",
        airport: "MAD",
        weather_tool: "clima.pronóstico",
    },
];

const MODEL_FAMILIES: [&str; 12] = [
    "qwen2.5-7b-instruct",
    "llama-3.1-8b-instruct",
    "gpt-4o-mini",
    "mistral-7b-instruct-v0.3",
    "glm-4-9b-chat",
    "gemma-2-9b-it",
    "deepseek-v3",
    "internlm2.5-7b-chat",
    "yi-1.5-9b-chat",
    "phi-3.5-mini-instruct",
    "aya-expanse-8b",
    "command-r-08-2024",
];

const HALLUCINATED: [&str; 8] = [
    "get_weather",
    "search_api",
    "web_search",
    "lookup",
    "fetch_data",
    "google_search",
    "query_database",
    "api_request",
];

const ERRORS: [&str; 4] = [
    "timeout after 3 retries",
    "HTTP 429: rate limit exceeded",
    "HTTP 500: internal server error",
    "context length exceeded",
];

fn fill(template: &str, topic: &str, place: &str) -> String {
    template.replace("{topic}", topic).replace("{place}", place)
}

// ---------------------------------------------------------------------------
// Tools

fn param(name: &str, kind: &str, description: &str) -> Parameter {
    Parameter {
        name: name.into(),
        kind: kind.into(),
        description: description.into(),
        default: None,
    }
}

fn param_default(
    name: &str,
    kind: &str,
    description: &str,
    default: serde_json::Value,
) -> Parameter {
    Parameter {
        default: Some(default),
        ..param(name, kind, description)
    }
}

struct ToolInfo {
    name: String,
    category: &'static str,
    global: bool,
    method: &'static str,
    path: &'static str,
    description: &'static str,
    required: Vec<Parameter>,
    optional: Vec<Parameter>,
}

fn domain_tool(domain: usize, lang: &Phrases, localized: bool) -> ToolInfo {
    let info =
        |name: &str, category, global, method, path, description, required, optional| ToolInfo {
            name: name.to_string(),
            category,
            global,
            method,
            path,
            description,
            required,
            optional,
        };
    match domain {
        WEATHER => info(
            if localized {
                lang.weather_tool
            } else {
                "weather_forecast"
            },
            "Weather",
            false,
            "GET",
            "weather/forecast",
            "Daily weather forecast for a city.",
            vec![param("city", "string", "City name")],
            vec![
                param_default("days", "integer", "Number of days (1-7)", 1.into()),
                param_default("units", "string", "metric or imperial", "metric".into()),
                param("include_hourly", "boolean", "Add hourly values"),
            ],
        ),
        FX => info(
            "exchange_rate",
            "Finance",
            true,
            "GET",
            "fx/latest",
            "Latest exchange rate between two currencies.",
            vec![
                param("base", "string", "ISO 4217 code of the base currency"),
                param("target", "string", "ISO 4217 code of the target currency"),
            ],
            vec![param("amount", "number", "Amount to convert")],
        ),
        TRANSLATE => info(
            "Google Translate",
            "Translation",
            true,
            "POST",
            "translate",
            "Translates text into a target language.",
            vec![
                param("text", "string", "Text to translate"),
                param(
                    "target_lang",
                    "string",
                    "ISO 639-1 code of the target language",
                ),
            ],
            vec![param("formal", "boolean", "Use a formal register")],
        ),
        DIRECTIONS => info(
            "maps/directions",
            "Maps",
            false,
            "GET",
            "maps/directions",
            "Route between two places.",
            vec![
                param("origin", "string", "Start address"),
                param("destination", "string", "End address"),
            ],
            vec![
                param_default(
                    "mode",
                    "string",
                    "driving, walking or transit",
                    "driving".into(),
                ),
                param(
                    "avoid",
                    "array",
                    "Features to avoid: tolls, highways, ferries",
                ),
            ],
        ),
        NEWS => info(
            "news.search",
            "News",
            false,
            "GET",
            "news/search",
            "Searches recent news articles.",
            vec![param("query", "string", "Search terms")],
            vec![
                param_default("limit", "integer", "Maximum number of articles", 10.into()),
                param("languages", "array", "ISO 639-1 codes of article languages"),
            ],
        ),
        RESTAURANT => info(
            "restaurant_search",
            "Food",
            false,
            "GET",
            "places/restaurants",
            "Finds restaurants by city and cuisine.",
            vec![
                param("city", "string", "City name"),
                param("cuisine", "string", "Kind of food"),
            ],
            vec![
                param("open_now", "boolean", "Only places open now"),
                param("price_levels", "array", "Accepted price levels, 1-4"),
            ],
        ),
        STOCK => info(
            "stock_quote",
            "Finance",
            true,
            "GET",
            "markets/quote",
            "Latest quote of a listed stock.",
            vec![param("symbol", "string", "Ticker symbol")],
            vec![
                param("exchange", "string", "Exchange code"),
                param_default(
                    "realtime",
                    "boolean",
                    "Real-time instead of delayed",
                    false.into(),
                ),
            ],
        ),
        FLIGHT => info(
            "flight_search",
            "Travel",
            true,
            "GET",
            "flights/search",
            "Searches flights between two airports on a date.",
            vec![
                param("origin", "string", "IATA code of the departure airport"),
                param("destination", "string", "IATA code of the arrival airport"),
                param("date", "string", "Departure date, YYYY-MM-DD"),
            ],
            vec![
                param_default("passengers", "integer", "Number of passengers", 1.into()),
                param("filters", "object", "max_stops, cabin, airlines"),
            ],
        ),
        _ => unreachable!("not a call domain"),
    }
}

fn make_tool(info: &ToolInfo, lang: &Phrases) -> Tool {
    Tool {
        name: info.name.clone(),
        description: info.description.into(),
        category: info.category.into(),
        country: if info.global {
            "GLOBAL".into()
        } else {
            lang.country.into()
        },
        method: info.method.into(),
        url: format!("https://api.example.com/v1/{}", info.path),
        required_parameters: info.required.clone(),
        optional_parameters: info.optional.clone(),
    }
}

fn simple_tool(
    name: &str,
    category: &str,
    description: &str,
    required: Vec<Parameter>,
    optional: Vec<Parameter>,
) -> Tool {
    Tool {
        name: name.into(),
        description: description.into(),
        category: category.into(),
        country: "GLOBAL".into(),
        method: "POST".into(),
        url: format!(
            "https://api.example.com/v1/{}",
            name.replace(['/', ' '], "_")
        ),
        required_parameters: required,
        optional_parameters: optional,
    }
}

fn str_value(s: &str) -> Value {
    Value::Str(s.to_string())
}

// ---------------------------------------------------------------------------
// The generator

/// A task with what predictions need precomputed.
struct TaskExtras {
    /// The task's primary topic and place, in its language.
    thoughts: [String; 3],
    refusal: String,
    /// Text before and after `{call}` in the bare-call sentence.
    bare: (String, String),
    /// Names of candidate tools the gold does not use.
    confusers: Vec<usize>,
}

struct ModelProfile {
    name: String,
    /// Cumulative style weights, in [`AnswerStyle::ALL`] order, summing to 1.
    cumulative: [f64; AnswerStyle::ALL.len()],
    /// Chance a format-style answer also gets its content wrong.
    sloppiness: f64,
}

struct Generator {
    rng: fastrand::Rng,
    tasks: Vec<Task>,
    extras: Vec<TaskExtras>,
    models: Vec<ModelProfile>,
    /// Per language, thoughts of the other languages (for `WrongLanguage`).
    foreign: Vec<Vec<String>>,
    /// Per language, refusals in the other languages.
    foreign_refusals: Vec<Vec<String>>,
}

impl Generator {
    fn new(spec: &SynthSpec) -> Generator {
        let mut rng = fastrand::Rng::with_seed(spec.seed);
        let mut tasks = Vec::with_capacity(spec.tasks);
        let mut extras = Vec::with_capacity(spec.tasks);
        for i in 0..spec.tasks {
            let (task, extra) = make_task(&mut rng, i);
            tasks.push(task);
            extras.push(extra);
        }
        let models = (0..spec.models).map(|m| make_model(&mut rng, m)).collect();
        let foreign = (0..LANGUAGES.len())
            .map(|own| {
                LANGUAGES
                    .iter()
                    .enumerate()
                    .filter(|(l, _)| *l != own)
                    .flat_map(|(_, lang)| {
                        lang.thoughts
                            .iter()
                            .enumerate()
                            .map(|(k, t)| fill(t, lang.topics[k * 2], lang.places[k]))
                    })
                    .collect()
            })
            .collect();
        let foreign_refusals = (0..LANGUAGES.len())
            .map(|own| {
                LANGUAGES
                    .iter()
                    .enumerate()
                    .filter(|(l, _)| *l != own)
                    .map(|(_, lang)| {
                        fill(lang.refusals[0], lang.topics[UNSUPPORTED], lang.places[0])
                    })
                    .collect()
            })
            .collect();
        Generator {
            rng,
            tasks,
            extras,
            models,
            foreign,
            foreign_refusals,
        }
    }

    /// Calls `f` with every prediction, model by model, each in task order.
    fn for_each_prediction(&mut self, mut f: impl FnMut(&Prediction, AnswerStyle)) {
        // Built from the minimal record so optional fields added later stay unset.
        let mut prediction: Prediction = serde_json::from_str(r#"{"task_id": "", "model": ""}"#)
            .expect("minimal prediction reads");
        let mut scratch = String::new();
        for m in 0..self.models.len() {
            prediction.model.clear();
            prediction.model.push_str(&self.models[m].name);
            for t in 0..self.tasks.len() {
                prediction.task_id.clear();
                prediction.task_id.push_str(&self.tasks[t].id);
                let style = self.fill_prediction(m, t, &mut prediction, &mut scratch);
                f(&prediction, style);
            }
        }
    }

    fn pick_style(&mut self, model: usize) -> AnswerStyle {
        let u = self.rng.f64();
        let cumulative = &self.models[model].cumulative;
        let i = cumulative
            .iter()
            .position(|&c| u < c)
            .unwrap_or(cumulative.len() - 1);
        AnswerStyle::ALL[i]
    }

    /// Fills `p` (task id and model already set) with one answer; returns its style.
    fn fill_prediction(
        &mut self,
        model: usize,
        t: usize,
        p: &mut Prediction,
        scratch: &mut String,
    ) -> AnswerStyle {
        use AnswerStyle::*;
        let style = self.pick_style(model);
        let rng = &mut self.rng;
        let task = &self.tasks[t];
        let extra = &self.extras[t];
        let lang = language_of(task);

        p.error = None;
        p.calls = None;
        p.latency_ms = Some(rng.u64(150..6000));

        if style == Error {
            p.output = None;
            p.error = Some(ERRORS[rng.usize(..ERRORS.len())].to_string());
            p.usage = None;
            return style;
        }

        let mut calls = predicted_gold(rng, task);
        let content = match style {
            StrictCorrect => {
                if rng.f64() < 0.12 {
                    loosen_values(rng, &mut calls);
                }
                StrictCorrect
            }
            WrongTool | WrongValue | MissingArgument | ExtraArgument | Refusal => style,
            _ if rng.f64() < self.models[model].sloppiness => {
                [WrongValue, MissingArgument, WrongTool][rng.usize(..3)]
            }
            _ => StrictCorrect,
        };
        match content {
            StrictCorrect => {}
            Refusal => calls.clear(),
            _ if calls.is_empty() => calls.push(spurious_call(rng, task)),
            WrongTool => {
                let i = rng.usize(..calls.len());
                calls[i].name = if !extra.confusers.is_empty() && rng.bool() {
                    task.tools[extra.confusers[rng.usize(..extra.confusers.len())]]
                        .name
                        .clone()
                } else {
                    HALLUCINATED[rng.usize(..HALLUCINATED.len())].to_string()
                };
            }
            WrongValue => wrong_value(rng, task, &mut calls),
            MissingArgument => {
                let with_args: Vec<usize> = (0..calls.len())
                    .filter(|&i| !calls[i].arguments.is_empty())
                    .collect();
                if let Some(&i) = with_args.get(rng.usize(..with_args.len().max(1))) {
                    let a = rng.usize(..calls[i].arguments.len());
                    calls[i].arguments.remove(a);
                }
            }
            ExtraArgument => {
                let i = rng.usize(..calls.len());
                extra_argument(rng, task, &mut calls[i]);
            }
            _ => {}
        }

        let thought: &str = if style == WrongLanguage {
            let pool = if calls.is_empty() {
                &self.foreign_refusals[lang]
            } else {
                &self.foreign[lang]
            };
            &pool[rng.usize(..pool.len())]
        } else if calls.is_empty() {
            &extra.refusal
        } else {
            &extra.thoughts[rng.usize(..3)]
        };

        if style == Native {
            p.output = rng.bool().then(|| thought.to_string());
            p.usage = Some(usage(rng, task, p.output.as_deref().map_or(40, str::len)));
            p.calls = Some(calls);
            return style;
        }

        let mut action = print_actions(&calls);
        if rng.f64() < 0.15 && !action.contains('"') && !action.contains('\\') {
            action = action.replace('\'', "\"");
        }
        let langp = &LANGUAGES[lang];
        scratch.clear();
        match style {
            Fenced => {
                scratch.push_str("```json\n");
                push_strict(scratch, thought, &action, rng.f64() < 0.5);
                scratch.push_str("\n```");
            }
            JsonPrefix => {
                scratch.push_str("json");
                push_strict(scratch, thought, &action, false);
            }
            ProseWrapped => {
                let english = rng.f64() < 0.3;
                let before = if english {
                    LANGUAGES[0].wrap_before[0]
                } else {
                    langp.wrap_before[rng.usize(..2)]
                };
                scratch.push_str(before);
                scratch.push('\n');
                push_strict(scratch, thought, &action, rng.bool());
                if rng.bool() {
                    scratch.push('\n');
                    scratch.push_str(if english {
                        LANGUAGES[0].wrap_after
                    } else {
                        langp.wrap_after
                    });
                }
            }
            PythonDict => {
                scratch.push_str("{'Thought': ");
                push_python_str(scratch, thought);
                scratch.push_str(", 'Action': ");
                push_python_str(scratch, &action);
                scratch.push('}');
            }
            BareCalls => {
                if calls.is_empty() {
                    scratch.push_str(thought);
                } else {
                    scratch.push_str(&extra.bare.0);
                    let joiner = if lang == 0 { " and " } else { ", " };
                    for (i, call) in calls.iter().enumerate() {
                        if i > 0 {
                            scratch.push_str(joiner);
                        }
                        crate::spec::action::print_call(call, scratch);
                    }
                    scratch.push_str(&extra.bare.1);
                }
            }
            CallList => {
                scratch.push_str(thought);
                scratch.push_str(if rng.bool() { "\nAction: " } else { "\n\n" });
                scratch.push_str(&action);
            }
            _ => push_strict(scratch, thought, &action, rng.f64() < 0.1),
        }
        p.usage = Some(usage(rng, task, scratch.len()));
        match &mut p.output {
            Some(out) => {
                out.clear();
                out.push_str(scratch);
            }
            None => p.output = Some(scratch.clone()),
        }
        style
    }
}

#[derive(Serialize)]
struct StrictAnswer<'a> {
    #[serde(rename = "Thought")]
    thought: &'a str,
    #[serde(rename = "Action")]
    action: &'a str,
}

fn push_strict(out: &mut String, thought: &str, action: &str, pretty: bool) {
    let answer = StrictAnswer { thought, action };
    let text = if pretty {
        serde_json::to_string_pretty(&answer)
    } else {
        serde_json::to_string(&answer)
    };
    out.push_str(&text.expect("strings serialize"));
}

/// Python `repr` of a string: single quotes unless the text holds one.
fn push_python_str(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

fn usage(rng: &mut fastrand::Rng, task: &Task, output_bytes: usize) -> Usage {
    Usage {
        prompt_tokens: 250 + 90 * task.tools.len() as u64 + rng.u64(0..60),
        completion_tokens: (output_bytes / 3) as u64 + rng.u64(0..8),
    }
}

fn language_of(task: &Task) -> usize {
    LANGUAGES
        .iter()
        .position(|l| l.code == task.language)
        .unwrap_or(0)
}

/// The gold calls as a model would write them: references become one of the
/// styles SPEC §3 accepts.
fn predicted_gold(rng: &mut fastrand::Rng, task: &Task) -> Vec<Call> {
    let mut calls = task.gold.calls.clone();
    if task.kind == TaskKind::Nested {
        for call in &mut calls {
            for (_, v) in &mut call.arguments {
                if let Value::Ref(r) = v {
                    *v = Value::Str(match rng.usize(..5) {
                        0 => format!("${}.{}", r.call + 1, r.field),
                        1 => format!("{{{{{}}}}}", r.field),
                        2 => format!("API_call_{}.{}", r.call, r.field),
                        3 => format!("<output of call {}>", r.call + 1),
                        _ => r.field.clone(),
                    });
                }
            }
        }
    }
    calls
}

/// Writes some values in a form that is loosely equal: numbers as strings,
/// booleans as `'True'`, ASCII strings upper-cased.
fn loosen_values(rng: &mut fastrand::Rng, calls: &mut [Call]) {
    for call in calls {
        for (_, v) in &mut call.arguments {
            if rng.bool() {
                continue;
            }
            match v {
                Value::Int(i) => *v = Value::Str(i.to_string()),
                Value::Bool(b) => *v = Value::Str(if *b { "True" } else { "False" }.into()),
                Value::Str(s) if s.is_ascii() && !s.starts_with(['$', '{', '<']) => {
                    *s = s.to_uppercase()
                }
                _ => {}
            }
        }
    }
}

fn wrong_value(rng: &mut fastrand::Rng, task: &Task, calls: &mut [Call]) {
    let with_args: Vec<usize> = (0..calls.len())
        .filter(|&i| !calls[i].arguments.is_empty())
        .collect();
    if with_args.is_empty() {
        let i = rng.usize(..calls.len());
        extra_argument(rng, task, &mut calls[i]);
        return;
    }
    let call = &mut calls[with_args[rng.usize(..with_args.len())]];
    let a = rng.usize(..call.arguments.len());
    let value = &mut call.arguments[a].1;
    *value = match &*value {
        Value::Int(i) => Value::Int(*i + rng.i64(1..5)),
        Value::Float(x) => Value::Float((*x * 1.5 * 100.0).round() / 100.0),
        Value::Bool(b) => Value::Bool(!*b),
        Value::List(items) if items.len() > 1 => Value::List(items[..items.len() - 1].to_vec()),
        Value::List(_) => Value::List(vec![str_value("ferries"), str_value("tolls")]),
        Value::Dict(entries) => {
            let mut entries = entries.clone();
            entries.retain(|(k, _)| k != "cabin");
            entries.push(("cabin".into(), str_value("business")));
            Value::Dict(entries)
        }
        Value::Str(s) | Value::Word(s) => {
            // A different word; for a reference, an invented literal.
            let choices = ["abc123", "Tokyo", "New York", "GBP", "12345", "Lagos"];
            let start = rng.usize(..choices.len());
            let pick = (0..choices.len())
                .map(|k| choices[(start + k) % choices.len()])
                .find(|c| !crate::score::task::text_equal(c, s))
                .unwrap_or("Lagos");
            str_value(pick)
        }
        other => Value::List(vec![other.clone()]),
    };
}

fn extra_argument(rng: &mut fastrand::Rng, task: &Task, call: &mut Call) {
    let tool = task.tools.iter().find(|t| t.name == call.name);
    let unused = tool.and_then(|t| {
        t.optional_parameters
            .iter()
            .find(|p| !call.arguments.iter().any(|(k, _)| *k == p.name))
    });
    let (key, value) = match unused {
        Some(p) => (
            p.name.clone(),
            match p.kind.as_str() {
                "integer" => Value::Int(rng.i64(1..10)),
                "number" => Value::Float(2.5),
                "boolean" => Value::Bool(true),
                "array" => Value::List(vec![str_value("tolls")]),
                "object" => Value::Dict(vec![("max_stops".into(), Value::Int(0))]),
                _ => str_value("metric"),
            },
        ),
        None => (
            ["verbose", "lang", "format"][rng.usize(..3)].to_string(),
            [Value::Bool(true), str_value("en"), str_value("json")][rng.usize(..3)].clone(),
        ),
    };
    call.arguments.push((key, value));
}

/// A call where none is wanted: a candidate tool with its required
/// parameters filled with plausible strings.
fn spurious_call(rng: &mut fastrand::Rng, task: &Task) -> Call {
    let tool = &task.tools[rng.usize(..task.tools.len())];
    let lang = &LANGUAGES[language_of(task)];
    let arguments = tool
        .required_parameters
        .iter()
        .map(|p| (p.name.clone(), str_value(lang.places[rng.usize(..4)])))
        .collect();
    Call::new(tool.name.clone(), arguments)
}

fn make_model(rng: &mut fastrand::Rng, m: usize) -> ModelProfile {
    let family = MODEL_FAMILIES[m % MODEL_FAMILIES.len()];
    let name = format!("{family}-ft{m:03}");
    let skill = 0.4 + 1.6 * rng.f64(); // multiplies content errors
    let format = 0.3 + 2.2 * rng.f64(); // multiplies format deviations
    let native = if rng.f64() < 0.2 { 6.0 } else { 0.3 };
    let wrong_language = 0.3 + 2.7 * rng.f64();
    let errors = 0.2 + 2.8 * rng.f64();
    let weights: Vec<f64> = AnswerStyle::ALL
        .iter()
        .map(|s| {
            use AnswerStyle::*;
            let factor = match s {
                StrictCorrect => 1.0,
                WrongTool | WrongValue | MissingArgument | ExtraArgument | Refusal => skill,
                WrongLanguage => wrong_language,
                Fenced | JsonPrefix | ProseWrapped | PythonDict | BareCalls | CallList => format,
                Native => native,
                Error => errors,
            };
            s.base_weight() * factor
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut cumulative = [0f64; AnswerStyle::ALL.len()];
    let mut running = 0.0;
    for (c, w) in cumulative.iter_mut().zip(&weights) {
        running += w / total;
        *c = running;
    }
    cumulative[AnswerStyle::ALL.len() - 1] = 1.0;
    ModelProfile {
        name,
        cumulative,
        sloppiness: 0.1 * skill,
    }
}

fn make_task(rng: &mut fastrand::Rng, i: usize) -> (Task, TaskExtras) {
    let l = rng.usize(..LANGUAGES.len());
    let lang = &LANGUAGES[l];
    let kind = match rng.usize(..100) {
        0..30 => TaskKind::Single,
        30..45 => TaskKind::Repeated,
        45..65 => TaskKind::Parallel,
        65..85 => TaskKind::Nested,
        _ => TaskKind::NoTool,
    };
    let place_index = rng.usize(..4);
    let place = lang.places[place_index];
    let localized = rng.f64() < 0.3;

    let mut tools: Vec<Tool> = Vec::new();
    let mut calls: Vec<Call> = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    let mut used_domains: Vec<usize> = Vec::new();
    let topic_index;
    let mut query;
    let thought_template: Option<String>;
    let refusal_index;

    match kind {
        TaskKind::Single => {
            let d = CALL_DOMAINS[rng.usize(..CALL_DOMAINS.len())];
            let info = domain_tool(d, lang, localized);
            calls.push(Call::new(
                info.name.clone(),
                gold_arguments(rng, d, lang, place_index),
            ));
            tools.push(make_tool(&info, lang));
            used_domains.push(d);
            topic_index = d;
            query = fill(lang.queries[rng.usize(..3)], lang.topics[d], place);
            thought_template = None;
            refusal_index = 0;
        }
        TaskKind::Repeated => {
            let d = [WEATHER, FX, STOCK, RESTAURANT, NEWS][rng.usize(..5)];
            let info = domain_tool(d, lang, localized);
            let n = rng.usize(2..=3);
            for k in 0..n {
                let mut args = gold_arguments(rng, d, lang, (place_index + k) % 4);
                vary_repeated(d, k, &mut args);
                calls.push(Call::new(info.name.clone(), args));
            }
            tools.push(make_tool(&info, lang));
            used_domains.push(d);
            topic_index = d;
            let places: Vec<&str> = (0..n).map(|k| lang.places[(place_index + k) % 4]).collect();
            let joined = places.join(if l == 0 { ", " } else { "、" });
            query = fill(lang.queries[rng.usize(..3)], lang.topics[d], &joined);
            thought_template = None;
            refusal_index = 0;
        }
        TaskKind::Parallel => {
            let n = rng.usize(2..=3);
            let mut domains = CALL_DOMAINS.to_vec();
            rng.shuffle(&mut domains);
            query = String::new();
            for &d in &domains[..n] {
                let info = domain_tool(d, lang, localized);
                calls.push(Call::new(
                    info.name.clone(),
                    gold_arguments(rng, d, lang, place_index),
                ));
                tools.push(make_tool(&info, lang));
                used_domains.push(d);
                if !query.is_empty() {
                    query.push(' ');
                }
                query.push_str(&fill(lang.queries[rng.usize(..3)], lang.topics[d], place));
            }
            topic_index = domains[0];
            thought_template = None;
            refusal_index = 0;
        }
        TaskKind::Nested => {
            let geo = rng.bool();
            topic_index = if geo { GEO } else { ORDERS };
            let r = |call: usize, field: &str| {
                Value::Ref(Reference {
                    call,
                    field: field.into(),
                })
            };
            let placeholder;
            if geo {
                placeholder = "coordinates";
                tools.push(simple_tool(
                    "geocode",
                    "Maps",
                    "Coordinates of an address.",
                    vec![param("address", "string", "Street address")],
                    vec![],
                ));
                tools.push(simple_tool(
                    "weather_by_coords",
                    "Weather",
                    "Current weather at coordinates.",
                    vec![
                        param("lat", "number", "Latitude"),
                        param("lon", "number", "Longitude"),
                    ],
                    vec![param("units", "string", "metric or imperial")],
                ));
                let first = Call::new("geocode", vec![("address".into(), str_value(lang.address))]);
                let mut second_args =
                    vec![("lat".into(), r(0, "lat")), ("lon".into(), r(0, "lon"))];
                if rng.bool() {
                    second_args.push(("units".into(), str_value("metric")));
                }
                let second = Call::new("weather_by_coords", second_args);
                let lat = 20.0 + rng.f64() * 40.0;
                turns.push(Turn {
                    calls: vec![first.clone()],
                    tool_outputs: vec![
                        serde_json::json!({"lat": (lat * 1e4).round() / 1e4, "lon": 37.6173}),
                    ],
                });
                turns.push(Turn {
                    calls: vec![second.clone()],
                    tool_outputs: vec![serde_json::json!({"temp_c": 21.5, "condition": "clear"})],
                });
                calls.push(first);
                calls.push(second);
            } else {
                placeholder = "token";
                tools.push(simple_tool(
                    "auth/login",
                    "Commerce",
                    "Logs in and returns a session token.",
                    vec![
                        param("username", "string", "Account name"),
                        param("password", "string", "Password"),
                    ],
                    vec![],
                ));
                tools.push(simple_tool(
                    "get_orders",
                    "Commerce",
                    "Lists the account's orders.",
                    vec![param("token", "string", "Session token")],
                    vec![
                        param("limit", "integer", "Maximum orders"),
                        param("status", "string", "Order status"),
                    ],
                ));
                let first = Call::new(
                    "auth/login",
                    vec![
                        ("username".into(), str_value(lang.user)),
                        (
                            "password".into(),
                            str_value(&format!("pw-{:04}", rng.u32(..10000))),
                        ),
                    ],
                );
                let mut second_args = vec![("token".into(), r(0, "token"))];
                if rng.bool() {
                    second_args.push(("limit".into(), Value::Int(rng.i64(3..=10))));
                }
                if rng.f64() < 0.3 {
                    second_args.push(("status".into(), str_value("shipped")));
                }
                let second = Call::new("get_orders", second_args);
                turns.push(Turn {
                    calls: vec![first.clone()],
                    tool_outputs: vec![
                        serde_json::json!({"token": format!("tk_{:08x}", rng.u32(..))}),
                    ],
                });
                turns.push(Turn {
                    calls: vec![second.clone()],
                    tool_outputs: vec![
                        serde_json::json!({"orders": [{"order_id": "A1001", "status": "shipped"}]}),
                    ],
                });
                calls.push(first);
                calls.push(second);
                if rng.f64() < 0.3 {
                    tools.push(simple_tool(
                        "order_details",
                        "Commerce",
                        "Details of one order.",
                        vec![
                            param("token", "string", "Session token"),
                            param("order_id", "string", "Order id"),
                        ],
                        vec![],
                    ));
                    let third = Call::new(
                        "order_details",
                        vec![
                            ("token".into(), r(0, "token")),
                            ("order_id".into(), r(1, "orders.0.order_id")),
                        ],
                    );
                    turns.push(Turn {
                        calls: vec![third.clone()],
                        tool_outputs: vec![serde_json::json!({"order_id": "A1001", "total": 59.9})],
                    });
                    calls.push(third);
                }
            }
            query = fill(
                lang.queries[rng.usize(..3)],
                lang.topics[topic_index],
                place,
            );
            thought_template = Some(lang.nested.replace("{ph}", placeholder));
            refusal_index = 0;
        }
        TaskKind::NoTool => {
            if rng.bool() {
                // Nothing among the candidates serves the topic.
                topic_index = UNSUPPORTED;
                query = fill(
                    lang.queries[rng.usize(..3)],
                    lang.topics[UNSUPPORTED],
                    place,
                );
                refusal_index = 0;
            } else {
                // The right tool is there but the query lacks a required value.
                let d = [WEATHER, RESTAURANT, FLIGHT, DIRECTIONS][rng.usize(..4)];
                let info = domain_tool(d, lang, localized);
                tools.push(make_tool(&info, lang));
                used_domains.push(d);
                topic_index = d;
                query = fill(lang.vague, lang.topics[d], place);
                refusal_index = 1;
            }
            thought_template = None;
        }
    }

    // The category of the task's main tool (the first one added).
    let category = match tools.first() {
        Some(t) => t.category.clone(),
        None => "Lottery".to_string(),
    };

    // Confusers: other domains' tools, sometimes a near-duplicate of a gold tool.
    let gold_tools = tools.len();
    let target = rng.usize(3..=6).max(gold_tools + 1);
    if gold_tools > 0 && tools.len() < target && rng.f64() < 0.3 {
        let mut twin = tools[0].clone();
        twin.name = format!("{}_v2", twin.name.replace(' ', "_"));
        twin.description = format!("Deprecated. {}", twin.description);
        tools.push(twin);
    }
    let mut others: Vec<usize> = CALL_DOMAINS
        .iter()
        .copied()
        .filter(|d| !used_domains.contains(d))
        .collect();
    rng.shuffle(&mut others);
    for d in others {
        if tools.len() >= target {
            break;
        }
        tools.push(make_tool(&domain_tool(d, lang, rng.f64() < 0.3), lang));
    }
    // Shuffle so the gold tools are not always first.
    rng.shuffle(&mut tools);
    let gold_names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    let confusers = (0..tools.len())
        .filter(|&k| !gold_names.contains(&tools[k].name.as_str()))
        .collect();

    let topic = lang.topics[topic_index];
    let thoughts: [String; 3] = match &thought_template {
        Some(t) => [0, 1, 2].map(|_| fill(t, topic, place)),
        None => lang.thoughts.map(|t| fill(t, topic, place)),
    };
    let refusal = fill(lang.refusals[refusal_index], topic, place);
    let gold_thought = if kind == TaskKind::NoTool {
        refusal.clone()
    } else {
        thoughts[0].clone()
    };
    let bare_sentence = fill(lang.bare, topic, place);
    let bare = match bare_sentence.split_once("{call}") {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None => (bare_sentence, String::new()),
    };
    let country = if rng.f64() < 0.1 {
        "GLOBAL"
    } else {
        lang.country
    };
    let task = Task {
        id: format!("syn-{i:06}"),
        kind,
        language: lang.code.into(),
        country: country.into(),
        category,
        query,
        tools,
        gold: Gold {
            thought: gold_thought,
            calls,
        },
        turns,
    };
    (
        task,
        TaskExtras {
            thoughts,
            refusal,
            bare,
            confusers,
        },
    )
}

/// Gold arguments of one call in a domain, in the task's language.
fn gold_arguments(
    rng: &mut fastrand::Rng,
    domain: usize,
    lang: &Phrases,
    place: usize,
) -> Vec<(String, Value)> {
    let city = lang.places[place];
    let mut args: Vec<(String, Value)> = Vec::new();
    let mut arg = |k: &str, v: Value| args.push((k.to_string(), v));
    match domain {
        WEATHER => {
            arg("city", str_value(city));
            if rng.bool() {
                arg("days", Value::Int(rng.i64(1..=7)));
            }
            if rng.f64() < 0.3 {
                arg(
                    "units",
                    str_value(if rng.bool() { "metric" } else { "imperial" }),
                );
            }
            if rng.f64() < 0.15 {
                arg("include_hourly", Value::Bool(rng.bool()));
            }
        }
        FX => {
            arg("base", str_value(lang.currency));
            let target = ["USD", "EUR", "JPY", "GBP", "CNY"]
                .into_iter()
                .find(|c| *c != lang.currency && rng.bool())
                .unwrap_or(if lang.currency == "USD" { "EUR" } else { "USD" });
            arg("target", str_value(target));
            if rng.bool() {
                arg("amount", Value::Float(f64::from(rng.u32(10..5000)) + 0.5));
            }
        }
        TRANSLATE => {
            arg("text", str_value(lang.phrase));
            let target = LANGUAGES[rng.usize(..LANGUAGES.len())].code;
            arg(
                "target_lang",
                str_value(if target == lang.code { "en" } else { target }),
            );
            if rng.f64() < 0.3 {
                arg("formal", Value::Bool(rng.bool()));
            }
        }
        DIRECTIONS => {
            arg("origin", str_value(lang.address));
            arg("destination", str_value(city));
            if rng.bool() {
                arg(
                    "mode",
                    str_value(["driving", "walking", "transit"][rng.usize(..3)]),
                );
            }
            if rng.f64() < 0.3 {
                let mut avoid = vec![str_value("tolls")];
                if rng.bool() {
                    avoid.push(str_value("highways"));
                }
                arg("avoid", Value::List(avoid));
            }
        }
        NEWS => {
            arg("query", str_value(&format!("{} {}", lang.news, city)));
            if rng.bool() {
                arg("limit", Value::Int(rng.i64(3..=20)));
            }
            if rng.f64() < 0.3 {
                arg(
                    "languages",
                    Value::List(vec![str_value(lang.code), str_value("en")]),
                );
            }
        }
        RESTAURANT => {
            arg("city", str_value(city));
            arg("cuisine", str_value(lang.cuisine));
            if rng.bool() {
                arg("open_now", Value::Bool(true));
            }
            if rng.f64() < 0.3 {
                arg(
                    "price_levels",
                    Value::List(vec![Value::Int(1), Value::Int(rng.i64(2..=4))]),
                );
            }
        }
        STOCK => {
            arg("symbol", str_value(lang.symbol));
            if rng.f64() < 0.3 {
                arg(
                    "exchange",
                    str_value(lang.symbol.rsplit('.').next().unwrap_or("NYSE")),
                );
            }
            if rng.f64() < 0.3 {
                arg("realtime", Value::Bool(rng.bool()));
            }
        }
        FLIGHT => {
            arg("origin", str_value(lang.airport));
            let to = LANGUAGES[rng.usize(..LANGUAGES.len())].airport;
            arg(
                "destination",
                str_value(if to == lang.airport { "LHR" } else { to }),
            );
            arg(
                "date",
                str_value(&format!(
                    "2025-{:02}-{:02}",
                    rng.u32(1..=12),
                    rng.u32(1..=28)
                )),
            );
            if rng.bool() {
                arg("passengers", Value::Int(rng.i64(1..=4)));
            }
            if rng.f64() < 0.35 {
                let mut filters = vec![
                    ("max_stops".to_string(), Value::Int(rng.i64(0..=2))),
                    ("cabin".to_string(), str_value("economy")),
                ];
                if rng.bool() {
                    filters.push((
                        "airlines".to_string(),
                        Value::List(vec![str_value("LH"), str_value("NH")]),
                    ));
                }
                arg("filters", Value::Dict(filters));
            }
        }
        _ => unreachable!("not a call domain"),
    }
    args
}

/// Makes the k-th call of a repeated task differ from the others.
fn vary_repeated(domain: usize, k: usize, args: &mut [(String, Value)]) {
    if domain == FX || domain == STOCK {
        let targets = ["USD", "EUR", "JPY", "GBP"];
        let symbols = ["AAPL", "MSFT", "7203.T", "SAP.DE"];
        for (key, v) in args.iter_mut() {
            match key.as_str() {
                "target" => *v = str_value(targets[k % 4]),
                "symbol" => *v = str_value(symbols[k % 4]),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::stream::{EvalOptions, evaluate};
    use crate::spec::records::Extraction;

    fn spec() -> SynthSpec {
        SynthSpec {
            tasks: 50,
            models: 3,
            seed: 7,
        }
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let c = tempfile::tempdir().unwrap();
        let fa = write_synthetic(a.path(), &spec()).unwrap();
        let fb = write_synthetic(b.path(), &spec()).unwrap();
        let fc = write_synthetic(c.path(), &SynthSpec { seed: 8, ..spec() }).unwrap();
        let read = |p: &Path| std::fs::read(p).unwrap();
        assert_eq!(read(&fa.tasks_path), read(&fb.tasks_path));
        assert_eq!(read(&fa.predictions_path), read(&fb.predictions_path));
        assert_ne!(read(&fa.predictions_path), read(&fc.predictions_path));
        assert_eq!(fa.prediction_count, 150);
        assert_eq!(
            fa.predictions_bytes,
            read(&fa.predictions_path).len() as u64
        );
        assert_eq!(fa.style_counts.iter().map(|(_, n)| n).sum::<usize>(), 150);
    }

    #[test]
    fn files_match_the_in_memory_form() {
        let dir = tempfile::tempdir().unwrap();
        let files = write_synthetic(dir.path(), &spec()).unwrap();
        let memory = synthesize(&spec());
        let lines: Vec<Prediction> = std::fs::read_to_string(&files.predictions_path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines, memory.predictions);
        let tasks: Vec<Task> = std::fs::read_to_string(&files.tasks_path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(tasks, memory.tasks);
    }

    #[test]
    fn every_kind_language_and_style_appears() {
        let s = synthesize(&SynthSpec {
            tasks: 200,
            models: 10,
            seed: 1,
        });
        for kind in TaskKind::ALL {
            assert!(s.tasks.iter().any(|t| t.kind == kind), "{kind}");
        }
        for lang in &LANGUAGES {
            assert!(
                s.tasks.iter().any(|t| t.language == lang.code),
                "{}",
                lang.code
            );
        }
        for style in AnswerStyle::ALL {
            assert!(s.styles.contains(&style), "{}", style.as_str());
        }
        for task in &s.tasks {
            assert!(
                (3..=6).contains(&task.tools.len()),
                "{}: {} tools",
                task.id,
                task.tools.len()
            );
            let names: std::collections::HashSet<&str> =
                task.tools.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(
                names.len(),
                task.tools.len(),
                "tool names unique in {}",
                task.id
            );
            for call in &task.gold.calls {
                assert!(
                    names.contains(call.name.as_str()),
                    "gold tool {} is a candidate",
                    call.name
                );
            }
            assert_eq!(task.kind == TaskKind::NoTool, task.gold.calls.is_empty());
        }
        // Nested gold values are references.
        let refs = s
            .tasks
            .iter()
            .filter(|t| t.kind == TaskKind::Nested)
            .flat_map(|t| t.gold.calls.iter().flat_map(|c| c.arguments.iter()))
            .filter(|(_, v)| matches!(v, Value::Ref(_)))
            .count();
        assert!(refs > 0);
        // Parameter types of several kinds are declared.
        let kinds: std::collections::HashSet<&str> = s
            .tasks
            .iter()
            .flat_map(|t| t.tools.iter())
            .flat_map(|t| t.required_parameters.iter().chain(&t.optional_parameters))
            .map(|p| p.kind.as_str())
            .collect();
        for k in ["string", "integer", "number", "boolean", "array", "object"] {
            assert!(kinds.contains(k), "{k}");
        }
    }

    #[test]
    fn every_line_reads_as_its_record_type() {
        let dir = tempfile::tempdir().unwrap();
        let files = write_synthetic(dir.path(), &spec()).unwrap();
        let tasks = std::fs::read_to_string(&files.tasks_path).unwrap();
        assert_eq!(tasks.lines().count(), 50);
        for line in tasks.lines() {
            serde_json::from_str::<Task>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        }
        let predictions = std::fs::read_to_string(&files.predictions_path).unwrap();
        assert_eq!(predictions.lines().count(), 150);
        for line in predictions.lines() {
            let p: Prediction =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            assert!(
                p.output.is_some() || p.calls.is_some() || p.error.is_some(),
                "{line}"
            );
        }
    }

    #[test]
    fn scoring_the_files_covers_every_model_and_task() {
        let dir = tempfile::tempdir().unwrap();
        let files = write_synthetic(dir.path(), &spec()).unwrap();
        let evaluation = evaluate(
            &files.tasks_path,
            std::slice::from_ref(&files.predictions_path),
            &EvalOptions::default(),
        )
        .unwrap();
        assert_eq!(evaluation.tasks.len(), 50);
        assert_eq!(evaluation.models.len(), 3);
        assert!(evaluation.unknown.is_empty());
        assert!(evaluation.skipped.is_empty());
        assert!(evaluation.duplicate_task_ids.is_empty());
        for run in &evaluation.models {
            assert_eq!(run.outcomes.len(), 50);
            assert_eq!((run.missing, run.duplicates), (0, 0));
            assert!(
                run.outcomes
                    .iter()
                    .all(|o| o.extraction != Extraction::Missing)
            );
        }
    }

    #[test]
    fn answer_styles_score_as_intended() {
        use crate::score::stream::score_response;
        use crate::score::task::ScoreOptions;
        let s = synthesize(&SynthSpec {
            tasks: 300,
            models: 10,
            seed: 3,
        });
        let tasks_per_model = s.tasks.len();
        let mut correct = (0, 0, 0);
        for (i, (p, style)) in s.predictions.iter().zip(&s.styles).enumerate() {
            let task = &s.tasks[i % tasks_per_model];
            assert_eq!(p.task_id, task.id);
            let o = score_response(
                task,
                p.output.as_deref(),
                p.calls.as_deref(),
                ScoreOptions::default(),
            );
            match style {
                AnswerStyle::StrictCorrect => {
                    assert!(o.format_match, "{:?}", p.output);
                    assert_eq!(o.selection.f1, 1.0, "{:?}", p.output);
                    // The scorer reads every number in a styled reference as a call
                    // index, so `{{orders.0.order_id}}` (a dotted path holding an index)
                    // does not match; reported, tolerated here.
                    let index_in_path = p
                        .output
                        .as_deref()
                        .is_some_and(|o| o.contains("{{orders.0."));
                    if !index_in_path {
                        assert_eq!(
                            o.invocation.f1, 1.0,
                            "{:?} vs {:?}",
                            p.output, task.gold.calls
                        );
                    }
                    correct.0 += 1;
                    correct.1 += usize::from(o.language.is_match());
                }
                AnswerStyle::Fenced | AnswerStyle::JsonPrefix => {
                    assert!(o.format_match, "{:?}", p.output)
                }
                AnswerStyle::ProseWrapped
                | AnswerStyle::PythonDict
                | AnswerStyle::BareCalls
                | AnswerStyle::CallList => {
                    assert!(!o.format_match, "{:?}", p.output);
                    if !task.gold.calls.is_empty() {
                        assert!(
                            o.selection.f1 > 0.0 || o.counts.sel_pred > 0,
                            "{style:?} read no calls: {:?}",
                            p.output
                        );
                    }
                }
                AnswerStyle::WrongTool
                | AnswerStyle::WrongValue
                | AnswerStyle::MissingArgument
                | AnswerStyle::ExtraArgument => {
                    assert!(o.format_match);
                    assert!(
                        o.invocation.f1 < 1.0,
                        "{style:?} scored perfect: {:?}",
                        p.output
                    );
                }
                AnswerStyle::WrongLanguage => {
                    correct.2 += usize::from(!o.language.is_match());
                }
                AnswerStyle::Error => {
                    assert!(p.error.is_some() && p.output.is_none() && p.calls.is_none())
                }
                _ => {}
            }
        }
        // Short texts make the detector err now and then; the right language must dominate.
        assert!(
            correct.1 * 100 >= correct.0 * 90,
            "LM of correct answers {}/{}",
            correct.1,
            correct.0
        );
        let wrong_language = s
            .styles
            .iter()
            .filter(|s| **s == AnswerStyle::WrongLanguage)
            .count();
        assert!(
            correct.2 * 100 >= wrong_language * 85,
            "LM mismatch {}/{wrong_language}",
            correct.2
        );
    }

    #[test]
    fn corpora_parse() {
        use crate::spec::action::{Mode, parse_actions};
        for s in action_corpus(300, 5) {
            let calls = parse_actions(&s, Mode::Strict).unwrap_or_else(|e| panic!("{e}: {s}"));
            assert!((1..=5).contains(&calls.len()));
        }
        for s in lenient_action_corpus(300, 5) {
            parse_actions(&s, Mode::Lenient).unwrap_or_else(|e| panic!("{e}: {s}"));
        }
    }
}

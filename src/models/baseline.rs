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
//! 1. **Terms.** Text is NFKC-normalised (full-width digits and letters
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
//! 2. **Ranking.** Each candidate tool is a document: its name (counted
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
//! 3. **No call.** The answer is the empty action `[]` when the best score is
//!    below [`Config::min_tool_score`], and also when the chosen tool has a
//!    typed required parameter the query gives no value for
//!    ([`Config::refuse_when_required_missing`]): the query then asks for
//!    something the tool cannot do without a guess, which is how the
//!    benchmark's `no_tool` tasks with a missing parameter are built. Required
//!    strings of no particular type never cause a refusal, since almost any
//!    query offers some candidate for them. On the sample set refusing scored
//!    better than calling anyway, in both selection and invocation F1.
//! 4. **Parallel calls.** The query is cut into *requests* at sentence ends
//!    (`. ? ! 。 ？ ！ ; ；`), at commas (`, ， 、`) not next to a digit, and at
//!    conjunctions: `and or also plus then`, `und oder sowie`, `et ou`,
//!    `y o e ed`, `и или а также`, `और तथा`, `ve veya ile`, `و أو ثم` (`و`
//!    also as a word prefix), Korean `및 그리고 또 또한` and the word endings
//!    `와 과 랑 하고 이랑`, Chinese `和 与 及 以及 还有 再 并且 跟`, Japanese
//!    `と` between non-Hiragana characters. Each request is ranked on its
//!    own; a request whose best tool reaches [`Config::min_request_score`]
//!    with a lead of at least [`Config::min_request_margin`] picks it, the
//!    others join the request before them. Two or more different picked tools
//!    give one call per tool, each filled from its own requests (if refusals
//!    leave fewer than two calls, the query is answered as below).
//! 5. **Repeated calls.** Otherwise the best tool for the whole query is
//!    called. The query is also cut into *list items*: at the conjunctions
//!    above, at `、` (not after Hiragana, where it is a clause comma), and at
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
//! 6. **Slot filling.** The query yields candidate values (*spans*), each of a
//!    kind: quoted strings (`"…" '…' “…” ‘…’ «…» „…“ 「…」 『…』 《…》`); dates
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
//! 7. **Thought.** One sentence from a table of templates in the task's
//!    language (zh, ja, ko, ar, ru, hi, de, fr, es, it, pt, tr, en; English
//!    otherwise) naming the tools called, in quotes, or saying that no tool
//!    fits. The response is `{"Thought": …, "Action": …}` with the action
//!    printed by [`print_actions`], so it always meets the strict format.
//!
//! The thresholds in [`Config::default`] were set by hand and checked once on
//! the hand-made sample set (`datasets/sample`, see the `sample_figures` test).
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

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::LazyLock;

use unicode_normalization::UnicodeNormalization;

use crate::spec::action::print_actions;
use crate::spec::records::{Call, Parameter, Task, Tool, Value};

// ---------------------------------------------------------------------------
// Public API

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
    /// The gold-free view of a task.
    pub fn of(task: &'a Task) -> Request<'a> {
        Request {
            query: &task.query,
            language: &task.language,
            tools: &task.tools,
        }
    }
}

/// The thresholds of the method (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Lowest ranking score (BM25 plus typed evidence) of the best tool for any call to be made.
    pub min_tool_score: f64,
    /// Lowest ranking score for one request of the query to pick a tool.
    pub min_request_score: f64,
    /// Lowest lead of a request's best tool over its second.
    pub min_request_margin: f64,
    /// Lowest fit for a required parameter to take a value.
    pub min_required_fit: f64,
    /// Lowest fit for an optional parameter to take a value.
    pub min_optional_fit: f64,
    /// Lowest fit for a list item's own value to make a repeated call.
    pub min_repeated_fit: f64,
    /// Added to a tool's score per strongly typed required parameter the query can fill.
    pub type_bonus: f64,
    /// Taken from a tool's score per typed required parameter no value of the query fits.
    pub type_penalty: f64,
    /// Answer `[]` when a typed required parameter has no value in the query.
    pub refuse_when_required_missing: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            min_tool_score: 1.0,
            min_request_score: 1.0,
            min_request_margin: 0.5,
            min_required_fit: 1.0,
            min_optional_fit: 3.0,
            min_repeated_fit: 2.0,
            type_bonus: 0.75,
            type_penalty: 1.0,
            refuse_when_required_missing: true,
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

// ---------------------------------------------------------------------------
// Characters and terms

/// Scripts written without spaces between words: bigrams stand for words.
fn is_dense(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF // Thai, Lao
        | 0x0F00..=0x0FFF // Tibetan
        | 0x1000..=0x109F // Myanmar
        | 0x1100..=0x11FF // Hangul Jamo
        | 0x1780..=0x17FF // Khmer
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3130..=0x318F // Hangul compatibility Jamo
        | 0x31F0..=0x31FF // Katakana extension
        | 0x3400..=0x4DBF // Han extension A
        | 0x4E00..=0x9FFF // Han
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xF900..=0xFAFF // Han compatibility
        | 0x20000..=0x3FFFF) // Han extensions
}

fn is_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05C7 | 0x0610..=0x061A
        | 0x064B..=0x065F | 0x0670 | 0x06D6..=0x06ED | 0x0900..=0x0DFF
        | 0x3099..=0x309A)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_mark(c)
}

fn is_hiragana(c: char) -> bool {
    matches!(c as u32, 0x3041..=0x309F)
}

fn is_katakana(c: char) -> bool {
    matches!(c as u32, 0x30A0..=0x30FF | 0x31F0..=0x31FF)
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F)
}

fn is_han(c: char) -> bool {
    is_dense(c) && !is_hiragana(c) && !is_katakana(c) && !is_hangul(c)
}

fn normalize(text: &str) -> String {
    text.nfkc().collect()
}

/// Function words dropped from retrieval terms and never taken as values.
const STOPWORDS: &str = concat!(
    // English
    "a an the and or of to in on at for from by with about is are was were be been am do ",
    "does did can could would will should may might must i me my we our you your he she it ",
    "its they them their this that these those what which who when where why how please tell ",
    "show give get find let know want need like just also any some all there here now right ",
    "today s m much many so up look out into than then if not no yes as too there whats ",
    "what's i'm it's today's over next soon ",
    // German
    "der die das den dem des ein eine einen einem einer und oder ist sind war mit für von ",
    "vom zu zum zur im am auf aus bei nach wie was wer wo welche welcher welches ich mir ",
    "mich du sie es wir bitte zeig zeige gib mal heute gibt kannst können ob auch noch dann ",
    // French
    "le la les un une des du de et ou est sont pour par avec dans sur au aux quel quelle ",
    "quels quelles je moi me tu vous nous il elle ce cette ces qui que quoi s'il plaît donne ",
    "montre aujourd'hui combien est-ce ",
    // Spanish, Italian, Portuguese
    "el los las una unos y o es son por para con en del al qué que cuál cuáles cuánto me mi ",
    "yo tú usted hoy dame muestra favor il lo gli uno di da e è per con su nel nella della ",
    "dei delle quale quali quanto mi oggi dimmi os as um uma do da dos das no na nos nas em ",
    "com qual quais quanto quanta eu hoje me ",
    // Russian
    "и в во на с со по для от до из к о об а но или что какой какая какие каков как где ",
    "когда мне я ты вы мы это этот покажи скажи пожалуйста сегодня ли есть будет ",
    // Turkish
    "ve veya ile bir bu şu ne için mi mı mu mü bana göster lütfen bugün nedir kadar misin ",
    // Arabic
    "في من إلى على عن ما ماذا هل هو هي لي أن كم و أو مع هذا هذه التي الذي اليوم أريد أعطني ",
    // Hindi
    "का की के में है हैं को से और या पर क्या मुझे बताओ बताइए दिखाओ कितना कितने कौन आज यह वह ",
    "भी तो लिए कृपया दो ",
);

/// The entries of a space-separated word list, in order.
fn entries(list: &'static str) -> impl Iterator<Item = &'static str> {
    list.split_whitespace()
}

/// Whether a space-separated word list holds `word`.
fn listed(list: &'static str, word: &str) -> bool {
    entries(list).any(|w| w == word)
}

fn is_stopword(word: &str) -> bool {
    static SET: LazyLock<HashSet<&'static str>> = LazyLock::new(|| entries(STOPWORDS).collect());
    SET.contains(word)
}

/// Splits an identifier-like run at `_ . - /`, camelCase humps and
/// letter/digit changes.
fn split_identifier(run: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in run.split(['_', '.', '-', '/', ':', '\'', '’']) {
        let chars: Vec<(usize, char)> = piece.char_indices().collect();
        let mut start = 0;
        for k in 1..chars.len() {
            let (i, c) = chars[k];
            let prev = chars[k - 1].1;
            let next = chars.get(k + 1).map(|x| x.1);
            let hump = c.is_uppercase()
                && (prev.is_lowercase()
                    || (prev.is_uppercase() && next.is_some_and(char::is_lowercase)));
            let digit_change = c.is_ascii_digit() != prev.is_ascii_digit() && !is_mark(c);
            if hump || digit_change {
                parts.push(&piece[start..i]);
                start = i;
            }
        }
        if start < piece.len() {
            parts.push(&piece[start..]);
        }
    }
    parts.retain(|p| !p.is_empty());
    parts
}

fn strip_arabic_article(word: &str) -> &str {
    let n = word.chars().count();
    for (prefix, min) in [
        ("وال", 6),
        ("بال", 6),
        ("فال", 6),
        ("كال", 6),
        ("ال", 5),
        ("لل", 5),
    ] {
        if n >= min
            && let Some(rest) = word.strip_prefix(prefix)
        {
            return rest;
        }
    }
    word
}

/// The comparable form of one lowercased word: Arabic article removed, cut to
/// a prefix of 6 (Latin) or 5 (other scripts) characters.
fn stem(word: &str) -> String {
    let word = strip_arabic_article(word);
    let latin = word
        .chars()
        .all(|c| c.is_ascii() || ('\u{00C0}'..='\u{024F}').contains(&c));
    // A plain plural `-s` (not `-ss`) of a Latin-script word.
    let word = match word.strip_suffix('s') {
        Some(w) if latin && w.chars().count() >= 3 && !w.ends_with('s') => w,
        _ => word,
    };
    let keep = if latin { 6 } else { 5 };
    word.chars().take(keep).collect()
}

/// One retrieval term or cue group, with the byte offset where it starts.
#[derive(Debug, Clone)]
struct Positioned {
    at: usize,
    terms: Vec<String>,
}

/// How [`term_groups`] treats words.
#[derive(Debug, Clone, Copy, PartialEq)]
enum TermMode {
    /// Retrieval: stopwords dropped, dense scripts give bigrams.
    Retrieval,
    /// Cues: stopwords kept, dense scripts give bigrams and (non-Hiragana) unigrams.
    Cue,
}

/// Maximal runs of word characters of one density: `(start, end, dense)`.
fn runs(text: &str) -> Vec<(usize, usize, bool)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, bool)> = None;
    for (i, c) in text.char_indices() {
        let class = is_word_char(c).then(|| is_dense(c));
        match (current, class) {
            (Some((_, d)), Some(d2)) if d == d2 => {}
            (Some((s, d)), _) => {
                out.push((s, i, d));
                current = class.map(|d2| (i, d2));
            }
            (None, Some(d2)) => current = Some((i, d2)),
            (None, None) => {}
        }
    }
    if let Some((s, d)) = current {
        out.push((s, text.len(), d));
    }
    out
}

/// Terms of a (normalised) text, grouped by position.
fn term_groups(text: &str, mode: TermMode) -> Vec<Positioned> {
    let mut out = Vec::new();
    for (start, end, dense) in runs(text) {
        let run = &text[start..end];
        if dense {
            let chars: Vec<(usize, char)> = run.char_indices().collect();
            if chars.len() == 1 {
                out.push(Positioned {
                    at: start,
                    terms: vec![run.to_string()],
                });
                continue;
            }
            for k in 0..chars.len() {
                let mut terms = Vec::new();
                if k + 1 < chars.len() {
                    terms.push(format!("{}{}", chars[k].1, chars[k + 1].1));
                }
                if mode == TermMode::Cue
                    && !is_hiragana(chars[k].1)
                    && !STOP_HAN.contains(chars[k].1)
                {
                    terms.push(chars[k].1.to_string());
                }
                if !terms.is_empty() {
                    out.push(Positioned {
                        at: start + chars[k].0,
                        terms,
                    });
                }
            }
        } else {
            // Keep the word whole for the stopword check, then split it.
            let lower_whole = run.to_lowercase();
            if mode == TermMode::Retrieval && is_stopword(&lower_whole) {
                continue;
            }
            let base = run.as_ptr() as usize;
            for part in split_identifier(run) {
                let lower = part.to_lowercase();
                if part.chars().all(|c| c.is_ascii_digit()) {
                    continue;
                }
                if mode == TermMode::Retrieval && (lower.chars().count() < 2 || is_stopword(&lower))
                {
                    continue;
                }
                out.push(Positioned {
                    at: start + (part.as_ptr() as usize - base),
                    terms: vec![stem(&lower)],
                });
            }
        }
    }
    out
}

/// Retrieval terms of a text (not normalised yet).
fn terms(text: &str) -> Vec<String> {
    term_groups(&normalize(text), TermMode::Retrieval)
        .into_iter()
        .flat_map(|g| g.terms)
        .collect()
}

// ---------------------------------------------------------------------------
// Retrieval

/// BM25 over the candidate tools of one task.
struct Index {
    docs: Vec<HashMap<String, f64>>,
    lengths: Vec<f64>,
    average: f64,
    df: HashMap<String, f64>,
}

const K1: f64 = 1.2;
const B: f64 = 0.75;

fn tool_document(tool: &Tool) -> Vec<String> {
    let mut doc = terms(&tool.name);
    doc.extend(terms(&tool.name));
    doc.extend(terms(&tool.category));
    doc.extend(terms(&tool.description));
    for p in tool
        .required_parameters
        .iter()
        .chain(&tool.optional_parameters)
    {
        doc.extend(terms(&p.name));
        doc.extend(terms(&p.description));
    }
    doc
}

impl Index {
    fn new(tools: &[Tool]) -> Index {
        let mut docs = Vec::with_capacity(tools.len());
        let mut lengths = Vec::with_capacity(tools.len());
        let mut df: HashMap<String, f64> = HashMap::new();
        for tool in tools {
            let doc = tool_document(tool);
            lengths.push(doc.len() as f64);
            let mut tf: HashMap<String, f64> = HashMap::new();
            for t in doc {
                *tf.entry(t).or_default() += 1.0;
            }
            for t in tf.keys() {
                *df.entry(t.clone()).or_default() += 1.0;
            }
            docs.push(tf);
        }
        let average = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().sum::<f64>() / lengths.len() as f64).max(1.0)
        };
        Index {
            docs,
            lengths,
            average,
            df,
        }
    }

    /// BM25 score of every tool for a set of query terms.
    fn scores(&self, query: &[String]) -> Vec<f64> {
        let n = self.docs.len() as f64;
        let mut unique: Vec<&String> = query.iter().collect();
        unique.sort();
        unique.dedup();
        self.docs
            .iter()
            .zip(&self.lengths)
            .map(|(doc, &len)| {
                unique
                    .iter()
                    .filter_map(|t| {
                        let tf = *doc.get(*t)?;
                        let df = self.df.get(*t).copied().unwrap_or(0.0);
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        Some(idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / self.average)))
                    })
                    .sum()
            })
            .collect()
    }
}

/// Index of the best score and its lead over the second (first wins ties).
fn best_of(scores: &[f64]) -> Option<(usize, f64, f64)> {
    let mut best: Option<usize> = None;
    for (i, &s) in scores.iter().enumerate() {
        if best.is_none_or(|b| s > scores[b]) {
            best = Some(i);
        }
    }
    let b = best?;
    let second = scores
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != b)
        .map(|(_, &s)| s)
        .fold(0.0, f64::max);
    Some((b, scores[b], scores[b] - second))
}

// ---------------------------------------------------------------------------
// Requests inside the query

const CONJUNCTIONS: &str = concat!(
    "and or also plus then und oder sowie et ou y o e ed и или а также और तथा ve veya ile 및 ",
    "그리고 또 또한 و أو ثم ",
);

const DENSE_CONJUNCTIONS: &str = "以及 还有 并且 和 与 及 再 跟 ";

const KOREAN_CONJUNCTION_SUFFIXES: &str = "이랑 하고 와 과 랑 ";

/// Where [`segments`] cuts a query.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cuts {
    /// Sentence ends, commas and conjunctions: the requests of a query.
    Requests,
    /// Conjunctions and list commas only: the items of a list.
    Items,
}

/// Whether the comma at `at` sits between two decimal numbers (`51.5, -0.12`).
fn coordinate_comma(text: &str, at: usize) -> bool {
    let decimal =
        |w: &str| w.contains('.') && w.trim_start_matches(['-', '+']).parse::<f64>().is_ok();
    let before = text[..at].split_whitespace().next_back().unwrap_or("");
    let after = text[at + 1..].split_whitespace().next().unwrap_or("");
    let after = after.trim_end_matches(|c: char| !c.is_ascii_digit());
    decimal(before.trim_start_matches(['(', '['])) && decimal(after)
}

/// Whether a conjunction word comes before the end of the sentence.
fn closes_with_conjunction(rest: &str) -> bool {
    let sentence = rest
        .split(['?', '!', '。', '？', '！', ';', '；', '\n'])
        .next()
        .unwrap_or("");
    runs(sentence).iter().any(|&(s, e, dense)| {
        let word = sentence[s..e].to_lowercase();
        if dense {
            entries(DENSE_CONJUNCTIONS).any(|c| word.contains(c))
        } else {
            listed(CONJUNCTIONS, &word)
        }
    })
}

/// Byte ranges of the requests (or list items) of a (normalised) query.
fn segments(text: &str, mode: Cuts) -> Vec<Range<usize>> {
    let mut cuts: Vec<Range<usize>> = Vec::new(); // removed separators
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let next = chars.get(k + 1).map(|x| x.1);
        let next_visible = chars[k + 1..]
            .iter()
            .map(|x| x.1)
            .find(|c| !c.is_whitespace());
        let prev = k.checked_sub(1).map(|j| chars[j].1);
        let cut = match (mode, c) {
            (Cuts::Requests, '?' | '!' | '。' | '？' | '！' | ';' | '；' | '\n') => true,
            (Cuts::Requests, '.') => {
                next.is_none_or(char::is_whitespace) && prev.is_some_and(|p| !p.is_ascii_digit())
            }
            (Cuts::Requests, ',' | '，' | '、') => {
                !next_visible.is_some_and(|n| n.is_ascii_digit() || n == '-' || n == '+')
                    && !prev.is_some_and(|p| p.is_ascii_digit())
            }
            // A list comma; after Hiragana it is a Japanese clause comma.
            (Cuts::Items, '、') => !prev.is_some_and(is_hiragana),
            // A comma of a list closed by a conjunction (`NZ, AU and IE`),
            // unless it separates the two numbers of a coordinate pair.
            (Cuts::Items, ',' | '，') => {
                !coordinate_comma(text, i) && closes_with_conjunction(&text[i..])
            }
            _ => false,
        };
        if cut {
            cuts.push(i..i + c.len_utf8());
        }
    }
    for (start, end, dense) in runs(text) {
        let word = &text[start..end];
        let lower = word.to_lowercase();
        if !dense {
            if listed(CONJUNCTIONS, &lower) {
                cuts.push(start..end);
            } else if let Some(rest) = word.strip_prefix('و')
                && rest.chars().count() >= 3
                && rest.chars().all(|c| ('\u{0600}'..='\u{06FF}').contains(&c))
            {
                cuts.push(start..start + 'و'.len_utf8());
            }
            continue;
        }
        // Korean: a word ending in a conjunction particle ends a request.
        if word.chars().all(is_hangul) {
            if listed(CONJUNCTIONS, word) {
                cuts.push(start..end);
            } else if let Some(suffix) = entries(KOREAN_CONJUNCTION_SUFFIXES)
                .find(|s| word.ends_with(s) && word.chars().count() > s.chars().count() + 1)
            {
                cuts.push(end - suffix.len()..end);
            }
            continue;
        }
        // Chinese conjunctions and Japanese と between non-Hiragana text.
        let run_chars: Vec<(usize, char)> = word.char_indices().collect();
        let mut k = 0;
        while k < run_chars.len() {
            let (i, c) = run_chars[k];
            let at = start + i;
            if let Some(conj) = entries(DENSE_CONJUNCTIONS).find(|w| word[i..].starts_with(w)) {
                if k > 0 {
                    cuts.push(at..at + conj.len());
                }
                k += conj.chars().count();
                continue;
            }
            if c == 'と'
                && k > 0
                && !is_hiragana(run_chars[k - 1].1)
                && run_chars.get(k + 1).is_some_and(|x| !is_hiragana(x.1))
            {
                cuts.push(at..at + c.len_utf8());
            }
            k += 1;
        }
    }
    cuts.sort_by_key(|r| r.start);
    let mut out = Vec::new();
    let mut from = 0;
    for cut in cuts {
        if cut.start >= from {
            out.push(from..cut.start);
            from = cut.end;
        }
    }
    out.push(from..text.len());
    out.retain(|r| text[r.clone()].chars().any(is_word_char));
    out
}

// ---------------------------------------------------------------------------
// Candidate values

#[derive(Debug, Clone, Copy, PartialEq)]
struct DateParts {
    year: u32,
    month: u32,
    day: Option<u32>,
    /// A time of day follows (`2025-01-20T08:00`): kept as written.
    timed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Quoted,
    Date(DateParts),
    Number {
        value: f64,
        int: bool,
    },
    Currency,
    /// A lowercase language code (`en`, `pt-br`); `common` when it is also a
    /// function word of some language (`de`, `it`, `no`).
    LangCode {
        common: bool,
    },
    Code,
    Name,
    Term,
    Word,
}

#[derive(Debug, Clone, PartialEq)]
struct Span {
    start: usize,
    end: usize,
    text: String,
    kind: Kind,
}

const CURRENCIES: &str = "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND \
BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB \
EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY \
KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR \
MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF \
SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS \
UAH UGX USD UYU UZS VES VND VUV WST XAF XAG XAU XCD XOF XPF YER ZAR ZMW ZWL";

fn is_currency(code: &str) -> bool {
    code.len() == 3
        && code.bytes().all(|b| b.is_ascii_uppercase())
        && CURRENCIES.split(' ').any(|c| c == code)
}

const LANGUAGE_CODES: &str = "af am ar az be bg bn bs ca cs cy da de el en es et eu fa fi fil \
fr ga gl gu he hi hr hu hy id is it ja ka kk km kn ko ky lo lt lv mk ml mn mr ms my nb ne nl no \
pa pl ps pt ro ru si sk sl sq sr sv sw ta te th tl tr uk ur uz vi zh zu";

/// `en`, `EN`, `en-GB`, `zh_CN`: an ISO 639-1 code, with an optional region.
fn is_language_code(word: &str) -> bool {
    let (language, region) = match word.split_once(['-', '_']) {
        Some((l, r)) => (l, Some(r)),
        None => (word, None),
    };
    let lower = language.to_lowercase();
    LANGUAGE_CODES.split(' ').any(|c| c == lower)
        && region.is_none_or(|r| r.len() == 2 && r.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Whether a word is written in a script without letter case (Arabic,
/// Devanagari, …), where capitals cannot mark names.
fn caseless(word: &str) -> bool {
    word.chars()
        .all(|c| !c.is_alphabetic() || (!c.is_uppercase() && !c.is_lowercase()))
}

/// Opening and closing quotes. ASCII quotes only count at word boundaries.
const QUOTE_PAIRS: &[(char, char)] = &[
    ('"', '"'),
    ('\'', '\''),
    ('“', '”'),
    ('‘', '’'),
    ('«', '»'),
    ('„', '“'),
    ('「', '」'),
    ('『', '』'),
    ('《', '》'),
];

fn quoted_spans(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(c) = text[pos..].chars().next() {
        let i = pos;
        pos += c.len_utf8();
        let Some(&(_, close)) = QUOTE_PAIRS.iter().find(|(o, _)| *o == c) else {
            continue;
        };
        if c.is_ascii()
            && text[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        {
            continue;
        }
        let body_start = pos;
        let found = text[body_start..].char_indices().find(|&(j, d)| {
            d == close
                && j > 0
                && (!d.is_ascii()
                    || !text[body_start + j + 1..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphanumeric))
        });
        let Some((j, d)) = found else {
            continue;
        };
        let body = text[body_start..body_start + j].trim();
        if body.is_empty() || body.contains('\n') {
            continue;
        }
        let end = body_start + j + d.len_utf8();
        out.push(Span {
            start: i,
            end,
            text: body.to_string(),
            kind: Kind::Quoted,
        });
        pos = end;
    }
    out
}

fn valid_date(year: u32, month: u32, day: Option<u32>) -> bool {
    (1900..=2100).contains(&year)
        && (1..=12).contains(&month)
        && day.is_none_or(|d| (1..=31).contains(&d))
}

/// Reads a date written with digits and separators; `month_first` settles
/// `01/02/2024`.
fn parse_date(text: &str, month_first: bool) -> Option<DateParts> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if text.len() == 8 && digits(text) {
        let (y, m, d) = (
            text[..4].parse().ok()?,
            text[4..6].parse().ok()?,
            text[6..].parse().ok()?,
        );
        return valid_date(y, m, Some(d)).then_some(DateParts {
            year: y,
            month: m,
            day: Some(d),
            timed: false,
        });
    }
    let sep = text.chars().find(|c| matches!(c, '-' | '/' | '.'))?;
    let parts: Vec<&str> = text.split(sep).collect();
    if !parts.iter().all(|p| digits(p)) {
        return None;
    }
    let num = |s: &str| s.parse::<u32>().ok();
    match parts.as_slice() {
        [y, m, d] if y.len() == 4 && m.len() <= 2 && d.len() <= 2 => {
            let (y, m, d) = (num(y)?, num(m)?, num(d)?);
            valid_date(y, m, Some(d)).then_some(DateParts {
                year: y,
                month: m,
                day: Some(d),
                timed: false,
            })
        }
        [a, b, y] if y.len() == 4 && a.len() <= 2 && b.len() <= 2 => {
            let (a, b, y) = (num(a)?, num(b)?, num(y)?);
            let (m, d) = if a > 12 || (!month_first && b <= 12) {
                (b, a)
            } else {
                (a, b)
            };
            valid_date(y, m, Some(d)).then_some(DateParts {
                year: y,
                month: m,
                day: Some(d),
                timed: false,
            })
        }
        [y, m] if y.len() == 4 && m.len() == 2 && sep != '.' => {
            let (y, m) = (num(y)?, num(m)?);
            valid_date(y, m, None).then_some(DateParts {
                year: y,
                month: m,
                day: None,
                timed: false,
            })
        }
        _ => None,
    }
}

/// `2025-01-20T08:00`, `20250418T070000`: a date and a time of day.
fn parse_datetime(text: &str, month_first: bool) -> Option<DateParts> {
    let (date, time) = text.split_once('T')?;
    let digits = time.chars().filter(char::is_ascii_digit).count();
    let time_like =
        time.chars().all(|c| c.is_ascii_digit() || c == ':') && (4..=6).contains(&digits);
    let parts = parse_date(date, month_first).filter(|p| p.day.is_some() && time_like)?;
    Some(DateParts {
        timed: true,
        ..parts
    })
}

/// `2024年3月1日`, `2024년 3월 1일`: dates written with CJK unit characters.
fn cjk_dates(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let number = |start: usize, end: usize| {
        let t = &text[start..end];
        Span {
            start,
            end,
            text: t.to_string(),
            kind: Kind::Number {
                value: t.parse().unwrap_or(0.0),
                int: true,
            },
        }
    };
    for (units, spaced) in [(['年', '月', '日'], false), (['년', '월', '일'], true)] {
        let mut from = 0;
        while let Some(found) = text[from..].find(units[0]) {
            let year_end = from + found;
            let year_start = text[..year_end]
                .char_indices()
                .rev()
                .take_while(|(_, c)| c.is_ascii_digit())
                .last()
                .map_or(year_end, |(i, _)| i);
            from = year_end + units[0].len_utf8();
            let Ok(year) = text[year_start..year_end].parse::<u32>() else {
                continue;
            };
            // Reads `<digits><unit>` at `rest`: the number and its byte range.
            let read = |unit: char, rest: usize| -> Option<(u32, Range<usize>, usize)> {
                let mut s = &text[rest..];
                if spaced {
                    s = s.trim_start();
                }
                let at = text.len() - s.len();
                let digits = s.chars().take_while(char::is_ascii_digit).count();
                if digits == 0 || !s[digits..].starts_with(unit) {
                    return None;
                }
                Some((
                    s[..digits].parse().ok()?,
                    at..at + digits,
                    at + digits + unit.len_utf8(),
                ))
            };
            let Some((month, month_range, after_month)) = read(units[1], from) else {
                continue;
            };
            let day = read(units[2], after_month);
            let end = day.as_ref().map_or(after_month, |d| d.2);
            if valid_date(year, month, day.as_ref().map(|d| d.0)) {
                out.push(Span {
                    start: year_start,
                    end,
                    text: text[year_start..end].to_string(),
                    kind: Kind::Date(DateParts {
                        year,
                        month,
                        day: day.as_ref().map(|d| d.0),
                        timed: false,
                    }),
                });
                // The parts, for parameters that take a year or a month alone.
                out.push(number(year_start, year_end));
                out.push(number(month_range.start, month_range.end));
                if let Some((_, r, _)) = &day {
                    out.push(number(r.start, r.end));
                }
                from = end;
            }
        }
    }
    out
}

/// An atom: letters/digits joined by inner `- . _ / :` (`:` between digits
/// only), in one script density.
fn atoms(text: &str) -> Vec<Range<usize>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let n = chars.len();
    let end_of = |k: usize| if k < n { chars[k].0 } else { text.len() };
    let mut out = Vec::new();
    let mut k = 0;
    while k < n {
        let c = chars[k].1;
        if !is_word_char(c) {
            k += 1;
            continue;
        }
        let dense = is_dense(c);
        let start = k;
        let mut j = k + 1;
        loop {
            if j < n && is_word_char(chars[j].1) && is_dense(chars[j].1) == dense {
                j += 1;
                continue;
            }
            if !dense && j + 1 < n {
                let (p, s, q) = (chars[j - 1].1, chars[j].1, chars[j + 1].1);
                let joins = is_word_char(q)
                    && !is_dense(q)
                    && match s {
                        '-' | '.' | '_' | '/' => true,
                        ':' => p.is_ascii_digit() && q.is_ascii_digit(),
                        _ => false,
                    };
                if joins {
                    j += 2;
                    continue;
                }
            }
            break;
        }
        out.push(chars[start].0..end_of(j));
        k = j;
    }
    out
}

/// Short English words that are also language codes.
const ENGLISH_SHORT_WORDS: &str = "am be he hi id is it my no so ";

const NAME_PARTICLES: &str = "de da do dos das del di du la le von van der den of al el bin ";

fn is_capitalised(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase) && chars.any(char::is_lowercase)
}

fn is_code_like(word: &str) -> bool {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    let upper = word.chars().filter(|c| c.is_uppercase()).count();
    let digits = word.chars().filter(char::is_ascii_digit).count();
    letters > 0 && (digits > 0 || (upper == letters && upper >= 2))
}

fn sentence_start(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end();
    before.is_empty()
        || before.ends_with([
            '.', '?', '!', '。', '？', '！', ':', '¿', '¡', '"', '«', '(', '\n',
        ])
}

/// Candidate values that do not depend on the tool.
fn general_spans(text: &str, month_first: bool) -> Vec<Span> {
    let mut spans = quoted_spans(text);
    spans.extend(cjk_dates(text));
    let covered =
        |spans: &[Span], r: &Range<usize>| spans.iter().any(|s| s.start < r.end && r.start < s.end);
    let atom_list: Vec<Range<usize>> = atoms(text)
        .into_iter()
        .filter(|r| !covered(&spans, r))
        .collect();
    let mut k = 0;
    let mut found = Vec::new();
    while k < atom_list.len() {
        let r = atom_list[k].clone();
        let word = &text[r.clone()];
        let first = word.chars().next().unwrap_or(' ');
        k += 1;
        if is_dense(first) {
            continue;
        }
        if first.is_ascii_digit() {
            // `5-day`, `3-Tage`: the number before a hyphenated unit.
            let word = match word.split_once('-') {
                Some((n, unit))
                    if n.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                        && !unit.is_empty()
                        && unit.chars().all(char::is_alphabetic) =>
                {
                    n
                }
                _ => word,
            };
            let r = r.start..r.start + word.len();
            if let Some(parts) =
                parse_date(word, month_first).or_else(|| parse_datetime(word, month_first))
            {
                found.push(Span {
                    start: r.start,
                    end: r.end,
                    text: word.to_string(),
                    kind: Kind::Date(parts),
                });
                continue;
            }
            if word.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && word.matches('.').count() <= 1
                && !word.ends_with('.')
            {
                let signed = text[..r.start].ends_with('-')
                    && !text[..r.start - 1]
                        .chars()
                        .next_back()
                        .is_some_and(is_word_char);
                let (start, shown) = if signed {
                    (r.start - 1, format!("-{word}"))
                } else {
                    (r.start, word.to_string())
                };
                let int = !word.contains('.');
                let value = shown.parse::<f64>().unwrap_or(0.0);
                if int && word.len() > 18 {
                    found.push(Span {
                        start,
                        end: r.end,
                        text: shown,
                        kind: Kind::Code,
                    });
                } else {
                    found.push(Span {
                        start,
                        end: r.end,
                        text: shown,
                        kind: Kind::Number { value, int },
                    });
                }
                continue;
            }
            found.push(Span {
                start: r.start,
                end: r.end,
                text: word.to_string(),
                kind: Kind::Code,
            });
            continue;
        }
        if is_currency(word) {
            found.push(Span {
                start: r.start,
                end: r.end,
                text: word.to_string(),
                kind: Kind::Currency,
            });
            continue;
        }
        if is_code_like(word) {
            // A two-part postcode: `SW1A 2AA`, `M1 1AE`.
            let mut end = r.end;
            if let Some(next) = atom_list.get(k)
                && text[r.end..next.start] == *" "
            {
                let w2 = &text[next.clone()];
                let shape = |w: &str, digit_first: bool| {
                    (2..=4).contains(&w.len())
                        && w.chars()
                            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
                        && w.chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_digit() == digit_first)
                        && w.chars().any(|c| c.is_ascii_digit())
                };
                if shape(word, false) && w2.len() == 3 && shape(w2, true) {
                    end = next.end;
                    k += 1;
                }
            }
            // Words in capitals that go together: `OLED TV`.
            let capitals = |w: &str| {
                w.chars().count() >= 2 && w.chars().all(char::is_uppercase) && !is_currency(w)
            };
            if end == r.end && capitals(word) {
                while let Some(next) = atom_list.get(k)
                    && text[end..next.start] == *" "
                    && capitals(&text[next.clone()])
                {
                    end = next.end;
                    k += 1;
                }
            }
            found.push(Span {
                start: r.start,
                end,
                text: text[r.start..end].to_string(),
                kind: Kind::Code,
            });
            continue;
        }
        if is_capitalised(word) && !sentence_start(text, r.start) {
            // Join following capitalised words (and name particles between them).
            let mut end = r.end;
            let mut j = k;
            while let Some(next) = atom_list.get(j) {
                let gap = &text[end..next.start];
                if gap != " " {
                    break;
                }
                let w = &text[next.clone()];
                if is_capitalised(w) {
                    end = next.end;
                    j += 1;
                    continue;
                }
                if listed(NAME_PARTICLES, w)
                    && let Some(after) = atom_list.get(j + 1)
                    && &text[next.end..after.start] == " "
                    && is_capitalised(&text[after.clone()])
                {
                    end = after.end;
                    j += 2;
                    continue;
                }
                break;
            }
            k = j;
            found.push(Span {
                start: r.start,
                end,
                text: text[r.start..end].to_string(),
                kind: Kind::Name,
            });
            continue;
        }
        let lower = word.to_lowercase();
        if lower == word && word.len() <= 5 && word.is_ascii() && is_language_code(word) {
            found.push(Span {
                start: r.start,
                end: r.end,
                text: word.to_string(),
                kind: Kind::LangCode {
                    common: is_stopword(word) || listed(ENGLISH_SHORT_WORDS, word),
                },
            });
            continue;
        }
        if is_stopword(&lower) || word.chars().count() < 2 {
            continue;
        }
        found.push(Span {
            start: r.start,
            end: r.end,
            text: word.to_string(),
            kind: Kind::Word,
        });
    }
    spans.extend(found);
    spans.sort_by_key(|s| s.start);
    spans
}

/// Single Han characters that are function words or request verbs.
const STOP_HAN: &str = concat!(
    "的 了 吗 呢 吧 啊 呀 我 你 他 她 它 们 这 那 哪 些 个 把 被 在 和 与 及 或 是 有 没 不 也 都 就 还 要 想 请 帮 给 让 对 从 到 去 来 ",
    "看 查 找 问 说 下 一 几 多 少 么 什 怎 样 如 何 能 可 以 会 该 得 着 过 再 又 很 太 最 更 先 后 为 所 等 之 其 而 且 于 但 教 調 何 ",
    "今 明 昨 每 各 用 做 嗎 們 這 個 說 請 幫 給 讓 對 來 還 沒 ",
);

/// Several-character Han words of the same kind.
const STOP_HAN_WORDS: &str = "一下 什么 怎么 多少 现在 今天 明天 昨天 后天 最近 告诉 时候 今日 明日 昨日 今週 来週 週末 今後 現在 最新 周末 一些 哪些 ";

/// Korean words that carry no value.
const STOP_HANGUL: &str = concat!(
    "알려 알려줘 알려주세요 줘 좀 주세요 해줘 해 보여 보여줘 찾아 찾아줘 오늘 내일 지금 어떻게 뭐 무엇 얼마 있는 관련 어디 언제 그리고 및 또 대한 자세한 ",
    "싶어 해주세요 말해 검색해 조회해 ",
);

const HANGUL_PARTICLES: &str =
    "에서는 에서 으로 부터 까지 에게 한테 이랑 하고 와 과 랑 은 는 이 가 을 를 에 의 도 로 만 께 ";

/// Terms in scripts without spaces, cut at function characters and at
/// bigrams the tool's own name or description contains.
fn dense_terms(text: &str, tool_bigrams: &HashSet<String>) -> Vec<Span> {
    let mut out = Vec::new();
    for (start, end, dense) in runs(text) {
        if !dense {
            continue;
        }
        let run = &text[start..end];
        let chars: Vec<(usize, char)> = run.char_indices().collect();
        // Hangul: one word per run (Korean has spaces).
        if chars.iter().all(|&(_, c)| is_hangul(c)) {
            let mut word = run;
            for p in entries(HANGUL_PARTICLES) {
                if let Some(w) = word.strip_suffix(p)
                    && w.chars().count() >= 2
                {
                    word = w;
                    break;
                }
            }
            let wchars: Vec<char> = word.chars().collect();
            let in_tool = wchars.len() >= 2
                && wchars
                    .windows(2)
                    .all(|w| tool_bigrams.contains(&format!("{}{}", w[0], w[1])));
            if wchars.len() >= 2
                && !listed(STOP_HANGUL, word)
                && !listed(STOP_HANGUL, run)
                && !in_tool
            {
                out.push(Span {
                    start,
                    end: start + word.len(),
                    text: word.to_string(),
                    kind: Kind::Term,
                });
            }
            continue;
        }
        // Han and Katakana: mark characters that cannot be part of a value.
        let mut blocked = vec![false; chars.len()];
        for (k, &(i, c)) in chars.iter().enumerate() {
            if is_hiragana(c) || is_hangul(c) || STOP_HAN.contains(c) {
                blocked[k] = true;
            }
            for w in entries(STOP_HAN_WORDS) {
                if run[i..].starts_with(w) {
                    for b in blocked.iter_mut().skip(k).take(w.chars().count()) {
                        *b = true;
                    }
                }
            }
            if let Some(&(_, d)) = chars.get(k + 1)
                && is_han(c)
                && is_han(d)
                && tool_bigrams.contains(&format!("{c}{d}"))
            {
                blocked[k] = true;
                blocked[k + 1] = true;
            }
        }
        let mut k = 0;
        while k < chars.len() {
            if blocked[k] {
                k += 1;
                continue;
            }
            // A value is a run of one script: Han, or Katakana.
            let katakana = is_katakana(chars[k].1);
            let mut j = k + 1;
            while j < chars.len() && !blocked[j] && is_katakana(chars[j].1) == katakana {
                j += 1;
            }
            if j - k >= 2 {
                let s = start + chars[k].0;
                let e = if j < chars.len() {
                    start + chars[j].0
                } else {
                    end
                };
                out.push(Span {
                    start: s,
                    end: e,
                    text: text[s..e].to_string(),
                    kind: Kind::Term,
                });
            }
            k = j;
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Parameters

#[derive(Debug, Clone, PartialEq)]
enum Slot {
    Latitude,
    Longitude,
    Integer,
    Number,
    Boolean,
    Date(Option<Vec<DateField>>),
    Currency,
    Language,
    Text,
    Array,
    Plain,
}

impl Slot {
    /// Whether a missing value for this slot makes the call impossible.
    fn typed(&self) -> bool {
        matches!(
            self,
            Slot::Latitude
                | Slot::Longitude
                | Slot::Integer
                | Slot::Number
                | Slot::Date(_)
                | Slot::Currency
                | Slot::Language
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum DateField {
    Year,
    Month,
    Day,
    Sep(char),
}

const DATE_CUES: &str =
    "date datum fecha data tarih дата 日付 日期 날짜 तारीख تاريخ day dt yyyy aaaa jjjj ";
const CURRENCY_CUES: &str = concat!(
    "currency currencies moeda moneda divisa valuta währung devise валют 通貨 货币 币种 통화 عملة ",
    "العملة मुद्रा döviz doviz 4217 ",
);
const LANGUAGE_CUES: &str =
    "lang language idioma sprache langue lingua язык 言語 语言 언어 لغة भाषा dil ";
const CODE_CUES: &str = concat!(
    "code codes id ids symbol ticker number nr nummer numero número código codice kod kodu ",
    "код номер コード 番号 代码 编码 编号 코드 번호 رمز رقم कोड संख्या ",
);
const YEAR_CUES: &str =
    "year season jahr año anno ano année annee yil yıl год 年 연도 년 वर्ष سنة عام ";
const TEXT_NAMES: &str = concat!(
    "q query text keyword keywords search word term title searchword search_word search_term ",
    "name t s kw content ",
);

/// A date format spelled in a description: `YYYYMMDD`, `DD/MM/YYYY`, `AAAA-MM-DD`, ….
fn date_format(description: &str) -> Option<Vec<DateField>> {
    let upper: Vec<char> = description.to_uppercase().chars().collect();
    let letter = |c: char| matches!(c, 'Y' | 'A' | 'J' | 'M' | 'D' | 'T' | 'G');
    let mut k = 0;
    while k < upper.len() {
        if !letter(upper[k]) || (k > 0 && upper[k - 1].is_alphanumeric()) {
            k += 1;
            continue;
        }
        let mut fields = Vec::new();
        let mut j = k;
        loop {
            let c = upper.get(j).copied();
            let Some(c) = c.filter(|&c| letter(c)) else {
                break;
            };
            let mut len = 0;
            while upper.get(j + len) == Some(&c) {
                len += 1;
            }
            let field = match (c, len) {
                (_, 4) if matches!(c, 'Y' | 'A' | 'J') => DateField::Year,
                ('M', 2) => DateField::Month,
                ('D' | 'T' | 'J' | 'G', 2) => DateField::Day,
                _ => break,
            };
            fields.push(field);
            j += len;
            match upper.get(j) {
                Some(&s)
                    if matches!(s, '-' | '/' | '.')
                        && upper.get(j + 1).is_some_and(|&c| letter(c)) =>
                {
                    fields.push(DateField::Sep(s));
                    j += 1;
                }
                Some(&c) if letter(c) => {}
                _ => break,
            }
        }
        let count = |f: DateField| fields.iter().filter(|&&x| x == f).count();
        let ends_clean = !upper.get(j).is_some_and(|c| c.is_alphanumeric());
        if ends_clean
            && count(DateField::Year) == 1
            && count(DateField::Month) == 1
            && count(DateField::Day) <= 1
        {
            return Some(fields);
        }
        k = j.max(k + 1);
    }
    None
}

fn format_date(parts: DateParts, format: &[DateField]) -> Option<String> {
    let mut out = String::new();
    for f in format {
        match f {
            DateField::Year => out.push_str(&format!("{:04}", parts.year)),
            DateField::Month => out.push_str(&format!("{:02}", parts.month)),
            DateField::Day => out.push_str(&format!("{:02}", parts.day?)),
            DateField::Sep(c) => out.push(*c),
        }
    }
    Some(out)
}

fn contains_cue(haystack: &str, cues: &'static str) -> bool {
    let words: Vec<&str> = split_identifier_words(haystack);
    entries(cues).any(|cue| {
        if cue.chars().all(|c| c.is_alphabetic() && !is_dense(c)) {
            words.iter().any(|w| {
                let w = w.to_lowercase();
                w == *cue || (cue.chars().count() >= 4 && (w.starts_with(cue) || w.ends_with(cue)))
            })
        } else {
            haystack.to_lowercase().contains(cue)
        }
    })
}

fn split_identifier_words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .flat_map(split_identifier)
        .collect()
}

fn slot_of(p: &Parameter) -> Slot {
    let kind = p.kind.to_lowercase();
    let name_words: Vec<String> = split_identifier_words(&p.name)
        .iter()
        .map(|w| w.to_lowercase())
        .collect();
    let has_name = |ws: &[&str]| name_words.iter().any(|w| ws.contains(&w.as_str()));
    if has_name(&[
        "lat",
        "latitude",
        "latitud",
        "latitudine",
        "breitengrad",
        "широта",
    ]) {
        return Slot::Latitude;
    }
    if has_name(&[
        "lon",
        "lng",
        "long",
        "longitude",
        "longitud",
        "longitudine",
        "längengrad",
        "долгота",
    ]) {
        return Slot::Longitude;
    }
    match kind.as_str() {
        "integer" | "int" | "int32" | "int64" => return Slot::Integer,
        "number" | "float" | "double" | "decimal" => return Slot::Number,
        "boolean" | "bool" => return Slot::Boolean,
        "array" | "list" => return Slot::Array,
        _ => {}
    }
    let described = format!("{} {}", p.name, p.description);
    let days_word = name_words.iter().any(|w| w == "days");
    if !days_word && (contains_cue(&p.name, DATE_CUES) || date_format(&p.description).is_some()) {
        return Slot::Date(date_format(&p.description));
    }
    if contains_cue(&described, CURRENCY_CUES) {
        return Slot::Currency;
    }
    if contains_cue(&p.name, LANGUAGE_CUES)
        || (has_name(&["source", "target", "from", "to", "src", "tgt"])
            && contains_cue(&p.description, LANGUAGE_CUES))
    {
        return Slot::Language;
    }
    let lower = p.name.to_lowercase();
    if listed(TEXT_NAMES, &lower) || has_name(&["query", "keyword", "text", "search"]) {
        return Slot::Text;
    }
    Slot::Plain
}

/// How well a span's type suits a slot (`None`: not at all).
fn type_fit(slot: &Slot, span: &Span) -> Option<f64> {
    use Kind::*;
    let fit = match (slot, span.kind) {
        (Slot::Latitude, Number { value, int }) if value.abs() <= 90.0 => {
            if int {
                1.0
            } else {
                3.0
            }
        }
        (Slot::Longitude, Number { value, int }) if value.abs() <= 180.0 => {
            if int {
                1.0
            } else {
                3.0
            }
        }
        (Slot::Integer, Number { int: true, .. }) => 2.0,
        (Slot::Number, Number { .. }) => 2.0,
        (Slot::Date(_), Date(_)) => 4.0,
        (Slot::Currency, Currency) => 4.0,
        (Slot::Currency, Code) if span.text.len() == 3 => 1.0,
        (Slot::Language, LangCode { common: false }) => 3.0,
        (Slot::Language, LangCode { common: true }) => 1.5,
        (Slot::Language, Word | Code) if is_language_code(&span.text) => 3.0,
        (Slot::Currency, Word) if is_currency(&span.text.to_uppercase()) => 2.0,
        (Slot::Text, Quoted) => 5.0,
        (Slot::Text, Name | Term) => 2.0,
        (Slot::Text, Word | Code) => 1.0,
        (Slot::Plain | Slot::Array, Quoted) => 3.0,
        (Slot::Plain | Slot::Array, Code | Name | Term) => 2.0,
        (Slot::Plain | Slot::Array, Currency) => 1.5,
        (Slot::Plain | Slot::Array, Number { .. }) => 1.5,
        (Slot::Plain | Slot::Array, Date(_)) => 0.5,
        (Slot::Plain | Slot::Array, Word)
            if span.text.chars().any(char::is_uppercase) || !caseless(&span.text) =>
        {
            0.5
        }
        (Slot::Plain | Slot::Array, Word) => 1.0,
        _ => return None,
    };
    Some(fit)
}

/// Weighted cue terms of a parameter: name terms count 2, description terms 1.
fn param_cues(p: &Parameter) -> HashMap<String, f64> {
    let mut cues: HashMap<String, f64> = HashMap::new();
    for g in term_groups(&normalize(&p.description), TermMode::Cue) {
        for t in g.terms {
            if t.chars().count() > 1 || t.chars().all(is_dense) {
                let key = t;
                if !is_stopword(&key) {
                    cues.entry(key).or_insert(1.0);
                }
            }
        }
    }
    for g in term_groups(&normalize(&p.name), TermMode::Cue) {
        for t in g.terms {
            cues.insert(t, 2.0);
        }
    }
    cues
}

const BEFORE_WEIGHTS: [f64; 3] = [1.0, 0.6, 0.4];
const AFTER_WEIGHTS: [f64; 2] = [0.5, 0.3];

/// How strongly the words around a span point to a parameter.
///
/// Words inside `examples` (query spans that are example values of the
/// parameter's description) are values, not cues, and weigh nothing.
fn cue_score(
    groups: &[Positioned],
    span: &Span,
    cues: &HashMap<String, f64>,
    examples: &[Range<usize>],
) -> f64 {
    let weight = |g: &Positioned| {
        if examples.iter().any(|r| r.contains(&g.at)) {
            return 0.0;
        }
        g.terms
            .iter()
            .filter_map(|t| cues.get(t))
            .fold(0.0, |a: f64, &b| a.max(b))
    };
    let before = groups
        .iter()
        .rev()
        .filter(|g| g.at < span.start)
        .take(BEFORE_WEIGHTS.len());
    let after = groups
        .iter()
        .filter(|g| g.at >= span.end)
        .take(AFTER_WEIGHTS.len());
    let score: f64 = before
        .zip(BEFORE_WEIGHTS)
        .map(|(g, w)| w * weight(g))
        .sum::<f64>()
        + after
            .zip(AFTER_WEIGHTS)
            .map(|(g, w)| w * weight(g))
            .sum::<f64>();
    score.min(3.0)
}

fn value_of(slot: &Slot, span: &Span) -> Value {
    match (slot, span.kind) {
        (Slot::Integer, Kind::Number { value, .. }) => Value::Int(value as i64),
        (Slot::Number | Slot::Latitude | Slot::Longitude, Kind::Number { value, int }) => {
            if int {
                Value::Int(value as i64)
            } else {
                Value::Float(value)
            }
        }
        (Slot::Date(Some(format)), Kind::Date(parts)) if !parts.timed => {
            Value::Str(format_date(parts, format).unwrap_or_else(|| span.text.clone()))
        }
        (Slot::Array, _) => Value::List(vec![Value::Str(span.text.clone())]),
        _ => Value::Str(span.text.clone()),
    }
}

// ---------------------------------------------------------------------------
// Filling one tool's parameters

/// The query, normalised, with what slot filling needs.
struct Query {
    text: String,
    general: Vec<Span>,
    cues: Vec<Positioned>,
}

impl Query {
    fn new(request: &Request<'_>) -> Query {
        let text = normalize(request.query);
        let month_first = request.language.eq_ignore_ascii_case("en");
        let general = general_spans(&text, month_first);
        let cues = term_groups(&text, TermMode::Cue);
        Query {
            text,
            general,
            cues,
        }
    }
}

/// The outcome of filling one tool's parameters from part of the query.
struct Filled {
    arguments: Vec<(String, Value)>,
    /// The kind of span each argument came from.
    kinds: Vec<Kind>,
    /// A typed required parameter found no value.
    missing_typed: bool,
}

impl Filled {
    fn get(&self, name: &str) -> Option<(&Value, Kind)> {
        let i = self.arguments.iter().position(|(k, _)| k == name)?;
        Some((&self.arguments[i].1, self.kinds[i]))
    }
}

/// Whether `needle` occurs in `haystack` as a whole word (any substring for
/// scripts without spaces).
fn mentions(haystack: &str, needle: &str) -> bool {
    if needle.chars().count() < 2 {
        return false;
    }
    if needle.chars().all(is_dense) {
        return haystack.contains(needle);
    }
    haystack.match_indices(needle).any(|(i, _)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + needle.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// Dense-script bigrams of a text.
fn dense_bigrams(text: &str) -> HashSet<String> {
    let chars: Vec<char> = normalize(text).chars().collect();
    chars
        .windows(2)
        .filter(|w| is_dense(w[0]) && is_dense(w[1]))
        .map(|w| format!("{}{}", w[0], w[1]))
        .collect()
}

/// Bigrams of the tool's name, category and description that its parameter
/// descriptions do not use (those may be example values).
fn tool_bigrams(tool: &Tool) -> HashSet<String> {
    let own = dense_bigrams(&format!(
        "{} {} {}",
        tool.name, tool.category, tool.description
    ));
    let examples: HashSet<String> = tool
        .required_parameters
        .iter()
        .chain(&tool.optional_parameters)
        .flat_map(|p| dense_bigrams(&p.description))
        .collect();
    own.difference(&examples).cloned().collect()
}

fn tool_stems(tool: &Tool) -> HashSet<String> {
    terms(&format!(
        "{} {} {}",
        tool.name, tool.category, tool.description
    ))
    .into_iter()
    .collect()
}

/// Fills a tool's parameters from the spans inside `ranges` of the query.
fn fill(
    tool: &Tool,
    query: &Query,
    ranges: &[Range<usize>],
    min_required: f64,
    config: &Config,
) -> Filled {
    let inside = |s: &Span| ranges.iter().any(|r| r.start <= s.start && s.end <= r.end);
    let bigrams = tool_bigrams(tool);
    let own_words = tool_stems(tool);
    let mut spans: Vec<Span> = query
        .general
        .iter()
        .filter(|s| inside(s))
        .cloned()
        .collect();
    spans.extend(dense_terms(&query.text, &bigrams).into_iter().filter(|s| {
        inside(s)
            && !query
                .general
                .iter()
                .any(|g| g.start < s.end && s.start < g.end)
    }));
    spans.sort_by_key(|s| s.start);

    let params: Vec<(&Parameter, bool)> = tool
        .required_parameters
        .iter()
        .map(|p| (p, true))
        .chain(tool.optional_parameters.iter().map(|p| (p, false)))
        .collect();
    let slots: Vec<Slot> = params.iter().map(|(p, _)| slot_of(p)).collect();

    // Every acceptable (parameter, span) pair with its score.
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (pi, ((p, required), slot)) in params.iter().zip(&slots).enumerate() {
        if *slot == Slot::Boolean {
            continue;
        }
        let cues = param_cues(p);
        let examples = normalize(&p.description).to_lowercase();
        let described = format!("{} {}", p.name, p.description);
        let wants_code = contains_cue(&described, CODE_CUES);
        let wants_year = matches!(slot, Slot::Integer | Slot::Number | Slot::Plain)
            && contains_cue(&described, YEAR_CUES);
        let name_terms: HashSet<String> = terms(&p.name).into_iter().collect();
        let example_ranges: Vec<Range<usize>> = spans
            .iter()
            .filter(|s| mentions(&examples, &s.text.to_lowercase()))
            .map(|s| s.start..s.end)
            .collect();
        for (si, span) in spans.iter().enumerate() {
            let Some(fit) = type_fit(slot, span) else {
                continue;
            };
            let mut score = fit + 1.5 * cue_score(&query.cues, span, &cues, &example_ranges);
            if wants_code && matches!(span.kind, Kind::Code | Kind::Number { int: true, .. }) {
                score += 1.0;
            }
            if wants_year && let Kind::Number { value, .. } = span.kind {
                score += if (1900.0..=2100.0).contains(&value) && span.text.len() == 4 {
                    1.0
                } else {
                    -1.0
                };
            }
            // A value that only repeats the parameter's own name (`Titel` for `titel`).
            let stems = terms(&span.text);
            if !stems.is_empty() && stems.iter().all(|t| name_terms.contains(t)) {
                score -= 2.0;
            }
            // An example value of the description, or a word of the tool's own.
            let own = !stems.is_empty() && stems.iter().all(|t| own_words.contains(t));
            let is_example = !own
                && matches!(span.kind, Kind::Word | Kind::Term | Kind::Name | Kind::Code)
                && mentions(&examples, &span.text.to_lowercase());
            if is_example {
                score += 1.0;
            } else if own && matches!(span.kind, Kind::Word | Kind::Name) {
                score -= 1.5;
            }
            // Coordinates come as (latitude, longitude) pairs.
            if let Kind::Number { int: false, .. } = span.kind {
                let decimal = |s: &Span| matches!(s.kind, Kind::Number { int: false, .. });
                if *slot == Slot::Latitude && spans.get(si + 1).is_some_and(decimal) {
                    score += 0.3;
                }
                if *slot == Slot::Longitude && si > 0 && decimal(&spans[si - 1]) {
                    score += 0.3;
                }
            }
            let floor = if *required {
                min_required
            } else {
                config.min_optional_fit
            };
            if score >= floor {
                let bonus = if *required { 0.25 } else { 0.0 };
                pairs.push((score + bonus, pi, si));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)).then(a.1.cmp(&b.1)));
    let mut taken_param = vec![None; params.len()];
    let mut taken_span = vec![false; spans.len()];
    for (_, pi, si) in pairs {
        if taken_param[pi].is_some() || taken_span[si] {
            continue;
        }
        taken_param[pi] = Some(si);
        taken_span[si] = true;
    }
    let mut arguments = Vec::new();
    let mut kinds = Vec::new();
    let mut missing_typed = false;
    for (pi, ((p, required), slot)) in params.iter().zip(&slots).enumerate() {
        match taken_param[pi] {
            Some(si) => {
                arguments.push((p.name.clone(), value_of(slot, &spans[si])));
                kinds.push(spans[si].kind);
            }
            None if *required && *slot == Slot::Boolean => {
                arguments.push((p.name.clone(), Value::Bool(true)));
                kinds.push(Kind::Word);
            }
            None if *required && slot.typed() => missing_typed = true,
            None => {}
        }
    }
    Filled {
        arguments,
        kinds,
        missing_typed,
    }
}

// ---------------------------------------------------------------------------
// Planning the calls

/// Required parameters that some span fills with a strong type fit (a date,
/// a currency code, a decimal coordinate, a language code, quoted text), and
/// typed required parameters (those of [`Slot::typed`]) that no span fits.
fn typed_evidence(tool: &Tool, spans: &[&Span]) -> (usize, usize) {
    let mut filled = 0;
    let mut unfilled = 0;
    for p in &tool.required_parameters {
        let slot = slot_of(p);
        let best = spans
            .iter()
            .filter_map(|s| type_fit(&slot, s))
            .fold(0.0, f64::max);
        if best >= 3.0 {
            filled += 1;
        } else if slot.typed() && best < 1.0 {
            unfilled += 1;
        }
    }
    (filled, unfilled)
}

/// Scores of every tool for one part of the query: BM25 plus typed evidence.
fn tool_scores(
    index: &Index,
    tools: &[Tool],
    query: &Query,
    range: &Range<usize>,
    config: &Config,
) -> Vec<f64> {
    let bm25 = index.scores(&terms(&query.text[range.clone()]));
    let spans: Vec<&Span> = query
        .general
        .iter()
        .filter(|s| range.start <= s.start && s.end <= range.end)
        .collect();
    bm25.iter()
        .zip(tools)
        .map(|(score, tool)| {
            let (filled, unfilled) = typed_evidence(tool, &spans);
            score + config.type_bonus * filled as f64 - config.type_penalty * unfilled as f64
        })
        .collect()
}

fn plan(request: &Request<'_>, config: &Config) -> Vec<Call> {
    let tools = request.tools;
    if tools.is_empty() {
        return Vec::new();
    }
    let index = Index::new(tools);
    let query = Query::new(request);
    let whole = 0..query.text.len();
    let Some((best, best_score, _)) = best_of(&tool_scores(&index, tools, &query, &whole, config))
    else {
        return Vec::new();
    };
    if best_score < config.min_tool_score {
        return Vec::new();
    }

    // Which tool each request picks.
    let segs = segments(&query.text, Cuts::Requests);
    let mut picks: Vec<Option<usize>> = segs
        .iter()
        .map(|r| {
            let (b, score, lead) = best_of(&tool_scores(&index, tools, &query, r, config))?;
            (score >= config.min_request_score && lead >= config.min_request_margin).then_some(b)
        })
        .collect();
    let mut distinct: Vec<usize> = Vec::new();
    for t in picks.iter().flatten() {
        if !distinct.contains(t) {
            distinct.push(*t);
        }
    }

    if distinct.len() >= 2 {
        // Parallel: requests without a pick join the one before (or after).
        let mut last = None;
        for p in picks.iter_mut() {
            match p {
                Some(t) => last = Some(*t),
                None => *p = last,
            }
        }
        let first = picks.iter().flatten().next().copied();
        for p in picks.iter_mut() {
            if p.is_none() {
                *p = first;
            }
        }
        let mut calls = Vec::new();
        for &t in &distinct {
            let ranges: Vec<Range<usize>> = segs
                .iter()
                .zip(&picks)
                .filter(|(_, p)| **p == Some(t))
                .map(|(r, _)| r.clone())
                .collect();
            let filled = fill(&tools[t], &query, &ranges, config.min_required_fit, config);
            if config.refuse_when_required_missing && filled.missing_typed {
                continue;
            }
            calls.push(Call::new(tools[t].name.clone(), filled.arguments));
        }
        if calls.len() >= 2 {
            return calls;
        }
    }

    let tool = &tools[best];
    let global = fill(
        tool,
        &query,
        std::slice::from_ref(&whole),
        config.min_required_fit,
        config,
    );
    if config.refuse_when_required_missing && global.missing_typed {
        return Vec::new();
    }
    let single = vec![Call::new(tool.name.clone(), global.arguments.clone())];

    // Repeated: list items that give different values of one kind to a parameter.
    let items = segments(&query.text, Cuts::Items);
    if items.len() < 2 {
        return single;
    }
    let per_item: Vec<Filled> = items
        .iter()
        .map(|r| {
            fill(
                tool,
                &query,
                std::slice::from_ref(r),
                config.min_repeated_fit,
                config,
            )
        })
        .collect();
    let params: Vec<&Parameter> = tool
        .required_parameters
        .iter()
        .chain(&tool.optional_parameters)
        .collect();
    // An item's value that the whole query gives another parameter is not a
    // second instance of this one (`Kuala Lumpur, Malaysia`).
    let elsewhere = |name: &str, value: &Value| {
        global
            .arguments
            .iter()
            .any(|(k, v)| k != name && v == value)
    };
    let mut varying: Vec<&str> = Vec::new();
    for p in &params {
        let values: Vec<(&Value, Kind)> = per_item
            .iter()
            .filter_map(|f| f.get(&p.name))
            .filter(|(v, _)| !elsewhere(&p.name, v))
            .collect();
        let same_kind = values
            .iter()
            .all(|(_, k)| std::mem::discriminant(k) == std::mem::discriminant(&values[0].1));
        if values.len() >= 2 && same_kind && values.iter().any(|(v, _)| *v != values[0].0) {
            varying.push(&p.name);
        }
    }
    // An array parameter takes every item's value in one call.
    let array = params
        .iter()
        .find(|p| varying.contains(&p.name.as_str()) && slot_of(p) == Slot::Array);
    if let Some(array) = array {
        let mut items: Vec<Value> = Vec::new();
        for item in &per_item {
            if let Some((Value::List(values), _)) = item.get(&array.name) {
                for v in values {
                    if !items.contains(v) {
                        items.push(v.clone());
                    }
                }
            }
        }
        let mut arguments = global.arguments.clone();
        match arguments.iter_mut().find(|(k, _)| *k == array.name) {
            Some((_, v)) => *v = Value::List(items),
            None => arguments.push((array.name.clone(), Value::List(items))),
        }
        return vec![Call::new(tool.name.clone(), arguments)];
    }
    let mut calls: Vec<Call> = Vec::new();
    for item in &per_item {
        let has_own = varying
            .iter()
            .any(|name| item.get(name).is_some_and(|(v, _)| !elsewhere(name, v)));
        if !has_own {
            continue;
        }
        let mut arguments = Vec::new();
        for p in &params {
            let own = if varying.contains(&p.name.as_str()) {
                item.get(&p.name)
                    .map(|(v, _)| v)
                    .filter(|v| !elsewhere(&p.name, v))
            } else {
                None
            };
            let value = own.or_else(|| global.get(&p.name).map(|(v, _)| v));
            if let Some(v) = value {
                arguments.push((p.name.clone(), v.clone()));
            }
        }
        let call = Call::new(tool.name.clone(), arguments);
        if !calls.contains(&call) {
            calls.push(call);
        }
    }
    if calls.len() >= 2 { calls } else { single }
}

// ---------------------------------------------------------------------------
// Thought

struct Templates {
    one: &'static str,
    several: &'static str,
    none: &'static str,
    open: &'static str,
    close: &'static str,
    join: &'static str,
}

fn templates(language: &str) -> Templates {
    let primary = language
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let t = |one, several, none, open, close, join| Templates {
        one,
        several,
        none,
        open,
        close,
        join,
    };
    match primary.as_str() {
        "zh" => t(
            "这个请求与工具{}最匹配，所以我会用问题中找到的参数调用它。",
            "问题里包含几个请求，所以我会分别调用{}。",
            "没有合适的工具能够处理这个请求，所以我不调用任何工具。",
            "「",
            "」",
            "、",
        ),
        "ja" => t(
            "この依頼には{}が最も合っているので、質問から見つけた値でこのツールを呼び出します。",
            "質問には複数の依頼が含まれているので、{}をそれぞれ呼び出します。",
            "この依頼に合うツールが見つからないので、ツールは呼び出しません。",
            "「",
            "」",
            "と",
        ),
        "ko" => t(
            "이 요청에는 {} 도구가 가장 잘 맞으므로 질문에서 찾은 값으로 이 도구를 호출하겠습니다.",
            "질문에 여러 요청이 있으므로 {} 도구를 각각 호출하겠습니다.",
            "이 요청에 맞는 도구가 없으므로 어떤 도구도 호출하지 않겠습니다.",
            "\"",
            "\"",
            ", ",
        ),
        "ar" => t(
            "هذا الطلب يتوافق أكثر مع الأداة {}، لذلك سأستدعيها بالقيم الموجودة في السؤال.",
            "يحتوي السؤال على عدة طلبات، لذلك سأستدعي الأدوات {}.",
            "لا توجد أداة مناسبة لهذا الطلب، لذلك لن أستدعي أي أداة.",
            "\"",
            "\"",
            " و",
        ),
        "ru" => t(
            "Этот запрос лучше всего соответствует инструменту {}, поэтому я вызову его со значениями из вопроса.",
            "В вопросе несколько запросов, поэтому я вызову инструменты {}.",
            "Ни один из доступных инструментов не подходит для этого запроса, поэтому я не буду их вызывать.",
            "«",
            "»",
            " и ",
        ),
        "hi" => t(
            "यह अनुरोध {} टूल से सबसे अच्छा मेल खाता है, इसलिए मैं प्रश्न में मिले मानों के साथ इसे कॉल करूँगा।",
            "प्रश्न में कई अनुरोध हैं, इसलिए मैं {} टूल को अलग-अलग कॉल करूँगा।",
            "इस अनुरोध के लिए कोई उपयुक्त टूल नहीं है, इसलिए मैं किसी भी टूल को कॉल नहीं करूँगा।",
            "\"",
            "\"",
            " और ",
        ),
        "de" => t(
            "Die Anfrage passt am besten zum Werkzeug {}, deshalb rufe ich es mit den Werten aus der Frage auf.",
            "Die Frage enthält mehrere Anliegen, deshalb rufe ich die Werkzeuge {} auf.",
            "Keines der verfügbaren Werkzeuge passt zu dieser Anfrage, deshalb rufe ich kein Werkzeug auf.",
            "\"",
            "\"",
            " und ",
        ),
        "fr" => t(
            "La demande correspond le mieux à l'outil {}, donc je vais l'appeler avec les valeurs trouvées dans la question.",
            "La question contient plusieurs demandes, donc je vais appeler les outils {}.",
            "Aucun des outils disponibles ne convient à cette demande, donc je n'appelle aucun outil.",
            "«",
            "»",
            " et ",
        ),
        "es" => t(
            "La solicitud coincide mejor con la herramienta {}, así que la llamaré con los valores que aparecen en la pregunta.",
            "La pregunta contiene varias solicitudes, así que llamaré a las herramientas {}.",
            "Ninguna de las herramientas disponibles sirve para esta solicitud, así que no llamaré a ninguna herramienta.",
            "«",
            "»",
            " y ",
        ),
        "it" => t(
            "La richiesta corrisponde meglio allo strumento {}, quindi lo chiamerò con i valori trovati nella domanda.",
            "La domanda contiene più richieste, quindi chiamerò gli strumenti {}.",
            "Nessuno degli strumenti disponibili è adatto a questa richiesta, quindi non chiamerò nessuno strumento.",
            "\"",
            "\"",
            " e ",
        ),
        "pt" => t(
            "O pedido corresponde melhor à ferramenta {}, então vou chamá-la com os valores encontrados na pergunta.",
            "A pergunta contém vários pedidos, então vou chamar as ferramentas {}.",
            "Nenhuma das ferramentas disponíveis serve para este pedido, então não vou chamar nenhuma ferramenta.",
            "\"",
            "\"",
            " e ",
        ),
        "tr" => t(
            "İstek en iyi {} aracıyla eşleşiyor, bu yüzden onu sorudaki değerlerle çağıracağım.",
            "Soruda birden fazla istek var, bu yüzden {} araçlarını ayrı ayrı çağıracağım.",
            "Bu istek için uygun bir araç yok, bu yüzden hiçbir aracı çağırmayacağım.",
            "\"",
            "\"",
            " ve ",
        ),
        _ => t(
            "The request matches the tool {} best, so I will call it with the values found in the question.",
            "The question contains several requests, so I will call the tools {}.",
            "None of the available tools fits this request, so I will not call any tool.",
            "\"",
            "\"",
            " and ",
        ),
    }
}

/// One sentence in the task's language naming the tools called.
fn thought(language: &str, calls: &[Call]) -> String {
    let t = templates(language);
    let mut names: Vec<&str> = Vec::new();
    for c in calls {
        if !names.contains(&c.name.as_str()) {
            names.push(&c.name);
        }
    }
    let quoted: Vec<String> = names
        .iter()
        .map(|n| format!("{}{}{}", t.open, n, t.close))
        .collect();
    match quoted.len() {
        0 => t.none.to_string(),
        1 => t.one.replace("{}", &quoted[0]),
        _ => t.several.replace("{}", &quoted.join(t.join)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::stream::score_response;
    use crate::score::task::ScoreOptions;
    use crate::spec::records::{Gold, TaskKind};
    use crate::spec::response::strict_format;

    fn param(name: &str, kind: &str, description: &str) -> Parameter {
        Parameter {
            name: name.into(),
            kind: kind.into(),
            description: description.into(),
            default: None,
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
            category: String::new(),
            country: String::new(),
            method: String::new(),
            url: String::new(),
            required_parameters: required,
            optional_parameters: optional,
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
    fn the_thought_is_in_the_task_language() {
        let call = [Call::new("city_weather", vec![])];
        let two = [
            Call::new("city_weather", vec![]),
            Call::new("stock_quote", vec![]),
        ];
        for language in [
            "zh", "ja", "ko", "ar", "ru", "hi", "de", "fr", "es", "it", "pt", "tr", "en",
        ] {
            for calls in [&call[..], &two[..], &[]] {
                let text = thought(language, calls);
                let check = crate::spec::language::check_language(&text, language);
                assert!(
                    check.outcome.is_match(),
                    "{language}: {text} -> {:?}",
                    check.detected
                );
                for c in calls {
                    assert!(text.contains(&c.name), "{text}");
                }
            }
        }
        assert_eq!(thought("sw", &[]), thought("en", &[]));
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
    fn segments_cut_at_separators_in_several_scripts() {
        let cut = |text: &str, mode| -> Vec<String> {
            let text = normalize(text);
            segments(&text, mode)
                .into_iter()
                .map(|r| text[r].trim().to_string())
                .collect()
        };
        assert_eq!(
            cut("Weather in Oslo and rates for USD", Cuts::Items),
            ["Weather in Oslo", "rates for USD"]
        );
        assert_eq!(
            cut("成都、重庆和西安的天气", Cuts::Items),
            ["成都", "重庆", "西安的天气"]
        );
        assert_eq!(
            cut("大阪府と京都府の天気", Cuts::Items),
            ["大阪府", "京都府の天気"]
        );
        assert_eq!(cut("서울과 부산 날씨", Cuts::Items), ["서울", "부산 날씨"]);
        assert_eq!(
            cut("forecast at 51.5, -0.12 please", Cuts::Items),
            ["forecast at 51.5, -0.12 please"]
        );
        assert_eq!(
            cut("Is it raining? Show rates, then stop.", Cuts::Requests),
            ["Is it raining", "Show rates", "stop"]
        );
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
        std::env::var_os("ITC_SAMPLE_TASKS").map_or_else(
            || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sample/tasks.jsonl"),
            std::path::PathBuf::from,
        )
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
        let text = std::fs::read_to_string(sample_path()).ok()?;
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

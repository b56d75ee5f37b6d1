//! `itc ood score toolalpaca --compat official`: ToolAlpaca's `statistics`
//! recounted from an official evaluation file (`evalution_outputs/*.json`,
//! format A2: a dict keyed by API name, each a list of
//! `{id, input, output, …}`, plus `statistics`).
//!
//! Each label is read from the judge's text (`output`) as SPEC §8 says, never
//! from the stored `process_correctness` / `final_response_correctness`
//! fields: the text after the first `## Results` heading when there is one,
//! else the whole text; `Process Correctness: <label>` and
//! `Final Response Correctness: <label>`, label ∈ {Yes, No, Uncertain}, case
//! as written. An entry with no judge request (empty `input`: the run made
//! no step) is an error and is not judged. A label that cannot be read is
//! counted and reported, never fatal.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use serde_json::Value;

use crate::score::files::OutputFormat;
use crate::util::table::{Table, percent};

/// A judge's label (SPEC §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    /// `Yes`.
    Yes,
    /// `No`.
    No,
    /// `Uncertain`.
    Uncertain,
}

/// Counts of the three labels, serialised with the labels as keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LabelCounts {
    /// Entries labelled `Yes`.
    #[serde(rename = "Yes")]
    pub yes: usize,
    /// Entries labelled `No`.
    #[serde(rename = "No")]
    pub no: usize,
    /// Entries labelled `Uncertain`.
    #[serde(rename = "Uncertain")]
    pub uncertain: usize,
}

impl LabelCounts {
    fn add(&mut self, label: Label) {
        match label {
            Label::Yes => self.yes += 1,
            Label::No => self.no += 1,
            Label::Uncertain => self.uncertain += 1,
        }
    }
}

/// ToolAlpaca's `statistics`, recounted from the judge texts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Statistics {
    /// Entries (tasks), errors included.
    pub num: usize,
    /// Entries without a judge request (the run made no step).
    pub error_num: usize,
    /// Process correctness labels of the judged entries.
    pub process: LabelCounts,
    /// Final response correctness labels of the judged entries.
    pub response: LabelCounts,
    /// Entries with both labels `Yes`.
    pub both: usize,
    /// Judged entries whose process label could not be read.
    #[serde(skip)]
    pub process_unreadable: usize,
    /// Judged entries whose response label could not be read.
    #[serde(skip)]
    pub response_unreadable: usize,
}

/// What one entry of the file contributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No judge request: counted as an error, not judged.
    Error,
    /// Judged: the two labels read from the text (`None`: unreadable).
    Judged {
        /// `Process Correctness`.
        process: Option<Label>,
        /// `Final Response Correctness`.
        response: Option<Label>,
    },
}

/// The part of a judge's text the labels are read from: after the first
/// `## Results` heading when there is one, else the whole text.
fn results_part(text: &str) -> &str {
    match text.find("## Results") {
        Some(i) => &text[i + "## Results".len()..],
        None => text,
    }
}

/// The label after the first `key` in `text` (spaces and tabs skipped, then
/// one word of ASCII letters), `None` when absent or not one of the three.
fn label_after(text: &str, key: &str) -> Option<Label> {
    let start = text.find(key)? + key.len();
    let rest = text[start..].trim_start_matches([' ', '\t']);
    let end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    match &rest[..end] {
        "Yes" => Some(Label::Yes),
        "No" => Some(Label::No),
        "Uncertain" => Some(Label::Uncertain),
        _ => None,
    }
}

/// The two labels a judge's text gives (SPEC §8), read leniently as
/// `itc judge` reads them (spaces and tabs after the colon skipped).
pub fn read_labels(output: &str) -> (Option<Label>, Option<Label>) {
    let part = results_part(output);
    (
        label_after(part, "Process Correctness:"),
        label_after(part, "Final Response Correctness:"),
    )
}

/// Python 3's `\w` in a `str` pattern: `str.isalnum()` or `_`. Rust's
/// alphanumerics also hold the combining marks and the circled and squared
/// Latin letters (category So) of Other_Alphabetic, which Python's do not;
/// without them the two agree on every character Python 3.11 knows
/// (Unicode 14).
fn is_python_word(c: char) -> bool {
    c == '_'
        || (c.is_alphanumeric()
            && !unicode_normalization::char::is_combining_mark(c)
            && !matches!(c, '\u{24b6}'..='\u{24e9}'
                | '\u{1f130}'..='\u{1f149}'
                | '\u{1f150}'..='\u{1f169}'
                | '\u{1f170}'..='\u{1f189}'))
}

/// Python's `re.search(key + r"(\w+)", text).group(1)` for a literal `key`
/// ending in one space: the first place `key` is followed by a word
/// character, and the whole run of word characters there. Linear: each
/// occurrence of `key` is looked at once.
fn regex_word<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.match_indices(key).find_map(|(at, _)| {
        let rest = &text[at + key.len()..];
        let end = rest.find(|c| !is_python_word(c)).unwrap_or(rest.len());
        (end > 0).then(|| &rest[..end])
    })
}

/// The two labels as the official `evaluation.py` reads them: the text
/// after the first `## Results`, then `Process Correctness: (\w+)` and
/// `Final Response Correctness: (\w+)` (`re.search`); a word other than
/// Yes, No or Uncertain, or no match, is unreadable (the script stops on
/// it; itc counts it).
pub fn official_labels(output: &str) -> (Option<Label>, Option<Label>) {
    let part = results_part(output);
    let label = |key| match regex_word(part, key)? {
        "Yes" => Some(Label::Yes),
        "No" => Some(Label::No),
        "Uncertain" => Some(Label::Uncertain),
        _ => None,
    };
    (
        label("Process Correctness: "),
        label("Final Response Correctness: "),
    )
}

/// Whether an entry's `input` holds no judge request.
fn is_empty_input(input: Option<&Value>) -> bool {
    match input {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.trim().is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(_) => false,
    }
}

/// One entry's verdict; `Err` names the field that is malformed.
pub fn entry_verdict(entry: &Value) -> Result<Verdict, String> {
    let Some(obj) = entry.as_object() else {
        return Err(format!("not an object but {}", json_kind(entry)));
    };
    if is_empty_input(obj.get("input")) {
        return Ok(Verdict::Error);
    }
    let output = match obj.get("output") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Null) | None => "",
        Some(v) => {
            return Err(format!("field `output` is {}, not a string", json_kind(v)));
        }
    };
    let (process, response) = official_labels(output);
    Ok(Verdict::Judged { process, response })
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

impl Statistics {
    /// Adds one entry's verdict.
    pub fn add(&mut self, verdict: Verdict) {
        self.num += 1;
        let Verdict::Judged { process, response } = verdict else {
            self.error_num += 1;
            return;
        };
        match process {
            Some(l) => self.process.add(l),
            None => self.process_unreadable += 1,
        }
        match response {
            Some(l) => self.response.add(l),
            None => self.response_unreadable += 1,
        }
        if process == Some(Label::Yes) && response == Some(Label::Yes) {
            self.both += 1;
        }
    }
}

/// The statistics of an evaluation file's text (`source` names it in errors)
/// and the file's own `statistics` when it has them.
pub fn statistics_of(text: &str, source: &str) -> anyhow::Result<(Statistics, Option<Value>)> {
    let root: Value =
        serde_json::from_str(text).with_context(|| format!("{source}: not valid JSON"))?;
    let Some(map) = root.as_object() else {
        anyhow::bail!(
            "{source}: the top level is {}, not an object keyed by API name",
            json_kind(&root)
        );
    };
    let mut stats = Statistics::default();
    for (api, entries) in map {
        if api == "statistics" {
            continue;
        }
        let Some(list) = entries.as_array() else {
            anyhow::bail!(
                "{source}: API `{api}` is {}, not a list of entries",
                json_kind(entries)
            );
        };
        for (i, entry) in list.iter().enumerate() {
            let verdict = entry_verdict(entry).map_err(|e| {
                let id = entry
                    .get("id")
                    .map(|v| format!(" (id {v})"))
                    .unwrap_or_default();
                anyhow::anyhow!("{source}: API `{api}`, entry {}{id}: {e}", i + 1)
            })?;
            stats.add(verdict);
        }
    }
    Ok((stats, map.get("statistics").cloned()))
}

/// What `itc ood score toolalpaca` reads and prints.
#[derive(Debug, Clone)]
pub struct ToolalpacaScoreOptions {
    /// Official evaluation files (`evalution_outputs/*.json`); one result each.
    pub evaluations: Vec<PathBuf>,
    /// Output on stdout.
    pub format: OutputFormat,
    /// The table in one piece, however wide.
    pub wide: bool,
}

fn read_file(path: &Path) -> anyhow::Result<String> {
    crate::util::embedded::read_to_string(path)
        .with_context(|| format!("reading {}", path.display()))
}

/// Runs `itc ood score toolalpaca`: one result per file on `out`; unreadable
/// labels, and a recount that differs from the file's own `statistics`, on `err`.
pub fn run(
    options: &ToolalpacaScoreOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut results = Vec::new();
    for path in &options.evaluations {
        let source = path.display().to_string();
        let (stats, stored) = statistics_of(&read_file(path)?, &source)?;
        if stats.process_unreadable + stats.response_unreadable > 0 {
            writeln!(
                err,
                "warning: {source}: unreadable labels (counted as not Yes): process {}, response {}",
                stats.process_unreadable, stats.response_unreadable
            )?;
        }
        if let Some(stored) = stored
            && stored != serde_json::to_value(&stats)?
        {
            writeln!(
                err,
                "note: {source}: the file's own statistics differ from the judge texts: {stored}"
            )?;
        }
        results.push((source, stats));
    }
    match options.format {
        OutputFormat::Json => {
            for (_, s) in &results {
                writeln!(out, "{}", serde_json::to_string(s)?)?;
            }
        }
        OutputFormat::Table => write_table(&results, options.wide, out)?,
    }
    Ok(())
}

/// A file's name without its folders, as the tables show it.
pub(crate) fn short_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |f| f.to_string_lossy().into_owned())
}

fn write_table(
    results: &[(String, Statistics)],
    wide: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut t = Table::new([
        "File",
        "Tasks",
        "Errors",
        "Unreadable",
        "Procedure %",
        "Response %",
        "Overall %",
    ]);
    for (source, s) in results {
        t.push([
            short_name(source),
            s.num.to_string(),
            s.error_num.to_string(),
            (s.process_unreadable + s.response_unreadable).to_string(),
            percent(s.process.yes, s.num),
            percent(s.response.yes, s.num),
            percent(s.both, s.num),
        ]);
    }
    writeln!(
        out,
        "ToolAlpaca, official statistics from the judge texts (SPEC §8; percent of all tasks)\n\n{}",
        t.render(wide)
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(output: &str, stored: &str) -> Value {
        json!({"id": 1, "input": [{"role": "user", "content": "x"}], "output": output,
               "process_correctness": stored, "final_response_correctness": stored})
    }

    fn verdict(output: &str, stored: &str) -> Verdict {
        entry_verdict(&entry(output, stored)).unwrap()
    }

    #[test]
    fn labels_come_from_the_results_part_of_the_text() {
        let text = "## Analysis\nProcess Correctness: No (draft)\n## Results\n\
                    Process Correctness: Yes\nFinal Response Correctness: Uncertain";
        assert_eq!(
            verdict(text, "No"),
            Verdict::Judged {
                process: Some(Label::Yes),
                response: Some(Label::Uncertain)
            }
        );
    }

    #[test]
    fn without_results_heading_the_whole_text_is_read() {
        let text = "Process Correctness: No\nFinal Response Correctness: Yes";
        assert_eq!(
            verdict(text, "Yes"),
            Verdict::Judged {
                process: Some(Label::No),
                response: Some(Label::Yes)
            }
        );
    }

    #[test]
    fn lower_case_label_is_unreadable_whatever_the_stored_field() {
        let text = "## Results\nProcess Correctness: yes\nFinal Response Correctness: Yes";
        let mut s = Statistics::default();
        s.add(verdict(text, "Yes"));
        assert_eq!(s.process_unreadable, 1);
        assert_eq!(s.process.yes, 0);
        assert_eq!(s.response.yes, 1);
        assert_eq!(s.both, 0);
    }

    #[test]
    fn unreadable_text_is_counted_not_fatal() {
        let mut s = Statistics::default();
        s.add(verdict("The judge rambled.", "Yes"));
        s.add(verdict("## Results\nProcess Correctness: Maybe", "Yes"));
        assert_eq!((s.num, s.error_num), (2, 0));
        assert_eq!((s.process_unreadable, s.response_unreadable), (2, 2));
        assert_eq!(s.process, LabelCounts::default());
    }

    #[test]
    fn an_entry_without_judge_request_is_an_error() {
        let e = json!({"id": 8, "input": "", "output": ""});
        assert_eq!(entry_verdict(&e).unwrap(), Verdict::Error);
        // A judged entry with an empty text is unreadable, not an error.
        let judged = entry("", "Yes");
        let mut s = Statistics::default();
        s.add(entry_verdict(&e).unwrap());
        s.add(entry_verdict(&judged).unwrap());
        assert_eq!((s.num, s.error_num, s.process_unreadable), (2, 1, 1));
    }

    #[test]
    fn malformed_input_names_api_entry_and_field() {
        let text = r###"{"Cats": [{"id": 0, "input": "q", "output": "## Results\nProcess Correctness: Yes"},
                       {"id": 5, "input": "q", "output": 3}]}"###;
        let e = statistics_of(text, "f.json").unwrap_err().to_string();
        assert!(e.contains("f.json") && e.contains("`Cats`") && e.contains("entry 2"));
        assert!(e.contains("(id 5)") && e.contains("`output`"), "{e}");
        let e = statistics_of(r#"{"Cats": 3}"#, "g.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("g.json") && e.contains("`Cats`"), "{e}");
        assert!(statistics_of("[1]", "h.json").is_err());
    }

    #[test]
    fn compat_reads_as_the_official_regex_and_judge_reads_leniently() {
        use Label::{No, Uncertain, Yes};
        // (text, official `re.search` reading, itc judge's reading).
        let cases: &[(&str, Option<Label>, Option<Label>)] = &[
            ("Process Correctness: Yes", Some(Yes), Some(Yes)),
            // The first occurrence does not match the regex: the next one does.
            (
                "**Process Correctness:** Yes\nProcess Correctness: No",
                Some(No),
                None,
            ),
            (
                "Process Correctness:  Yes\nProcess Correctness: No",
                Some(No),
                Some(Yes),
            ),
            (
                "Process Correctness:\nYes\nProcess Correctness: No",
                Some(No),
                None,
            ),
            (
                "Process Correctness:\tYes, then Process Correctness: Uncertain",
                Some(Uncertain),
                Some(Yes),
            ),
            ("Process Correctness:  Yes", None, Some(Yes)),
            ("Process Correctness: **Yes**", None, None),
            // `\w+` runs on through digits and `_`, and stops at a combining
            // mark or a circled letter (not `\w` in Python).
            ("Process Correctness: Yes_2", None, Some(Yes)),
            ("Process Correctness: Yes2", None, Some(Yes)),
            ("Process Correctness: Yes\u{93e}", Some(Yes), Some(Yes)),
            ("Process Correctness: Yes\u{24b6}", Some(Yes), Some(Yes)),
            ("Process Correctness: Yesé", None, Some(Yes)),
            ("Process Correctness: yes", None, None),
            ("Process Correctness: Yes.", Some(Yes), Some(Yes)),
        ];
        for (text, official, lenient) in cases {
            assert_eq!(official_labels(text).0, *official, "official {text:?}");
            assert_eq!(read_labels(text).0, *lenient, "judge {text:?}");
        }
        let both =
            "## Results\n**Final Response Correctness:** Yes\nFinal Response Correctness: No";
        assert_eq!(official_labels(both), (None, Some(No)));
        assert_eq!(
            verdict(both, "Yes"),
            Verdict::Judged {
                process: None,
                response: Some(No)
            }
        );
    }

    #[test]
    fn statistics_key_is_not_an_api() {
        let text = r#"{"statistics": {"num": 9}, "A": [{"id": 0, "input": "q",
            "output": "Process Correctness: Yes\nFinal Response Correctness: Yes"}]}"#;
        let (s, stored) = statistics_of(text, "x").unwrap();
        assert_eq!((s.num, s.both), (1, 1));
        assert_eq!(stored, Some(json!({"num": 9})));
    }
}

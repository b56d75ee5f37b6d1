//! API catalogs, the first stage of ITC's pipeline (paper §3.1, "API
//! Collection and Processing"): API lists of several public formats are
//! normalised to the ITC tool schema ([`Tool`]) with a country and a
//! category, de-duplicated and validated (`itc catalog import`), and counted
//! by country and category (`itc catalog stats`).
//!
//! One file per import format: [`itc`], [`toolbench`], [`openapi`],
//! [`public_apis`], [`seal_tools`], [`toolalpaca`]. Each turns a file into
//! [`RawEntry`]s; [`import`] then decides countries ([`country`]), checks
//! the entries, removes duplicates and gives ids. A catalog file holds one
//! [`CatalogEntry`] per line: a flattened [`Tool`] plus where it came from
//! and how its country was decided, so any [`Tool`] reader can read it.

pub mod country;
pub mod itc;
pub mod json;
pub mod openapi;
pub mod public_apis;
pub mod seal_tools;
pub mod stats;
pub mod toolalpaca;
pub mod toolbench;
pub mod yaml_depth;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use crate::spec::jsonl::{read_records, write_records};
use crate::spec::records::{Parameter, Tool};

pub use country::CountrySource;

/// The input formats of `itc catalog import`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// ITC tools: flat tool objects (JSON array or JSON Lines, including
    /// catalogs written by this command) or ITC/ToolBench tool documents
    /// with an `api_list`.
    Itc,
    /// ToolBench: `data_example/instruction/G*_query.json` query files or
    /// `toolenv/tools/<Category>/<tool>.json` tool documents.
    Toolbench,
    /// An OpenAPI 3 document in JSON: one tool per operation.
    Openapi,
    /// The public-apis/public-apis `README.md` (Markdown tables per category).
    PublicApis,
    /// Seal-Tools `tool.jsonl`.
    SealTools,
    /// ToolAlpaca `public_apis.json`, or its evaluation sets (APIs with an
    /// OpenAPI `Documentation`).
    Toolalpaca,
}

impl Format {
    /// The name used on the command line and in `source.format`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Itc => "itc",
            Format::Toolbench => "toolbench",
            Format::Openapi => "openapi",
            Format::PublicApis => "public-apis",
            Format::SealTools => "seal-tools",
            Format::Toolalpaca => "toolalpaca",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    /// Reads a name as [`Format::as_str`] writes it, in any case.
    fn from_str(name: &str) -> Result<Self, String> {
        [
            Format::Itc,
            Format::Toolbench,
            Format::Openapi,
            Format::PublicApis,
            Format::SealTools,
            Format::Toolalpaca,
        ]
        .into_iter()
        .find(|f| f.as_str().eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("unknown format `{name}`"))
    }
}

/// A problem in an input file: the file, the line when known, the field
/// (a JSON path, or a column name for Markdown) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogError {
    /// The input file.
    pub file: PathBuf,
    /// 1-based line, when the format is line-oriented or the JSON parser knows it.
    pub line: Option<usize>,
    /// JSON path (`entries[3].API`) or column name; `.` for the whole record.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": field `{}`: {}", self.field, self.message)
    }
}

impl std::error::Error for CatalogError {}

/// Where a catalog entry was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// Import format.
    pub format: String,
    /// Input file, as given on the command line.
    pub file: String,
    /// 1-based line, for line-oriented inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// JSON path of the record inside the file.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if !self.path.is_empty() {
            write!(f, " {}", self.path)?;
        }
        Ok(())
    }
}

/// One line of a catalog file: an ITC [`Tool`] (flattened, so [`Tool`]
/// readers accept the line) plus provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogEntry {
    /// Unique within the catalog: `<format>:<name>`, with `#2`, `#3`, … for
    /// different APIs of the same name.
    #[serde(default)]
    pub id: String,
    /// The API in the ITC tool schema.
    #[serde(flatten)]
    pub tool: Tool,
    /// How `country` was decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_source: Option<CountrySource>,
    /// Home or documentation page, when the source gives one beside the endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home_url: Option<String>,
    /// Authentication the API needs (`apiKey`, `OAuth`, …), when the source says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<String>,
    /// Where the entry was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// The name as the source wrote it, when it held characters a call
    /// cannot (see [`callable_name`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_name: Option<String>,
}

impl CatalogEntry {
    /// The country, `GLOBAL` when empty.
    pub fn country(&self) -> &str {
        if self.tool.country.is_empty() {
            country::GLOBAL
        } else {
            &self.tool.country
        }
    }

    /// The key duplicates share: normalised name and normalised URL (the
    /// endpoint, else the home page).
    pub fn dedup_key(&self) -> (String, String) {
        let url = if self.tool.url.is_empty() {
            self.home_url.as_deref().unwrap_or("")
        } else {
            &self.tool.url
        };
        (normalized_name(&self.tool.name), normalized_url(url))
    }
}

/// One API as a format parser read it: not yet validated, country not yet decided.
#[derive(Debug, Clone)]
pub struct RawEntry {
    /// The tool; `country` holds the source's explicit country field, if any.
    pub tool: Tool,
    /// JSON path of the explicit country field, for errors.
    pub country_path: String,
    /// Home or documentation page.
    pub home_url: String,
    /// Authentication, when given.
    pub auth: Option<String>,
    /// Kept from a re-imported catalog.
    pub country_source: Option<CountrySource>,
    /// Kept from a re-imported catalog.
    pub id: String,
    /// Kept from a re-imported catalog.
    pub source: Option<Source>,
    /// Kept from a re-imported catalog.
    pub original_name: Option<String>,
    /// 1-based line of the record, for line-oriented inputs.
    pub line: Option<usize>,
    /// JSON path of the record (empty for a whole JSON Lines line).
    pub path: String,
}

impl RawEntry {
    /// An entry named `name` with nothing else known, read at `line`/`path`.
    pub fn new(name: impl Into<String>, line: Option<usize>, path: impl Into<String>) -> RawEntry {
        RawEntry {
            tool: Tool {
                name: name.into(),
                ..Tool::default()
            },
            country_path: String::new(),
            home_url: String::new(),
            auth: None,
            country_source: None,
            id: String::new(),
            source: None,
            original_name: None,
            line,
            path: path.into(),
        }
    }
}

/// What a format parser gives for a file: entries and per-record problems,
/// in document order.
pub type Parsed = Vec<Result<RawEntry, CatalogError>>;

/// A parameter type in JSON-schema words (`str` → `string`, `INT` →
/// `integer`, `float` → `number`, `list` → `array`, `dict` → `object`).
pub fn normalize_type(kind: &str) -> String {
    let lower = kind.trim().to_lowercase();
    match lower.as_str() {
        "" | "str" | "string" | "text" | "enum" | "date" | "datetime" | "time" => "string",
        "int" | "integer" | "long" | "int32" | "int64" => "integer",
        "float" | "number" | "double" | "decimal" | "numeric" => "number",
        "bool" | "boolean" => "boolean",
        "list" | "array" | "tuple" | "set" => "array",
        "dict" | "object" | "map" | "json" => "object",
        _ => return lower,
    }
    .to_string()
}

/// A name reduced for comparison: NFKC, lower case, runs of anything but
/// letters and digits collapsed to one space.
pub fn normalized_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.nfkc().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim_end().to_string()
}

/// A URL reduced for comparison: no scheme, no `www.`, host in lower case,
/// no default port, fragment, `utm_*` parameters or trailing slash.
pub fn normalized_url(url: &str) -> String {
    let url = url.trim();
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split('#').next().unwrap_or("");
    let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (host, path) = before_query
        .split_once('/')
        .map_or((before_query, ""), |(h, p)| (h, p));
    let host = host.to_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let host = host
        .strip_suffix(":80")
        .or_else(|| host.strip_suffix(":443"))
        .unwrap_or(host);
    let query: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("utm_"))
        .collect();
    let mut out = format!("{host}/{path}");
    while out.ends_with('/') {
        out.pop();
    }
    if !query.is_empty() {
        out.push('?');
        out.push_str(&query.join("&"));
    }
    out
}

/// Settings of one import.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Format of every input file.
    pub format: Format,
    /// Country for entries without other evidence (a code or GLOBAL).
    pub country: Option<String>,
    /// Category for entries whose source gives none.
    pub category: Option<String>,
    /// Skip invalid records (reported) instead of stopping at the first.
    pub skip_invalid: bool,
}

/// The category given to entries without one when no `--category` is set.
pub const UNCATEGORIZED: &str = "Uncategorized";

/// An entry dropped as a duplicate of an earlier one.
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicate {
    /// The dropped entry's name.
    pub name: String,
    /// Where the dropped entry was read.
    pub dropped: Source,
    /// Where the entry kept was read.
    pub kept: Source,
}

/// What an import produced.
#[derive(Debug, Clone, Default)]
pub struct ImportOutcome {
    /// The catalog, in input order, de-duplicated.
    pub entries: Vec<CatalogEntry>,
    /// Entries read per file (before de-duplication).
    pub read: Vec<(PathBuf, usize)>,
    /// Invalid records skipped (only with `skip_invalid`).
    pub skipped: Vec<CatalogError>,
    /// Entries dropped as duplicates (same normalised name and URL).
    pub duplicates: Vec<Duplicate>,
    /// Entries given the fallback category.
    pub uncategorized: usize,
}

fn parse_file(format: Format, file: &Path, text: &str) -> Result<Parsed, CatalogError> {
    match format {
        Format::Itc => itc::parse(file, text),
        Format::Toolbench => toolbench::parse(file, text),
        Format::Openapi => openapi::parse(file, text),
        Format::PublicApis => Ok(public_apis::parse(file, text)),
        Format::SealTools => Ok(seal_tools::parse(file, text)),
        Format::Toolalpaca => toolalpaca::parse(file, text),
    }
}

fn check_parameters(tool: &mut Tool, raw: &RawEntry, file: &Path) -> Result<(), CatalogError> {
    let mut seen = HashSet::new();
    let all = tool
        .required_parameters
        .iter_mut()
        .chain(tool.optional_parameters.iter_mut());
    for parameter in all {
        parameter.name = parameter.name.trim().to_string();
        parameter.description = parameter.description.trim().to_string();
        parameter.kind = normalize_type(&parameter.kind);
        let error = |message: String| CatalogError {
            file: file.to_path_buf(),
            line: raw.line,
            field: json::join(&raw.path, "parameters"),
            message,
        };
        if parameter.name.is_empty() {
            return Err(error("a parameter has an empty name".to_string()));
        }
        if !seen.insert(parameter.name.clone()) {
            return Err(error(format!(
                "parameter `{}` is listed twice",
                parameter.name
            )));
        }
    }
    Ok(())
}

/// Characters the action syntax (SPEC §1) reserves, so a tool name holding
/// one could never be called (`[City, Nantes Open Data()]` does not parse).
const RESERVED_IN_NAMES: [char; 12] = [
    '(', ')', '[', ']', '{', '}', ',', '"', '\'', '=', '\n', '\r',
];

/// A name calls can use: reserved characters become spaces (`=` a hyphen),
/// runs of white space one space. `City, Nantes Open Data` → `City Nantes
/// Open Data`; `Weather (beta)` → `Weather beta`.
pub fn callable_name(name: &str) -> String {
    let replaced: String = name
        .chars()
        .map(|c| match c {
            '=' => '-',
            c if RESERVED_IN_NAMES.contains(&c) => ' ',
            c => c,
        })
        .collect();
    replaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Validates a parsed entry, decides its country and fills its provenance.
pub fn finish(
    raw: RawEntry,
    file: &Path,
    options: &ImportOptions,
) -> Result<(CatalogEntry, bool), CatalogError> {
    let mut tool = raw.tool.clone();
    let written = tool.name.trim().to_string();
    tool.name = callable_name(&written);
    let original_name = (tool.name != written && !tool.name.is_empty()).then_some(written);
    tool.description = tool
        .description
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    tool.method = tool.method.trim().to_uppercase();
    tool.url = tool.url.trim().to_string();
    if tool.name.is_empty() {
        return Err(CatalogError {
            file: file.to_path_buf(),
            line: raw.line,
            field: json::join(&raw.path, "name"),
            message: "empty name".to_string(),
        });
    }
    check_parameters(&mut tool, &raw, file)?;
    tool.category = tool.category.trim().to_string();
    let uncategorized = tool.category.is_empty();
    if uncategorized {
        tool.category = options
            .category
            .clone()
            .unwrap_or_else(|| UNCATEGORIZED.to_string());
    }
    let home_url = raw.home_url.trim().to_string();
    let text = format!("{} {}", tool.name, tool.description);
    let field = (!tool.country.trim().is_empty()).then_some(tool.country.as_str());
    let (code, decided) = country::decide(&country::Evidence {
        field,
        urls: &[tool.url.as_str(), home_url.as_str()],
        text: &text,
        flag: options.country.as_deref(),
    })
    .map_err(|message| CatalogError {
        file: file.to_path_buf(),
        line: raw.line,
        field: if raw.country_path.is_empty() {
            json::join(&raw.path, "country")
        } else {
            raw.country_path.clone()
        },
        message,
    })?;
    tool.country = code;
    // A re-imported catalog keeps how its country was first decided.
    let country_source = match (decided, raw.country_source) {
        (CountrySource::Field, Some(earlier)) => earlier,
        _ => decided,
    };
    let source = raw.source.clone().unwrap_or_else(|| Source {
        format: options.format.as_str().to_string(),
        file: file.display().to_string(),
        line: raw.line,
        path: raw.path.clone(),
    });
    let entry = CatalogEntry {
        id: raw.id.clone(),
        tool,
        country_source: Some(country_source),
        home_url: (!home_url.is_empty()).then_some(home_url),
        auth: raw.auth.clone().filter(|a| !a.trim().is_empty()),
        source: Some(source),
        original_name: raw.original_name.clone().or(original_name),
    };
    Ok((entry, uncategorized))
}

/// Drops entries whose normalised name and URL equal an earlier entry's.
pub fn dedup(entries: Vec<CatalogEntry>) -> (Vec<CatalogEntry>, Vec<Duplicate>) {
    let mut first: HashMap<(String, String), usize> = HashMap::new();
    let mut kept: Vec<CatalogEntry> = Vec::with_capacity(entries.len());
    let mut duplicates = Vec::new();
    for entry in entries {
        let key = entry.dedup_key();
        match first.get(&key) {
            Some(&index) => duplicates.push(Duplicate {
                name: entry.tool.name.clone(),
                dropped: entry.source.clone().unwrap_or_else(unknown_source),
                kept: kept[index].source.clone().unwrap_or_else(unknown_source),
            }),
            None => {
                first.insert(key, kept.len());
                kept.push(entry);
            }
        }
    }
    (kept, duplicates)
}

fn unknown_source() -> Source {
    Source {
        format: String::new(),
        file: String::new(),
        line: None,
        path: String::new(),
    }
}

/// Gives every entry a unique id, keeping ids it already has when unique.
pub fn assign_ids(entries: &mut [CatalogEntry], format: Format) {
    let mut taken: HashSet<String> = HashSet::new();
    for entry in entries.iter_mut() {
        if !entry.id.is_empty() && taken.insert(entry.id.clone()) {
            continue;
        }
        let base = format!("{}:{}", format.as_str(), entry.tool.name);
        let mut id = base.clone();
        let mut n = 2;
        while taken.contains(&id) {
            id = format!("{base}#{n}");
            n += 1;
        }
        taken.insert(id.clone());
        entry.id = id;
    }
}

/// Reads, validates, de-duplicates and identifies the APIs of `files`.
pub fn import(files: &[PathBuf], options: &ImportOptions) -> anyhow::Result<ImportOutcome> {
    let mut outcome = ImportOutcome::default();
    let mut entries = Vec::new();
    for file in files {
        let text = crate::util::embedded::read_to_string(file)
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let parsed = parse_file(options.format, file, &text)?;
        let mut read = 0;
        for item in parsed {
            let finished = item.and_then(|raw| finish(raw, file, options));
            match finished {
                Ok((entry, uncategorized)) => {
                    read += 1;
                    outcome.uncategorized += usize::from(uncategorized);
                    entries.push(entry);
                }
                Err(error) if options.skip_invalid => outcome.skipped.push(error),
                Err(error) => {
                    return Err(anyhow::Error::new(error)
                        .context("invalid record (--skip-invalid skips such records)"));
                }
            }
        }
        if read == 0 && outcome.skipped.iter().all(|e| e.file != *file) {
            anyhow::bail!(
                "{}: no API in it (empty, or not a `{}` file?)",
                file.display(),
                options.format.as_str()
            );
        }
        outcome.read.push((file.clone(), read));
    }
    let (mut entries, duplicates) = dedup(entries);
    assign_ids(&mut entries, options.format);
    outcome.entries = entries;
    outcome.duplicates = duplicates;
    Ok(outcome)
}

/// Reads a catalog file (JSON Lines of [`CatalogEntry`]; plain [`Tool`]
/// lines are accepted too). Errors name file, line and field.
pub fn read_catalog(path: &Path) -> anyhow::Result<Vec<CatalogEntry>> {
    let (entries, _) = read_records::<CatalogEntry>(path, false)?;
    Ok(entries)
}

/// Options of `itc catalog import`.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportFilesOptions {
    /// Format of the input files.
    pub format: Format,
    /// Input files, all of that format.
    pub files: Vec<PathBuf>,
    /// Catalog to write (JSON Lines, one tool per line).
    pub output: PathBuf,
    /// Country (ISO code or GLOBAL) for APIs without an explicit country, a
    /// country-code domain or a country named in their text.
    pub country: Option<String>,
    /// Category for APIs whose source gives none (default: Uncategorized).
    pub category: Option<String>,
    /// Skip invalid records (listed on stderr) instead of stopping at the first.
    pub skip_invalid: bool,
}

/// Runs `itc catalog import`: reads the files, writes the catalog, reports
/// what was read, skipped, de-duplicated and renamed.
pub fn import_files(
    args: &ImportFilesOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let country = match &args.country {
        None => None,
        Some(value) => Some(country::normalize(value).ok_or_else(|| {
            anyhow::anyhow!(
                "--country {value:?}: not an ISO 3166-1 alpha-2 code, a country name or GLOBAL"
            )
        })?),
    };
    let options = ImportOptions {
        format: args.format,
        country,
        category: args.category.clone(),
        skip_invalid: args.skip_invalid,
    };
    let outcome = import(&args.files, &options)?;
    report_import(&outcome, &options, err)?;
    write_records(&args.output, &outcome.entries)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.output.display()))?;
    writeln!(
        out,
        "wrote {} APIs to {}",
        outcome.entries.len(),
        args.output.display()
    )?;
    writeln!(out, "{}", stats::country_source_line(&outcome.entries))?;
    Ok(())
}

fn report_import(
    outcome: &ImportOutcome,
    options: &ImportOptions,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    for (file, n) in &outcome.read {
        writeln!(
            err,
            "{}: {n} APIs read ({})",
            file.display(),
            options.format.as_str()
        )?;
    }
    if !outcome.skipped.is_empty() {
        writeln!(err, "skipped {} invalid record(s):", outcome.skipped.len())?;
        for error in outcome.skipped.iter().take(20) {
            writeln!(err, "  {error}")?;
        }
    }
    writeln!(
        err,
        "removed {} duplicate(s) (same normalised name and URL; the first is kept)",
        outcome.duplicates.len()
    )?;
    for d in outcome.duplicates.iter().take(10) {
        writeln!(err, "  {:?} at {} duplicates {}", d.name, d.dropped, d.kept)?;
    }
    let renamed = outcome
        .entries
        .iter()
        .filter(|e| e.original_name.is_some())
        .count();
    if renamed > 0 {
        writeln!(
            err,
            "{renamed} name(s) held characters a call cannot (`,` `(` `=` …) and were made callable; the source's name is kept in original_name"
        )?;
    }
    let clashes = name_clashes(&outcome.entries);
    if clashes > 0 {
        writeln!(
            err,
            "{clashes} name(s) are shared by APIs with different URLs (kept; ids get #2, #3, …)"
        )?;
    }
    if outcome.uncategorized > 0 {
        writeln!(
            err,
            "{} API(s) had no category and got {:?}",
            outcome.uncategorized,
            options.category.as_deref().unwrap_or(UNCATEGORIZED)
        )?;
    }
    Ok(())
}

/// How many normalised names occur more than once.
fn name_clashes(entries: &[CatalogEntry]) -> usize {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for e in entries {
        *counts.entry(normalized_name(&e.tool.name)).or_default() += 1;
    }
    counts.values().filter(|&&n| n > 1).count()
}

/// Reads the parameters of a ToolBench/ITC-style list
/// (`[{name, type, description, default}]`); an empty-string default counts
/// as none.
pub fn parse_parameter_list(node: &json::Node<'_>, key: &str) -> json::Res<Vec<Parameter>> {
    let mut parameters = Vec::new();
    for item in node.opt_items(key)? {
        item.expect_object()?;
        let default = item.key("default").and_then(|d| match d.value {
            json::Json::String(s) if s.is_empty() => None,
            value => Some(value.to_value()),
        });
        parameters.push(Parameter {
            name: item.req_str("name")?,
            kind: item.opt_str("type")?,
            description: item.opt_str("description")?,
            default,
            ..Default::default()
        });
    }
    Ok(parameters)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, url: &str, file: &str) -> CatalogEntry {
        let mut raw = RawEntry::new(name, Some(1), "");
        raw.tool.url = url.to_string();
        let options = ImportOptions {
            format: Format::Itc,
            country: None,
            category: None,
            skip_invalid: false,
        };
        finish(raw, Path::new(file), &options).unwrap().0
    }

    #[test]
    fn names_become_callable_and_keep_the_source_name() {
        assert_eq!(
            callable_name("City, Nantes Open Data"),
            "City Nantes Open Data"
        );
        assert_eq!(callable_name("Weather (beta)"), "Weather beta");
        assert_eq!(callable_name("a=b \"c\""), "a-b c");
        assert_eq!(callable_name("天气查询"), "天气查询");
        let options = ImportOptions {
            format: Format::PublicApis,
            country: None,
            category: None,
            skip_invalid: false,
        };
        let name = callable_name("Transport for Sao Paulo, Brazil");
        let calls = crate::spec::action::parse_actions(
            &format!("[{name}(x=1)]"),
            crate::spec::action::Mode::Strict,
        )
        .unwrap();
        assert_eq!(calls[0].name, name, "the new name is callable");
        let (entry, _) = finish(
            RawEntry::new("Transport for Sao Paulo, Brazil", Some(1), ""),
            Path::new("README.md"),
            &options,
        )
        .unwrap();
        assert_eq!(entry.tool.name, "Transport for Sao Paulo Brazil");
        assert_eq!(
            entry.original_name.as_deref(),
            Some("Transport for Sao Paulo, Brazil")
        );
        let (plain, _) = finish(
            RawEntry::new("GeoApi", Some(2), ""),
            Path::new("README.md"),
            &options,
        )
        .unwrap();
        assert_eq!(plain.original_name, None);
    }

    #[test]
    fn names_and_urls_normalise() {
        assert_eq!(normalized_name("  Cat-Facts  API "), "cat facts api");
        assert_eq!(normalized_name("ＣＡＴ　Facts"), "cat facts");
        assert_eq!(normalized_name("天气查询"), "天气查询");
        assert_eq!(
            normalized_url("https://WWW.Example.com:443/api/?utm_source=x&q=1#top"),
            "example.com/api?q=1"
        );
        assert_eq!(
            normalized_url("http://example.com/api/"),
            normalized_url("https://www.example.com/api")
        );
        assert_ne!(
            normalized_url("https://example.com/a"),
            normalized_url("https://example.com/b")
        );
    }

    #[test]
    fn duplicates_need_same_name_and_url() {
        let entries = vec![
            entry("Cat Facts", "https://catfact.ninja/", "a"),
            entry("cat facts", "http://www.catfact.ninja", "b"),
            entry(
                "Cat Facts",
                "https://alexwohlbruck.github.io/cat-facts/",
                "c",
            ),
            entry("Dog Facts", "https://catfact.ninja/", "d"),
        ];
        let (kept, dropped) = dedup(entries);
        assert_eq!(kept.len(), 3);
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].dropped.file, "b");
        assert_eq!(dropped[0].kept.file, "a");
        let mut kept = kept;
        assign_ids(&mut kept, Format::PublicApis);
        let ids: Vec<_> = kept.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "public-apis:Cat Facts",
                "public-apis:Cat Facts#2",
                "public-apis:Dog Facts"
            ]
        );
    }

    #[test]
    fn types_normalise() {
        assert_eq!(normalize_type("str"), "string");
        assert_eq!(normalize_type("NUMBER"), "number");
        assert_eq!(normalize_type("int"), "integer");
        assert_eq!(normalize_type("list"), "array");
        assert_eq!(normalize_type("Dict"), "object");
        assert_eq!(normalize_type("file"), "file");
    }

    #[test]
    fn finish_checks_parameters_and_country() {
        let options = ImportOptions {
            format: Format::Itc,
            country: Some("FR".into()),
            category: Some("Misc".into()),
            skip_invalid: false,
        };
        let mut raw = RawEntry::new("f", Some(4), "");
        raw.tool.required_parameters.push(Parameter {
            name: "x".into(),
            kind: "str".into(),
            description: String::new(),
            default: None,
            ..Default::default()
        });
        raw.tool.optional_parameters = raw.tool.required_parameters.clone();
        let err = finish(raw.clone(), Path::new("t.jsonl"), &options).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.jsonl:4: field `parameters`: parameter `x` is listed twice"
        );

        raw.tool.optional_parameters.clear();
        let (ok, uncategorized) = finish(raw.clone(), Path::new("t.jsonl"), &options).unwrap();
        assert!(uncategorized);
        assert_eq!(ok.tool.category, "Misc");
        assert_eq!(ok.tool.required_parameters[0].kind, "string");
        assert_eq!(
            (ok.tool.country.as_str(), ok.country_source),
            ("FR", Some(CountrySource::Flag))
        );

        raw.tool.country = "Atlantis".into();
        raw.country_path = "api.country".into();
        let err = finish(raw, Path::new("t.jsonl"), &options).unwrap_err();
        assert_eq!(err.field, "api.country");
    }

    #[test]
    fn catalog_lines_read_as_tools() {
        let e = entry("jma", "https://www.jma.go.jp/x", "f.json");
        let line = serde_json::to_string(&e).unwrap();
        assert!(line.contains(r#""country":"JP""#), "{line}");
        assert!(line.contains(r#""country_source":"url""#), "{line}");
        let tool: Tool = serde_json::from_str(&line).unwrap();
        assert_eq!(tool, e.tool);
        let back: CatalogEntry = serde_json::from_str(&line).unwrap();
        assert_eq!(back, e);
    }
}

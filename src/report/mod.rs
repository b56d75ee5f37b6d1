//! `itc report`: one comparison of any number of `itc eval` run directories
//! and `itc score --out` folders, made on different days or machines.
//!
//! 1. [`inputs`]: read each folder's `task_scores.jsonl` and manifest;
//!    [`sets`]: group them by task set, a section of the report each
//!    ([`Section`]); within a set, refuse inputs that scored different
//!    tasks unless told to compare the tasks they share.
//! 2. Rebuild the per-task outcomes of every model ([`combine`]) and
//!    aggregate them as `itc score` does: Table-2 and Table-3 shapes, every
//!    breakdown, 95% bootstrap intervals.
//! 3. [`paired`]: paired-bootstrap differences with intervals and p-values,
//!    and a ranking in which models that do not differ significantly share
//!    a rank.
//! 4. Write it: terminal tables, Markdown ([`markdown`]), LaTeX tables
//!    ([`latex`]), CSV and Parquet in
//!    long form ([`frames`]), JSON, one self-contained HTML page with SVG
//!    charts ([`charts`]) and a per-task browser ([`browser`], [`html`]),
//!    and the inputs' manifests. The same inputs give byte-identical files.

pub mod browser;
pub mod charts;
pub mod conversations;
pub mod frames;
pub mod html;
pub mod inputs;
pub mod judged;
pub mod latex;
pub mod markdown;
pub mod official;
pub mod paired;
pub mod sets;
pub mod settings;
pub mod sources;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;

use crate::score::aggregate::{AggregateOptions, ModelReport, aggregate_with};
use crate::score::bootstrap::Bootstrap;
use crate::score::report::{error_table, main_table};
use crate::score::stream::{Evaluation, ModelRun, Outcomes, TaskOutcome};
use crate::spec::records::{Extraction, Task};
use crate::util::atomic;
use crate::util::lock::{FolderLock, create_fresh_dir};
use crate::util::table::{Table, num};
use inputs::{Input, TaskChoice, check_task_sets, unique_names};
use paired::{Comparison, Metric, PairedScores, Ranked, family, pairs, rank};

/// What `itc report` combines and where it writes.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    /// Run directories and score folders.
    pub inputs: Vec<PathBuf>,
    /// Output folder; `None`: a new folder `reports/report-<UTC time>`
    /// ([`DEFAULT_PARENT`]), `-2`, `-3`, … when that name is taken.
    pub out: Option<PathBuf>,
    /// Write into an `out` that holds an earlier report (else refused).
    pub force: bool,
    /// The title of `report.html` and `report.md` ([`DEFAULT_TITLE`] when
    /// `None`).
    pub title: Option<String>,
    /// Compare every model with this one only (default: every pair); over
    /// several task sets, in each set that has it.
    pub baseline: Option<String>,
    /// Within a task set ([`sets`]), compare inputs that scored different
    /// tasks on the tasks they share (else refused). Inputs of different
    /// task sets get a section each whatever this says.
    pub allow_different_tasks: bool,
    /// The metric of the ranking.
    pub rank_by: Metric,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// Rows of the HTML page's per-task browser at most ([`browser`]).
    pub browser_rows: usize,
    /// Tables as wide as their columns need.
    pub wide: bool,
}

impl Default for ReportOptions {
    fn default() -> Self {
        let aggregate = AggregateOptions::default();
        ReportOptions {
            inputs: Vec::new(),
            out: None,
            force: false,
            title: None,
            baseline: None,
            allow_different_tasks: false,
            rank_by: Metric::InvocationF1,
            resamples: aggregate.resamples,
            seed: aggregate.seed,
            browser_rows: 20_000,
            wide: false,
        }
    }
}

/// The folder in which a report without `--out` gets a new folder.
pub const DEFAULT_PARENT: &str = "reports";

/// The title of a report without `--title`.
pub const DEFAULT_TITLE: &str = "Tool-calling report";

/// Everything a report says, as written to `report.json`.
#[derive(Debug, Serialize)]
pub struct Report {
    /// Its title (`--title`).
    pub title: String,
    /// The inputs: folder, task-set hash, models (as named in the report).
    pub inputs: Vec<InputSummary>,
    /// Tasks compared.
    pub tasks: usize,
    /// Set when the inputs' task sets differ: the shared tasks only.
    pub shared_tasks_only: bool,
    /// Bootstrap resamples and seed of every interval and p-value.
    pub resamples: usize,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// Per model: headline numbers, intervals, breakdowns.
    pub models: Vec<ModelReport>,
    /// Per model (as `models`): its settings, as its input records them.
    pub settings: Vec<settings::ModelSettings>,
    /// Paired comparisons, per pair and metric.
    pub comparisons: Vec<Comparison>,
    /// The metric of the ranking.
    pub rank_by: Metric,
    /// The ranking.
    pub ranking: Vec<Ranked>,
    /// Judged task success (SPEC §8) from the inputs' `judged/` folders,
    /// beside the scores above and never mixed into them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub judged: Vec<judged::JudgedFigure>,
    /// Other benchmarks' official figures (BFCL) from the inputs'
    /// `official.json`, beside the scores above and never mixed into them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub official: Vec<official::OfficialFigure>,
    /// Each τ³-bench trial's conversation and verdict, for the page only.
    #[serde(skip)]
    pub conversations: conversations::Conversations,
}

/// One input of a report.
#[derive(Debug, Serialize)]
pub struct InputSummary {
    /// The folder as given.
    pub dir: String,
    /// Its task-set hash, when known.
    pub task_set_sha256: Option<String>,
    /// Its models, as named in the report.
    pub models: Vec<String>,
    /// The manifest copied into the report, if it had one.
    pub manifest: Option<String>,
    /// The files its manifest names that the report did not use (gone, not
    /// regular files, or not the files scored): the task browser shows "not
    /// available" for what they hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files_not_used: Vec<sources::NotUsed>,
}

/// Makes the report: files in `options.out`, tables on `out`, notes on `err`.
/// Inputs of different task sets ([`sets`]) get a section each.
pub fn report(
    options: &ReportOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    if options.inputs.is_empty() {
        bail!("give at least one itc eval run directory or itc score --out folder");
    }
    let inputs: Vec<Input> = options
        .inputs
        .iter()
        .map(|dir| Input::read(dir))
        .collect::<anyhow::Result<_>>()?;
    let sets = sets::group(inputs)?;
    let several = sets.len() > 1;
    let mut combined = Vec::with_capacity(sets.len());
    for set in sets {
        combined.push(Combined::of(set, several, options, err)?);
    }
    let baselines = baselines(options, &combined)?;
    let mut sections = Vec::with_capacity(combined.len());
    let mut first_input = 0;
    for (set, baseline) in combined.into_iter().zip(baselines) {
        let section = set.section(options, baseline, first_input, err)?;
        first_input += section.inputs.len();
        sections.push(section);
    }
    let dir = output_dir(options)?;
    let _lock = FolderLock::acquire(&dir, err)?;
    if !options.force && holds_report(&dir) {
        bail!(
            "{} holds an earlier report; pass --force to overwrite it, or name another --out",
            dir.display()
        );
    }
    let files = match sections.as_slice() {
        [one] => {
            let files = write_files(
                &dir,
                &one.inputs,
                &one.report,
                &one.evaluation,
                &one.browser,
            )?;
            print(out, &one.report, options.wide)?;
            files
        }
        _ => {
            let files = write_sets(&dir, &sections)?;
            for s in &sections {
                writeln!(out, "== {} ==\n", s.heading(str::to_string))?;
                print(out, &s.report, options.wide)?;
            }
            files
        }
    };
    writeln!(err, "wrote {} in {}", files.join(", "), dir.display())?;
    Ok(())
}

/// One task set's inputs, checked and combined, before its report is made.
struct Combined {
    set: sets::TaskSet,
    choice: TaskChoice,
    evaluation: Evaluation,
    input_models: Vec<Vec<String>>,
}

impl Combined {
    /// Checks the set's inputs (today's rules: [`check_task_sets`]) and
    /// combines them; with `several` sets, messages name the set.
    fn of(
        set: sets::TaskSet,
        several: bool,
        options: &ReportOptions,
        err: &mut dyn Write,
    ) -> anyhow::Result<Combined> {
        let which = if several {
            format!("task set {}: ", set.name)
        } else {
            String::new()
        };
        let choice = check_task_sets(&set.inputs, options.allow_different_tasks);
        let choice = match several {
            true => choice.with_context(|| format!("task set {}", set.name))?,
            false => choice?,
        };
        if let TaskChoice::Shared { shared, largest } = choice {
            writeln!(
                err,
                "note: {which}the inputs were scored on different task sets; comparing the {shared} task(s) they share (of up to {largest})"
            )?;
        }
        let (evaluation, input_models) = combine(&set.inputs);
        Ok(Combined {
            set,
            choice,
            evaluation,
            input_models,
        })
    }

    /// The set's section of the report: its scores, comparisons, judged and
    /// official figures and task browser; its inputs' manifests numbered
    /// from `first_input`.
    fn section(
        self,
        options: &ReportOptions,
        baseline: Option<usize>,
        first_input: usize,
        err: &mut dyn Write,
    ) -> anyhow::Result<Section> {
        let Combined {
            set,
            choice,
            evaluation,
            input_models,
        } = self;
        let inputs = set.inputs;
        let mut report = build(
            options,
            &inputs,
            &input_models,
            &evaluation,
            baseline,
            &choice,
            first_input,
        );
        let names: Vec<Vec<(String, String)>> = inputs
            .iter()
            .zip(&input_models)
            .map(|(input, named)| {
                input
                    .models
                    .iter()
                    .cloned()
                    .zip(named.iter().cloned())
                    .collect()
            })
            .collect();
        let dirs: Vec<&Path> = inputs.iter().map(|i| i.dir.as_path()).collect();
        let renames: Vec<HashMap<String, String>> =
            names.iter().map(|n| n.iter().cloned().collect()).collect();
        let mut notes = Vec::new();
        report.judged = judged::figures(&dirs, &renames, &mut notes);
        report.official = official::figures(&dirs, &renames, &mut notes);
        report.conversations =
            conversations::read(&dirs, &renames, options.browser_rows, &mut notes);
        for note in notes {
            writeln!(err, "{note}")?;
        }
        let task_ids: Vec<String> = evaluation.tasks.iter().map(|t| t.id.clone()).collect();
        let browser = browser::rows(&inputs, &names, &task_ids, options.browser_rows)?;
        for ((input, summary), not_used) in
            inputs.iter().zip(&mut report.inputs).zip(&browser.not_used)
        {
            for n in not_used {
                writeln!(err, "{}", n.warning(&input.dir))?;
            }
            summary.files_not_used = not_used.clone();
        }
        Ok(Section {
            name: set.name,
            inputs,
            report,
            evaluation,
            browser,
        })
    }
}

/// `--baseline` as each set's model index: every set holding the model
/// compares its models with it, the others every pair. A baseline no set
/// holds is refused, naming the models.
fn baselines(options: &ReportOptions, sets: &[Combined]) -> anyhow::Result<Vec<Option<usize>>> {
    let Some(name) = &options.baseline else {
        return Ok(vec![None; sets.len()]);
    };
    let found: Vec<Option<usize>> = sets
        .iter()
        .map(|s| s.evaluation.models.iter().position(|m| &m.model == name))
        .collect();
    if found.iter().all(Option::is_none) {
        let models: Vec<&str> = sets
            .iter()
            .flat_map(|s| names(&s.evaluation.models))
            .collect();
        bail!(
            "--baseline {name}: no such model (models: {})",
            models.join(", ")
        );
    }
    Ok(found)
}

/// The part of a report about one task set: all of it when the inputs
/// scored one task set, else one section of it.
pub struct Section {
    /// The task set's name ([`sets::TaskSet::name`]).
    pub name: String,
    /// Its inputs.
    pub inputs: Vec<Input>,
    /// What the report says of it.
    pub report: Report,
    /// Its models' outcomes on its tasks.
    pub evaluation: Evaluation,
    /// Its rows of the HTML page's task browser.
    pub browser: browser::Browser,
}

impl Section {
    /// `Task set: NAME (N task(s))`, the name written by `escape`.
    pub fn heading(&self, escape: impl Fn(&str) -> String) -> String {
        format!(
            "Task set: {} ({} task(s))",
            escape(&self.name),
            self.report.tasks
        )
    }
}

/// The folder to write: `--out` as given, else a new folder under
/// [`DEFAULT_PARENT`], claimed by creating it.
fn output_dir(options: &ReportOptions) -> anyhow::Result<PathBuf> {
    match &options.out {
        Some(dir) => Ok(dir.clone()),
        None => {
            let stamp = crate::util::time::timestamp(std::time::SystemTime::now());
            create_fresh_dir(&Path::new(DEFAULT_PARENT).join(format!("report-{stamp}")))
        }
    }
}

/// Whether `dir` holds a report written earlier: any of the files only a
/// report writes.
pub fn holds_report(dir: &Path) -> bool {
    REPORT_FILES
        .iter()
        .any(|name| dir.join(name).symlink_metadata().is_ok())
}

/// The files that mark a folder as holding a report.
const REPORT_FILES: [&str; 4] = ["report.json", "report.md", "report.html", "report.tex"];

fn names(runs: &[ModelRun]) -> Vec<&str> {
    runs.iter().map(|r| r.model.as_str()).collect()
}

/// The tasks every input scored (in the first input's order) and every
/// model's outcomes on them, under names unique across inputs; also each
/// input's model names.
pub fn combine(inputs: &[Input]) -> (Evaluation, Vec<Vec<String>>) {
    let counts: HashMap<&str, usize> = inputs
        .iter()
        .flat_map(|i| i.tasks.iter().map(|t| t.id.as_str()))
        .fold(HashMap::new(), |mut m, id| {
            *m.entry(id).or_default() += 1;
            m
        });
    let tasks: Vec<Task> = inputs[0]
        .tasks
        .iter()
        .filter(|t| counts.get(t.id.as_str()) == Some(&inputs.len()))
        .cloned()
        .collect();
    let names = unique_names(inputs);
    let mut models = Vec::new();
    let mut input_models = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let places: HashMap<&str, usize> = input
            .tasks
            .iter()
            .enumerate()
            .map(|(place, t)| (t.id.as_str(), place))
            .collect();
        let mut these = Vec::new();
        for (model, rows) in input.models.iter().zip(&input.outcomes) {
            let outcomes: Outcomes = tasks
                .iter()
                .map(|t| match places.get(t.id.as_str()) {
                    Some(&place) if rows.is_set(place) => rows.get(place),
                    _ => TaskOutcome::unanswered(t, Extraction::Missing),
                })
                .collect();
            rows.release();
            let count = |e: Extraction| outcomes.iter().filter(|o| o.extraction == e).count();
            let name = names[&(i, model.clone())].clone();
            these.push(name.clone());
            models.push(ModelRun {
                model: name,
                errors: count(Extraction::Error),
                missing: count(Extraction::Missing),
                outcomes,
                duplicates: 0,
            });
        }
        input_models.push(these);
    }
    let evaluation = Evaluation::of(tasks, models);
    (evaluation, input_models)
}

fn build(
    options: &ReportOptions,
    inputs: &[Input],
    input_models: &[Vec<String>],
    evaluation: &Evaluation,
    baseline: Option<usize>,
    choice: &TaskChoice,
    first_input: usize,
) -> Report {
    // One set of weights for the intervals and the comparisons.
    let bootstrap = Bootstrap::new(
        evaluation.tasks.len(),
        options.resamples.max(1),
        options.seed,
    );
    let models = aggregate_with(evaluation, true, Some(&bootstrap));
    let runs = &evaluation.models;
    let paired = PairedScores::new(runs, &bootstrap);
    // One family per metric, each Holm-adjusted; listed pair by pair.
    let compared = pairs(runs.len(), baseline);
    let mut families = Metric::ALL.map(|m| family(&paired, &compared, m).into_iter());
    let mut comparisons = Vec::with_capacity(compared.len() * Metric::ALL.len());
    for _ in &compared {
        comparisons.extend(families.iter_mut().map(|f| f.next().expect("one a pair")));
    }
    // The ranking compares every pair on its metric: the report's own
    // family when it compared every pair, else a family of its own.
    let ranking = if baseline.is_none() {
        let own: Vec<Comparison> = comparisons
            .iter()
            .filter(|c| c.metric == options.rank_by)
            .cloned()
            .collect();
        rank(&paired, options.rank_by, &own)
    } else {
        let every = family(&paired, &pairs(runs.len(), None), options.rank_by);
        rank(&paired, options.rank_by, &every)
    };
    Report {
        title: options
            .title
            .clone()
            .unwrap_or_else(|| DEFAULT_TITLE.to_string()),
        inputs: inputs
            .iter()
            .zip(input_models)
            .enumerate()
            .map(|(i, (input, models))| InputSummary {
                dir: input.dir.display().to_string(),
                task_set_sha256: input.task_set.clone(),
                models: models.clone(),
                manifest: input
                    .manifest
                    .as_ref()
                    .map(|_| manifest_name(first_input + i, input)),
                files_not_used: Vec::new(),
            })
            .collect(),
        tasks: evaluation.tasks.len(),
        shared_tasks_only: matches!(choice, TaskChoice::Shared { .. }),
        resamples: bootstrap.resamples(),
        seed: options.seed,
        models,
        settings: inputs
            .iter()
            .zip(input_models)
            .flat_map(|(input, named)| {
                let names: Vec<(String, String)> = input
                    .models
                    .iter()
                    .cloned()
                    .zip(named.iter().cloned())
                    .collect();
                settings::of_input(input, &names)
            })
            .collect(),
        comparisons,
        rank_by: options.rank_by,
        ranking,
        judged: Vec::new(),
        official: Vec::new(),
        conversations: Default::default(),
    }
}

/// `manifests/<n>-<folder>.json`: the copy of an input's manifest.
fn manifest_name(index: usize, input: &Input) -> String {
    let folder = input
        .dir
        .file_name()
        .map_or_else(|| "input".to_string(), |n| n.to_string_lossy().into_owned());
    let folder = crate::util::slug::slug(&folder, crate::util::slug::SlugStyle::FileName);
    format!("manifests/{}-{folder}.json", index + 1)
}

/// Writes every file of the report into `dir`; returns their names.
fn write_files(
    dir: &Path,
    inputs: &[Input],
    report: &Report,
    evaluation: &Evaluation,
    browser: &browser::Browser,
) -> anyhow::Result<Vec<String>> {
    let mut written = write_manifests(dir, inputs, &report.inputs)?;
    let json = serde_json::to_string_pretty(report)? + "\n";
    atomic::write(&dir.join("report.json"), json.as_bytes())?;
    written.push("report.json".into());
    atomic::write(&dir.join("report.md"), markdown::render(report).as_bytes())?;
    written.push("report.md".into());
    for (name, text) in latex::files(report) {
        atomic::write(&dir.join(&name), text.as_bytes())?;
        written.push(name);
    }
    atomic::write(
        &dir.join("report.html"),
        html::render(report, browser)?.as_bytes(),
    )?;
    written.push("report.html".into());
    written.extend(frames::write(dir, report, evaluation)?);
    Ok(written)
}

/// Copies the inputs' manifests into `dir`'s `manifests/` under the names
/// their summaries give; returns those names.
fn write_manifests(
    dir: &Path,
    inputs: &[Input],
    summaries: &[InputSummary],
) -> anyhow::Result<Vec<String>> {
    std::fs::create_dir_all(dir.join("manifests"))
        .with_context(|| format!("creating {}", dir.display()))?;
    let mut written = Vec::new();
    for (input, summary) in inputs.iter().zip(summaries) {
        if let (Some(m), Some(name)) = (&input.manifest, &summary.manifest) {
            atomic::write(
                &dir.join(name),
                (serde_json::to_string_pretty(m)? + "\n").as_bytes(),
            )?;
            written.push(name.clone());
        }
    }
    Ok(written)
}

/// `report.json` of a report over several task sets: the title, and each
/// set's report as a report of one set writes it, named.
#[derive(Serialize)]
struct SetsJson<'a> {
    title: &'a str,
    task_sets: Vec<SetJson<'a>>,
}

/// One task set's part of [`SetsJson`].
#[derive(Serialize)]
struct SetJson<'a> {
    task_set: &'a str,
    #[serde(flatten)]
    report: &'a Report,
}

/// Writes every file of a report over several task sets into `dir`: the
/// files of a report of one set, each with a part per set; returns their
/// names.
fn write_sets(dir: &Path, sections: &[Section]) -> anyhow::Result<Vec<String>> {
    let mut written = Vec::new();
    for s in sections {
        written.extend(write_manifests(dir, &s.inputs, &s.report.inputs)?);
    }
    let title = sections
        .first()
        .map_or(DEFAULT_TITLE, |s| s.report.title.as_str());
    let json = SetsJson {
        title,
        task_sets: sections
            .iter()
            .map(|s| SetJson {
                task_set: &s.name,
                report: &s.report,
            })
            .collect(),
    };
    let json = serde_json::to_string_pretty(&json)? + "\n";
    atomic::write(&dir.join("report.json"), json.as_bytes())?;
    written.push("report.json".into());
    let md = markdown::render_sets(title, sections);
    atomic::write(&dir.join("report.md"), md.as_bytes())?;
    written.push("report.md".into());
    for (name, text) in latex::files_sets(title, sections) {
        atomic::write(&dir.join(&name), text.as_bytes())?;
        written.push(name);
    }
    let page = html::render_sets(title, sections)?;
    atomic::write(&dir.join("report.html"), page.as_bytes())?;
    written.push("report.html".into());
    written.extend(frames::write_sets(dir, sections)?);
    Ok(written)
}

/// The terminal tables: Table 2 and 3, the ranking, the comparisons.
fn print(out: &mut dyn Write, report: &Report, wide: bool) -> anyhow::Result<()> {
    writeln!(
        out,
        "Report on {} task(s), {} model(s) from {} input(s); rates in %, 95% paired-bootstrap intervals ({} resamples)\n",
        report.tasks,
        report.models.len(),
        report.inputs.len(),
        report.resamples
    )?;
    writeln!(out, "{}", main_table(&report.models, wide))?;
    writeln!(out, "Error analysis (shares of each group's errors, %)\n")?;
    writeln!(out, "{}", error_table(&report.models, wide))?;
    writeln!(
        out,
        "Ranking by {} (models whose difference is not significant at Holm-adjusted p < 0.05 share a rank)\n",
        report.rank_by.label()
    )?;
    let mut t = Table::new(["Rank", "Model", report.rank_by.label()]);
    for r in &report.ranking {
        t.push([r.rank.to_string(), r.model.clone(), num(r.score)]);
    }
    writeln!(out, "{}", t.render(wide))?;
    if !report.judged.is_empty() {
        writeln!(
            out,
            "Judged task success (SPEC §8: judges' figures, beside the scores above, never mixed in)\n"
        )?;
        writeln!(out, "{}", judged::table(&report.judged, wide))?;
    }
    if !report.official.is_empty() {
        writeln!(
            out,
            "Official scores (each benchmark's own scorer, beside the scores above, never mixed in)\n"
        )?;
        writeln!(out, "{}", official::table(&report.official, wide))?;
    }
    if !report.comparisons.is_empty() {
        writeln!(out, "Paired differences A − B (percentage points)\n")?;
        writeln!(
            out,
            "{}",
            comparison_table(&report.comparisons, report.resamples, wide)
        )?;
    }
    Ok(())
}

fn comparison_table(comparisons: &[Comparison], resamples: usize, wide: bool) -> String {
    let mut t = Table::new([
        "A", "B", "Metric", "A − B", "95% CI", "p", "p (Holm)", "Sig.",
    ]);
    for c in comparisons {
        t.push([
            c.a.clone(),
            c.b.clone(),
            c.metric.label().to_string(),
            num(c.diff),
            format!("{} to {}", num(c.ci.lo), num(c.ci.hi)),
            markdown::p_text(c.p_value, resamples),
            markdown::p_text(c.p_holm, resamples),
            if c.significant() { "yes" } else { "no" }.to_string(),
        ]);
    }
    t.render(wide)
}

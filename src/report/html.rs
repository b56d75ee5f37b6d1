//! `report.html`: the report as one self-contained page (no network access;
//! it opens from `file://`). Charts are inline SVG ([`super::charts`]) and
//! need no script; the per-task browser filters its rows with a little
//! plain JavaScript. Queries keep their own direction (`dir="auto"`), so
//! Arabic reads right to left.
//!
//! The filters can be set from the address: `report.html#model=M&outcome=O`
//! (also `kind` and `language`), which is how a link points at one model's
//! failures, and how the browser test drives it.

use std::fmt::Write as _;

use super::Report;
use super::browser::{Browser, Outcome, RAW_CHARS};
use super::charts;
use super::conversations::{Check, Conversations, Turn, Verdict, call_text, reward};
use super::markdown::p_text;
use super::settings;
use crate::score::aggregate::Dimension;
use crate::score::bootstrap::Interval;
use crate::score::report::{fm_cell, fm_note};
use crate::util::bounded::clip;

/// Text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body { font-family: 'Noto Sans', 'Noto Sans CJK SC', 'DejaVu Sans', sans-serif; margin: 24px; color: #222; }
h1 { font-size: 24px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 13px; } td, th { border: 1px solid #ddd; padding: 3px 6px; }
th { background: #f3f3f3; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
figure { display: inline-table; margin: 8px 16px 8px 0; vertical-align: top; }
figcaption { display: table-caption; caption-side: bottom; font-size: 13px; color: #555; }
#browser td { vertical-align: top; max-width: 420px; } code { font-size: 12px; white-space: pre-wrap; word-break: break-word; }
.tag { display: inline-block; font-size: 11px; padding: 0 4px; margin: 1px; border-radius: 3px; background: #eee; }
.tag.correct { background: #c8e6c9; } .filters label { margin-right: 12px; font-size: 13px; }
details.trial { margin: 4px 0; font-size: 13px; } details.trial summary { cursor: pointer; }
.turn { margin: 2px 0; padding: 3px 6px; border-left: 4px solid #bbb; } .turn .said { white-space: pre-wrap; overflow-wrap: anywhere; }
.turn.user { background: #e3f2fd; border-color: #1e88e5; } .turn.agent { background: #f1f8e9; border-color: #7cb342; margin-left: 32px; }
.turn.tool { background: #fafafa; margin-left: 64px; } .turn.error { border-color: #e53935; } .who { font-weight: bold; margin-right: 6px; }
";

const SCRIPT: &str = r#"
(function () {
  var names = ['model', 'kind', 'language', 'outcome'];
  function apply() {
    var want = {};
    names.forEach(function (n) { want[n] = document.getElementById('filter-' + n).value; });
    var rows = document.querySelectorAll('#browser tbody tr');
    var shown = 0;
    rows.forEach(function (row) {
      var ok = (!want.model || row.dataset.model === want.model) &&
        (!want.kind || row.dataset.kind === want.kind) &&
        (!want.language || row.dataset.language === want.language) &&
        (!want.outcome || row.dataset.outcomes.split(' ').indexOf(want.outcome) >= 0);
      row.hidden = !ok;
      if (ok) { shown += 1; }
    });
    document.getElementById('browser-count').textContent = shown + ' of ' + rows.length + ' rows';
  }
  function fromAddress() {
    var params = new URLSearchParams(window.location.hash.slice(1));
    names.forEach(function (n) {
      var select = document.getElementById('filter-' + n);
      if (params.has(n)) { select.value = params.get(n); }
    });
    apply();
  }
  names.forEach(function (n) {
    document.getElementById('filter-' + n).addEventListener('change', apply);
  });
  window.addEventListener('hashchange', fromAddress);
  fromAddress();
})();
"#;

fn ci_text(value: f64, ci: Option<Interval>) -> String {
    match ci {
        Some(i) => format!("{value:.2} <small>[{:.2}, {:.2}]</small>", i.lo, i.hi),
        None => format!("{value:.2}"),
    }
}

/// The whole page.
pub fn render(report: &Report, browser: &Browser) -> anyhow::Result<String> {
    let mut page =
        String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let title = escape(&report.title);
    let _ = write!(
        page,
        "<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n"
    );
    let _ = writeln!(
        page,
        "<p id=\"about\">{} task(s){}, {} model(s) from {} input(s). Rates in %; 95% intervals from a seeded paired bootstrap ({} resamples, seed {}).</p>",
        report.tasks,
        if report.shared_tasks_only {
            " shared by every input"
        } else {
            ""
        },
        report.models.len(),
        report.inputs.len(),
        report.resamples,
        report.seed
    );
    summary(&mut page, report);
    conversations_section(&mut page, &report.conversations);
    settings_section(&mut page, report);
    steps_section(&mut page, report);
    errors_section(&mut page, report);
    charts_section(&mut page, report)?;
    ranking(&mut page, report);
    breakdowns_section(&mut page, report);
    browser_section(&mut page, report, browser);
    page.push_str("<script>");
    page.push_str(SCRIPT);
    page.push_str("</script>\n</body>\n</html>\n");
    Ok(page)
}

/// A report over several task sets as one page: the title, links to the
/// sets, then a section per set headed by its name and size, holding what
/// [`render`] writes of it, its ids prefixed `setN-` (so that each set's
/// task browser filters its own rows) and its headings a level down.
pub fn render_sets(title: &str, sections: &[super::Section]) -> anyhow::Result<String> {
    let mut page =
        String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let title = escape(title);
    let _ = write!(
        page,
        "<title>{title}</title>\n<style>{STYLE}{SETS_STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n"
    );
    let links: Vec<String> = sections
        .iter()
        .enumerate()
        .map(|(i, s)| format!("<a href=\"#set{}\">{}</a>", i + 1, s.heading(escape)))
        .collect();
    let _ = writeln!(
        page,
        "<p id=\"task-sets\">{} task sets, a section each; models are compared within a task set only: {}.</p>",
        sections.len(),
        links.join(", ")
    );
    for (i, s) in sections.iter().enumerate() {
        let prefix = format!("set{}-", i + 1);
        let whole = render(&s.report, &s.browser)?;
        let start = whole.find("</h1>\n").map_or(0, |at| at + "</h1>\n".len());
        let end = whole.rfind("<script>").unwrap_or(whole.len());
        let body = whole[start..end]
            .replace(" id=\"", &format!(" id=\"{prefix}"))
            .replace("<h3>", "<h4>")
            .replace("</h3>", "</h4>")
            .replace("<h2>", "<h3>")
            .replace("</h2>", "</h3>");
        let _ = write!(
            page,
            "<section id=\"set{}\" class=\"task-set\">\n<h2 class=\"task-set\">{}</h2>\n{body}<script>{}</script>\n</section>\n",
            i + 1,
            s.heading(escape),
            prefixed_script(&prefix)
        );
    }
    page.push_str("</body>\n</html>\n");
    Ok(page)
}

/// The style of a task set's prefixed browser ([`render_sets`]).
const SETS_STYLE: &str = "[id$=\"-browser\"] td { vertical-align: top; max-width: 420px; }\n";

/// [`SCRIPT`] for the task browser whose ids start with `prefix`.
fn prefixed_script(prefix: &str) -> String {
    SCRIPT
        .replace("'filter-'", &format!("'{prefix}filter-'"))
        .replace("'#browser ", &format!("'#{prefix}browser "))
        .replace("'browser-count'", &format!("'{prefix}browser-count'"))
}

/// A page of its own for a catalog's long tail (`itc catalog stats
/// --html`): a title, a line of figures, the chart and a table of
/// (country, name, APIs, share, sampled APIs, sampled share).
pub fn catalog_page(title: &str, line: &str, svg: &str, rows: &[[String; 6]]) -> String {
    let mut page =
        String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = write!(
        page,
        "<title>{t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n<p>{}</p>\n",
        escape(line),
        t = escape(title)
    );
    figure(
        &mut page,
        "chart-long-tail",
        "Share of APIs per country, most first",
        svg,
    );
    page.push_str("<table id=\"countries\"><thead><tr><th>Country</th><th>Name</th><th>APIs</th><th>Share %</th><th>Sampled</th><th>Sampled %</th></tr></thead><tbody>\n");
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let class = if i >= 2 { " class=\"n\"" } else { "" };
                format!("<td{class}>{}</td>", escape(c))
            })
            .collect();
        let _ = writeln!(page, "<tr>{}</tr>", cells.concat());
    }
    page.push_str("</tbody></table>\n</body>\n</html>\n");
    page
}

fn summary(page: &mut String, report: &Report) {
    let judged = !report.judged.is_empty();
    page.push_str("<h2>Summary</h2>\n<table id=\"summary\"><thead><tr><th>Model</th><th>Tasks</th><th>Sel. F1</th><th>Inv. F1</th><th>LM</th><th>FM</th>");
    if judged {
        page.push_str("<th>Judged (SPEC §8)</th>");
    }
    page.push_str("</tr></thead><tbody>\n");
    for m in &report.models {
        let s = &m.summary;
        let ci = s.ci;
        let _ = write!(
            page,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>",
            escape(&m.model),
            s.n,
            ci_text(s.selection.f1, ci.map(|c| c.selection_f1)),
            ci_text(s.invocation.f1, ci.map(|c| c.invocation_f1)),
            ci_text(s.lm, ci.map(|c| c.lm)),
            fm_cell(s, |fm| ci_text(fm, ci.map(|c| c.fm))),
        );
        if judged {
            let figures: Vec<String> = report
                .judged
                .iter()
                .filter(|f| f.model == m.model)
                .map(|f| format!("{} ({})", f.text(), f.judge))
                .collect();
            let _ = write!(page, "<td>{}</td>", escape(&figures.join("; ")));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</tbody></table>\n");
    if let Some(note) = fm_note(report.models.iter().map(|m| &m.summary)) {
        let _ = writeln!(page, "<p class=\"note\">{}</p>", escape(note));
    }
    judged_section(page, report);
    official_section(page, report);
}

/// Other benchmarks' official figures (BFCL), apart from §3's.
fn official_section(page: &mut String, report: &Report) {
    if report.official.is_empty() {
        return;
    }
    let _ = writeln!(
        page,
        "<h2>Official scores</h2>\n<p>{}</p>",
        escape(&super::official::intro(&report.official))
    );
    let rows = super::official::rows(&report.official);
    table(page, "official", &super::official::HEADER, 3, &rows);
    page.push_str("<ul id=\"official-complete\">\n");
    for line in super::official::completeness(&report.official) {
        let _ = writeln!(page, "<li>{}</li>", escape(&line));
    }
    page.push_str("</ul>\n");
}

/// Each τ³-bench trial's conversation and reward breakdown, a `<details>`
/// each (no script: the browser opens and closes them).
fn conversations_section(page: &mut String, c: &Conversations) {
    if c.total == 0 && c.notes.is_empty() {
        return;
    }
    let _ = writeln!(
        page,
        "<h2>τ³-bench conversations</h2>\n<p>Each trial as the run recorded it: the user's and the agent's turns, the agent's tool calls and the tools' outputs, then how the official evaluator rewarded it. Every message, call and output is cut at {RAW_CHARS} characters (…).</p>"
    );
    if c.trials.len() < c.total {
        let _ = writeln!(
            page,
            "<p id=\"tau-limit\">The first {} of {} trials, each model's first ones (at most {} trials, <code>itc report --browser-rows</code>); every verdict is in the runs' <code>official/*.per_item.jsonl</code>.</p>",
            c.trials.len(),
            c.total,
            c.max_rows
        );
    }
    if !c.notes.is_empty() {
        page.push_str("<ul id=\"tau-notes\">");
        for n in &c.notes {
            let _ = write!(page, "<li>{}</li>", escape(n));
        }
        page.push_str("</ul>\n");
    }
    for (i, t) in c.trials.iter().enumerate() {
        let v = &t.verdict;
        let _ = writeln!(
            page,
            "<details class=\"trial\" id=\"tau-trial-{}\"><summary>{} · task {} · trial {} · {} · {}</summary>",
            i + 1,
            escape(&t.model),
            escape(&v.task_id),
            v.trial,
            t.outcome(),
            escape(&v.termination_reason)
        );
        if let Some(error) = &t.error {
            let _ = writeln!(
                page,
                "<p class=\"error\">The trial failed: {}</p>",
                escape(error)
            );
        }
        match &t.turns {
            Some(turns) => turns.iter().for_each(|turn| turn_html(page, turn)),
            None => page.push_str("<p><em>conversation not available</em></p>\n"),
        }
        breakdown_html(page, v);
        page.push_str("</details>\n");
    }
}

/// One turn: who speaks, what it said, the calls it made.
fn turn_html(page: &mut String, turn: &Turn) {
    let error = if turn.error { " error" } else { "" };
    let who = if turn.error {
        "tool · error"
    } else {
        turn.role.label()
    };
    let _ = write!(
        page,
        "<div class=\"turn {}{error}\"><span class=\"who\">{who}</span>",
        turn.role.label()
    );
    if let Some(text) = &turn.text {
        let _ = write!(
            page,
            "<span class=\"said\" dir=\"auto\">{}</span>",
            escape(text)
        );
    }
    for call in &turn.calls {
        let _ = write!(page, " <code class=\"call\">{}</code>", escape(call));
    }
    page.push_str("</div>\n");
}

/// ✓ or ✗.
fn mark(met: bool) -> &'static str {
    if met { "✓" } else { "✗" }
}

/// The reward breakdown of a verdict: DB check, basis components, action,
/// communicate and NL checks, note.
fn breakdown_html(page: &mut String, v: &Verdict) {
    page.push_str("<ul class=\"breakdown\">");
    let _ = write!(
        page,
        "<li>Reward {} (without NL assertions {}): {}</li>",
        reward(v.reward),
        reward(v.reward_without_nl),
        v.status.label()
    );
    if let Some(db) = &v.db_check {
        let _ = write!(
            page,
            "<li>DB match: {} (reward {})</li>",
            mark(db.db_match),
            reward(Some(db.db_reward))
        );
    }
    if let Some(basis) = &v.reward_breakdown {
        let parts: Vec<String> = basis
            .iter()
            .map(|(name, r)| format!("{} {}", escape(name), reward(Some(*r))))
            .collect();
        let _ = write!(page, "<li>Basis: {}</li>", parts.join(" · "));
    }
    if let Some(actions) = &v.action_checks {
        let met = actions.iter().filter(|a| a.action_match).count();
        let _ = write!(
            page,
            "<li>Actions: {met} of {} gold actions matched<ul>",
            actions.len()
        );
        for a in actions {
            let call = call_text(&a.action.name, &a.action.arguments);
            let _ = write!(
                page,
                "<li>{} <code>{}</code></li>",
                mark(a.action_match),
                escape(&call)
            );
        }
        page.push_str("</ul></li>");
    }
    checks_html(page, "Communicate", v.communicate_checks.as_deref());
    let nl = match &v.nl_judge {
        Some(judge) => format!("NL assertions (judge {})", escape(judge)),
        None => "NL assertions".to_string(),
    };
    checks_html(page, &nl, v.nl_assertions.as_deref());
    if let Some(note) = &v.note {
        let _ = write!(page, "<li>Note: {}</li>", escape(&clip(note, RAW_CHARS)));
    }
    page.push_str("</ul>\n");
}

/// A list of checks headed `title` (HTML), each ✓/✗ with its text and
/// justification.
fn checks_html(page: &mut String, title: &str, checks: Option<&[Check]>) {
    let Some(checks) = checks else {
        return;
    };
    let met = checks.iter().filter(|c| c.met).count();
    let _ = write!(page, "<li>{title}: {met} of {} met<ul>", checks.len());
    for c in checks {
        let _ = write!(
            page,
            "<li>{} {} — {}</li>",
            mark(c.met),
            escape(&clip(&c.text, RAW_CHARS)),
            escape(&clip(&c.justification, RAW_CHARS))
        );
    }
    page.push_str("</ul></li>");
}

/// The judged figures (SPEC §8), apart from §3's: judge, spread, samples.
fn judged_section(page: &mut String, report: &Report) {
    if report.judged.is_empty() {
        return;
    }
    page.push_str("<h2>Judged task success</h2>\n<p>Figures of judge models (<code>itc judge</code>, SPEC §8), beside the scores above and never mixed into them.</p>\n");
    let rows = super::judged::rows(&report.judged);
    table(page, "judged", &super::judged::HEADER, 4, &rows);
}

/// A table of text cells: `id`, the header, rows whose first `text` cells
/// are text (escaped here) and the rest numbers (right-aligned, as given).
fn table(page: &mut String, id: &str, header: &[&str], text: usize, rows: &[Vec<String>]) {
    let _ = write!(page, "<table id=\"{id}\"><thead><tr>");
    for h in header {
        let _ = write!(page, "<th>{}</th>", escape(h));
    }
    page.push_str("</tr></thead><tbody>\n");
    for row in rows {
        page.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            if i < text {
                let _ = write!(page, "<td>{}</td>", escape(cell));
            } else {
                let _ = write!(page, "<td class=\"n\">{cell}</td>");
            }
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</tbody></table>\n");
}

/// Each model's settings as its input records them ("—": not recorded).
fn settings_section(page: &mut String, report: &Report) {
    page.push_str("<h2>Models</h2>\n<p>Each model's settings as its input records them (an <code>itc eval</code> run's manifest or <code>models.json</code>; an <code>itc score</code> folder records only when it was scored); — where unknown. Times in UTC.</p>\n");
    let mut header = vec!["Model"];
    header.extend(settings::HEADER);
    header.push("Input");
    let rows: Vec<Vec<String>> = report
        .settings
        .iter()
        .map(|s| {
            let mut row = vec![s.model.clone()];
            row.extend(settings::cells(s));
            row.push(s.input.clone());
            row
        })
        .collect();
    table(page, "settings", &header, header.len(), &rows);
}

/// Step-by-step figures, when some model answered step by step.
fn steps_section(page: &mut String, report: &Report) {
    if !report.models.iter().any(|m| m.summary.step_tasks > 0) {
        return;
    }
    page.push_str(
        "<h2>Step by step</h2>\n<p>Each step's calls against the same gold step (SPEC §6).</p>\n",
    );
    let executed = report.models.iter().any(|m| m.summary.execution.is_some());
    let mut header = vec!["Model", "Tasks in steps", "Step F1"];
    if executed {
        header.extend(["Calls executed", "Tasks executed"]);
    }
    let rows: Vec<Vec<String>> = report
        .models
        .iter()
        .map(|m| {
            let s = &m.summary;
            let mut row = vec![
                m.model.clone(),
                s.step_tasks.to_string(),
                s.step_f1.map_or_else(|| "—".into(), |f| format!("{f:.2}")),
            ];
            if executed {
                row.extend(crate::score::report::execution_cells(s).map(|c| escape(&c)));
            }
            row
        })
        .collect();
    table(page, "steps", &header, 1, &rows);
}

/// ITC Table 3: the error types' shares of each group's errors.
fn errors_section(page: &mut String, report: &Report) {
    page.push_str("<h2>Error analysis (ITC Table 3)</h2>\n<p>Shares of each group's errors, %: the three selection error types sum to 100, and so do the three invocation error types (0 when a model made none).</p>\n");
    let rows: Vec<Vec<String>> = report
        .models
        .iter()
        .map(|m| {
            let (s, i) = (&m.summary.selection_errors, &m.summary.invocation_errors);
            let mut row = vec![m.model.clone()];
            row.extend([s.hall, s.mis, s.ex, i.incor, i.miss, i.ext].map(|x| format!("{x:.2}")));
            row
        })
        .collect();
    let mut header = vec!["Model"];
    header.extend(charts::ERROR_TYPES);
    table(page, "errors", &header, 1, &rows);
}

/// Every breakdown (kind, language, country, category) as a table.
fn breakdowns_section(page: &mut String, report: &Report) {
    let Some(first) = report.models.first() else {
        return;
    };
    for (d, b) in first.breakdowns.iter().enumerate() {
        let name = b.dimension.as_str();
        let _ = writeln!(page, "<h2>By {name}</h2>");
        let rows: Vec<Vec<String>> = report
            .models
            .iter()
            .flat_map(|m| {
                m.breakdowns[d].groups.iter().map(|(group, s)| {
                    let ci = s.ci;
                    vec![
                        m.model.clone(),
                        group.clone(),
                        s.n.to_string(),
                        ci_text(s.selection.f1, ci.map(|c| c.selection_f1)),
                        ci_text(s.invocation.f1, ci.map(|c| c.invocation_f1)),
                        ci_text(s.lm, ci.map(|c| c.lm)),
                        fm_cell(&m.summary, |_| ci_text(s.fm, ci.map(|c| c.fm))),
                    ]
                })
            })
            .collect();
        let header = ["Model", name, "Tasks", "Sel. F1", "Inv. F1", "LM", "FM"];
        table(page, &format!("by-{name}"), &header, 2, &rows);
    }
}

fn figure(page: &mut String, id: &str, caption: &str, svg: &str) {
    let _ = writeln!(
        page,
        "<figure id=\"{id}\" class=\"chart\">{svg}<figcaption>{}</figcaption></figure>",
        escape(caption)
    );
}

fn charts_section(page: &mut String, report: &Report) -> anyhow::Result<()> {
    page.push_str("<h2>Charts</h2>\n");
    let models = &report.models;
    figure(
        page,
        "chart-f1",
        "Selection and invocation F1 per model, 95% intervals",
        &charts::f1_bars(models)?,
    );
    figure(
        page,
        "chart-errors",
        "Error types per model; bars in % of the model's errors: the lower half the selection errors (hallucinated, missed, extra tool) by their shares of them, the upper half the invocation errors (incorrect, missing, extra value) by theirs",
        &charts::error_bars(models)?,
    );
    figure(
        page,
        "chart-language",
        "Invocation F1 per model and language",
        &charts::breakdown_heatmap(models, Dimension::Language)?,
    );
    figure(
        page,
        "chart-kind",
        "Invocation F1 per model and task kind",
        &charts::breakdown_heatmap(models, Dimension::Kind)?,
    );
    figure(
        page,
        "chart-significance",
        "Selection F1, row − column (percentage points); * Holm-adjusted p < 0.05",
        &charts::significance_matrix(report)?,
    );
    Ok(())
}

fn ranking(page: &mut String, report: &Report) {
    let _ = writeln!(
        page,
        "<h2>Ranking by {}</h2>\n<p>Models whose difference from the first model of their group is not significant (Holm-adjusted p ≥ 0.05 over every pair on this metric) share its rank.</p>\n<table id=\"ranking\"><thead><tr><th>Rank</th><th>Model</th><th>{}</th></tr></thead><tbody>",
        report.rank_by.label(),
        report.rank_by.label()
    );
    for r in &report.ranking {
        let _ = writeln!(
            page,
            "<tr><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{:.2}</td></tr>",
            r.rank,
            escape(&r.model),
            r.score
        );
    }
    page.push_str("</tbody></table>\n");
    if report.comparisons.is_empty() {
        return;
    }
    page.push_str("<h2>Paired comparisons</h2>\n<table id=\"comparisons\"><thead><tr><th>A</th><th>B</th><th>Metric</th><th>A − B</th><th>95% CI</th><th>p</th><th>p (Holm)</th></tr></thead><tbody>\n");
    for c in &report.comparisons {
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{:+.2}</td><td class=\"n\">[{:.2}, {:.2}]</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&c.a),
            escape(&c.b),
            c.metric.label(),
            c.diff,
            c.ci.lo,
            c.ci.hi,
            escape(&p_text(c.p_value, report.resamples)),
            escape(&p_text(c.p_holm, report.resamples))
        );
    }
    page.push_str("</tbody></table>\n");
}

/// A `<select>` of the browser's filters: "all" and each value.
fn select(page: &mut String, name: &str, values: &[String]) {
    let _ = write!(
        page,
        "<label>{name} <select id=\"filter-{name}\"><option value=\"\">all</option>"
    );
    for v in values {
        let v = escape(v);
        let _ = write!(page, "<option value=\"{v}\">{v}</option>");
    }
    page.push_str("</select></label>");
}

fn distinct(values: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    values.filter(|v| seen.insert(v.clone())).collect()
}

/// Says which files named by the inputs' manifests were not used, if any.
fn not_used(page: &mut String, report: &Report) {
    let items: Vec<String> = report
        .inputs
        .iter()
        .flat_map(|i| {
            i.files_not_used.iter().map(|n| {
                format!(
                    "<li>{}: <code>{}</code> names <code>{}</code>: {}</li>",
                    escape(&i.dir),
                    escape(&n.field),
                    escape(&n.path),
                    escape(&n.reason)
                )
            })
        })
        .collect();
    if items.is_empty() {
        return;
    }
    let _ = writeln!(
        page,
        "<div id=\"not-used\"><p>Not available below: these files named by the inputs' manifests are gone or are not the files that were scored, so their queries, gold calls or model calls are not shown (the scores are unaffected).</p><ul>{}</ul></div>",
        items.concat()
    );
}

/// A Thought (plain text) or what stands in for it: "none" when the
/// answer is there without one, "not available" when the predictions are
/// gone.
fn answer_text(text: &Option<String>, answered: bool) -> String {
    match (text, answered) {
        (Some(t), _) => escape(t),
        (None, true) => "<em>none</em>".to_string(),
        (None, false) => "<em>not available</em>".to_string(),
    }
}

fn browser_section(page: &mut String, report: &Report, browser: &Browser) {
    let rows = &browser.rows;
    page.push_str("<h2>Tasks</h2>\n");
    if browser.tasks_shown < browser.tasks {
        let _ = writeln!(
            page,
            "<p id=\"browser-limit\">The first {} of {} tasks, with every model's answer to each (at most {} rows, <code>itc report --browser-rows</code>, so that the page stays usable); every task's scores are in <code>task_scores.csv</code> and <code>task_scores.parquet</code>.</p>",
            browser.tasks_shown, browser.tasks, browser.max_rows
        );
    }
    not_used(page, report);
    page.push_str("<div class=\"filters\">");
    let models: Vec<String> = report.models.iter().map(|m| m.model.clone()).collect();
    select(page, "model", &models);
    select(
        page,
        "kind",
        &distinct(rows.iter().map(|r| r.kind.to_string())),
    );
    let mut languages = distinct(rows.iter().map(|r| r.language.clone()));
    languages.sort();
    select(page, "language", &languages);
    let outcomes: Vec<String> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
    select(page, "outcome", &outcomes);
    page.push_str(" <span id=\"browser-count\"></span></div>\n");
    let judged = rows.iter().any(|r| r.judged.is_some());
    page.push_str("<table id=\"browser\"><thead><tr><th>Task</th><th>Model</th><th>Kind</th><th>Language</th><th>Query</th><th>Gold calls</th><th>Model's calls</th><th>Thought</th><th>Raw answer</th><th>Sel. F1</th><th>Inv. F1</th><th>Outcome</th>");
    if judged {
        page.push_str("<th>Judges</th>");
    }
    page.push_str("</tr></thead><tbody>\n");
    let missing = "<em>not available</em>".to_string();
    for r in rows {
        let outcomes: Vec<String> = r.outcomes.iter().map(|o| o.as_str()).collect();
        let tags: String = r
            .outcomes
            .iter()
            .map(|o| format!("<span class=\"tag {}\">{}</span>", o.as_str(), o.label()))
            .collect();
        let code = |s: &Option<String>| {
            s.as_deref()
                .map_or(missing.clone(), |s| format!("<code>{}</code>", escape(s)))
        };
        let _ = writeln!(
            page,
            "<tr data-model=\"{m}\" data-kind=\"{k}\" data-language=\"{l}\" data-outcomes=\"{o}\"><td>{t}</td><td>{m}</td><td>{k}</td><td>{l}</td><td dir=\"auto\" lang=\"{l}\">{q}</td><td>{g}</td><td>{c}</td><td dir=\"auto\">{th}</td><td>{raw}</td><td class=\"n\">{s:.0}</td><td class=\"n\">{i:.0}</td><td>{tags}</td>{judges}</tr>",
            m = escape(&r.model),
            k = r.kind,
            l = escape(&r.language),
            o = outcomes.join(" "),
            t = escape(&r.task_id),
            q = r.query.as_deref().map_or(missing.clone(), escape),
            g = code(&r.gold),
            c = code(&r.calls),
            th = answer_text(&r.thought, r.calls.is_some()),
            raw = match &r.raw {
                Some(raw) => format!("<code>{}</code>", escape(raw)),
                None => answer_text(&None, r.calls.is_some()),
            },
            s = r.selection_f1,
            i = r.invocation_f1,
            judges = match (judged, &r.judged) {
                (false, _) => String::new(),
                (true, Some(lines)) => format!("<td><code>{}</code></td>", escape(lines)),
                (true, None) => "<td></td>".to_string(),
            },
        );
    }
    page.push_str("</tbody></table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefixed_script_finds_only_its_own_browser() {
        let script = prefixed_script("set2-");
        for id in ["'filter-'", "'#browser ", "'browser-count'"] {
            assert!(SCRIPT.contains(id), "{id}");
            assert!(!script.contains(id), "{id} left unprefixed");
        }
        assert_eq!(
            script.matches("set2-").count(),
            SCRIPT.matches("'filter-'").count() + 2
        );
    }
}

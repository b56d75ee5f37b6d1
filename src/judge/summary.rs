//! The figures of a judged folder (`judged.json` and the terminal table):
//! per judge and candidate model, the metric's figure (SPEC §8), the
//! unreadable labels, the judge's tokens and cost, and, with two judges,
//! Cohen's κ over the labels both gave to the same requests.

use std::collections::HashMap;

use serde::Serialize;

use super::labels::Label;
use super::ledger::{Judgment, Settings};
use super::{Metric, TaskOutcome};
use crate::benchmarks::stabletoolbench::{
    self,
    results::{Outcome, QueryRuns},
};
use crate::benchmarks::toolalpaca::eval::Statistics;
use crate::build::filter::agreement::cohen_kappa;
use crate::run::progress::human;
use crate::util::table::{ABSENT, Table, num_or_absent};

/// Pass rate (ToolEval).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassRateFigures {
    /// Tasks that passed.
    pub passed: usize,
    /// Tasks (a task without a prediction counts as failed).
    pub tasks: usize,
    /// 100 × passed / tasks.
    pub pass_rate: f64,
    /// Tasks without a prediction (counted failed above).
    pub without_prediction: usize,
    /// 100 × passed / (tasks − without_prediction): the official ToolEval's
    /// figure, which leaves those tasks out (`itc judge --compat official`).
    pub official_pass_rate: f64,
}

/// ToolAlpaca's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolalpacaFigures {
    /// 100 × tasks with process Yes / tasks.
    pub procedure: f64,
    /// 100 × tasks with response Yes / tasks.
    pub response: f64,
    /// 100 × tasks with both Yes / tasks.
    pub overall: f64,
    /// The statistics (ToolAlpaca's counts).
    pub statistics: Statistics,
    /// Judged tasks whose process or response label was unreadable.
    pub unreadable: usize,
}

/// One judge's figures for one candidate model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelFigures {
    /// The judge's name.
    pub judge: String,
    /// The judge's model id.
    pub judge_model: String,
    /// The candidate model.
    pub model: String,
    /// Tasks.
    pub tasks: usize,
    /// Pass rate, for `--metric pass-rate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<PassRateFigures>,
    /// SoPR ± std, for `--metric sopr`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sopr: Option<stabletoolbench::results::PassRate>,
    /// Win rate, for `--metric win-rate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub win_rate: Option<stabletoolbench::results::WinRate>,
    /// ToolAlpaca, for `--metric toolalpaca`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toolalpaca: Option<ToolalpacaFigures>,
    /// Labels that stayed unreadable after the re-asks.
    pub unreadable: u32,
    /// Judge requests recorded (re-asks included).
    pub requests: usize,
    /// Prompt tokens of those requests.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Cost at the judge's prices (USD; cache hits cost nothing).
    pub cost_usd: f64,
    /// Whether the judge has a price configured; without one `cost_usd`
    /// is 0 and the table shows `—`, as `itc eval`'s does.
    pub priced: bool,
}

/// `judged.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judged {
    /// The run directory judged.
    pub run_dir: String,
    /// The settings (metric, judges, samples, runs, rounds, seed, reference, prompt hashes).
    pub settings: Settings,
    /// Per judge and model.
    pub models: Vec<ModelFigures>,
    /// Cohen's κ (unweighted) between the two judges, when two were given.
    pub kappa: Option<f64>,
    /// The label pairs κ was computed over.
    pub kappa_pairs: usize,
}

/// The figures of one model's task outcomes under `metric`.
pub fn figures(
    metric: Metric,
    model: &str,
    outcomes: &[TaskOutcome],
    unreadable: u32,
) -> ModelFigures {
    let tasks = outcomes.len();
    let mut f = ModelFigures {
        judge: String::new(),
        judge_model: String::new(),
        model: model.to_string(),
        tasks,
        pass_rate: None,
        sopr: None,
        win_rate: None,
        toolalpaca: None,
        unreadable,
        requests: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        cost_usd: 0.0,
        priced: false,
    };
    match metric {
        Metric::PassRate => {
            let passed = outcomes
                .iter()
                .filter(|o| matches!(o, TaskOutcome::Pass { passes, fails, .. } if passes >= fails))
                .count();
            let without_prediction = outcomes
                .iter()
                .filter(|o| {
                    matches!(
                        o,
                        TaskOutcome::Pass {
                            predicted: false,
                            ..
                        }
                    )
                })
                .count();
            let percent = |part: usize, whole: usize| match whole {
                0 => 0.0,
                _ => 100.0 * part as f64 / whole as f64,
            };
            f.pass_rate = Some(PassRateFigures {
                passed,
                tasks,
                pass_rate: percent(passed, tasks),
                without_prediction,
                official_pass_rate: percent(passed, tasks - without_prediction),
            });
        }
        Metric::Sopr => {
            // Each outcome holds one status per run asked; an unreadable one
            // (`None`) scores 0 in its run, and no run is dropped.
            let mut runs = 0;
            let queries: Vec<QueryRuns> = outcomes
                .iter()
                .map(|o| match o {
                    TaskOutcome::Sopr(statuses) => {
                        runs = runs.max(statuses.len());
                        (0u64..)
                            .zip(statuses)
                            .filter_map(|(r, s)| s.map(|s| (r, s)))
                            .collect()
                    }
                    _ => QueryRuns::new(),
                })
                .collect();
            f.sopr = Some(stabletoolbench::results::pass_rate(model, &queries, runs));
        }
        Metric::WinRate => {
            let votes: Vec<Outcome> = outcomes
                .iter()
                .map(|o| match o {
                    TaskOutcome::Win {
                        candidate,
                        reference,
                    } => Outcome::from_votes(u64::from(*candidate), u64::from(*reference)),
                    _ => Outcome::Loss,
                })
                .collect();
            f.win_rate = Some(stabletoolbench::results::win_rate(model, &votes));
        }
        Metric::Toolalpaca => {
            let mut statistics = Statistics::default();
            for o in outcomes {
                if let TaskOutcome::Toolalpaca(verdict) = o {
                    statistics.add(*verdict);
                }
            }
            let share = |n: usize| {
                if tasks == 0 {
                    0.0
                } else {
                    100.0 * n as f64 / tasks as f64
                }
            };
            f.toolalpaca = Some(ToolalpacaFigures {
                procedure: share(statistics.process.yes),
                response: share(statistics.response.yes),
                overall: share(statistics.both),
                unreadable: statistics
                    .process_unreadable
                    .max(statistics.response_unreadable),
                statistics,
            });
        }
    }
    f
}

/// Adds the recorded requests' tokens and cost of `judge` for the model.
pub fn add_costs(f: &mut ModelFigures, judgments: &[Judgment]) {
    for j in judgments
        .iter()
        .filter(|j| j.judge == f.judge && j.model == f.model)
    {
        f.requests += 1;
        f.prompt_tokens = f.prompt_tokens.saturating_add(j.prompt_tokens);
        f.completion_tokens = f.completion_tokens.saturating_add(j.completion_tokens);
        f.cost_usd += j.cost_usd;
    }
}

/// Cohen's κ between judges `a` and `b` over the labels both gave to the
/// same request (same stage, task, model, side, sample and prompt); for
/// ToolAlpaca the process and the response labels each count. With the
/// number of pairs.
pub fn kappa(judgments: &[Judgment], a: &str, b: &str) -> (Option<f64>, usize) {
    let key = |j: &Judgment| {
        format!(
            "{}\u{1f}{}\u{1f}{}\u{1f}{:?}\u{1f}{}\u{1f}{}",
            j.stage.as_str(),
            j.task_id,
            j.model,
            j.side,
            j.sample,
            j.prompt_sha256
        )
    };
    let labels_of = |name: &str| -> HashMap<String, (Option<Label>, Option<Label>)> {
        judgments
            .iter()
            .filter(|j| j.judge == name)
            .map(|j| (key(j), (j.label, j.response_label)))
            .collect()
    };
    let (first, second) = (labels_of(a), labels_of(b));
    let mut pairs: Vec<(Label, Label)> = Vec::new();
    for (k, (x1, x2)) in &first {
        if let Some((y1, y2)) = second.get(k) {
            for (x, y) in [(x1, y1), (x2, y2)] {
                if let (Some(x), Some(y)) = (x, y) {
                    pairs.push((*x, *y));
                }
            }
        }
    }
    (cohen_kappa(&pairs), pairs.len())
}

/// A percentage as the judge table prints it: one decimal, as the docs
/// give the figures (SoPR 33.3 ± 47.1).
fn pct(x: f64) -> String {
    format!("{x:.1}")
}

/// The metric's cells of one row of [`table`] (after its task count).
fn figure_cells(metric: Metric, f: &ModelFigures, official_pass_rate: bool) -> Vec<String> {
    let absent = |n: usize| vec![ABSENT.to_string(); n];
    match metric {
        Metric::PassRate => f.pass_rate.as_ref().map_or_else(
            || absent(2),
            |p| match official_pass_rate {
                true => vec![
                    format!("{}/{}", p.passed, p.tasks - p.without_prediction),
                    pct(p.official_pass_rate),
                ],
                false => vec![format!("{}/{}", p.passed, p.tasks), pct(p.pass_rate)],
            },
        ),
        Metric::Sopr => f.sopr.as_ref().map_or_else(
            || absent(3),
            |s| vec![pct(s.sopr), pct(s.sopr_std), s.runs.to_string()],
        ),
        Metric::WinRate => f.win_rate.as_ref().map_or_else(
            || absent(3),
            |w| vec![pct(w.sowr), w.wins.to_string(), w.ties.to_string()],
        ),
        Metric::Toolalpaca => f.toolalpaca.as_ref().map_or_else(
            || absent(4),
            |a| {
                vec![
                    pct(a.procedure),
                    pct(a.response),
                    pct(a.overall),
                    a.statistics.error_num.to_string(),
                ]
            },
        ),
    }
}

/// The table of a judged folder, in `itc eval`'s style: per judge and
/// model the metric's figures (percentages to one decimal), the unreadable
/// labels, the judge requests recorded, their tokens and cost (`—` without
/// prices); then the settings, κ and the pass rate's notes.
pub fn table(metric: Metric, judged: &Judged, official_pass_rate: bool) -> String {
    let (title, figure_header): (&str, &[&str]) = match metric {
        Metric::PassRate => ("Pass rate", &["Tasks", "Passed", "%"]),
        Metric::Sopr => ("SoPR", &["Tasks", "%", "± std", "Runs"]),
        Metric::WinRate => ("Win rate", &["Tasks", "%", "Wins", "Ties"]),
        Metric::Toolalpaca => (
            "ToolAlpaca",
            &["Tasks", "Procedure %", "Response %", "Overall %", "Errors"],
        ),
    };
    let mut header = vec!["Model", "Judge"];
    header.extend_from_slice(figure_header);
    header.extend_from_slice(&["Unreadable", "Recorded", "In", "Out", "Cost $"]);
    let mut t = Table::new(header).with_labels(2).with_groups([
        (title, figure_header.len()),
        ("Labels", 1),
        ("Requests", 1),
        ("Tokens", 3),
    ]);
    for f in &judged.models {
        let mut row = vec![f.model.clone(), f.judge.clone(), f.tasks.to_string()];
        row.extend(figure_cells(metric, f, official_pass_rate));
        row.extend([
            f.unreadable.to_string(),
            f.requests.to_string(),
            human(f.prompt_tokens),
            human(f.completion_tokens),
            match f.priced {
                true => format!("{:.4}", f.cost_usd),
                false => ABSENT.to_string(),
            },
        ]);
        t.push(row);
    }
    let mut text = t.render(false);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let judges: Vec<String> = judged
        .settings
        .judges
        .iter()
        .map(|j| format!("{} ({})", j.name, j.model_id))
        .collect();
    text.push_str(&format!(
        "judges: {}; samples {}, runs {}, rounds {}, seed {}\n",
        judges.join(", "),
        judged.settings.samples,
        judged.settings.runs,
        judged.settings.rounds,
        judged.settings.seed
    ));
    if judged.settings.judges.len() == 2 {
        text.push_str(&format!(
            "Cohen's kappa between the judges: {} over {} label pairs\n",
            num_or_absent(judged.kappa),
            judged.kappa_pairs
        ));
    }
    if metric == Metric::PassRate {
        for f in &judged.models {
            let Some(p) = &f.pass_rate else { continue };
            if p.without_prediction == 0 {
                continue;
            }
            text.push_str(&match official_pass_rate {
                true => format!(
                    "{}: {} task(s) without a prediction left out of the pass rate (--compat official, as ToolEval does)\n",
                    f.model, p.without_prediction
                ),
                false => format!(
                    "{}: {} task(s) without a prediction counted failed (--compat official leaves them out, as ToolEval does)\n",
                    f.model, p.without_prediction
                ),
            });
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::stabletoolbench::results::AnswerStatus::{self, Solved};

    fn sopr(runs: &[Option<AnswerStatus>]) -> stabletoolbench::results::PassRate {
        let outcomes = [TaskOutcome::Sopr(runs.to_vec())];
        figures(Metric::Sopr, "m", &outcomes, 0).sopr.unwrap()
    }

    #[test]
    fn an_unreadable_run_scores_zero_and_is_never_dropped() {
        // Docs: unreadable counts 0. Run scores 1, 0, 0 → 33.3 ± 47.1.
        let r = sopr(&[Some(Solved), None, None]);
        assert_eq!((r.sopr, r.sopr_std, r.runs), (33.3, 47.1, 3));
        // Only run 2 unreadable: 1, 0, 1 → 66.7 ± 47.1.
        let r = sopr(&[Some(Solved), None, Some(Solved)]);
        assert_eq!((r.sopr, r.sopr_std, r.runs), (66.7, 47.1, 3));
        // Every run unreadable: 0 over 3 runs.
        let r = sopr(&[None, None, None]);
        assert_eq!((r.sopr, r.runs), (0.0, 3));
    }
}

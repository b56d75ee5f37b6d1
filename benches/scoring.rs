//! Micro-benchmarks of the scoring pipeline's parts, on synthetic inputs
//! from `itc::perf::synth` (criterion; `cargo bench`, or `cargo bench -- <filter>`).
//!
//! - `parse_actions`: the action-string parser in strict and lenient mode (MB/s);
//! - `read_output`: format check and lenient extraction of whole responses,
//!   mixed and per answer style (MB/s);
//! - `prediction_json`: one prediction line into a `Prediction` (MB/s);
//! - `score_response`: one prediction scored against its task, and its parts
//!   (reading, language check split into prose extraction and whatlang,
//!   call scoring), per prediction;
//! - `check_language`: the language check per text, mixed and per language,
//!   among the task set's and the major languages (SPEC §3, as scoring does)
//!   and, for comparison, whatlang's guess over all its languages.
//!
//! Each benchmark iterates over a whole corpus, sampled flat and briefly, so
//! the full run stays around a minute and a half.

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
    measurement::WallTime,
};
use itc::perf::synth::{
    AnswerStyle, SynthSpec, Synthetic, action_corpus, lenient_action_corpus, synthesize,
};
use itc::score::stream::score_response_in;
use itc::score::task::{GoldSide, ScoreOptions, score_calls};
use itc::spec::action::{Mode, parse_actions};
use itc::spec::language::{LanguageDetector, strip_non_prose};
use itc::spec::records::{Prediction, Task};
use itc::spec::response::{read_output, read_prediction};

const SEED: u64 = 20250101;

fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500));
}

fn bytes(texts: &[String]) -> u64 {
    texts.iter().map(|t| t.len() as u64).sum()
}

fn corpus() -> Synthetic {
    // 300 tasks × 4 models: every kind, language and answer style, in the
    // proportions of `itc bench scoring`.
    synthesize(&SynthSpec {
        tasks: 300,
        models: 4,
        seed: SEED,
    })
}

/// The task of the i-th prediction (predictions are model by model, in task order).
fn task_of(s: &Synthetic, i: usize) -> &Task {
    &s.tasks[i % s.tasks.len()]
}

/// The corpus's language detector, built once as `evaluate` does.
fn detector(s: &Synthetic) -> LanguageDetector {
    LanguageDetector::for_languages(s.tasks.iter().map(|t| t.language.as_str()))
}

fn candidates(task: &Task) -> Vec<&str> {
    task.tools.iter().map(|t| t.name.as_str()).collect()
}

fn parser(c: &mut Criterion) {
    let strict = action_corpus(2000, SEED);
    let lenient = lenient_action_corpus(2000, SEED);
    let mut group = c.benchmark_group("parse_actions");
    configure(&mut group);
    group.throughput(Throughput::Bytes(bytes(&strict)));
    group.bench_function("strict", |b| {
        b.iter(|| {
            for s in &strict {
                black_box(parse_actions(black_box(s), Mode::Strict).ok());
            }
        })
    });
    group.bench_function("lenient_on_strict_syntax", |b| {
        b.iter(|| {
            for s in &strict {
                black_box(parse_actions(black_box(s), Mode::Lenient).ok());
            }
        })
    });
    group.throughput(Throughput::Bytes(bytes(&lenient)));
    group.bench_function("lenient_on_lenient_syntax", |b| {
        b.iter(|| {
            for s in &lenient {
                black_box(parse_actions(black_box(s), Mode::Lenient).ok());
            }
        })
    });
    group.finish();
}

fn responses(c: &mut Criterion) {
    let s = corpus();
    let texts: Vec<(usize, &str, AnswerStyle)> = s
        .predictions
        .iter()
        .enumerate()
        .filter(|(_, p)| p.calls.is_none())
        .filter_map(|(i, p)| p.output.as_deref().map(|o| (i, o, s.styles[i])))
        .collect();
    let names: Vec<Vec<&str>> = (0..s.predictions.len())
        .map(|i| candidates(task_of(&s, i)))
        .collect();

    let mut group = c.benchmark_group("read_output");
    configure(&mut group);
    let subsets: [(&str, &[AnswerStyle]); 7] = [
        ("mixed", &AnswerStyle::ALL),
        ("strict", &AnswerStyle::STRICT_FORMAT),
        (
            "fenced_or_json_prefix",
            &[AnswerStyle::Fenced, AnswerStyle::JsonPrefix],
        ),
        ("prose_wrapped", &[AnswerStyle::ProseWrapped]),
        ("python_dict", &[AnswerStyle::PythonDict]),
        ("bare_calls", &[AnswerStyle::BareCalls]),
        ("call_list", &[AnswerStyle::CallList]),
    ];
    for (name, styles) in subsets {
        let subset: Vec<&(usize, &str, AnswerStyle)> = texts
            .iter()
            .filter(|(_, _, st)| styles.contains(st))
            .collect();
        group.throughput(Throughput::Bytes(
            subset.iter().map(|(_, t, _)| t.len() as u64).sum(),
        ));
        group.bench_function(name, |b| {
            b.iter(|| {
                for (i, text, _) in &subset {
                    black_box(read_output(black_box(text), &names[*i]));
                }
            })
        });
    }
    group.finish();

    // One prediction line into the record type (the scorer reads a borrowed
    // view of the same fields, so this is an upper bound of its JSON cost).
    let lines: Vec<String> = s
        .predictions
        .iter()
        .map(|p| serde_json::to_string(p).expect("serializes"))
        .collect();
    let mut group = c.benchmark_group("prediction_json");
    configure(&mut group);
    group.throughput(Throughput::Bytes(bytes(&lines)));
    group.bench_function("from_str", |b| {
        b.iter(|| {
            for line in &lines {
                black_box(serde_json::from_str::<Prediction>(black_box(line)).ok());
            }
        })
    });
    group.finish();
}

fn scoring(c: &mut Criterion) {
    let s = corpus();
    let languages = detector(&s);
    let options = ScoreOptions::default();
    let answered: Vec<usize> = (0..s.predictions.len())
        .filter(|&i| s.predictions[i].error.is_none())
        .collect();
    let names: Vec<Vec<&str>> = (0..s.predictions.len())
        .map(|i| candidates(task_of(&s, i)))
        .collect();
    let read: Vec<_> = answered
        .iter()
        .map(|&i| {
            let p = &s.predictions[i];
            read_prediction(p.output.as_deref(), p.calls.as_deref(), &names[i])
        })
        .collect();

    let mut group = c.benchmark_group("score_response");
    configure(&mut group);
    group.throughput(Throughput::Elements(answered.len() as u64));
    group.bench_function("whole", |b| {
        b.iter(|| {
            for &i in &answered {
                let p = &s.predictions[i];
                black_box(score_response_in(
                    &languages,
                    task_of(&s, i),
                    p.output.as_deref(),
                    p.calls.as_deref(),
                    options,
                ));
            }
        })
    });
    group.bench_function("part_read_prediction", |b| {
        b.iter(|| {
            for &i in &answered {
                let p = &s.predictions[i];
                black_box(read_prediction(
                    p.output.as_deref(),
                    p.calls.as_deref(),
                    &names[i],
                ));
            }
        })
    });
    group.bench_function("part_check_language", |b| {
        b.iter(|| {
            for (k, &i) in answered.iter().enumerate() {
                black_box(languages.check(&read[k].language_text, &task_of(&s, i).language));
            }
        })
    });
    group.bench_function("part_check_language_strip_non_prose", |b| {
        b.iter(|| {
            for r in &read {
                black_box(strip_non_prose(&r.language_text));
            }
        })
    });
    let stripped: Vec<String> = read
        .iter()
        .map(|r| strip_non_prose(&r.language_text))
        .collect();
    group.bench_function("part_check_language_whatlang_detect", |b| {
        b.iter(|| {
            for text in &stripped {
                black_box(languages.detect(text));
            }
        })
    });
    group.bench_function("part_check_language_whatlang_detect_all_languages", |b| {
        b.iter(|| {
            for text in &stripped {
                black_box(whatlang::detect(text));
            }
        })
    });
    group.bench_function("part_score_calls", |b| {
        b.iter(|| {
            for (k, &i) in answered.iter().enumerate() {
                let task = task_of(&s, i);
                let gold = GoldSide {
                    calls: &task.gold.calls,
                    thought: &task.gold.thought,
                    tools: &task.tools,
                    shown: &[],
                };
                black_box(score_calls(&gold, &read[k].calls, options));
            }
        })
    });
    group.finish();

    // The language check by the language of the text (script decides the cost).
    let mut group = c.benchmark_group("check_language");
    configure(&mut group);
    let texts: Vec<(&str, &str)> = answered
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            (
                read[k].language_text.as_ref(),
                task_of(&s, i).language.as_str(),
            )
        })
        .filter(|(t, _)| !t.is_empty())
        .collect();
    group.throughput(Throughput::Elements(texts.len() as u64));
    group.bench_function("mixed", |b| {
        b.iter(|| {
            for (text, lang) in &texts {
                black_box(languages.check(black_box(text), lang));
            }
        })
    });
    // Before SPEC §3 named the languages: whatlang over all it knows.
    group.bench_function("mixed_all_languages", |b| {
        b.iter(|| {
            for (text, _) in &texts {
                black_box(whatlang::detect(&strip_non_prose(black_box(text))));
            }
        })
    });
    let thoughts: Vec<(&str, &str)> = s
        .tasks
        .iter()
        .map(|t| (t.gold.thought.as_str(), t.language.as_str()))
        .collect();
    for lang in ["en", "de", "fr", "es", "ru", "ar", "hi", "zh", "ja", "ko"] {
        let subset: Vec<&str> = thoughts
            .iter()
            .filter(|(_, l)| *l == lang)
            .map(|(t, _)| *t)
            .collect();
        group.throughput(Throughput::Elements(subset.len() as u64));
        group.bench_function(format!("gold_thought_{lang}"), |b| {
            b.iter(|| {
                for text in &subset {
                    black_box(languages.check(black_box(text), lang));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, parser, responses, scoring);
criterion_main!(benches);

//! The hostile answers of issue 12, timed (criterion; `cargo bench --bench
//! hostile`, or `cargo bench --bench hostile -- <filter>`). Each group runs
//! one input at growing sizes, so that the time per size shows the
//! complexity: with the limits of `itc::spec::limits` every line grows
//! linearly (or not at all, once a limit applies).
//!
//! - `read_output/call_openings`: `[f(` repeated, 75, 150 and 300 KB;
//! - `read_output/brackets`: bare `[` repeated, 25k to 100k;
//! - `read_output/deep`: `[f(a=` and then `[` repeated, 5,675 to 100k
//!   (refused at 64 levels);
//! - `score_calls/one_name`: 800, 1,600 and 3,200 predicted calls to a tool
//!   the gold calls three times (task itc-0090 of the sample set);
//! - `score_response/one_name`: the same, read from text and scored whole
//!   (reading, language check and call scoring).
//!
//! The language check is left out of the `read_output` groups: its prose
//! extraction (`spec::language`) is measured by the `scoring` bench.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
    measurement::WallTime,
};
use itc::score::stream::score_response;
use itc::score::task::{GoldSide, ScoreOptions, score_calls};
use itc::spec::records::{Call, Task, Value};
use itc::spec::response::read_output;

fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(1000));
}

/// Reads one text per size and reports bytes per second.
fn read_group(c: &mut Criterion, name: &str, texts: &[(String, String)]) {
    let mut group = c.benchmark_group(format!("read_output/{name}"));
    configure(&mut group);
    for (label, text) in texts {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(label.as_str(), |b| {
            b.iter(|| black_box(read_output(black_box(text), &["f"])))
        });
    }
    group.finish();
}

fn reading(c: &mut Criterion) {
    let openings: Vec<(String, String)> = [75, 150, 300]
        .iter()
        .map(|kb| (format!("{kb}KB"), "[f(".repeat(kb * 1000 / 3)))
        .collect();
    read_group(c, "call_openings", &openings);
    let brackets: Vec<(String, String)> = [25_000, 50_000, 100_000]
        .iter()
        .map(|n| (format!("{n}"), "[".repeat(*n)))
        .collect();
    read_group(c, "brackets", &brackets);
    let deep: Vec<(String, String)> = [5_675, 22_762, 100_000]
        .iter()
        .map(|n| (format!("{n}"), format!("[f(a={}", "[".repeat(*n))))
        .collect();
    read_group(c, "deep", &deep);
}

/// Task itc-0090 of the sample set: feiertage_api called for NW, BE and HH.
fn task_0090() -> Task {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sample/tasks.jsonl");
    let text = std::fs::read_to_string(path).expect("the sample set");
    text.lines()
        .map(|l| serde_json::from_str::<Task>(l).expect("a task"))
        .find(|t| t.id == "itc-0090")
        .expect("itc-0090")
}

/// `n` calls to feiertage_api cycling through four Länder.
fn one_name_calls(n: usize) -> Vec<Call> {
    let lands = ["NW", "BE", "HH", "BY"];
    (0..n)
        .map(|i| {
            Call::new(
                "feiertage_api",
                vec![
                    ("jahr".into(), Value::Int(2025)),
                    ("nur_land".into(), Value::Str(lands[i % 4].into())),
                ],
            )
        })
        .collect()
}

fn alignment(c: &mut Criterion) {
    let task = task_0090();
    let gold = GoldSide {
        calls: &task.gold.calls,
        thought: &task.gold.thought,
        tools: &task.tools,
        shown: &[],
    };
    let sizes = [800, 1_600, 3_200];
    let mut group = c.benchmark_group("score_calls/one_name");
    configure(&mut group);
    for n in sizes {
        let calls = one_name_calls(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(format!("{n}"), |b| {
            b.iter(|| {
                black_box(score_calls(
                    &gold,
                    black_box(&calls),
                    ScoreOptions::default(),
                ))
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("score_response/one_name");
    configure(&mut group);
    for n in sizes {
        let action = itc::spec::action::print_actions(&one_name_calls(n));
        let text =
            serde_json::json!({"Thought": "Feiertage abrufen.", "Action": action}).to_string();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(format!("{n}"), |b| {
            b.iter(|| {
                black_box(score_response(
                    &task,
                    Some(black_box(&text)),
                    None,
                    ScoreOptions::default(),
                ))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, reading, alignment);
criterion_main!(benches);

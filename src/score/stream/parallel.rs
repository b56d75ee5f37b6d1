//! Scoring one prediction file on several threads, with results identical
//! to scoring it line by line.
//!
//! A reader thread cuts the file into blocks of whole lines (about 1 MiB
//! each) and numbers them; worker threads parse and score every line of a
//! block ([`Scorer::read_line`] only reads the tasks); the calling thread
//! merges the blocks' results strictly in file order ([`Scorer::apply`]),
//! so the first prediction of a model for a task is the one kept, bad lines
//! are reported in order, and the first bad line stops the run (without
//! `--skip-invalid`) exactly as it does on one thread. Channels are bounded:
//! memory stays a few blocks per thread, whatever the file size.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

use super::{LineResult, Scorer};
use crate::spec::jsonl::RecordError;
use crate::util::bounded::FirstFew;
use crate::util::lines::{self, LineBlocks};

/// Whole lines of the file, numbered in file order.
struct Block {
    sequence: u64,
    lines: lines::Block,
}

/// What a worker made of a block: one result per non-blank line, or the
/// first line that is not UTF-8 (which ends the file's scoring, as on one thread).
struct Scored {
    sequence: u64,
    lines: Vec<LineResult>,
    fatal: Option<String>,
}

/// Scores every line of `path` into `scorer` on `threads` worker threads;
/// returns the SHA-256 and length of the bytes read.
pub(super) fn score_file(
    path: &Path,
    scorer: &mut Scorer<'_>,
    skipped: &mut FirstFew<RecordError>,
    threads: usize,
) -> anyhow::Result<(String, u64)> {
    let blocks = LineBlocks::open(path, true)?;
    let stop = AtomicBool::new(false);
    let (block_tx, block_rx) = mpsc::sync_channel::<Block>(threads * 2);
    let block_rx = Mutex::new(block_rx);
    let (scored_tx, scored_rx) = mpsc::sync_channel::<Scored>(threads * 2);
    // The workers read the tasks while the merge below changes the scorer:
    // they get a scorer of their own over the same tasks.
    let view = Scorer::new(
        scorer.tasks,
        scorer.views,
        scorer.index,
        scorer.languages,
        scorer.options,
    );
    std::thread::scope(|scope| -> anyhow::Result<(String, u64)> {
        let reader = scope.spawn(|| read_blocks(blocks, block_tx, &stop));
        for _ in 0..threads {
            let scored_tx = scored_tx.clone();
            let (block_rx, view) = (&block_rx, &view);
            scope.spawn(move || {
                loop {
                    // The lock is held only while taking a block.
                    let Ok(block) = block_rx.lock().map(|rx| rx.recv()) else {
                        return;
                    };
                    let Ok(block) = block else { return };
                    if scored_tx.send(score_block(path, view, block)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(scored_tx);

        let mut pending: BTreeMap<u64, Scored> = BTreeMap::new();
        let mut next = 0;
        let mut failure: Option<anyhow::Error> = None;
        for scored in scored_rx {
            if failure.is_some() {
                continue; // draining, so that the reader and workers can finish
            }
            pending.insert(scored.sequence, scored);
            while let Some(block) = pending.remove(&next) {
                next += 1;
                if let Err(e) = merge(scorer, block, skipped) {
                    stop.store(true, Ordering::Relaxed);
                    failure = Some(e);
                    break;
                }
            }
        }
        let read = reader.join().expect("the reader thread does not panic");
        match failure {
            Some(e) => Err(e),
            None => read,
        }
    })
}

/// Merges a block's results in order; an error ends the file.
fn merge(
    scorer: &mut Scorer<'_>,
    block: Scored,
    skipped: &mut FirstFew<RecordError>,
) -> anyhow::Result<()> {
    for line in block.lines {
        scorer.apply(line, skipped)?;
    }
    match block.fatal {
        Some(message) => Err(anyhow::anyhow!(message)),
        None => Ok(()),
    }
}

/// Sends the file's blocks of whole lines, numbered; returns the SHA-256
/// and length of the bytes read.
fn read_blocks(
    mut lines: LineBlocks,
    blocks: mpsc::SyncSender<Block>,
    stop: &AtomicBool,
) -> anyhow::Result<(String, u64)> {
    for sequence in 0.. {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Some(block) = lines.next_block()? else {
            break;
        };
        if blocks
            .send(Block {
                sequence,
                lines: block,
            })
            .is_err()
        {
            break;
        }
    }
    Ok(lines.digest().expect("opened to hash"))
}

/// Parses and scores the lines of a block.
fn score_block(path: &Path, scorer: &Scorer<'_>, block: Block) -> Scored {
    let mut lines = Vec::new();
    let fatal = block
        .lines
        .for_each_line(path, |number, line| {
            lines.push(scorer.read_line(path, number, line));
            Ok(())
        })
        .err()
        .map(|e| e.to_string());
    Scored {
        sequence: block.sequence,
        lines,
        fatal,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::perf::synth::{SynthSpec, write_synthetic};
    use crate::score::stream::{EvalOptions, Evaluation, evaluate};

    /// Everything an evaluation found, in a comparable form.
    fn summary(e: &Evaluation) -> String {
        let mut text = String::new();
        for run in &e.models {
            text += &format!(
                "{} errors={} missing={} duplicates={}\n{:?}\n",
                run.model,
                run.errors,
                run.missing,
                run.duplicates,
                run.outcomes.iter().collect::<Vec<_>>()
            );
        }
        text += &format!("{:?}\n{:?}\n", e.unknown, e.skipped);
        text
    }

    fn run(
        tasks: &std::path::Path,
        predictions: &[PathBuf],
        threads: usize,
        skip: bool,
    ) -> anyhow::Result<Evaluation> {
        let options = EvalOptions {
            skip_invalid: skip,
            threads,
            ..EvalOptions::default()
        };
        evaluate(tasks, predictions, &options)
    }

    /// A prediction file of several blocks with every kind of line the merge
    /// must keep in order: duplicates, unknown ids, bad lines, blank lines,
    /// CRLF endings and no final newline.
    fn messy_file(dir: &std::path::Path) -> (PathBuf, PathBuf) {
        let files = write_synthetic(
            dir,
            &SynthSpec {
                tasks: 300,
                models: 12,
                seed: 3,
            },
        )
        .unwrap();
        let text = std::fs::read_to_string(&files.predictions_path).unwrap();
        assert!(
            text.len() > 8 * crate::util::lines::BLOCK_BYTES,
            "{} bytes",
            text.len()
        );
        let lines: Vec<&str> = text.lines().collect();
        let mut messy = String::new();
        for (i, line) in lines.iter().enumerate() {
            messy += line;
            messy += if i % 7 == 0 { "\r\n" } else { "\n" };
            if i % 501 == 0 {
                messy += "{\"task_id\": 5}\n"; // invalid: task_id is not a string
            }
            if i % 333 == 0 {
                messy += "\n   \n";
            }
            if i % 97 == 0 {
                // A later, different answer to the same task: a duplicate, ignored.
                messy += &line.replace("\"output\":", "\"ignored\":");
                messy += "\n";
                messy += &line.replace("\"task_id\":\"", "\"task_id\":\"nope-");
                messy += "\n";
            }
        }
        messy.pop(); // no final newline
        std::fs::write(&files.predictions_path, messy).unwrap();
        (files.tasks_path, files.predictions_path)
    }

    #[test]
    fn threads_give_the_same_evaluation_as_one() {
        let dir = tempfile::tempdir().unwrap();
        let (tasks, predictions) = messy_file(dir.path());
        let files = [predictions.clone(), predictions];
        let one = run(&tasks, &files, 1, true).unwrap();
        assert!(one.models.iter().all(|m| m.duplicates > 0));
        assert!(!one.unknown.is_empty() && !one.skipped.is_empty());
        for threads in [2, 3, 8] {
            let many = run(&tasks, &files, threads, true).unwrap();
            assert_eq!(summary(&many), summary(&one), "{threads} threads");
        }
    }

    #[test]
    fn the_first_bad_line_stops_every_thread_count_alike() {
        let dir = tempfile::tempdir().unwrap();
        let (tasks, predictions) = messy_file(dir.path());
        let files = [predictions];
        let one = run(&tasks, &files, 1, false).unwrap_err().to_string();
        assert!(one.contains(":2: "), "{one}"); // line 1 is fine, line 2 is the first bad one
        for threads in [2, 4] {
            assert_eq!(
                run(&tasks, &files, threads, false).unwrap_err().to_string(),
                one
            );
        }
        // Bytes that are not UTF-8 stop the file with their line number.
        let path = dir.path().join("binary.jsonl");
        let mut bytes = std::fs::read(&files[0]).unwrap();
        let second_newline = bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(1)
            .unwrap()
            .0;
        bytes.insert(second_newline + 1, 0xff);
        std::fs::write(&path, bytes).unwrap();
        let one = run(&tasks, std::slice::from_ref(&path), 1, true)
            .unwrap_err()
            .to_string();
        let many = run(&tasks, &[path], 2, true).unwrap_err().to_string();
        assert_eq!(many, one);
        assert!(
            many.contains(":3: stream did not contain valid UTF-8"),
            "{many}"
        );
    }
}

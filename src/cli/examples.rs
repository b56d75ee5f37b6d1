//! The examples `itc --help` and each command's `--help` end with. Every
//! line that starts with `itc ` is parsed by a test, so an example cannot
//! name a flag that does not exist.

/// `itc --help`.
pub const ITC: &str = "\
Examples:
  itc eval                      # the offline baseline on the embedded sample set
  itc score                     # the sample set's recorded predictions, scored
  itc eval --backend openai --base-url http://127.0.0.1:8765/v1 --model-id local --name smol
  itc eval --config models.toml --models a,b --run-dir runs/ab
  itc eval --run-dir runs/ab --resume --config models.toml --models a,b
  itc report runs/baseline runs/ab  # compare runs: paired differences, ranking, files in reports/
  itc pipeline --config datasets/pipeline/pipeline.toml --dry-run
  itc datasets                  # every dataset: size, licence, cached or built in, how to run it

Each command has its own examples: itc help eval, itc help score, …";

/// `itc score --help`.
pub const SCORE: &str = "\
Examples:
  itc score
  itc score --tasks tasks.jsonl --predictions p1.jsonl p2.jsonl --out reports/run1
  itc score --tasks tasks.jsonl --predictions p.jsonl --format json --bootstrap 2000 --seed 7";

/// `itc report --help`.
pub const REPORT: &str = "\
Examples:
  itc report runs/baseline runs/qwen                 # every pair, written to reports/
  itc report runs/a runs/b runs/c --baseline a --out reports/abc
  itc report runs/full runs/asia --allow-different-tasks --rank-by selection-f1";

/// `itc merge --help`.
pub const MERGE: &str = "\
Examples:
  itc eval --config models.toml --models qwen --shard 1/3 --run-dir runs/qwen-1   # on machine 1, and so on
  itc merge runs/qwen-1 runs/qwen-2 runs/qwen-3 -o runs/qwen";

/// `itc eval --help`.
pub const EVAL: &str = "\
Examples:
  itc eval
  itc eval --backend openai --base-url http://127.0.0.1:8000/v1 --model-id Qwen/Qwen2.5-7B-Instruct --name qwen --mode native
  itc eval --backend openai --base-url http://127.0.0.1:8765/v1 --model-id local --name smol --mode structured --concurrency 1
  itc eval --config models.toml --models a,b --kinds single,nested --languages ja,zh --limit 200 --run-dir runs/asia
  itc eval --run-dir runs/asia --resume --config models.toml --models a,b
  itc eval --config models.toml --models a --steps replay --kinds nested
  itc eval --config models.toml --models a --steps execute --allow-host api.example.org --cassette tools.jsonl --record
  itc eval --config models.toml --models a --steps execute --cassette tools.jsonl --replay
  itc eval --config models.toml --models a --shard 2/4 --run-dir runs/a-2
  itc eval --dataset seal-tools --limit 50";

/// `itc bench --help`.
pub const BENCH: &str = "\
Examples:
  itc bench scoring                               # scoring throughput and memory
  itc bench http --no-wrk                         # requests per second, without wrk
  itc bench soak --tasks 500 --kills 3 --dir /tmp/soak";

/// `itc bench scoring --help`.
pub const BENCH_SCORING: &str = "\
Examples:
  itc bench scoring
  itc bench scoring --generate-only --dir /tmp/itc-1m";

/// `itc bench http --help`.
pub const BENCH_HTTP: &str = "\
Examples:
  itc bench http";

/// `itc bench soak --help`.
pub const BENCH_SOAK: &str = "\
Examples:
  itc bench soak                                  # 10,000 tasks, 5 kills, in soak/
  itc bench soak --tasks 500 --kills 3 --dir /tmp/soak";

/// `itc benchmarks --help` (`itc ood --help`).
pub const BENCHMARKS: &str = "\
`itc ood` is short for `itc benchmarks`.

Examples:
  itc ood convert seal-tools --input datasets/ood/seal-tools/test_in_domain.json -o seal.jsonl
  itc ood score seal-tools --compat official --gold datasets/ood/seal-tools/test_in_domain.json --predictions seal.raw.jsonl
  itc ood fetch apibench
  itc ood score tau --compat official --results results.json --per-item verdicts.jsonl";

/// `itc datasets --help`.
pub const DATASETS: &str = "\
Examples:
  itc datasets                                    # one table: tasks, licence, source, where a run reads it
  itc datasets --format json
  itc datasets --ood-cache /data/itc-cache/ood    # look in another fetch cache";

/// `itc catalog --help`.
pub const CATALOG: &str = "\
Examples:
  itc catalog import --format public-apis datasets/catalog/public-apis-README.md -o public.jsonl --skip-invalid
  itc catalog stats public.jsonl --out reports/catalog
  itc catalog stats public.jsonl --html reports/catalog/long_tail.html --sampled sampled.jsonl";

/// `itc sample --help`.
pub const SAMPLE: &str = "\
Examples:
  itc sample --catalog catalog.jsonl -n 200 --alpha 0.5 --seed 1 --quota JP=10 -o sampled.jsonl";

/// `itc confuse --help`.
pub const CONFUSE: &str = "\
Examples:
  itc confuse --catalog catalog.jsonl --sampled sampled.jsonl --k 4 --difficulty nearest --seed 1 -o candidates.jsonl";

/// `itc generate --help`.
pub const GENERATE: &str = "\
Examples:
  itc generate --candidates candidates.jsonl --config models.toml --generator writer -o queries.jsonl
  itc generate --candidates candidates.jsonl --dry-run -o prompts.jsonl";

/// `itc filter --help`.
pub const FILTER: &str = "\
Examples:
  itc filter --queries queries.jsonl --config models.toml --judges judge-a,judge-b -o kept.jsonl --rejects judge_rejects.jsonl";

/// `itc judge --help`.
pub const JUDGE: &str = "\
Examples:
  itc judge runs/model-a --metric pass-rate --judge judge-a --config models.toml
  itc judge runs/model-a --metric sopr --judge judge-a --judge judge-b --config models.toml --runs 3
  itc judge runs/model-a --metric win-rate --reference runs/model-b --judge judge-a --config models.toml";

/// `itc answer --help`.
pub const ANSWER: &str = "\
Examples:
  itc answer --queries kept.jsonl --config models.toml --answerer answerer --checker checker -o tasks.jsonl --provenance provenance.jsonl";

/// `itc pipeline --help`.
pub const PIPELINE: &str = "\
Examples:
  itc pipeline --config datasets/pipeline/pipeline.toml --dry-run
  itc pipeline --config datasets/pipeline/pipeline.toml
  itc pipeline --config datasets/pipeline/pipeline.toml --force";

/// Every example text, for the test that parses them.
#[cfg(test)]
const ALL: [&str; 19] = [
    ITC,
    SCORE,
    REPORT,
    MERGE,
    EVAL,
    BENCH,
    BENCH_SCORING,
    BENCH_HTTP,
    BENCH_SOAK,
    BENCHMARKS,
    DATASETS,
    CATALOG,
    SAMPLE,
    CONFUSE,
    GENERATE,
    FILTER,
    JUDGE,
    ANSWER,
    PIPELINE,
];

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::ALL;
    use crate::cli::Cli;

    /// The command lines of an example text, split into arguments (examples
    /// use no quotes), comments dropped.
    fn command_lines(text: &str) -> Vec<Vec<String>> {
        text.lines()
            .map(str::trim)
            .filter(|l| l.starts_with("itc "))
            .map(|l| {
                let l = l.split(" # ").next().unwrap_or(l);
                l.split_whitespace().map(str::to_string).collect()
            })
            .collect()
    }

    #[test]
    fn every_example_parses() {
        let mut count = 0;
        for text in ALL {
            for args in command_lines(text) {
                Cli::try_parse_from(&args)
                    .unwrap_or_else(|e| panic!("`{}` does not parse: {e}", args.join(" ")));
                count += 1;
            }
        }
        assert!(count >= 25, "{count} examples");
    }

    #[test]
    fn every_command_help_ends_with_examples() {
        let mut cli = Cli::command();
        let top = cli.render_long_help().to_string();
        assert!(top.contains("Examples:\n  itc eval"), "{top}");
        for sub in cli.get_subcommands_mut() {
            let name = sub.get_name().to_string();
            // Old spellings (hidden) show the examples of their new one.
            if name == "help" || sub.is_hide_set() {
                continue;
            }
            // An example under a visible alias counts (`itc ood` for `itc benchmarks`).
            let alias = sub.get_visible_aliases().next().map(str::to_string);
            has_example_of_itself(sub, &format!("itc {}", alias.unwrap_or(name.clone())));
            if name == "bench" {
                for benchmark in sub.get_subcommands_mut() {
                    let benchmark_name = benchmark.get_name().to_string();
                    if benchmark_name != "help" {
                        has_example_of_itself(benchmark, &format!("itc bench {benchmark_name}"));
                    }
                }
            }
        }
    }

    fn has_example_of_itself(command: &mut clap::Command, spelling: &str) {
        let help = command.render_long_help().to_string();
        let examples = help.split("Examples:").nth(1).unwrap_or_default();
        assert!(
            examples.contains(spelling),
            "`{spelling} --help` has no example of itself:\n{help}"
        );
    }
}

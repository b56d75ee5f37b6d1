//! Parser corpora: action strings for benchmarks of the action parser, in
//! the strict syntax of SPEC §1 ([`action_corpus`]) and in the forms lenient
//! mode adds ([`lenient_action_corpus`]).

use super::SynthSpec;
use super::generator::Generator;
use super::predictions::predicted_gold;
use crate::spec::action::print_actions;
use crate::spec::records::{Call, Value};

/// Realistic call lists for parser benchmarks: 1–5 calls each, tool names in
/// several scripts, values of every type (nested lists and dicts included).
fn corpus_calls(count: usize, seed: u64) -> Vec<Vec<Call>> {
    let spec = SynthSpec {
        tasks: 200,
        models: 0,
        seed,
    };
    let generator = Generator::new(&spec);
    let mut rng = fastrand::Rng::with_seed(seed ^ 0xAC71_0115);
    let pool: Vec<Call> = generator
        .tasks
        .iter()
        .flat_map(|t| predicted_gold(&mut rng, t))
        .collect();
    (0..count)
        .map(|_| {
            let n = rng.usize(1..=5);
            (0..n)
                .map(|_| pool[rng.usize(..pool.len())].clone())
                .collect()
        })
        .collect()
}

/// Action strings in the strict syntax of SPEC §1 (see `corpus_calls`).
pub fn action_corpus(count: usize, seed: u64) -> Vec<String> {
    corpus_calls(count, seed)
        .iter()
        .map(|c| print_actions(c))
        .collect()
}

/// Action strings in the forms lenient mode adds (SPEC §1): no outer
/// brackets, positional arguments, bare words, double quotes, trailing text.
pub fn lenient_action_corpus(count: usize, seed: u64) -> Vec<String> {
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x01E4_1E47);
    corpus_calls(count, seed)
        .into_iter()
        .map(|mut calls| match rng.usize(..5) {
            0 => {
                let s = print_actions(&calls);
                s[1..s.len() - 1].to_string()
            }
            1 => {
                for call in &mut calls {
                    if let Some((k, _)) = call.arguments.first_mut() {
                        *k = "#0".into();
                    }
                }
                print_actions(&calls)
            }
            2 => {
                let s = print_actions(&calls);
                if s.contains(['"', '\\']) {
                    s
                } else {
                    s.replace('\'', "\"")
                }
            }
            3 => format!(
                "{} and then I will summarise the results.",
                print_actions(&calls)
            ),
            _ => {
                for call in &mut calls {
                    for (_, v) in &mut call.arguments {
                        if let Value::Str(s) = v
                            && !s.is_empty()
                            && !s.contains([',', ')', ']', '}', '\n', '\'', '"', '(', '[', '{'])
                            && s.trim() == s
                        {
                            *v = Value::Word(std::mem::take(s));
                        }
                    }
                }
                print_actions(&calls)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpora_parse() {
        use crate::spec::action::{Mode, parse_actions};
        for s in action_corpus(300, 5) {
            let calls = parse_actions(&s, Mode::Strict).unwrap_or_else(|e| panic!("{e}: {s}"));
            assert!((1..=5).contains(&calls.len()));
        }
        for s in lenient_action_corpus(300, 5) {
            parse_actions(&s, Mode::Lenient).unwrap_or_else(|e| panic!("{e}: {s}"));
        }
    }
}

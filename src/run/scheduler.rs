//! `itc eval --shard auto`: the shard of the array job itc runs in, read
//! from the scheduler's environment.
//!
//! - **Slurm array jobs** (`sbatch --array=1-N`, or any evenly spaced range
//!   `A-B:S`): the tasks of the array are the shards in index order, so
//!   K = (`SLURM_ARRAY_TASK_ID` − `SLURM_ARRAY_TASK_MIN`) / `SLURM_ARRAY_TASK_STEP` + 1
//!   and N = `SLURM_ARRAY_TASK_COUNT` (or, without it, (MAX − MIN) / STEP + 1).
//!   An array of listed indices (`--array=1,3,7`) is refused: its indices
//!   do not say which share each one is.
//! - **Kubernetes indexed Jobs** (`completionMode: Indexed`):
//!   K = `JOB_COMPLETION_INDEX` + 1. Kubernetes does not put the Job's
//!   `completions` in the pods' environment, so N comes from `--shards N` or
//!   the variable [`SHARD_COUNT_VAR`] (set it in the pod template).
//!
//! Where both schedulers' variables are set, or neither, nothing is guessed:
//! the error names what was found and asks for `--shard K/N`.

use std::ffi::{OsStr, OsString};

use super::shard::{Shard, whole_number};

/// The variable a Kubernetes Job's pod template sets to the number of
/// shards (its `completions`), when `--shards` is not given.
pub const SHARD_COUNT_VAR: &str = "ITC_SHARD_COUNT";

/// A shard read from a scheduler's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduledShard {
    /// The shard.
    pub shard: Shard,
    /// Where it came from, for the run's notes: the scheduler and the
    /// variables read, e.g. `Slurm array job 81 (SLURM_ARRAY_TASK_ID=2, …)`.
    pub source: String,
}

/// The shard of the job this process runs in, from the environment as
/// `var` reads it (`std::env::var_os` in `itc eval`). `shards` is `--shards N`:
/// the count of a Kubernetes indexed Job, and a check of a Slurm array's.
///
/// Values are read strictly: digits only (no sign, no space), a step of at
/// least 1, a first index not above the last; a value that is not UTF-8 is
/// an error naming its variable. Values quoted in errors are escaped
/// (`"3 "`, `"\u{1b}"`, `"\xFF"`), so they cannot write to the terminal.
pub fn shard_from_environment(
    var: impl Fn(&str) -> Option<OsString>,
    shards: Option<usize>,
) -> Result<ScheduledShard, String> {
    let slurm = var("SLURM_ARRAY_TASK_ID");
    let kubernetes = var("JOB_COMPLETION_INDEX");
    match (slurm, kubernetes) {
        (Some(id), Some(index)) => Err(format!(
            "--shard auto: both a Slurm array task (SLURM_ARRAY_TASK_ID={id:?}) and a Kubernetes indexed Job (JOB_COMPLETION_INDEX={index:?}) are in the environment; give --shard K/N"
        )),
        (Some(_), None) => slurm_shard(&var, shards),
        (None, Some(_)) => kubernetes_shard(&var, shards),
        (None, None) => Err(
            "--shard auto: no scheduler's shard in the environment: SLURM_ARRAY_TASK_ID is not set (not a Slurm array job) and JOB_COMPLETION_INDEX is not set (not a Kubernetes indexed Job); give --shard K/N"
                .to_string(),
        ),
    }
}

/// A whole number from the variable `name`, `None` when it is not set.
fn number(var: &impl Fn(&str) -> Option<OsString>, name: &str) -> Result<Option<u64>, String> {
    let Some(raw) = var(name) else {
        return Ok(None);
    };
    let Some(text) = raw.to_str() else {
        return Err(format!("--shard auto: {name}={raw:?} is not UTF-8"));
    };
    whole_number(text).map(Some).ok_or_else(|| {
        format!(
            "--shard auto: {name}={text:?} is not a whole number (digits only, at most {})",
            u64::MAX
        )
    })
}

/// A value for the run's notes, control characters and all escaped.
fn shown(value: &OsStr) -> String {
    match value.to_str() {
        Some(text) => text.escape_debug().to_string(),
        None => format!("{value:?}"),
    }
}

/// Shard K of N once both are known, with `--shards` checked against N.
fn checked(
    index: u64,
    count: u64,
    shards: Option<usize>,
    source: String,
) -> Result<ScheduledShard, String> {
    if let Some(given) = shards
        && given as u64 != count
    {
        return Err(format!(
            "--shard auto: --shards {given} but the job has {count} shard(s): {source}"
        ));
    }
    let too_big = || format!("--shard auto: more than {} shards: {source}", usize::MAX);
    let shard = Shard {
        index: usize::try_from(index).map_err(|_| too_big())?,
        count: usize::try_from(count).map_err(|_| too_big())?,
    };
    if shard.index == 0 || shard.index > shard.count {
        return Err(format!(
            "--shard auto: shard {}/{} is not one of 1..{}: {source}",
            shard.index, shard.count, shard.count
        ));
    }
    Ok(ScheduledShard { shard, source })
}

fn slurm_shard(
    var: &impl Fn(&str) -> Option<OsString>,
    shards: Option<usize>,
) -> Result<ScheduledShard, String> {
    let id = number(var, "SLURM_ARRAY_TASK_ID")?.unwrap_or_default();
    let min = number(var, "SLURM_ARRAY_TASK_MIN")?;
    let max = number(var, "SLURM_ARRAY_TASK_MAX")?;
    let step = match number(var, "SLURM_ARRAY_TASK_STEP")? {
        Some(0) => {
            return Err(
                "--shard auto: SLURM_ARRAY_TASK_STEP=0: an array's step is at least 1".to_string(),
            );
        }
        step => step.unwrap_or(1),
    };
    let count = number(var, "SLURM_ARRAY_TASK_COUNT")?;
    let mut read = format!("SLURM_ARRAY_TASK_ID={id}");
    for (name, value) in [
        ("SLURM_ARRAY_TASK_MIN", min),
        ("SLURM_ARRAY_TASK_MAX", max),
        ("SLURM_ARRAY_TASK_STEP", Some(step)),
        ("SLURM_ARRAY_TASK_COUNT", count),
    ] {
        if let Some(value) = value {
            read.push_str(&format!(", {name}={value}"));
        }
    }
    let job = var("SLURM_ARRAY_JOB_ID").map_or_else(|| "?".to_string(), |job| shown(&job));
    let source = format!("Slurm array job {job} ({read})");
    let Some(min) = min else {
        return Err(format!(
            "--shard auto: SLURM_ARRAY_TASK_MIN is not set, so the array's first index is unknown: {source}"
        ));
    };
    if let Some(max) = max
        && min > max
    {
        return Err(format!(
            "--shard auto: SLURM_ARRAY_TASK_MIN={min} is above SLURM_ARRAY_TASK_MAX={max}: {source}"
        ));
    }
    if id < min || (id - min) % step != 0 {
        return Err(format!(
            "--shard auto: task {id} is not in the array's range: {source}"
        ));
    }
    let spaced = max.filter(|&max| (max - min) % step == 0);
    let count = match (
        spaced.and_then(|max| ((max - min) / step).checked_add(1)),
        count,
    ) {
        (Some(range), Some(count)) if range != count => {
            return Err(format!(
                "--shard auto: the array's indices are not an evenly spaced range (from {min} by {step} to {} would be {range} tasks, the array has {count}), so which share a task is cannot be told; submit it with --array=1-N (or A-B:S): {source}",
                max.unwrap_or_default()
            ));
        }
        (_, Some(count)) => count,
        (Some(range), None) => range,
        (None, None) => {
            return Err(format!(
                "--shard auto: neither SLURM_ARRAY_TASK_COUNT nor a usable SLURM_ARRAY_TASK_MAX is set, so the number of shards is unknown: {source}"
            ));
        }
    };
    let Some(index) = ((id - min) / step).checked_add(1) else {
        return Err(format!(
            "--shard auto: task {id} is too far into the array: {source}"
        ));
    };
    checked(index, count, shards, source)
}

fn kubernetes_shard(
    var: &impl Fn(&str) -> Option<OsString>,
    shards: Option<usize>,
) -> Result<ScheduledShard, String> {
    let index = number(var, "JOB_COMPLETION_INDEX")?.unwrap_or_default();
    let from_var = number(var, SHARD_COUNT_VAR)?;
    let mut source = format!("Kubernetes indexed Job (JOB_COMPLETION_INDEX={index}");
    if let Some(count) = from_var {
        source.push_str(&format!(", {SHARD_COUNT_VAR}={count}"));
    }
    source.push(')');
    let count = match (shards, from_var) {
        (Some(given), Some(set)) if given as u64 != set => {
            return Err(format!(
                "--shard auto: --shards {given} but {SHARD_COUNT_VAR}={set}: {source}"
            ));
        }
        (Some(given), _) => given as u64,
        (None, Some(set)) => set,
        (None, None) => {
            return Err(format!(
                "--shard auto: a Kubernetes indexed Job does not tell its number of shards: give --shards N or set {SHARD_COUNT_VAR} to the Job's completions: {source}"
            ));
        }
    };
    checked(index.saturating_add(1), count, None, source)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, OsString)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    fn shard(pairs: &[(&str, &str)], shards: Option<usize>) -> Result<Shard, String> {
        shard_from_environment(env(pairs), shards).map(|s| s.shard)
    }

    const fn of(index: usize, count: usize) -> Shard {
        Shard { index, count }
    }

    /// The variables Slurm 22.05 set in `sbatch --array=SPEC` tasks (seen
    /// on the single-node cluster of `scripts/slurm/cluster.sh`).
    fn slurm(
        id: &str,
        min: &str,
        max: &str,
        step: &str,
        count: &str,
    ) -> Vec<(&'static str, String)> {
        vec![
            ("SLURM_ARRAY_JOB_ID", "81".to_string()),
            ("SLURM_ARRAY_TASK_ID", id.to_string()),
            ("SLURM_ARRAY_TASK_MIN", min.to_string()),
            ("SLURM_ARRAY_TASK_MAX", max.to_string()),
            ("SLURM_ARRAY_TASK_STEP", step.to_string()),
            ("SLURM_ARRAY_TASK_COUNT", count.to_string()),
        ]
    }

    fn slurm_shard_of(
        vars: &[(&'static str, String)],
        shards: Option<usize>,
    ) -> Result<Shard, String> {
        let pairs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        shard(&pairs, shards)
    }

    #[test]
    fn slurm_arrays_of_ranges_give_their_shares() {
        // --array=1-3
        for (id, k) in [("1", 1), ("2", 2), ("3", 3)] {
            assert_eq!(
                slurm_shard_of(&slurm(id, "1", "3", "1", "3"), None),
                Ok(of(k, 3))
            );
        }
        // --array=0-4
        assert_eq!(
            slurm_shard_of(&slurm("0", "0", "4", "1", "5"), None),
            Ok(of(1, 5))
        );
        assert_eq!(
            slurm_shard_of(&slurm("4", "0", "4", "1", "5"), None),
            Ok(of(5, 5))
        );
        // --array=0-8:4 (tasks 0, 4, 8)
        assert_eq!(
            slurm_shard_of(&slurm("4", "0", "8", "4", "3"), None),
            Ok(of(2, 3))
        );
        // --shards agrees
        assert_eq!(
            slurm_shard_of(&slurm("2", "1", "3", "1", "3"), Some(3)),
            Ok(of(2, 3))
        );
        // Without COUNT (older Slurm): from MIN, MAX and STEP.
        let old = [
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_MAX", "6"),
        ];
        assert_eq!(shard(&old, None), Ok(of(1, 2)));
        let source = shard_from_environment(env(&old), None).unwrap().source;
        assert!(
            source.contains("Slurm array job ? (SLURM_ARRAY_TASK_ID=5"),
            "{source}"
        );
    }

    #[test]
    fn slurm_arrays_that_do_not_say_the_share_are_refused() {
        // --array=1,3,7: COUNT 3, but 1..7 holds 7.
        let e = slurm_shard_of(&slurm("3", "1", "7", "1", "3"), None).unwrap_err();
        assert!(e.contains("not an evenly spaced range"), "{e}");
        assert!(e.contains("Slurm array job 81"), "{e}");
        let e = slurm_shard_of(&slurm("2", "1", "3", "1", "3"), Some(4)).unwrap_err();
        assert!(e.contains("--shards 4 but the job has 3"), "{e}");
        let e = slurm_shard_of(&slurm("x", "1", "3", "1", "3"), None).unwrap_err();
        assert!(
            e.contains("SLURM_ARRAY_TASK_ID=\"x\" is not a whole number"),
            "{e}"
        );
        let e = shard(&[("SLURM_ARRAY_TASK_ID", "2")], None).unwrap_err();
        assert!(e.contains("SLURM_ARRAY_TASK_MIN is not set"), "{e}");
        let e = slurm_shard_of(&slurm("0", "1", "3", "1", "3"), None).unwrap_err();
        assert!(e.contains("not in the array's range"), "{e}");
        let e = slurm_shard_of(&slurm("2", "0", "8", "4", "3"), None).unwrap_err();
        assert!(e.contains("not in the array's range"), "{e}");
        // Indices at the ends of u64 are errors, never an overflow.
        let huge = u64::MAX.to_string();
        let (id, min) = (
            ("SLURM_ARRAY_TASK_ID", huge.as_str()),
            ("SLURM_ARRAY_TASK_MIN", "0"),
        );
        let e = shard(&[id, min, ("SLURM_ARRAY_TASK_COUNT", "3")], None).unwrap_err();
        assert!(e.contains("too far into the array"), "{e}");
        let e = shard(&[id, min, ("SLURM_ARRAY_TASK_MAX", &huge)], None).unwrap_err();
        assert!(e.contains("nor a usable SLURM_ARRAY_TASK_MAX"), "{e}");
        let e = shard(&[("JOB_COMPLETION_INDEX", &huge)], Some(3)).unwrap_err();
        assert!(e.contains("not one of"), "{e}");
    }

    #[test]
    fn slurm_values_are_read_strictly_and_quoted_escaped() {
        // Spaces and signs around an index are refused, not trimmed.
        for id in ["3 ", " 3", "+3", "-0", "3\n"] {
            let e = slurm_shard_of(&slurm(id, "1", "3", "1", "3"), None).unwrap_err();
            assert!(
                e.contains(&format!("SLURM_ARRAY_TASK_ID={id:?} is not a whole number")),
                "{e}"
            );
        }
        let e = slurm_shard_of(&slurm("2", "1", "3", "+1", "3"), None).unwrap_err();
        assert!(e.contains("SLURM_ARRAY_TASK_STEP=\"+1\""), "{e}");
        // A step of 0 is not read as 1.
        let e = slurm_shard_of(&slurm("2", "1", "3", "0", "3"), None).unwrap_err();
        assert!(e.contains("SLURM_ARRAY_TASK_STEP=0"), "{e}");
        // A first index above the last.
        let e = slurm_shard_of(&slurm("5", "5", "1", "1", "1"), None).unwrap_err();
        assert!(
            e.contains("SLURM_ARRAY_TASK_MIN=5 is above SLURM_ARRAY_TASK_MAX=1"),
            "{e}"
        );
        let e = shard(
            &[
                ("SLURM_ARRAY_TASK_ID", "5"),
                ("SLURM_ARRAY_TASK_MIN", "5"),
                ("SLURM_ARRAY_TASK_MAX", "1"),
            ],
            None,
        )
        .unwrap_err();
        assert!(e.contains("is above"), "{e}");
        // Control characters are escaped wherever a value is quoted.
        let e = slurm_shard_of(&slurm("\u{1b}[2J", "1", "3", "1", "3"), None).unwrap_err();
        assert!(e.contains(r#"SLURM_ARRAY_TASK_ID="\u{1b}[2J""#), "{e}");
        assert!(!e.contains('\u{1b}'), "{e}");
        let e = shard(
            &[
                ("SLURM_ARRAY_TASK_ID", "\u{7}1"),
                ("JOB_COMPLETION_INDEX", "0\r"),
            ],
            None,
        )
        .unwrap_err();
        assert!(e.contains(r#"SLURM_ARRAY_TASK_ID="\u{7}1""#), "{e}");
        assert!(e.contains(r#"JOB_COMPLETION_INDEX="0\r""#), "{e}");
        let mut vars = slurm("2", "1", "3", "1", "3");
        vars[0].1 = "81\u{1b}]0;x\u{7}".to_string();
        let pairs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let source = shard_from_environment(env(&pairs), None).unwrap().source;
        assert!(
            source.starts_with(r"Slurm array job 81\u{1b}]0;x\u{7} ("),
            "{source}"
        );
    }

    #[test]
    fn a_value_that_is_not_utf8_is_an_error_naming_its_variable() {
        use std::os::unix::ffi::OsStringExt;
        let bytes = || OsString::from_vec(vec![b'2', 0xff]);
        let slurm_only = |name: &str| match name {
            "SLURM_ARRAY_TASK_ID" => Some(bytes()),
            "SLURM_ARRAY_TASK_MIN" | "SLURM_ARRAY_TASK_COUNT" => Some(OsString::from("1")),
            _ => None,
        };
        let e = shard_from_environment(slurm_only, Some(3)).unwrap_err();
        assert_eq!(
            e,
            r#"--shard auto: SLURM_ARRAY_TASK_ID="2\xFF" is not UTF-8"#
        );
        // Never taken for "not a Slurm job": with a Kubernetes index beside
        // it, both are named.
        let both = |name: &str| match name {
            "SLURM_ARRAY_TASK_ID" => Some(bytes()),
            "JOB_COMPLETION_INDEX" => Some(OsString::from("0")),
            _ => None,
        };
        let e = shard_from_environment(both, Some(3)).unwrap_err();
        assert!(
            e.contains(r#"both a Slurm array task (SLURM_ARRAY_TASK_ID="2\xFF")"#),
            "{e}"
        );
        let count = |name: &str| match name {
            "JOB_COMPLETION_INDEX" => Some(OsString::from("0")),
            SHARD_COUNT_VAR => Some(bytes()),
            _ => None,
        };
        let e = shard_from_environment(count, None).unwrap_err();
        assert!(e.contains(r#"ITC_SHARD_COUNT="2\xFF" is not UTF-8"#), "{e}");
    }

    #[test]
    fn kubernetes_indexed_jobs_take_the_count_from_the_flag_or_the_variable() {
        let index = |i: &'static str| [("JOB_COMPLETION_INDEX", i)];
        assert_eq!(shard(&index("0"), Some(3)), Ok(of(1, 3)));
        assert_eq!(shard(&index("2"), Some(3)), Ok(of(3, 3)));
        let with_var = [("JOB_COMPLETION_INDEX", "1"), (SHARD_COUNT_VAR, "4")];
        assert_eq!(shard(&with_var, None), Ok(of(2, 4)));
        assert_eq!(shard(&with_var, Some(4)), Ok(of(2, 4)));
        let e = shard(&with_var, Some(5)).unwrap_err();
        assert!(e.contains("--shards 5 but ITC_SHARD_COUNT=4"), "{e}");
        let e = shard(&index("0"), None).unwrap_err();
        assert!(e.contains("give --shards N or set ITC_SHARD_COUNT"), "{e}");
        let e = shard(&index("3"), Some(3)).unwrap_err();
        assert!(e.contains("shard 4/3 is not one of 1..3"), "{e}");
        let e = shard(
            &[("JOB_COMPLETION_INDEX", "0"), (SHARD_COUNT_VAR, "0")],
            None,
        )
        .unwrap_err();
        assert!(e.contains("not one of"), "{e}");
        let source = shard_from_environment(env(&with_var), None).unwrap().source;
        assert_eq!(
            source,
            "Kubernetes indexed Job (JOB_COMPLETION_INDEX=1, ITC_SHARD_COUNT=4)"
        );
    }

    #[test]
    fn no_scheduler_or_two_are_refused_with_what_was_found() {
        let e = shard(&[], Some(3)).unwrap_err();
        assert!(e.contains("SLURM_ARRAY_TASK_ID is not set"), "{e}");
        assert!(e.contains("JOB_COMPLETION_INDEX is not set"), "{e}");
        let e = shard(
            &[("SLURM_ARRAY_TASK_ID", "1"), ("JOB_COMPLETION_INDEX", "0")],
            Some(2),
        )
        .unwrap_err();
        assert!(e.contains("both a Slurm array task"), "{e}");
    }
}

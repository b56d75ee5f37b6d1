//! The JSON line of a [`TaskScore`], written without the serde machinery.
//!
//! `task_scores.jsonl` has one line per model and task, a million lines for
//! 200 models on 5,000 tasks, and serde's generic serialiser spent about a
//! tenth of `itc score --out` on them. This writer puts out the same bytes as
//! `serde_json::to_writer` on the derived `Serialize` (the format's one
//! definition): constant key fragments are copied, strings go through
//! serde_json's own escaping and floats through its own formatter. A row
//! with reading limits or step figures (rare) is handed to serde whole. The
//! tests compare the two on every variant.

use serde_json::ser::{CompactFormatter, Formatter};

use crate::spec::records::{Counts, Prf, TaskScore};

impl<S: AsRef<str> + serde::Serialize> TaskScore<S> {
    /// Appends the row's JSON (no newline) to `out`, exactly as
    /// `serde_json::to_writer` writes it.
    pub fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        if !self.read_limits.is_clear() || self.steps.is_some() {
            return serde_json::to_writer(out, self);
        }
        out.extend_from_slice(b"{\"task_id\":");
        string(out, self.task_id.as_ref())?;
        out.extend_from_slice(b",\"model\":");
        string(out, self.model.as_ref())?;
        out.extend_from_slice(b",\"kind\":\"");
        out.extend_from_slice(self.kind.as_str().as_bytes());
        out.extend_from_slice(b"\",\"language\":");
        string(out, self.language.as_ref())?;
        out.extend_from_slice(b",\"country\":");
        string(out, self.country.as_ref())?;
        out.extend_from_slice(b",\"category\":");
        string(out, self.category.as_ref())?;
        out.extend_from_slice(if self.format_match {
            b",\"format_match\":true,\"language_outcome\":\""
        } else {
            b",\"format_match\":false,\"language_outcome\":\""
        });
        out.extend_from_slice(self.language_outcome.as_str().as_bytes());
        out.extend_from_slice(b"\",\"detected_language\":");
        match &self.detected_language {
            Some(code) => string(out, code.as_ref())?,
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"extraction\":\"");
        out.extend_from_slice(self.extraction.as_str().as_bytes());
        out.extend_from_slice(b"\",\"selection\":");
        prf(out, &self.selection)?;
        out.extend_from_slice(b",\"invocation\":");
        prf(out, &self.invocation)?;
        out.extend_from_slice(b",\"counts\":");
        counts(out, &self.counts)?;
        out.push(b'}');
        Ok(())
    }
}

fn string(out: &mut Vec<u8>, value: &str) -> serde_json::Result<()> {
    serde_json::to_writer(out, value)
}

/// A float as serde_json writes it: its shortest form, `null` when not finite.
fn float(out: &mut Vec<u8>, value: f64) -> serde_json::Result<()> {
    // Most P/R/F1 values are exactly 1 or 0: their forms need no formatter.
    if value == 1.0 {
        out.extend_from_slice(b"1.0");
    } else if value.to_bits() == 0 {
        out.extend_from_slice(b"0.0");
    } else if value.is_finite() {
        CompactFormatter
            .write_f64(out, value)
            .map_err(serde_json::Error::io)?;
    } else {
        out.extend_from_slice(b"null");
    }
    Ok(())
}

fn integer(out: &mut Vec<u8>, value: u32) -> serde_json::Result<()> {
    CompactFormatter
        .write_u32(out, value)
        .map_err(serde_json::Error::io)
}

fn prf(out: &mut Vec<u8>, value: &Prf) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"p\":");
    float(out, value.p)?;
    out.extend_from_slice(b",\"r\":");
    float(out, value.r)?;
    out.extend_from_slice(b",\"f1\":");
    float(out, value.f1)?;
    out.push(b'}');
    Ok(())
}

fn counts(out: &mut Vec<u8>, c: &Counts) -> serde_json::Result<()> {
    let fields: [(&[u8], u32); 12] = [
        (b"{\"sel_tp\":", c.sel_tp),
        (b",\"sel_pred\":", c.sel_pred),
        (b",\"sel_gold\":", c.sel_gold),
        (b",\"inv_tp\":", c.inv_tp),
        (b",\"inv_pred\":", c.inv_pred),
        (b",\"inv_gold\":", c.inv_gold),
        (b",\"hall\":", c.hall),
        (b",\"mis\":", c.mis),
        (b",\"ex\":", c.ex),
        (b",\"incor\":", c.incor),
        (b",\"miss\":", c.miss),
        (b",\"ext\":", c.ext),
    ];
    for (key, value) in fields {
        out.extend_from_slice(key);
        integer(out, value)?;
    }
    out.push(b'}');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::limits::ReadLimits;
    use crate::spec::records::{Extraction, LanguageOutcome, StepFigures, TaskKind};

    fn row(i: usize) -> TaskScore<String> {
        let kinds = TaskKind::ALL;
        let outcomes = LanguageOutcome::ALL;
        let extractions = Extraction::ALL;
        let floats = [
            0.0,
            1.0,
            2.0 / 3.0,
            0.1,
            1e-7,
            f64::NAN,
            0.5,
            -0.0,
            1.0 + f64::EPSILON,
        ];
        let f = |k: usize| floats[(i + k) % floats.len()];
        let n = |k: usize| ((i * 7 + k * 13) % 5) as u32 * 1000u32.pow((k % 3) as u32);
        TaskScore {
            task_id: ["t-1", "ид \"q\"\\\n\u{1}", ""][i % 3].to_string(),
            model: ["m", "gpt/4o\t", "模型", "C:\\models\\a", "say \"hi\""][i % 5].to_string(),
            kind: kinds[i % kinds.len()],
            language: "ja".to_string(),
            country: ["JP", "GLOBAL"][i % 2].to_string(),
            category: ["Weather", "Data </script>", "del\u{7f} é/\u{1f}"][i % 3].to_string(),
            format_match: i.is_multiple_of(2),
            language_outcome: outcomes[i % outcomes.len()],
            detected_language: (!i.is_multiple_of(4)).then(|| "zh".to_string()),
            extraction: extractions[i % extractions.len()],
            selection: Prf {
                p: f(0),
                r: f(1),
                f1: f(2),
            },
            invocation: Prf {
                p: f(3),
                r: f(4),
                f1: f(5),
            },
            counts: Counts {
                sel_tp: n(0),
                sel_pred: n(1),
                sel_gold: n(2),
                inv_tp: n(3),
                inv_pred: n(4),
                inv_gold: n(5),
                hall: n(6),
                mis: n(7),
                ex: n(8),
                incor: n(9),
                miss: n(10),
                ext: u32::MAX,
            },
            read_limits: ReadLimits {
                truncated_bytes: if i % 11 == 5 { 12 } else { 0 },
                ..ReadLimits::default()
            },
            steps: (i % 13 == 7).then(StepFigures::default),
        }
    }

    #[test]
    fn writes_what_serde_writes() {
        let mut fast_path_rows = 0;
        for i in 0..200 {
            let owned = row(i);
            let borrowed = TaskScore {
                task_id: owned.task_id.as_str(),
                model: owned.model.as_str(),
                language: owned.language.as_str(),
                country: owned.country.as_str(),
                category: owned.category.as_str(),
                detected_language: owned.detected_language.as_deref(),
                kind: owned.kind,
                format_match: owned.format_match,
                language_outcome: owned.language_outcome,
                extraction: owned.extraction,
                selection: owned.selection,
                invocation: owned.invocation,
                counts: owned.counts,
                read_limits: owned.read_limits,
                steps: owned.steps,
            };
            let expected = serde_json::to_vec(&owned).unwrap();
            for written in [
                {
                    let mut out = Vec::new();
                    owned.write_json(&mut out).unwrap();
                    out
                },
                {
                    let mut out = Vec::new();
                    borrowed.write_json(&mut out).unwrap();
                    out
                },
            ] {
                assert_eq!(
                    String::from_utf8(written).unwrap(),
                    String::from_utf8(expected.clone()).unwrap(),
                    "row {i}"
                );
            }
            fast_path_rows += usize::from(owned.read_limits.is_clear() && owned.steps.is_none());
        }
        assert!(fast_path_rows > 150, "{fast_path_rows}");
    }
}

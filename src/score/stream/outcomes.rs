//! A model's outcomes, one per task, kept in 16 bytes each.
//!
//! Scoring a study keeps one [`TaskOutcome`] per (model, task) pair, since
//! every interval resamples tasks; at 176 bytes each that was most of the
//! memory of a large run. Nearly every outcome has counts below 256, P/R/F1
//! that follow from its counts (or are all zero: an unanswered task), no
//! reading limits and no step figures, so it is stored as its counts in
//! bytes and a few bits. Any other outcome is kept whole beside the packed
//! ones, so what comes out is always exactly what went in.

use super::TaskOutcome;
use crate::score::task::prf;
use crate::spec::records::{Counts, Extraction, LanguageOutcome, Prf};

/// Outcomes indexed like the task list; a slot may be empty (no prediction
/// read yet).
#[derive(Debug, Clone, Default)]
pub struct Outcomes {
    packed: Vec<Packed>,
    /// Outcomes that do not pack, referred to by index from their slot.
    whole: Vec<TaskOutcome>,
    /// Detected language codes, referred to by index + 1 from the slots.
    languages: Vec<&'static str>,
}

/// One slot: the twelve counts (or, for an outcome kept whole, its index in
/// the first four bytes), then the flags and the detected language.
#[derive(Debug, Clone, Copy, Default)]
struct Packed {
    counts: [u8; 12],
    flags: u16,
    /// Index + 1 in `Outcomes::languages`; 0 when none was detected.
    language: u8,
}

const PRESENT: u16 = 1;
const WHOLE: u16 = 1 << 1;
const FORMAT_MATCH: u16 = 1 << 2;
/// P/R/F1 all zero instead of following from the counts.
const SELECTION_ZERO: u16 = 1 << 3;
const INVOCATION_ZERO: u16 = 1 << 4;
const LANGUAGE_SHIFT: u16 = 5; // 3 bits
const EXTRACTION_SHIFT: u16 = 8; // 3 bits

impl Outcomes {
    /// Bytes of one slot.
    pub const SLOT_BYTES: usize = std::mem::size_of::<Packed>();

    /// `len` empty slots.
    pub fn new(len: usize) -> Outcomes {
        Outcomes {
            packed: vec![Packed::default(); len],
            ..Outcomes::default()
        }
    }

    /// Slots, empty or not.
    pub fn len(&self) -> usize {
        self.packed.len()
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// Whether slot `i` holds an outcome.
    pub fn is_set(&self, i: usize) -> bool {
        self.packed[i].flags & PRESENT != 0
    }

    /// The outcome in slot `i`. Panics on an empty slot.
    pub fn get(&self, i: usize) -> TaskOutcome {
        let slot = self.packed[i];
        assert!(slot.flags & PRESENT != 0, "outcome {i} was never set");
        if slot.flags & WHOLE != 0 {
            let at = u32::from_le_bytes(slot.counts[..4].try_into().expect("four bytes"));
            return self.whole[at as usize];
        }
        let c = slot.counts.map(u32::from);
        let counts = Counts {
            sel_tp: c[0],
            sel_pred: c[1],
            sel_gold: c[2],
            inv_tp: c[3],
            inv_pred: c[4],
            inv_gold: c[5],
            hall: c[6],
            mis: c[7],
            ex: c[8],
            incor: c[9],
            miss: c[10],
            ext: c[11],
        };
        let zero_or = |flag: u16, (tp, predicted, gold): (u32, u32, u32)| {
            if slot.flags & flag != 0 {
                Prf::default()
            } else {
                prf(tp, predicted, gold)
            }
        };
        TaskOutcome {
            format_match: slot.flags & FORMAT_MATCH != 0,
            language: LanguageOutcome::ALL[usize::from((slot.flags >> LANGUAGE_SHIFT) & 7)],
            detected_language: slot
                .language
                .checked_sub(1)
                .map(|at| self.languages[usize::from(at)]),
            extraction: Extraction::ALL[usize::from((slot.flags >> EXTRACTION_SHIFT) & 7)],
            selection: zero_or(SELECTION_ZERO, (c[0], c[1], c[2])),
            invocation: zero_or(INVOCATION_ZERO, (c[3], c[4], c[5])),
            counts,
            read_limits: Default::default(),
            steps: None,
        }
    }

    /// Puts `outcome` in slot `i`.
    pub fn set(&mut self, i: usize, outcome: &TaskOutcome) {
        self.packed[i] = match self.pack(outcome) {
            Some(slot) => slot,
            None => {
                let at = u32::try_from(self.whole.len()).expect("fewer than 2^32 outcomes");
                self.whole.push(*outcome);
                let mut counts = [0; 12];
                counts[..4].copy_from_slice(&at.to_le_bytes());
                Packed {
                    counts,
                    flags: PRESENT | WHOLE,
                    language: 0,
                }
            }
        };
    }

    /// Every slot's outcome, in task order. Panics on an empty slot.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = TaskOutcome> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The packed form, when `outcome` has one.
    fn pack(&mut self, o: &TaskOutcome) -> Option<Packed> {
        if !o.read_limits.is_clear() || o.steps.is_some() {
            return None;
        }
        let c = &o.counts;
        let wide = [
            c.sel_tp, c.sel_pred, c.sel_gold, c.inv_tp, c.inv_pred, c.inv_gold, c.hall, c.mis,
            c.ex, c.incor, c.miss, c.ext,
        ];
        let mut counts = [0u8; 12];
        for (byte, &n) in counts.iter_mut().zip(&wide) {
            *byte = u8::try_from(n).ok()?;
        }
        let selection = prf_flag(
            o.selection,
            (c.sel_tp, c.sel_pred, c.sel_gold),
            SELECTION_ZERO,
        )?;
        let invocation = prf_flag(
            o.invocation,
            (c.inv_tp, c.inv_pred, c.inv_gold),
            INVOCATION_ZERO,
        )?;
        let language = match o.detected_language {
            None => 0,
            Some(code) => self.language_index(code)?,
        };
        let mut flags = PRESENT | selection | invocation;
        if o.format_match {
            flags |= FORMAT_MATCH;
        }
        flags |= (o.language as u16) << LANGUAGE_SHIFT;
        flags |= (o.extraction as u16) << EXTRACTION_SHIFT;
        Some(Packed {
            counts,
            flags,
            language,
        })
    }

    /// Index + 1 of a detected language code, added on first sight.
    fn language_index(&mut self, code: &'static str) -> Option<u8> {
        let at = match self.languages.iter().position(|&known| known == code) {
            Some(at) => at,
            None => {
                self.languages.push(code);
                self.languages.len() - 1
            }
        };
        u8::try_from(at + 1).ok()
    }
}

impl FromIterator<TaskOutcome> for Outcomes {
    fn from_iter<I: IntoIterator<Item = TaskOutcome>>(outcomes: I) -> Outcomes {
        let outcomes: Vec<TaskOutcome> = outcomes.into_iter().collect();
        let mut store = Outcomes::new(outcomes.len());
        for (i, o) in outcomes.iter().enumerate() {
            store.set(i, o);
        }
        store
    }
}

/// The flag that rebuilds `value` from its counts: none when it follows
/// from them, `zero` when it is all zero, and `None` when neither (kept
/// whole). Compared bit for bit, so −0.0 or a NaN is kept whole.
fn prf_flag(value: Prf, (tp, predicted, gold): (u32, u32, u32), zero: u16) -> Option<u16> {
    let bits = |p: Prf| [p.p.to_bits(), p.r.to_bits(), p.f1.to_bits()];
    if bits(value) == bits(prf(tp, predicted, gold)) {
        Some(0)
    } else if bits(value) == bits(Prf::default()) {
        Some(zero)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::limits::ReadLimits;
    use crate::spec::records::StepFigures;

    fn outcome(counts: Counts) -> TaskOutcome {
        TaskOutcome {
            format_match: true,
            language: LanguageOutcome::MismatchUnreliable,
            detected_language: Some("pt"),
            extraction: Extraction::BareCalls,
            selection: prf(counts.sel_tp, counts.sel_pred, counts.sel_gold),
            invocation: prf(counts.inv_tp, counts.inv_pred, counts.inv_gold),
            counts,
            read_limits: ReadLimits::default(),
            steps: None,
        }
    }

    fn same(a: &TaskOutcome, b: &TaskOutcome) -> bool {
        let bits = |p: Prf| [p.p.to_bits(), p.r.to_bits(), p.f1.to_bits()];
        format!("{a:?}") == format!("{b:?}")
            && bits(a.selection) == bits(b.selection)
            && bits(a.invocation) == bits(b.invocation)
    }

    /// Every kind of outcome comes back exactly, packed or kept whole.
    #[test]
    fn outcomes_come_back_exactly() {
        let counts = Counts {
            sel_tp: 2,
            sel_pred: 3,
            sel_gold: 2,
            inv_tp: 4,
            inv_pred: 7,
            inv_gold: 5,
            hall: 1,
            mis: 0,
            ex: 0,
            incor: 2,
            miss: 1,
            ext: 1,
        };
        let mut cases = vec![outcome(counts), outcome(Counts::default())];
        let mut big = outcome(Counts {
            inv_pred: 300,
            ..counts
        });
        big.invocation = prf(4, 300, 5);
        cases.push(big);
        let mut zero = outcome(Counts::default());
        zero.selection = Prf::default();
        cases.push(zero);
        let mut odd = outcome(counts);
        odd.invocation.f1 = 0.123;
        cases.push(odd);
        let mut negative_zero = outcome(Counts {
            sel_tp: 0,
            ..counts
        });
        negative_zero.selection.p = -0.0;
        cases.push(negative_zero);
        let mut limited = outcome(counts);
        limited.read_limits.too_deep = true;
        cases.push(limited);
        let mut stepped = outcome(counts);
        stepped.steps = Some(StepFigures {
            steps: 2,
            selection_f1: 0.5,
            invocation_f1: 0.25,
            step_f1: 0.75,
            execution: None,
        });
        cases.push(stepped);
        for (extraction, language) in Extraction::ALL
            .into_iter()
            .zip(LanguageOutcome::ALL.iter().cycle())
        {
            let mut o = outcome(counts);
            o.extraction = extraction;
            o.language = *language;
            o.format_match = false;
            o.detected_language = None;
            cases.push(o);
        }
        let mut store = Outcomes::new(cases.len() + 1);
        for (i, o) in cases.iter().enumerate() {
            store.set(i, o);
        }
        assert!(!store.is_set(cases.len()));
        for (i, o) in cases.iter().enumerate() {
            assert!(store.is_set(i));
            assert!(same(&store.get(i), o), "{i}: {:?} != {o:?}", store.get(i));
        }
        // Only the big count, the odd F1, −0.0, the limits and the steps
        // are kept whole.
        assert_eq!(store.whole.len(), 5);
        assert_eq!(std::mem::size_of::<Packed>(), 16);
    }

    #[test]
    fn closed_sets_are_stored_by_their_place_in_all() {
        for (i, e) in Extraction::ALL.into_iter().enumerate() {
            assert_eq!(e as usize, i);
        }
        for (i, l) in LanguageOutcome::ALL.into_iter().enumerate() {
            assert_eq!(l as usize, i);
        }
        assert!(Extraction::ALL.len() <= 8 && LanguageOutcome::ALL.len() <= 8);
    }

    #[test]
    fn an_outcome_set_again_replaces_the_first() {
        let mut store = Outcomes::new(1);
        let mut first = outcome(Counts::default());
        first.extraction = Extraction::Error;
        store.set(0, &first);
        let second = outcome(Counts::default());
        store.set(0, &second);
        assert!(same(&store.get(0), &second));
    }
}

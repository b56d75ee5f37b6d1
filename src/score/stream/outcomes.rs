//! A model's outcomes, one per task, kept in 16 bytes each in a mapped
//! scratch file.
//!
//! Scoring a study keeps one [`TaskOutcome`] per (model, task) pair, since
//! every interval resamples tasks; at 176 bytes each on the heap that was
//! most of the memory of a large run. Nearly every outcome has counts below
//! 256, P/R/F1 that follow from its counts (or are all zero: an unanswered
//! task), no reading limits and no step figures, so it is stored as its
//! counts in bytes and a few bits. Any other outcome is written in full
//! (160 bytes) to a second area of the same model, made when first needed.
//! What comes out is always exactly what went in.
//!
//! Both areas are [`ScratchArea`]s: a pass over a store lets its pages go
//! when it ends ([`Outcomes::iter`]), and the scorer lets go of what it
//! wrote every few thousand lines ([`Outcomes::release`]), so the process's
//! resident memory does not grow with the number of predictions.

use super::TaskOutcome;
use crate::score::task::prf;
use crate::spec::limits::ReadLimits;
use crate::spec::records::{Counts, Execution, Extraction, LanguageOutcome, Prf, StepFigures};
use crate::util::scratch::ScratchArea;

/// Outcomes indexed like the task list; a slot may be empty (no prediction
/// read yet).
#[derive(Debug, Clone, Default)]
pub struct Outcomes {
    /// [`Outcomes::SLOT_BYTES`] per slot: a [`Packed`] outcome.
    packed: ScratchArea,
    /// [`Outcomes::WIDE_BYTES`] per slot, made on the first outcome that
    /// does not pack: that outcome in full.
    wide: Option<ScratchArea>,
    /// Detected language codes, referred to by index + 1 from the slots.
    languages: Vec<&'static str>,
}

/// One slot: the twelve counts, then the flags and the detected language.
#[derive(Debug, Clone, Copy, Default)]
struct Packed {
    counts: [u8; 12],
    flags: u16,
    /// Index + 1 in `Outcomes::languages`; 0 when none was detected.
    language: u8,
}

const PRESENT: u16 = 1;
/// The outcome is in the wide area, at the same index.
const WIDE: u16 = 1 << 1;
const FORMAT_MATCH: u16 = 1 << 2;
/// P/R/F1 all zero instead of following from the counts.
const SELECTION_ZERO: u16 = 1 << 3;
const INVOCATION_ZERO: u16 = 1 << 4;
const LANGUAGE_SHIFT: u16 = 5; // 3 bits
const EXTRACTION_SHIFT: u16 = 8; // 3 bits

impl Packed {
    fn to_bytes(self) -> [u8; Outcomes::SLOT_BYTES] {
        let mut bytes = [0; Outcomes::SLOT_BYTES];
        bytes[..12].copy_from_slice(&self.counts);
        bytes[12..14].copy_from_slice(&self.flags.to_le_bytes());
        bytes[14] = self.language;
        bytes
    }

    fn from_bytes(bytes: &[u8; Outcomes::SLOT_BYTES]) -> Packed {
        let mut counts = [0; 12];
        counts.copy_from_slice(&bytes[..12]);
        Packed {
            counts,
            flags: u16::from_le_bytes([bytes[12], bytes[13]]),
            language: bytes[14],
        }
    }
}

impl Outcomes {
    /// Bytes of one slot.
    pub const SLOT_BYTES: usize = 16;

    /// Bytes of an outcome written in full (`encode_wide`), in a second
    /// area made on the first outcome that does not pack.
    pub const WIDE_BYTES: usize = 160;

    /// `len` empty slots.
    pub fn new(len: usize) -> Outcomes {
        Outcomes {
            packed: ScratchArea::zeroed(len * Self::SLOT_BYTES),
            ..Outcomes::default()
        }
    }

    /// Slots, empty or not.
    pub fn len(&self) -> usize {
        self.packed.bytes().len() / Self::SLOT_BYTES
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the slots live in a mapped scratch file (else on the heap).
    pub fn is_mapped(&self) -> bool {
        self.packed.is_mapped()
    }

    fn slot(&self, i: usize) -> Packed {
        let (slots, _) = self.packed.bytes().as_chunks::<{ Self::SLOT_BYTES }>();
        Packed::from_bytes(&slots[i])
    }

    /// Whether slot `i` holds an outcome.
    pub fn is_set(&self, i: usize) -> bool {
        self.slot(i).flags & PRESENT != 0
    }

    /// The outcome in slot `i`. Panics on an empty slot.
    pub fn get(&self, i: usize) -> TaskOutcome {
        let slot = self.slot(i);
        assert!(slot.flags & PRESENT != 0, "outcome {i} was never set");
        if slot.flags & WIDE != 0 {
            let wide = self.wide.as_ref().expect("a wide slot has its area");
            let (slots, _) = wide.bytes().as_chunks::<{ Self::WIDE_BYTES }>();
            return decode_wide(&slots[i], &self.languages);
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
        let slot = match self.pack(outcome) {
            Some(slot) => slot,
            None => {
                let encoded = encode_wide(outcome, self.language_code(outcome));
                let len = self.len();
                let wide = self
                    .wide
                    .get_or_insert_with(|| ScratchArea::zeroed(len * Self::WIDE_BYTES));
                let (slots, _) = wide.bytes_mut().as_chunks_mut::<{ Self::WIDE_BYTES }>();
                slots[i] = encoded;
                Packed {
                    flags: PRESENT | WIDE,
                    ..Packed::default()
                }
            }
        };
        let (slots, _) = self
            .packed
            .bytes_mut()
            .as_chunks_mut::<{ Self::SLOT_BYTES }>();
        slots[i] = slot.to_bytes();
    }

    /// Every slot's outcome, in task order. Panics on an empty slot. The
    /// pages read are let go when the iterator is dropped.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = TaskOutcome> + '_ {
        Pass {
            store: self,
            next: 0,
        }
    }

    /// Lets the process's copy of the slots go; they are read back from
    /// the scratch file when next needed.
    pub fn release(&self) {
        self.packed.release();
        if let Some(wide) = &self.wide {
            wide.release();
        }
    }

    /// Outcomes written in full (those that do not pack).
    #[cfg(test)]
    fn wide_count(&self) -> usize {
        (0..self.len())
            .filter(|&i| self.slot(i).flags & WIDE != 0)
            .count()
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
        let language = u8::try_from(self.language_code(o)).ok()?;
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

    /// Index + 1 of the outcome's detected language code (added on first
    /// sight), 0 when none was detected.
    fn language_code(&mut self, o: &TaskOutcome) -> usize {
        let Some(code) = o.detected_language else {
            return 0;
        };
        match self.languages.iter().position(|&known| known == code) {
            Some(at) => at + 1,
            None => {
                self.languages.push(code);
                self.languages.len()
            }
        }
    }
}

/// A pass over a store in task order, which lets its pages go when dropped.
struct Pass<'a> {
    store: &'a Outcomes,
    next: usize,
}

impl Iterator for Pass<'_> {
    type Item = TaskOutcome;

    fn next(&mut self) -> Option<TaskOutcome> {
        if self.next == self.store.len() {
            return None;
        }
        self.next += 1;
        Some(self.store.get(self.next - 1))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.store.len() - self.next;
        (left, Some(left))
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        if self.next > 0 {
            self.store.release();
        }
    }
}

impl ExactSizeIterator for Pass<'_> {}

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
/// from them, `zero` when it is all zero, and `None` when neither (written
/// in full). Compared bit for bit, so −0.0 or a NaN is written in full.
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

/// Little-endian fields written one after another.
struct Writer<'a> {
    bytes: &'a mut [u8],
    at: usize,
}

impl Writer<'_> {
    fn put(&mut self, field: &[u8]) {
        self.bytes[self.at..self.at + field.len()].copy_from_slice(field);
        self.at += field.len();
    }
    fn u32(&mut self, n: u32) {
        self.put(&n.to_le_bytes());
    }
    fn f64(&mut self, x: f64) {
        self.put(&x.to_bits().to_le_bytes());
    }
}

/// Reads back what [`Writer`] wrote.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let field = self.bytes[self.at..self.at + N]
            .try_into()
            .expect("N bytes");
        self.at += N;
        field
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn f64(&mut self) -> f64 {
        f64::from_bits(u64::from_le_bytes(self.take()))
    }
}

/// `o` in full, bit for bit; `language` is its detected language's index + 1.
fn encode_wide(o: &TaskOutcome, language: usize) -> [u8; Outcomes::WIDE_BYTES] {
    let mut bytes = [0; Outcomes::WIDE_BYTES];
    let mut w = Writer {
        bytes: &mut bytes,
        at: 0,
    };
    let c = &o.counts;
    for n in [
        c.sel_tp, c.sel_pred, c.sel_gold, c.inv_tp, c.inv_pred, c.inv_gold, c.hall, c.mis, c.ex,
        c.incor, c.miss, c.ext,
    ] {
        w.u32(n);
    }
    for prf in [o.selection, o.invocation] {
        w.f64(prf.p);
        w.f64(prf.r);
        w.f64(prf.f1);
    }
    w.put(&[
        u8::from(o.format_match),
        o.language as u8,
        o.extraction as u8,
        u8::from(o.read_limits.too_deep),
        u8::from(o.read_limits.out_of_work),
        u8::from(o.steps.is_some()),
        u8::from(o.steps.is_some_and(|s| s.execution.is_some())),
    ]);
    w.put(
        &u32::try_from(language)
            .expect("few languages")
            .to_le_bytes(),
    );
    w.put(&o.read_limits.truncated_bytes.to_le_bytes());
    let steps = o.steps.unwrap_or_default();
    w.u32(steps.steps);
    w.f64(steps.selection_f1);
    w.f64(steps.invocation_f1);
    w.f64(steps.step_f1);
    let execution = steps.execution.unwrap_or_default();
    w.u32(execution.calls);
    w.u32(execution.executed);
    bytes
}

/// The outcome [`encode_wide`] wrote.
fn decode_wide(bytes: &[u8; Outcomes::WIDE_BYTES], languages: &[&'static str]) -> TaskOutcome {
    let mut r = Reader { bytes, at: 0 };
    let n: [u32; 12] = std::array::from_fn(|_| r.u32());
    let counts = Counts {
        sel_tp: n[0],
        sel_pred: n[1],
        sel_gold: n[2],
        inv_tp: n[3],
        inv_pred: n[4],
        inv_gold: n[5],
        hall: n[6],
        mis: n[7],
        ex: n[8],
        incor: n[9],
        miss: n[10],
        ext: n[11],
    };
    let mut prf = || Prf {
        p: r.f64(),
        r: r.f64(),
        f1: r.f64(),
    };
    let (selection, invocation) = (prf(), prf());
    let [
        format_match,
        language,
        extraction,
        too_deep,
        out_of_work,
        has_steps,
        has_execution,
    ] = r.take::<7>();
    let detected = r.u32() as usize;
    let read_limits = ReadLimits {
        truncated_bytes: u64::from_le_bytes(r.take()),
        too_deep: too_deep != 0,
        out_of_work: out_of_work != 0,
    };
    let steps = StepFigures {
        steps: r.u32(),
        selection_f1: r.f64(),
        invocation_f1: r.f64(),
        step_f1: r.f64(),
        execution: None,
    };
    let execution = Execution {
        calls: r.u32(),
        executed: r.u32(),
    };
    TaskOutcome {
        format_match: format_match != 0,
        language: LanguageOutcome::ALL[usize::from(language)],
        detected_language: detected.checked_sub(1).map(|at| languages[at]),
        extraction: Extraction::ALL[usize::from(extraction)],
        selection,
        invocation,
        counts,
        read_limits,
        steps: (has_steps != 0).then_some(StepFigures {
            execution: (has_execution != 0).then_some(execution),
            ..steps
        }),
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
        limited.read_limits.truncated_bytes = u64::MAX;
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
        let mut executed = outcome(counts);
        executed.detected_language = Some("ja");
        executed.steps = Some(StepFigures {
            steps: u32::MAX,
            selection_f1: f64::NAN,
            invocation_f1: -0.0,
            step_f1: 1.0,
            execution: Some(Execution {
                calls: 3,
                executed: u32::MAX,
            }),
        });
        cases.push(executed);
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
        // Only the big count, the odd F1, −0.0, the limits and the two steps
        // are written in full.
        assert_eq!(store.wide_count(), 6);
        // And they all come back the same from the scratch file after its
        // pages were let go, and from a copy.
        assert!(store.is_mapped());
        store.release();
        let copy = store.clone();
        for (i, o) in cases.iter().enumerate() {
            assert!(same(&store.get(i), o) && same(&copy.get(i), o), "{i}");
        }
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

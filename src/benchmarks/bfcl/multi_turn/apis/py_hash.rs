//! CPython 3.11's `hash()` under `PYTHONHASHSEED=0` (SipHash-1-3 with a
//! zero key for `str` and `bytes`; the numeric hash modulo 2**61 - 1; the
//! xxHash-style tuple hash) and the iteration order of a `set` built from
//! them: what decides the order of a text joined from a set of strings,
//! which the reference traces were made under.
//!
//! `hash(None)` and `hash(nan)` depend on object addresses in 3.11: they
//! are taken as 0 here (such keys then land in an order of our choosing).

use crate::benchmarks::python::PyValue;

const MODULUS: u64 = (1 << 61) - 1;

/// `hash(v)` as CPython 3.11 computes it with `PYTHONHASHSEED=0`; `None`
/// for an unhashable value.
pub fn py_hash(v: &PyValue) -> Option<i64> {
    let h = match v {
        PyValue::Str(text) => str_hash(&text.0),
        PyValue::Bytes(bytes) => bytes_hash(bytes),
        PyValue::Bool(b) => i64::from(*b),
        PyValue::Int(text) => int_hash(text),
        PyValue::Float(x) => float_hash(*x),
        PyValue::Complex(imag) => {
            let h = (float_hash(*imag) as u64).wrapping_mul(1_000_003) as i64;
            if h == -1 { -2 } else { h }
        }
        PyValue::Tuple(items) => tuple_hash(items)?,
        PyValue::None => 0,
        PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_) => return None,
    };
    Some(h)
}

fn fix(h: i64) -> i64 {
    if h == -1 { -2 } else { h }
}

/// A `str` is hashed over its storage: 1, 2 or 4 bytes per code point,
/// the narrowest that holds its largest code point.
fn str_hash(cps: &[u32]) -> i64 {
    let width = match cps.iter().max() {
        None => return 0,
        Some(&m) if m < 0x100 => 1,
        Some(&m) if m < 0x10000 => 2,
        Some(_) => 4,
    };
    let bytes: Vec<u8> = cps
        .iter()
        .flat_map(|c| c.to_le_bytes().into_iter().take(width))
        .collect();
    bytes_hash(&bytes)
}

fn bytes_hash(bytes: &[u8]) -> i64 {
    if bytes.is_empty() {
        return 0;
    }
    fix(siphash13(bytes) as i64)
}

fn siphash13(src: &[u8]) -> u64 {
    let (mut v0, mut v1, mut v2, mut v3) = (
        0x736f_6d65_7073_6575u64,
        0x646f_7261_6e64_6f6du64,
        0x6c79_6765_6e65_7261u64,
        0x7465_6462_7974_6573u64,
    );
    let round = |v0: &mut u64, v1: &mut u64, v2: &mut u64, v3: &mut u64| {
        *v0 = v0.wrapping_add(*v1);
        *v1 = v1.rotate_left(13) ^ *v0;
        *v0 = v0.rotate_left(32);
        *v2 = v2.wrapping_add(*v3);
        *v3 = v3.rotate_left(16) ^ *v2;
        *v0 = v0.wrapping_add(*v3);
        *v3 = v3.rotate_left(21) ^ *v0;
        *v2 = v2.wrapping_add(*v1);
        *v1 = v1.rotate_left(17) ^ *v2;
        *v2 = v2.rotate_left(32);
    };
    let chunks = src.chunks_exact(8);
    let tail = chunks.remainder();
    for chunk in chunks {
        let m = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        v3 ^= m;
        round(&mut v0, &mut v1, &mut v2, &mut v3);
        v0 ^= m;
    }
    let mut b = (src.len() as u64) << 56;
    for (i, &byte) in tail.iter().enumerate() {
        b |= u64::from(byte) << (8 * i);
    }
    v3 ^= b;
    round(&mut v0, &mut v1, &mut v2, &mut v3);
    v0 ^= b;
    v2 ^= 0xff;
    for _ in 0..3 {
        round(&mut v0, &mut v1, &mut v2, &mut v3);
    }
    (v0 ^ v1) ^ (v2 ^ v3)
}

/// The hash of an `int` given as decimal text (any size): its value
/// modulo 2**61 - 1, with its sign.
fn int_hash(text: &str) -> i64 {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut x: u128 = 0;
    for d in digits.bytes().filter(u8::is_ascii_digit) {
        x = (x * 10 + u128::from(d - b'0')) % u128::from(MODULUS);
    }
    let x = x as i64;
    fix(if negative { -x } else { x })
}

fn float_hash(v: f64) -> i64 {
    if v.is_nan() {
        return 0;
    }
    if v.is_infinite() {
        return if v > 0.0 { 314_159 } else { -314_159 };
    }
    let (mut m, mut e) = frexp(v.abs());
    let mut x: u64 = 0;
    while m != 0.0 {
        x = ((x << 28) & MODULUS) | (x >> (61 - 28));
        m *= 268_435_456.0;
        e -= 28;
        let y = m as u64;
        m -= y as f64;
        x += y;
        if x >= MODULUS {
            x -= MODULUS;
        }
    }
    let e = if e >= 0 { e % 61 } else { 60 - ((-1 - e) % 61) } as u32;
    x = ((x << e) & MODULUS) | (x >> (61 - e));
    let x = x as i64;
    fix(if v < 0.0 { -x } else { x })
}

/// `frexp` for a finite non-negative value: (m, e) with m in [0.5, 1).
fn frexp(v: f64) -> (f64, i32) {
    if v == 0.0 {
        return (0.0, 0);
    }
    let bits = v.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    if exponent == 0 {
        let (m, e) = frexp(v * 2f64.powi(64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exponent - 1022)
}

fn tuple_hash(items: &[PyValue]) -> Option<i64> {
    const P1: u64 = 11_400_714_785_074_694_791;
    const P2: u64 = 14_029_467_366_897_019_727;
    const P5: u64 = 2_870_177_450_012_600_261;
    let mut acc = P5;
    for item in items {
        let lane = py_hash(item)? as u64;
        acc = acc.wrapping_add(lane.wrapping_mul(P2));
        acc = acc.rotate_left(31);
        acc = acc.wrapping_mul(P1);
    }
    acc = acc.wrapping_add((items.len() as u64) ^ (P5 ^ 3_527_539));
    Some(if acc == u64::MAX {
        1_546_275_796
    } else {
        acc as i64
    })
}

const LINEAR_PROBES: usize = 9;
const PERTURB_SHIFT: u32 = 5;
const MIN_SIZE: usize = 8;

/// A CPython `set` table of item positions (no deletions): enough to know
/// the order in which a set of distinct items iterates.
#[derive(Debug)]
struct SetTable {
    slots: Vec<Option<(usize, i64)>>,
    used: usize,
}

impl SetTable {
    fn with_size(size: usize) -> SetTable {
        SetTable {
            slots: vec![None; size],
            used: 0,
        }
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// `set_insert_clean`: the item goes into the first empty slot of its
    /// probe sequence.
    fn insert_clean(&mut self, item: usize, hash: i64) {
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask {
                LINEAR_PROBES
            } else {
                0
            };
            for j in i..=i + probes {
                if self.slots[j].is_none() {
                    self.slots[j] = Some((item, hash));
                    self.used += 1;
                    return;
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
    }

    /// `set_add_entry` of an item equal to none already in: insert, then
    /// grow when two thirds full.
    fn add(&mut self, item: usize, hash: i64) {
        self.insert_clean(item, hash);
        if self.used * 5 >= self.mask() * 3 {
            let wanted = if self.used > 50_000 {
                self.used * 2
            } else {
                self.used * 4
            };
            self.resize(wanted);
        }
    }

    /// `set_table_resize`: the smallest power of two above `min_used`,
    /// the items reinserted in slot order.
    fn resize(&mut self, min_used: usize) {
        let mut size = MIN_SIZE;
        while size <= min_used {
            size <<= 1;
        }
        let old = std::mem::replace(self, SetTable::with_size(size));
        for (item, hash) in old.slots.into_iter().flatten() {
            self.insert_clean(item, hash);
        }
    }

    fn order(&self) -> impl Iterator<Item = (usize, i64)> + '_ {
        self.slots.iter().flatten().copied()
    }
}

/// The positions of `keys` (distinct, hashable) that `set(keys) - other`
/// holds, in the order the result iterates, where `keep(i)` says that key
/// `i` is not in `other` and `other_len` is `len(other)`.
pub fn set_difference_order(
    hashes: &[i64],
    keep: impl Fn(usize) -> bool,
    other_len: usize,
) -> Vec<usize> {
    let mut set = SetTable::with_size(MIN_SIZE);
    for (i, &h) in hashes.iter().enumerate() {
        set.add(i, h);
    }
    if (set.used >> 2) > other_len {
        // `set_copy_and_difference`: a copy (one resize up front, then the
        // same layout or a clean reinsertion), then discards in place.
        let mut copy = SetTable::with_size(MIN_SIZE);
        if set.used * 5 >= copy.mask() * 3 {
            copy.resize(set.used * 2);
        }
        if copy.slots.len() == set.slots.len() {
            copy.slots.clone_from(&set.slots);
        } else {
            for (item, hash) in set.order() {
                copy.insert_clean(item, hash);
            }
        }
        return copy.order().map(|(i, _)| i).filter(|&i| keep(i)).collect();
    }
    let mut result = SetTable::with_size(MIN_SIZE);
    for (item, hash) in set.order() {
        if keep(item) {
            result.add(item, hash);
        }
    }
    result.order().map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmarks::python::testing::lit;

    // Each expected hash is CPython 3.11.7's `hash()` with PYTHONHASHSEED=0.
    #[test]
    fn hashes_are_cpythons_with_a_zero_seed() {
        let cases = [
            ("'foo'", 7664243301495174138),
            ("''", 0),
            ("'a'", 4644417185603328019),
            ("'é'", 6047309291227476195),
            ("'€'", -5529981157763016009),
            ("'😀'", -3536540696076613844),
            ("b'ab'", 6148830537548944441),
            ("1.5", 1152921504606846977),
            ("-1", -2),
            ("(1, 'a')", 3906047847676358913),
            ("18446744073709551616", 8),
            ("1e300", 1224995262755759164),
            ("0.1", 230584300921369408),
        ];
        for (text, want) in cases {
            assert_eq!(py_hash(&lit(text)), Some(want), "{text}");
        }
        assert_eq!(py_hash(&lit("[1]")), None);
    }

    #[test]
    fn a_set_difference_iterates_in_cpythons_order() {
        // `', '.join({'foo', 'bar', 'baz'} - {'title'})` is 'foo, baz, bar'.
        let keys = ["foo", "bar", "baz"];
        let hashes: Vec<i64> = keys
            .iter()
            .map(|k| py_hash(&lit(&format!("'{k}'"))).unwrap())
            .collect();
        let order = set_difference_order(&hashes, |_| true, 1);
        let names: Vec<&str> = order.iter().map(|&i| keys[i]).collect();
        assert_eq!(names, ["foo", "baz", "bar"]);
    }
}

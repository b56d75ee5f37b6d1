//! Python's `random.Random` as BFCL's multi-turn API classes and τ³-bench's
//! trial seeds use it: seeded from an `int`, then `randint`, `uniform` and
//! `random`, each giving the
//! very numbers CPython 3.11 gives for the same seed (Mersenne Twister
//! MT19937, `init_by_array` seeding, `_randbelow` by rejection on
//! `getrandbits`).

const N: usize = 624;
const M: usize = 397;

/// A Mersenne Twister seeded as `random.Random(seed)` seeds it.
#[derive(Debug, Clone)]
pub struct PyRandom {
    state: [u32; N],
    index: usize,
}

impl PyRandom {
    /// `random.Random(seed)` for an `int` seed (its absolute value, split
    /// into 32-bit words, least significant first).
    pub fn new(seed: i128) -> PyRandom {
        let mut magnitude = seed.unsigned_abs();
        let mut key = Vec::new();
        while magnitude > 0 {
            key.push(magnitude as u32);
            magnitude >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        let mut random = PyRandom {
            state: [0; N],
            index: N,
        };
        random.init_by_array(&key);
        random
    }

    fn init_genrand(&mut self, seed: u32) {
        self.state[0] = seed;
        for i in 1..N {
            let previous = self.state[i - 1];
            self.state[i] = 1_812_433_253u32
                .wrapping_mul(previous ^ (previous >> 30))
                .wrapping_add(i as u32);
        }
        self.index = N;
    }

    fn init_by_array(&mut self, key: &[u32]) {
        self.init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let previous = self.state[i - 1];
            self.state[i] = (self.state[i] ^ (previous ^ (previous >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                self.state[0] = self.state[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let previous = self.state[i - 1];
            self.state[i] = (self.state[i]
                ^ (previous ^ (previous >> 30)).wrapping_mul(1_566_083_941))
            .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                self.state[0] = self.state[N - 1];
                i = 1;
            }
        }
        self.state[0] = 0x8000_0000;
    }

    fn twist(&mut self) {
        for k in 0..N {
            let y = (self.state[k] & 0x8000_0000) | (self.state[(k + 1) % N] & 0x7fff_ffff);
            let mut next = self.state[(k + M) % N] ^ (y >> 1);
            if y & 1 == 1 {
                next ^= 0x9908_b0df;
            }
            self.state[k] = next;
        }
        self.index = 0;
    }

    /// The next 32 random bits (`genrand_uint32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random()`: a float in [0, 1) from 53 random bits.
    pub fn random(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `getrandbits(k)` for `1 <= k <= 128`: 32-bit words, least
    /// significant first, the last one shifted down to what is left.
    pub fn getrandbits(&mut self, k: u32) -> u128 {
        debug_assert!((1..=128).contains(&k));
        let mut value = 0u128;
        let mut left = k;
        let mut shift = 0;
        while left > 0 {
            let mut word = self.next_u32();
            if left < 32 {
                word >>= 32 - left;
            }
            value |= (word as u128) << shift;
            shift += 32;
            left = left.saturating_sub(32);
        }
        value
    }

    /// `_randbelow(n)` for `n >= 1`: bits of `n`'s length drawn until one
    /// falls below `n`.
    fn randbelow(&mut self, n: u128) -> u128 {
        let bits = 128 - n.leading_zeros();
        loop {
            let r = self.getrandbits(bits);
            if r < n {
                return r;
            }
        }
    }

    /// `randint(a, b)`: an integer in [a, b]; `None` where Python raises
    /// (`b < a`).
    pub fn randint(&mut self, a: i128, b: i128) -> Option<i128> {
        if b < a {
            return None;
        }
        let width = (b - a) as u128 + 1;
        Some(a + self.randbelow(width) as i128)
    }

    /// `uniform(a, b)`: `a + (b - a) * random()`.
    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.random()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Figures printed by CPython 3.11:
    // `r = random.Random(SEED); [r.random(), r.randint(A, B), ...]`.
    #[test]
    fn the_same_numbers_as_cpython_for_the_same_seed() {
        let mut r = PyRandom::new(0);
        assert_eq!(r.random(), 0.8444218515250481);
        assert_eq!(r.random(), 0.7579544029403025);
        let mut r = PyRandom::new(42);
        assert_eq!(r.randint(1, 10), Some(2));
        assert_eq!(r.randint(1, 10), Some(1));
        assert_eq!(r.randint(1, 10), Some(5));
        let mut r = PyRandom::new(141_053);
        assert_eq!(
            r.randint(100_000_000_000, 999_999_999_999),
            Some(262_919_693_687)
        );
        assert_eq!(r.uniform(-10.0, 40.0), 31.29968928699752);
        assert_eq!(r.randint(1_000_000, 9_999_999), Some(7_223_063));
        let mut r = PyRandom::new((1 << 40) + 3);
        assert_eq!(r.random(), 0.21978710637116716);
    }

    #[test]
    fn a_negative_seed_seeds_as_its_absolute_value() {
        let mut a = PyRandom::new(-7);
        let mut b = PyRandom::new(7);
        assert_eq!(a.next_u32(), b.next_u32());
    }

    #[test]
    fn randint_refuses_an_empty_range() {
        assert_eq!(PyRandom::new(1).randint(5, 4), None);
    }
}

pub mod detection;
mod profiles;
pub mod utils;

pub use profiles::*;

pub use detection::{RawOutcome, detect, raw_detect};

#[derive(Debug, Eq, PartialEq, Hash, Ord, PartialOrd, Clone, Copy)]
pub struct Trigram(pub(crate) char, pub(crate) char, pub(crate) char);

impl Trigram {
    /// itc: the three chars packed into 21 bits each, so that packed keys
    /// order exactly as the trigrams do.
    #[inline]
    pub(crate) fn packed(self) -> u64 {
        pack(self.0, self.1, self.2)
    }
}

/// itc: three chars (code points below 2^21) packed into one u64.
#[inline]
pub(crate) fn pack(a: char, b: char, c: char) -> u64 {
    (a as u64) << 42 | (b as u64) << 21 | c as u64
}

// Maximum distance(difference) for a trigram in a language profile and text profile.
pub const MAX_TRIGRAM_DISTANCE: u32 = 300;

// 300 trigrams where each has MAX_TOTAL_DISTANCE=300, gives us 90_000.
pub const MAX_TOTAL_DISTANCE: u32 = MAX_TRIGRAM_DISTANCE * MAX_TRIGRAM_DISTANCE;

// Double MAX_TRIGRAM_DISTANCE
pub const TEXT_TRIGRAMS_SIZE: usize = 600;

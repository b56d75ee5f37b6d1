//! Bounded copies of unbounded things, for messages and reports.
//!
//! Reports name a handful of bad lines or unknown ids and count the rest,
//! and messages quote values that may be huge. Keeping every bad line, or
//! all of a value, would let a hostile input (a file of bad lines, of
//! answers to tasks that do not exist, of megabyte-long ids) grow memory
//! with its size: [`FirstFew`] keeps a count and the first few, [`clip`] the
//! start of a text.

/// How many things were pushed, and the first [`FirstFew::KEPT`] of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstFew<T> {
    count: usize,
    kept: Vec<T>,
}

impl<T> Default for FirstFew<T> {
    fn default() -> FirstFew<T> {
        FirstFew {
            count: 0,
            kept: Vec::new(),
        }
    }
}

impl<T> FirstFew<T> {
    /// Things kept to be named; the others are only counted.
    pub const KEPT: usize = 20;

    /// Nothing yet.
    pub fn new() -> FirstFew<T> {
        FirstFew::default()
    }

    /// Counts `item`, and keeps it if fewer than [`FirstFew::KEPT`] are kept.
    pub fn push(&mut self, item: T) {
        self.count += 1;
        if self.kept.len() < Self::KEPT {
            self.kept.push(item);
        }
    }

    /// How many were pushed.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether none was pushed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The first ones pushed, at most [`FirstFew::KEPT`], in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.kept.iter()
    }
}

impl<T> FromIterator<T> for FirstFew<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> FirstFew<T> {
        let mut few = FirstFew::new();
        items.into_iter().for_each(|item| few.push(item));
        few
    }
}

/// The first `max` characters of a text, marked with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_all_and_keeps_the_first() {
        let few: FirstFew<usize> = (0..1000).collect();
        assert_eq!(few.len(), 1000);
        assert!(!few.is_empty());
        assert_eq!(
            few.iter().copied().collect::<Vec<_>>(),
            (0..FirstFew::<usize>::KEPT).collect::<Vec<_>>()
        );
        let none = FirstFew::<u8>::new();
        assert!(none.is_empty() && none.iter().next().is_none());
    }

    #[test]
    fn clip_counts_characters_not_bytes() {
        assert_eq!(clip("short", 5), "short");
        assert_eq!(clip("abcdef", 3), "abc…");
        assert_eq!(clip("aéb", 2), "aé…");
        assert_eq!(clip("日本語", 1), "日…");
        assert_eq!(clip("", 0), "");
    }
}

use crate::Lang;

#[cfg_attr(feature = "arbitrary", derive(::arbitrary::Arbitrary))]
#[derive(Debug, Clone, Default, PartialEq)]
pub enum FilterList {
    #[default]
    All,
    Allow(LangSet),
    Deny(LangSet),
}

/// itc: a set of languages as a bit set (`Lang` values are below 128), so
/// that `is_allowed`, asked for every language of a script on every text,
/// is one test instead of a search of the list; two lists are equal when
/// they hold the same languages.
#[cfg_attr(feature = "arbitrary", derive(::arbitrary::Arbitrary))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LangSet {
    bits: u128,
}

impl LangSet {
    fn of(langs: &[Lang]) -> Self {
        LangSet {
            bits: langs.iter().fold(0, |bits, &lang| bits | 1 << lang as u32),
        }
    }

    #[inline]
    fn contains(&self, lang: Lang) -> bool {
        self.bits & (1 << lang as u32) != 0
    }
}

impl FilterList {
    #[cfg(feature = "dev")]
    pub fn all() -> Self {
        Self::All
    }

    pub fn allow(allowlist: Vec<Lang>) -> Self {
        Self::Allow(LangSet::of(&allowlist))
    }

    pub fn deny(denylist: Vec<Lang>) -> Self {
        Self::Deny(LangSet::of(&denylist))
    }

    #[inline]
    pub fn is_allowed(&self, lang: Lang) -> bool {
        match self {
            Self::All => true,
            Self::Allow(allowlist) => allowlist.contains(lang),
            Self::Deny(denylist) => !denylist.contains(lang),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "dev")]
    fn test_all() {
        let list = FilterList::all();
        assert!(list.is_allowed(Lang::Epo));
    }

    #[test]
    fn test_only() {
        let list = FilterList::allow(vec![Lang::Rus, Lang::Ukr]);

        assert!(!list.is_allowed(Lang::Epo));
        assert!(!list.is_allowed(Lang::Eng));

        assert!(list.is_allowed(Lang::Rus));
        assert!(list.is_allowed(Lang::Ukr));
    }

    #[test]
    fn test_except() {
        let list = FilterList::deny(vec![Lang::Rus, Lang::Ukr]);

        assert!(list.is_allowed(Lang::Epo));
        assert!(list.is_allowed(Lang::Eng));

        assert!(!list.is_allowed(Lang::Rus));
        assert!(!list.is_allowed(Lang::Ukr));
    }

    #[test]
    fn every_language_fits_the_bit_set() {
        assert!(Lang::all().iter().all(|&lang| (lang as u32) < 128));
        let list = FilterList::allow(Lang::all().to_vec());
        assert!(Lang::all().iter().all(|&lang| list.is_allowed(lang)));
        let list = FilterList::deny(Lang::all().to_vec());
        assert!(Lang::all().iter().all(|&lang| !list.is_allowed(lang)));
    }
}

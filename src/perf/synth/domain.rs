//! What a synthetic task is about: the eight call [`Domain`]s, each served by
//! one table tool, and the [`Topic`]s its texts name (the domains, the two
//! nested chains and one topic no tool serves).

/// A domain served by one table tool (see `tools`): single, repeated and
/// parallel tasks call these tools, and other tasks show them as confusers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Domain {
    Weather,
    Fx,
    Translate,
    Directions,
    News,
    Restaurant,
    Stock,
    Flight,
}

impl Domain {
    /// Every domain. The generator draws an index into this list, so its
    /// order is part of what a seed produces.
    pub(super) const ALL: [Domain; 8] = [
        Domain::Weather,
        Domain::Fx,
        Domain::Translate,
        Domain::Directions,
        Domain::News,
        Domain::Restaurant,
        Domain::Stock,
        Domain::Flight,
    ];

    /// Domains a repeated task calls several times (with varying arguments).
    pub(super) const REPEATED: [Domain; 5] = [
        Domain::Weather,
        Domain::Fx,
        Domain::Stock,
        Domain::Restaurant,
        Domain::News,
    ];

    /// Domains a no-tool task offers while its query leaves out a required value.
    pub(super) const MISSING_VALUE: [Domain; 4] = [
        Domain::Weather,
        Domain::Restaurant,
        Domain::Flight,
        Domain::Directions,
    ];
}

/// What a task's query and thoughts talk about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Topic {
    /// The subject of a domain's tool.
    Domain(Domain),
    /// A user's recent orders (the login → orders chain).
    Orders,
    /// The weather where the user is (the geocode → weather chain).
    Geo,
    /// Something no candidate tool serves (lottery results).
    Unsupported,
}

impl Topic {
    /// Position of the topic in `Phrases::topics`.
    pub(super) fn index(self) -> usize {
        match self {
            Topic::Domain(domain) => match domain {
                Domain::Weather => 0,
                Domain::Fx => 1,
                Domain::Translate => 2,
                Domain::Directions => 3,
                Domain::News => 4,
                Domain::Restaurant => 5,
                Domain::Stock => 6,
                Domain::Flight => 7,
            },
            Topic::Orders => 8,
            Topic::Geo => 9,
            Topic::Unsupported => 10,
        }
    }
}

/// Why an answer calls no tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// No candidate tool serves the request.
    NoToolServes,
    /// The right tool is there but the query lacks a value it requires.
    ValueMissing,
}

impl Refusal {
    /// Position of the reason in `Phrases::refusals`.
    pub(super) fn index(self) -> usize {
        match self {
            Refusal::NoToolServes => 0,
            Refusal::ValueMissing => 1,
        }
    }
}

//! What the compiler knows about semirings: the catalogue of `ivm::semiring`
//! with the algebraic class of each, and the class keywords a user semiring
//! states in `#[semiring(path, class, ...)]`.
//!
//! Verdicts (`docs/design.md#verdicts-and-strategies`) depend on these
//! classes only, so they are decided at compile time without looking at the
//! semiring's code (`docs/design.md#semiring-classes`).

use std::fmt;

/// The algebraic properties of a semiring that decide which strategies apply.
///
/// The flags are independent statements; the catalogue sets them from the
/// papers (*The Role of Semirings in Incremental View Maintenance*, Table 1
/// and Definition 8; *Answering Conjunctive Queries with Aggregations under
/// Updates*, Definition 7 and section 5), and a user semiring states them
/// with keywords (see [`SemiringClass::KEYWORDS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SemiringClass {
    /// Additive inverses exist (a ring): deletes subtract.
    pub ring: bool,
    /// Zero-sum free and zero-divisor free: a non-zero payload stays
    /// non-zero under inserts, and a product of non-zero payloads is non-zero
    /// (*The Role of Semirings in Incremental View Maintenance*, section
    /// 5.3). Needed by the two-layer structure.
    pub positive: bool,
    /// Strictly monotone (*Answering Conjunctive Queries with Aggregations
    /// under Updates*, Definition 7): the insert-only lower bounds
    /// for ∃-hierarchy-cores and q-cores apply.
    pub strictly_monotone: bool,
    /// ⊕-strictly monotone (the same paper, section 4.2): the q-core lower
    /// bound applies. Implied by `strictly_monotone`.
    pub oplus_strictly_monotone: bool,
    /// Naturally ordered with monotone sequences of bounded length
    /// (the same paper, section 5.1): payloads improve O(1) times, so CROWN
    /// maintains every free-connex query in O(1) under inserts.
    pub bounded_monotone: bool,
    /// ⊕ is idempotent (a ⊕ a = a): under inserts only, a payload can be
    /// kept as its value, each contribution absorbing the one it grew
    /// from, in O(1) where deletes would need an ordered multiset.
    pub idempotent: bool,
    /// Idempotent and strictly ordered, or with an injective homomorphism
    /// from ℕ: a member of the class 𝒦 of *The Role of Semirings in
    /// Incremental View Maintenance* (Definition 8), for which
    /// non-p-hierarchical queries are hard under inserts.
    pub in_k: bool,
    /// The max-max semiring's shape (⊕ = ⊗ = max): free-connex queries
    /// without a q-core are tractable under inserts (*Answering Conjunctive
    /// Queries with Aggregations under Updates*, section 5.2).
    pub max_max: bool,
    /// O(1)-deletable aggregates (the same paper, section 5.3): a retraction
    /// costs O(1) (rings, counts, derivation counts).
    pub deletable: bool,
    /// Retraction through an ordered multiset of contributions, O(log N)
    /// per operation, the optimum for selective semirings under deletes.
    pub ordered_deletes: bool,
    /// ⊕ is numeric addition and ⊗ multiplication over ℕ, ℤ or ℝ (or a ring
    /// built from them): the triangle count strategy IVMε applies.
    pub counting: bool,
}

impl SemiringClass {
    /// The class keywords accepted in `#[semiring(path, class, ...)]`, with
    /// what each one claims.
    pub const KEYWORDS: &'static [(&'static str, &'static str)] = &[
        ("ring", "additive inverses exist; deletes subtract"),
        ("positive", "zero-sum free and zero-divisor free"),
        (
            "strictly_monotone",
            "strictly monotone (\"Answering Conjunctive Queries with Aggregations under Updates\", Definition 7)",
        ),
        (
            "oplus_strictly_monotone",
            "⊕-strictly monotone (\"Answering Conjunctive Queries with Aggregations under Updates\", section 4.2)",
        ),
        ("bounded_monotone", "monotone sequences have bounded length"),
        (
            "idempotent",
            "idempotent and strictly ordered (\"The Role of Semirings in Incremental View Maintenance\", Definition 8)",
        ),
        ("natural", "has an injective homomorphism from (ℕ, +, ×)"),
        ("max_max", "⊕ and ⊗ are both max over an ordered domain"),
        ("deletable", "O(1)-deletable aggregates"),
        (
            "ordered",
            "retraction through an ordered multiset, O(log N)",
        ),
        ("counting", "⊕ is + and ⊗ is × over numbers"),
    ];

    /// Adds the property named by a class keyword; `false` if the keyword is
    /// unknown.
    pub fn add_keyword(&mut self, keyword: &str) -> bool {
        match keyword {
            "ring" => {
                self.ring = true;
                self.deletable = true;
            }
            "positive" => self.positive = true,
            "strictly_monotone" => {
                self.strictly_monotone = true;
                self.oplus_strictly_monotone = true;
            }
            "oplus_strictly_monotone" => self.oplus_strictly_monotone = true,
            "bounded_monotone" => self.bounded_monotone = true,
            "idempotent" => {
                self.in_k = true;
                self.idempotent = true;
            }
            "natural" => self.in_k = true,
            "max_max" => self.max_max = true,
            "deletable" => self.deletable = true,
            "ordered" => self.ordered_deletes = true,
            "counting" => self.counting = true,
            _ => return false,
        }
        true
    }

    /// The class words that hold, for explain output.
    pub fn words(&self) -> Vec<&'static str> {
        [
            (self.ring, "ring"),
            (self.positive, "positive"),
            (self.strictly_monotone, "strictly monotone"),
            (
                self.oplus_strictly_monotone && !self.strictly_monotone,
                "⊕-strictly monotone",
            ),
            (self.bounded_monotone, "bounded monotone"),
            (self.deletable, "O(1)-deletable"),
            (self.ordered_deletes, "ordered deletes"),
        ]
        .into_iter()
        .filter_map(|(holds, word)| holds.then_some(word))
        .collect()
    }
}

/// A semiring the compiler knows: its name, as the user writes it, and
/// its class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownSemiring {
    /// The type's name in `ivm::semiring`.
    pub name: &'static str,
    /// Its algebraic class.
    pub class: SemiringClass,
    /// How deletes are handled, in words (for explain output).
    pub deletes: &'static str,
}

/// Looks up a catalogue semiring by its type name (the last path segment).
pub fn catalogue(name: &str) -> Option<KnownSemiring> {
    let base = SemiringClass::default();
    let (class, deletes) = match name {
        "Int" | "Real" | "Decimal" | "Fixed" => (
            SemiringClass {
                ring: true,
                deletable: true,
                counting: true,
                ..base
            },
            "additive inverse",
        ),
        "Covariance" => (
            SemiringClass {
                ring: true,
                deletable: true,
                ..base
            },
            "additive inverse",
        ),
        "Count" => (
            SemiringClass {
                positive: true,
                strictly_monotone: true,
                oplus_strictly_monotone: true,
                in_k: true,
                deletable: true,
                counting: true,
                ..base
            },
            "truncated retraction",
        ),
        "Bool" | "AccessControl" => (
            SemiringClass {
                positive: true,
                idempotent: true,
                bounded_monotone: true,
                deletable: true,
                ..base
            },
            if name == "Bool" {
                "derivation counts"
            } else {
                "derivation counts per level"
            },
        ),
        "MinPlus" | "MaxPlus" | "MaxMin" | "MinMax" => (
            SemiringClass {
                positive: true,
                idempotent: true,
                strictly_monotone: true,
                oplus_strictly_monotone: true,
                in_k: true,
                ordered_deletes: true,
                ..base
            },
            "ordered multiset, O(log N)",
        ),
        "MaxMax" => (
            SemiringClass {
                positive: true,
                idempotent: true,
                oplus_strictly_monotone: true,
                max_max: true,
                ordered_deletes: true,
                ..base
            },
            "ordered multiset, O(log N)",
        ),
        _ => return None,
    };
    let name = CATALOGUE.iter().copied().find(|n| *n == name)?;
    Some(KnownSemiring {
        name,
        class,
        deletes,
    })
}

/// The names of the catalogue, in a fixed order: the order in which
/// explain, error messages and the verdict's hints list them.
pub const CATALOGUE: &[&str] = &[
    "Bool",
    "Count",
    "Int",
    "Real",
    "Decimal",
    "Fixed",
    "MinPlus",
    "MaxPlus",
    "MaxMin",
    "MinMax",
    "MaxMax",
    "AccessControl",
    "Covariance",
];

impl fmt::Display for SemiringClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words = self.words();
        if words.is_empty() {
            f.write_str("no stated properties")
        } else {
            f.write_str(&words.join(", "))
        }
    }
}

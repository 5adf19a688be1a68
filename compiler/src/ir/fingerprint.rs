//! The plan hash a snapshot carries: a hash of a canonical, versioned text
//! of the program, so that a snapshot restores only into a struct that
//! keeps the same state, and survives everything that does not change it
//! (doc comments, the emitter's formatting, a new proc-macro2).
//!
//! The text is the IR's display (what `ivmc explain --ir` prints), the
//! relations' column types, and the same for every subprogram, behind
//! [`PLAN_FORMAT`], with all white space taken out: the Rust types and
//! expressions in it are printed by proc-macro2, whose spacing between
//! tokens is not promised to stay, while the tokens themselves are the
//! ones written.

use super::Program;

/// The version of the state layout the emitter gives a program. Raise it
/// when the emitter changes how it stores a program's state while the IR
/// stays the same: snapshots taken before then are then refused as taken
/// under another plan rather than misread. (3: a fingerprint map keeps
/// the copies waiting to be counted, and `Decimal` hashes its scale
/// first, which changes every fingerprint of a row with a decimal. 4: a
/// table kept as fingerprints over a semiring that retracts exactly, not
/// only a ring, tells its views each update's δ, so their states hold each
/// contribution apart where they held each row's total. 5: an index keeps
/// its first tuple of a group inline, and the positions of a group's
/// tuples only past eight of them; a fingerprint map counts copies in a
/// table of its own. 6: `Decimal` hashes its value as one `i128`, which
/// changes every fingerprint of a row with a decimal.)
pub const PLAN_FORMAT: u32 = 6;

impl Program {
    /// The canonical text the plan hash is taken over.
    pub fn fingerprint(&self) -> String {
        let mut text = format!("ivm plan format {PLAN_FORMAT}\n");
        self.describe(&mut text);
        text.retain(|c| !c.is_whitespace());
        text
    }

    fn describe(&self, text: &mut String) {
        text.push_str(&self.to_string());
        for r in &self.relations {
            let types: Vec<String> = r
                .columns
                .iter()
                .map(|(_, ty)| crate::query::type_string(ty))
                .collect();
            text.push_str(&format!("relation {}({})\n", r.name, types.join(", ")));
        }
        for part in self.semijoins.iter().flat_map(super::Semijoin::parts) {
            text.push_str(&format!("subprogram {}\n", part.field));
            part.program.describe(text);
        }
    }

    /// FNV-1a over [`fingerprint`](Self::fingerprint): the `PLAN` of the
    /// program's snapshots.
    pub fn plan_hash(&self) -> u64 {
        self.fingerprint()
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            })
    }
}

#[cfg(test)]
mod tests {
    use crate::driver::ir_str;

    fn hash(text: &str) -> u64 {
        let programs = ir_str(text).expect("the query parses");
        programs[0].as_ref().expect("the query lowers").plan_hash()
    }

    const REVENUE: &str = "
        /// Revenue per store.
        query Revenue {
            relation Sales(store: u32, item: u64, units: i64);
            relation Prices(store: u32, item: u64, cents: i64);
            Q(store) = Sales(store, item, n) * { Int(n) } * Prices(store, item, p) * { Int(p) };
        }";

    /// Snapshots saved by one build must restore in the next: this hash
    /// changes only when the plan or `PLAN_FORMAT` does. If it fails, the
    /// change makes every saved snapshot of this query unreadable: raise
    /// `PLAN_FORMAT` if the state's layout changed, and pin the new value.
    #[test]
    fn the_plan_hash_of_a_fixed_query_is_pinned() {
        assert_eq!(
            hash(REVENUE),
            0x3125_d1d6_8bda_171e,
            "the plan hash of `Revenue` changed"
        );
    }

    #[test]
    fn spacing_and_doc_comments_do_not_change_the_hash() {
        let respaced = REVENUE
            .replace("/// Revenue per store.", "")
            .replace("{ Int(n) }", "{Int( n )}")
            .replace("u32,", "u32 ,");
        assert_eq!(hash(&respaced), hash(REVENUE));
    }

    #[test]
    fn another_plan_has_another_hash() {
        let wider = REVENUE.replace("store: u32", "store: u64");
        assert_ne!(hash(&wider), hash(REVENUE));
        let other = REVENUE.replace("Q(store)", "Q(store, item)");
        assert_ne!(hash(&other), hash(REVENUE));
    }
}

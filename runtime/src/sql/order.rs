//! ORDER BY, LIMIT and OFFSET of a view written in SQL
//! (`docs/design.md#order-by-and-limit`).
//!
//! A view's rows are maintained as an unordered set of groups; ORDER BY
//! is a total order on its rows ([`Ordered::order`]): the ORDER BY items,
//! then every select item ascending, so ties break the same way on every
//! run. Two ways to read in that order:
//!
//! - **ORDER BY alone** sorts at reading: `iter()` and `text_rows()` cost
//!   O(n log n) for n rows, and updates nothing more.
//! - **LIMIT or OFFSET** keeps the rows in an ordered map ([`Ranked`]),
//!   fed after each update with the groups whose rows changed: O(log n)
//!   per changed row. Reading the window costs O(offset + limit), and
//!   `changes()` reports the rows that entered, left or changed within it
//!   since the previous call. Where the rule finds its changes only by
//!   comparing its whole result with the previous one, feeding the map
//!   would cost that much per update; such a view sorts its rows at
//!   reading instead ([`Ranking::FED`] is false), and cuts the window.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::hash::Hash;

use super::rows::{Change, Key, Payload, Rows, TextChanges};
use crate::changes::Changes;
use crate::index::{HashMap, new_map};
use crate::{Semiring, View};

/// One ORDER BY item of a view: which select item, which way, and where
/// NULL goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderKey {
    /// The select item, counted from 0.
    pub column: usize,
    /// `DESC`.
    pub descending: bool,
    /// Whether NULL comes before every value. By default NULL is the
    /// smallest value, as in SQLite: first under `ASC`, last under `DESC`;
    /// `NULLS FIRST` and `NULLS LAST` say otherwise.
    pub nulls_first: bool,
}

/// A view's ORDER BY, LIMIT and OFFSET, as [`TextView::order`] reports
/// them.
///
/// [`TextView::order`]: super::TextView::order
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order {
    /// The ORDER BY items, in order (none for a bare LIMIT, whose rows
    /// are then in the order of their select items).
    pub keys: &'static [OrderKey],
    /// `LIMIT k`: at most k rows.
    pub limit: Option<u64>,
    /// `OFFSET m`: the first m rows are skipped.
    pub offset: u64,
}

impl Order {
    /// Whether only a window of the ordered rows is the view's: LIMIT or
    /// OFFSET, kept in a [`Ranked`].
    pub fn is_window(&self) -> bool {
        self.limit.is_some() || self.offset > 0
    }
}

/// A view with ORDER BY (or LIMIT): the order of its rows, which generated
/// code writes.
pub trait Ordered: Rows {
    /// The view's ORDER BY, LIMIT and OFFSET.
    const ORDER: Order;

    /// How the rows of two groups compare, each group given by its key
    /// and payload: by the ORDER BY items, then by every select item
    /// ascending (NULL first). Read off the groups, not their rows, so
    /// that ranking a group clones none of its text.
    fn order(a: (&Key<Self>, &Payload<Self>), b: (&Key<Self>, &Payload<Self>)) -> Ordering;
}

/// A view with LIMIT or OFFSET: its [`Ranked`] beside its rule.
pub trait Ranking: Ordered + Sized {
    /// Whether the ordered map is fed after each update; if not, the
    /// window is cut from the rows sorted at reading.
    const FED: bool;
    /// The ordered rows.
    fn ranked(&self) -> &Ranked<Self>;
    /// The rule and the ordered rows, to feed one from the other.
    fn parts(&mut self) -> (&mut Self::Rule, &mut Ranked<Self>);
}

/// `a` against `b` where `NULLS LAST` puts NULL after every value of an
/// ascending order (or `NULLS FIRST` before every value of a descending
/// one, with the arguments swapped): what generated comparators call where
/// the default placement of NULL is overridden.
pub fn nulls_last<T: Ord>(a: &Option<T>, b: &Option<T>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(b),
        (a, b) => a.is_none().cmp(&b.is_none()),
    }
}

/// A group in the ordered map: compared by the view's order of its row,
/// then by its key (two groups may read as the same row). It keeps the
/// key and payload the row is read off, not the row, so that a group
/// moves without a clone of its text.
struct Entry<V: Ordered> {
    key: Key<V>,
    payload: Payload<V>,
}

/// A group as the ordered map compares it: an [`Entry`], or the key and
/// payload of one to find (with no entry built, hence no clone).
trait Group<V: Ordered> {
    fn parts(&self) -> (&Key<V>, &Payload<V>);
}

impl<V: Ordered> Group<V> for Entry<V> {
    fn parts(&self) -> (&Key<V>, &Payload<V>) {
        (&self.key, &self.payload)
    }
}

impl<V: Ordered> Group<V> for (&Key<V>, &Payload<V>) {
    fn parts(&self) -> (&Key<V>, &Payload<V>) {
        (self.0, self.1)
    }
}

impl<'a, V: Ordered + 'a> std::borrow::Borrow<dyn Group<V> + 'a> for Entry<V> {
    fn borrow(&self) -> &(dyn Group<V> + 'a) {
        self
    }
}

impl<V: Ordered> Ord for dyn Group<V> + '_
where
    Key<V>: Ord,
{
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.parts(), other.parts());
        V::order(a, b).then_with(|| a.0.cmp(b.0))
    }
}

impl<V: Ordered> PartialOrd for dyn Group<V> + '_
where
    Key<V>: Ord,
{
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<V: Ordered> PartialEq for dyn Group<V> + '_
where
    Key<V>: Ord,
{
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<V: Ordered> Eq for dyn Group<V> + '_ where Key<V>: Ord {}

// An entry orders as the group it is, so that finding one by its parts
// (through `Borrow`) agrees with the map's order.
impl<V: Ordered> Ord for Entry<V>
where
    Key<V>: Ord,
{
    fn cmp(&self, other: &Self) -> Ordering {
        (self as &dyn Group<V>).cmp(other as &dyn Group<V>)
    }
}

impl<V: Ordered> PartialOrd for Entry<V>
where
    Key<V>: Ord,
{
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<V: Ordered> PartialEq for Entry<V>
where
    Key<V>: Ord,
{
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<V: Ordered> Eq for Entry<V> where Key<V>: Ord {}

/// The rows of a view with LIMIT or OFFSET in their order, each with its
/// copies (1 but in a bag), fed by [`rank`] after every update; and what
/// the view's `changes()` and `ivm::View::changes` report from, since
/// [`rank`] reads the rule's changes itself.
pub struct Ranked<V: Ordered> {
    /// Every group, in the order of its row, with its copies.
    rows: BTreeMap<Entry<V>, i64>,
    /// The window as of the previous `changes()` call: `None` before the
    /// first.
    shown: Option<Vec<Windowed<V>>>,
    /// The rule's payloads at the previous `ivm::View::changes` call, at
    /// the groups changed since.
    journal: Changes<Key<V>, Payload<V>>,
}

impl<V: Ordered> Default for Ranked<V> {
    fn default() -> Self {
        Ranked {
            rows: BTreeMap::new(),
            shown: None,
            journal: Changes::default(),
        }
    }
}

impl<V: Ordered> Ranked<V>
where
    Key<V>: Ord + Clone + Hash,
{
    /// Moves group `key` from its row under payload `then` to its row
    /// under `now`: O(log n).
    fn moved(&mut self, key: Key<V>, then: &Payload<V>, now: &Payload<V>) {
        let copies = |payload: &Payload<V>| {
            if payload.is_zero() {
                0
            } else {
                V::copies(payload)
            }
        };
        if copies(then) > 0 {
            self.rows.remove(&(&key, then) as &dyn Group<V>);
        }
        let copies = copies(now);
        if copies > 0 {
            let payload = now.clone();
            self.rows.insert(Entry { key, payload }, copies);
        }
    }

    /// The window's groups in order, each with its copies in the window:
    /// O(offset + limit).
    fn window(&self) -> impl Iterator<Item = (&Entry<V>, i64)> + '_ {
        cut::<V, _>(self.rows.iter().map(|(e, &copies)| (e, copies)))
    }
}

/// The rows of `rows` (in the view's order, each with its copies) that
/// fall in its window, each with its copies there: `OFFSET` copies
/// skipped, then `LIMIT` copies taken (a bag's row at the window's edge
/// may have only some of its copies inside).
fn cut<V: Ordered, T>(mut rows: impl Iterator<Item = (T, i64)>) -> impl Iterator<Item = (T, i64)> {
    let Order { offset, limit, .. } = V::ORDER;
    let (mut skip, mut left) = (offset, limit.unwrap_or(u64::MAX));
    std::iter::from_fn(move || {
        while left > 0 {
            let (row, copies) = rows.next()?;
            let copies = copies.unsigned_abs();
            let skipped = skip.min(copies);
            skip -= skipped;
            let taken = (copies - skipped).min(left);
            if taken > 0 {
                left -= taken;
                return Some((row, taken as i64));
            }
        }
        None
    })
}

/// Feeds the groups whose payload changed since the previous call to the
/// view's ordered rows: what every update of a view with LIMIT or OFFSET
/// ends with, and what builds them at the start (from an empty rule) and
/// after a restore (the rule's first `changes()` reports every group).
pub fn rank<V: Ranking>(view: &mut V)
where
    Key<V>: Ord + Clone + Hash,
{
    if !V::FED {
        return;
    }
    let (rule, ranked) = view.parts();
    // Read through `by_ref`: a `for` loop over the iterator itself would
    // move it (a kilobyte or more for a rule of several views) before its
    // first step, at every update.
    let mut changes = rule.changes();
    for (key, then, now) in changes.by_ref() {
        ranked.journal.note(&key, || then.clone());
        ranked.moved(key, &then, &now);
    }
}

/// The window's rows in order, each with its group key and its copies
/// in the window: walked in the ordered map, O(offset + limit), or cut
/// from the rows sorted now.
fn window<V: Ranking>(view: &V) -> Vec<Windowed<V>>
where
    Key<V>: Ord + Clone + Hash,
    V::Row: Clone,
{
    if V::FED {
        return view
            .ranked()
            .window()
            .map(|(e, copies)| (e.key.clone(), V::row(&e.key, &e.payload), copies))
            .collect();
    }
    let sorted = sorted(view)
        .into_iter()
        .map(|(key, row, copies)| ((key, row), copies));
    cut::<V, _>(sorted)
        .map(|((key, row), copies)| (key, row, copies))
        .collect()
}

/// The window's rows in order, each with its group key.
pub fn iter<V: Ranking>(view: &V) -> impl Iterator<Item = (Key<V>, V::Row)> + '_
where
    Key<V>: Ord + Clone + Hash,
    V::Row: Clone,
{
    window(view).into_iter().map(|(key, row, _)| (key, row))
}

/// The row of one group, `None` unless it is in the window.
pub fn get<V: Ranking>(view: &V, key: &Key<V>) -> Option<V::Row>
where
    Key<V>: Ord + Clone + Hash,
    V::Row: Clone,
{
    window(view)
        .into_iter()
        .find(|(k, ..)| k == key)
        .map(|(_, row, _)| row)
}

/// The number of distinct rows in the window.
pub fn len<V: Ranking>(view: &V) -> usize
where
    Key<V>: Ord + Clone + Hash,
    V::Row: Clone,
{
    window(view).len()
}

/// The window's rows as text, in order, a bag's once per copy.
pub fn text_rows<V: Ranking>(view: &V) -> Vec<Vec<String>>
where
    Key<V>: Ord + Clone + Hash,
    V::Row: Clone,
{
    let mut rows = Vec::new();
    for (_, row, copies) in window(view) {
        let text = V::text(&row);
        for _ in 0..copies {
            rows.push(text.clone());
        }
    }
    rows
}

/// The groups whose row entered, left or changed within the window since
/// the previous call (every row of the window, at the first), each with
/// its row and copies then and now: O(limit) per call.
fn window_changes<V: Ranking>(view: &mut V) -> Vec<(Key<V>, Shown<V>, Shown<V>)>
where
    Key<V>: Ord + Clone + Hash,
    V::Row: Clone + PartialEq,
{
    let now = window(view);
    let (_, ranked) = view.parts();
    let then = ranked.shown.replace(now.clone()).unwrap_or_default();
    let mut then: HashMap<Key<V>, (V::Row, i64)> = {
        let mut map = new_map();
        map.extend(
            then.into_iter()
                .map(|(key, row, copies)| (key, (row, copies))),
        );
        map
    };
    let mut out = Vec::new();
    for (key, row, copies) in now {
        match then.remove(&key) {
            Some(was) if was.0 == row && was.1 == copies => {}
            was => out.push((key, was, Some((row, copies)))),
        }
    }
    out.extend(then.into_iter().map(|(key, was)| (key, Some(was), None)));
    out
}

/// A row in order: its group key, the row, and its copies (in the window,
/// where it is one).
type Windowed<V> = (Key<V>, <V as Rows>::Row, i64);

/// A group's row and copies in the window, `None` where it is not there.
type Shown<V> = Option<(<V as Rows>::Row, i64)>;

/// The rows that entered, left or changed within the window since the
/// previous call, each group's key with its row then and now (`None`
/// outside the window).
pub fn changes<V: Ranking>(view: &mut V) -> impl Iterator<Item = Change<V>>
where
    Key<V>: Ord + Clone + Hash,
    V::Row: Clone + PartialEq,
{
    window_changes(view)
        .into_iter()
        .map(|(key, then, now)| (key, then.map(|s| s.0), now.map(|s| s.0)))
}

/// [`changes`] as text: the rows that left the window and the rows that
/// entered it (a bag's once per copy there).
pub fn text_changes<V: Ranking>(view: &mut V) -> TextChanges
where
    Key<V>: Ord + Clone + Hash,
    V::Row: Clone + PartialEq,
{
    let (mut gone, mut came) = (Vec::new(), Vec::new());
    for (_, then, now) in window_changes(view) {
        for (shown, into) in [(then, &mut gone), (now, &mut came)] {
            if let Some((row, copies)) = shown {
                let text = V::text(&row);
                for _ in 0..copies {
                    into.push(text.clone());
                }
            }
        }
    }
    (gone, came)
}

/// `ivm::View::changes` of a view with LIMIT or OFFSET: the groups of its
/// whole result (before ORDER BY and LIMIT, as its `ivm::View::iter`)
/// whose payload changed since the previous call: the rule's own where
/// [`rank`] does not read them, else from a journal that [`rank`] keeps
/// once this was called.
pub fn payload_changes<V: Ranking>(
    view: &mut V,
) -> impl Iterator<Item = (Key<V>, Payload<V>, Payload<V>)>
where
    Key<V>: Ord + Clone + Hash,
{
    let (rule, ranked) = view.parts();
    if !V::FED {
        return rule.changes().collect::<Vec<_>>().into_iter();
    }
    let rule = &*rule;
    let out: Vec<_> = match ranked.journal.take_journal() {
        None => rule
            .iter()
            .map(|(key, now)| (key, Payload::<V>::zero(), now))
            .collect(),
        Some(noted) => noted
            .into_iter()
            .filter_map(|(key, then)| {
                let now = rule.get(&key);
                (then != now).then_some((key, then, now))
            })
            .collect(),
    };
    out.into_iter()
}

/// The rows of a view with ORDER BY (and no LIMIT or OFFSET) in order,
/// each with its group key: sorted at each call, O(n log n).
pub fn sorted<V: Ordered>(view: &V) -> Vec<Windowed<V>>
where
    Key<V>: Ord,
{
    let mut groups: Vec<_> = view.rule().iter().collect();
    groups.sort_by(|a, b| V::order((&a.0, &a.1), (&b.0, &b.1)).then_with(|| a.0.cmp(&b.0)));
    groups
        .into_iter()
        .map(|(key, payload)| {
            let row = V::row(&key, &payload);
            (key, row, V::copies(&payload))
        })
        .collect()
}

/// [`sorted`] as text, a bag's row once per copy.
pub fn sorted_text_rows<V: Ordered>(view: &V) -> Vec<Vec<String>>
where
    Key<V>: Ord,
{
    let mut rows = Vec::new();
    for (_, row, copies) in sorted(view) {
        let text = V::text(&row);
        for _ in 0..copies {
            rows.push(text.clone());
        }
    }
    rows
}

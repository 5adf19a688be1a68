//! The maintenance IR: what a strategy keeps and what each update does to
//! it, in the spirit of DBToaster's M3.
//!
//! A [`Program`] holds the materialized maps (base relations, aggregate
//! views, the free-variable levels the output is enumerated from), one
//! [`Trigger`] per relation, and the [`Output`] description. Planners lower
//! into it; the one emitter turns it into Rust. `ivmc explain --ir` prints
//! it with [`Program`]'s `Display`.

mod display;
mod fingerprint;
mod verify;

pub use fingerprint::PLAN_FORMAT;
pub use verify::verify;

use std::marker::PhantomData;

use proc_macro2::Ident;
use syn::{Type, Visibility};

use crate::query::{DeleteCheck, Deletes, UpdateModel};

/// Index of a variable in [`Program::vars`].
pub type VarId = usize;
/// Index of a map in [`Program::maps`].
pub type MapId = usize;
/// A map of kind `K` (one of the structs [`MapKind`] holds): its index in
/// [`Program::maps`], typed, so that code holding one reads the map's
/// fields through [`Program::get`] and never checks its kind again. Only
/// [`push_map`] (which adds the map) and [`Program::id`] (which checks the
/// kind) make one.
pub struct Id<K> {
    index: MapId,
    kind: PhantomData<fn() -> K>,
}

impl<K> Id<K> {
    /// The map's untyped index.
    pub fn map(self) -> MapId {
        self.index
    }
}

impl<K> From<Id<K>> for MapId {
    fn from(id: Id<K>) -> MapId {
        id.index
    }
}

impl<K> Clone for Id<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for Id<K> {}

impl<K> PartialEq for Id<K> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}

impl<K> Eq for Id<K> {}

impl<K> std::hash::Hash for Id<K> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}

impl<K> std::fmt::Debug for Id<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Id({})", self.index)
    }
}

impl<K> std::ops::Index<Id<K>> for Vec<Map> {
    type Output = Map;

    fn index(&self, id: Id<K>) -> &Map {
        &self[id.index]
    }
}

impl<K> std::ops::Index<Id<K>> for [Map] {
    type Output = Map;

    fn index(&self, id: Id<K>) -> &Map {
        &self[id.index]
    }
}

impl std::ops::Index<Target> for Vec<Map> {
    type Output = Map;

    fn index(&self, target: Target) -> &Map {
        &self[target.map()]
    }
}

impl std::ops::Index<Target> for [Map] {
    type Output = Map;

    fn index(&self, target: Target) -> &Map {
        &self[target.map()]
    }
}

impl<K> std::ops::IndexMut<Id<K>> for Vec<Map> {
    fn index_mut(&mut self, id: Id<K>) -> &mut Map {
        &mut self[id.index]
    }
}

/// A kind of map: one of the structs a [`MapKind`] variant holds.
pub trait Kind: Sized + Into<MapKind> + 'static {
    /// The struct inside `kind`, if `kind` is of this kind.
    fn of(kind: &MapKind) -> Option<&Self>;
    /// The struct inside `kind`, mutably, if `kind` is of this kind.
    fn of_mut(kind: &mut MapKind) -> Option<&mut Self>;
}

macro_rules! kinds {
    ($($variant:ident($kind:ident)),* $(,)?) => {
        /// A map's typed id, by its kind: what [`Program::typed`] returns,
        /// so that code that dispatches on a map's kind holds the typed id
        /// in each arm.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Typed {
            $(
                #[doc = concat!("A [`", stringify!($kind), "`].")]
                $variant(Id<$kind>),
            )*
        }

        impl Draft {
            /// Map `m`'s typed id.
            pub fn typed(&self, m: MapId) -> Typed {
                match &self.maps[m].kind {
                    $(MapKind::$variant(_) => Typed::$variant(Id { index: m, kind: PhantomData }),)*
                }
            }
        }
        kinds!(@each $($variant($kind)),*);
    };
    (@each $($variant:ident($kind:ident)),*) => {$(
        impl Kind for $kind {
            fn of(kind: &MapKind) -> Option<&Self> {
                match kind {
                    MapKind::$variant(k) => Some(k),
                    _ => None,
                }
            }
            fn of_mut(kind: &mut MapKind) -> Option<&mut Self> {
                match kind {
                    MapKind::$variant(k) => Some(k),
                    _ => None,
                }
            }
        }

        impl From<$kind> for MapKind {
            fn from(kind: $kind) -> MapKind {
                MapKind::$variant(kind)
            }
        }
    )*};
}

kinds!(
    Base(BaseMap),
    Sum(SumView),
    Index(RelationIndex),
    ViewIndex(ViewIndex),
    Triangle(TriangleState),
    Result(ResultMap),
    RangeSums(RangeSums),
    Join(JoinNode),
    Support(Support),
    Extension(Extension),
    Joined(JoinedMap),
    Cluster(ClusterNode),
    Best(BestMap),
    Message(Message),
    Free(FreeLevel),
);

/// A map in a tree of maps of its kind: a free level, a top join node or
/// a cluster node.
pub trait Linked: Kind {
    /// The node above; `None` at the root.
    fn parent(&self) -> Option<Id<Self>>;
    /// The nodes below.
    fn children(&self) -> &[Id<Self>];
}

/// A node of an insert-only join tree: a relation of the top join, or an
/// atom of a max-max cluster.
pub trait TreeNode: Linked {
    /// The variables shared with the parent.
    fn shared(&self) -> &[VarId];
    /// The node as a relation of the top join; `None` for a cluster's
    /// atom.
    fn top(id: Id<Self>) -> Option<Id<JoinNode>>;
}

macro_rules! linked {
    ($($kind:ident),*) => {$(
        impl Linked for $kind {
            fn parent(&self) -> Option<Id<Self>> {
                self.parent
            }
            fn children(&self) -> &[Id<Self>] {
                &self.children
            }
        }
    )*};
}

linked!(FreeLevel, JoinNode, ClusterNode);

impl TreeNode for JoinNode {
    fn shared(&self) -> &[VarId] {
        &self.shared
    }
    fn top(id: Id<Self>) -> Option<Id<JoinNode>> {
        Some(id)
    }
}

impl TreeNode for ClusterNode {
    fn shared(&self) -> &[VarId] {
        &self.shared
    }
    fn top(_: Id<Self>) -> Option<Id<JoinNode>> {
        None
    }
}

/// Adds a map of kind `K` to `maps` and returns its typed id.
pub fn push_map<K: Kind>(
    maps: &mut Vec<Map>,
    name: Ident,
    doc: String,
    key: Vec<VarId>,
    kind: K,
) -> Id<K> {
    maps.push(Map {
        name,
        doc,
        key,
        kind: kind.into(),
    });
    Id {
        index: maps.len() - 1,
        kind: PhantomData,
    }
}

/// The map `id` names, of its kind, in `maps` (a program's maps, or those a
/// planner is building).
pub fn map_in<K: Kind>(maps: &[Map], id: Id<K>) -> &K {
    K::of(&maps[id.index].kind).expect("a typed id names a map of its kind")
}

/// The map `id` names, of its kind, mutably.
pub fn map_in_mut<K: Kind>(maps: &mut [Map], id: Id<K>) -> &mut K {
    K::of_mut(&mut maps[id.index].kind).expect("a typed id names a map of its kind")
}

/// The typed id of map `m` in `maps`, if it is of kind `K`.
pub fn id_in<K: Kind>(maps: &[Map], m: MapId) -> Option<Id<K>> {
    K::of(&maps[m].kind).map(|_| Id {
        index: m,
        kind: PhantomData,
    })
}

impl Draft {
    /// The map `id` names, of its kind.
    pub fn get<K: Kind>(&self, id: Id<K>) -> &K {
        map_in(&self.maps, id)
    }

    /// The map `id` names, of its kind, mutably.
    pub fn get_mut<K: Kind>(&mut self, id: Id<K>) -> &mut K {
        map_in_mut(&mut self.maps, id)
    }

    /// The typed id of map `m`, if it is of kind `K`.
    pub fn id<K: Kind>(&self, m: MapId) -> Option<Id<K>> {
        id_in(&self.maps, m)
    }

    /// Every map of kind `K`, in map order, with its struct.
    pub fn all<K: Kind>(&self) -> impl Iterator<Item = (Id<K>, &K)> + '_ {
        (0..self.maps.len()).filter_map(|m| {
            let id = self.id::<K>(m)?;
            Some((id, self.get(id)))
        })
    }

    /// The top join node whose factors hold map `m` (a CROWN message of a
    /// child of the head, a max-max cluster's best map), if any.
    pub fn fed_node(&self, m: MapId) -> Option<Id<JoinNode>> {
        self.all::<JoinNode>()
            .find(|(_, node)| node.factors.contains(&Factor::Map(m)))
            .map(|(id, _)| id)
    }

    /// The message that lists message `m` among its children, if any.
    pub fn parent_message(&self, m: Id<Message>) -> Option<Id<Message>> {
        self.all::<Message>()
            .find(|(_, message)| message.children.contains(&m))
            .map(|(id, _)| id)
    }

    /// The field name of a map.
    pub fn name_of<K>(&self, id: Id<K>) -> &Ident {
        &self.maps[id.index].name
    }

    /// A map's entry in [`Program::maps`] (name, doc, key, kind).
    pub fn map_of<K>(&self, id: Id<K>) -> &Map {
        &self.maps[id.index]
    }
}

/// Index of a relation in [`Program::relations`].
pub type RelId = usize;
/// Index of an atom in [`Program::atoms`].
pub type AtomId = usize;

/// A query being lowered for maintenance: everything of its [`Program`]
/// but where the result is read from, which the planner gives last
/// ([`Draft::finish`]), once the maps that hold the result exist.
#[derive(Debug, Clone)]
pub struct Draft {
    /// The generated struct's name.
    pub name: Ident,
    /// Its visibility.
    pub vis: Visibility,
    /// Its doc comment lines (the query item's).
    pub docs: Vec<String>,
    /// The rule as written, for the generated docs.
    pub rule: String,
    /// The payload (semiring) type.
    pub payload: Type,
    /// Whether products of non-zero payloads can be zero (a semiring with
    /// zero divisors): enumeration then filters, and `len` counts by
    /// enumerating.
    pub zero_divisors: bool,
    /// Which updates the generated code supports.
    pub updates: UpdateModel,
    /// Whether its deletes are checked.
    pub deletes: Deletes,
    /// Payloads are kept as plain values that each contribution is ⊕-ed
    /// into (`ivm::Absorbed`), not as retractable multisets
    /// (`ivm::Maintained`): inserts only, over an idempotent semiring, so
    /// every payload operation is O(1).
    pub absorbing: bool,
    /// The class keywords the user's semiring claims (`ring`, `positive`,
    /// ...), with their spans: the generated code checks each one against
    /// the trait that states it.
    pub claims: Vec<Ident>,
    /// The catalogue types the payload was taken for, with their names
    /// (`query::SemiringSpec::catalogue_types`): the generated code proves
    /// each one.
    pub catalogue_types: Vec<(Type, &'static str)>,
    /// One line on the strategy and its bounds, for the generated docs.
    pub summary: String,
    /// A warning to raise where the query is compiled: set when a query
    /// that is not tractable was taken on with `#[allow(intractable)]`.
    pub warning: Option<String>,
    /// The variables, with their types.
    pub vars: Vec<Var>,
    /// The relations.
    pub relations: Vec<RelationIr>,
    /// The atoms of the rule.
    pub atoms: Vec<AtomIr>,
    /// The theta factors: each derivation's product is multiplied by them
    /// (first-order and recompute only; every other strategy rejects a
    /// query that has one).
    pub theta: Vec<crate::query::ExprFactor>,
    /// Every materialized map.
    pub maps: Vec<Map>,
    /// One trigger per relation, in relation order.
    pub triggers: Vec<Trigger>,
    /// The head variables, in head order: an output tuple's items.
    pub head: Vec<VarId>,
    /// The semijoins: each keeps one relation of this program equal to
    /// its indicator, from the programs of its body (and domain).
    pub semijoins: Vec<Semijoin>,
}

impl Draft {
    /// The program, its result read from `reading`.
    pub fn finish(self, reading: Reading) -> Program {
        Program {
            draft: self,
            reading,
        }
    }
}

/// A query lowered for maintenance: its [`Draft`] (every map, trigger and
/// relation, which a program reads through `Deref` as its own fields) and
/// where its result is read from.
#[derive(Debug, Clone)]
pub struct Program {
    draft: Draft,
    /// Where the result is read from.
    pub reading: Reading,
}

impl std::ops::Deref for Program {
    type Target = Draft;

    fn deref(&self) -> &Draft {
        &self.draft
    }
}

impl std::ops::DerefMut for Program {
    fn deref_mut(&mut self) -> &mut Draft {
        &mut self.draft
    }
}

/// A semijoin (`query::Semijoin`): the programs that count its body's
/// derivations (and, for `not exists`, its domain's), each a struct of its
/// own held in a field, and the relation of the outer program that holds
/// its indicator.
#[derive(Debug, Clone)]
pub struct Semijoin {
    /// The relation holding the indicator, fed like a derived relation.
    pub relation: RelId,
    /// The factor as written.
    pub text: String,
    /// The body's count.
    pub body: Subprogram,
    /// `exists` or `not exists`, with the latter's domain.
    pub polarity: Polarity,
    /// What the counts take for an update of a tuple they read.
    pub tally: Tally,
}

/// What a semijoin's counts take for an update of a tuple they read: one
/// per contribution, which the update's δ alone tells, or one where the
/// tuple turns live or dead, which only its kept payload tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tally {
    /// One per contribution: over a positive semiring no contribution
    /// takes another away (a sum of non-zero payloads is never zero), so
    /// a count of contributions is zero exactly where a count of live
    /// tuples is.
    Contributions,
    /// The tables of a SQL view, whose API only adds or takes back whole
    /// rows: a tuple's payload counts its rows and is never negative. One
    /// per contribution where nothing else can reach the rule (its holder
    /// checks the deletes) or the caller promises as much (`deletes =
    /// 'trusted'`, the contract of which covers the rule's own update
    /// methods); one per turn where the rule's `update_*` may be handed a
    /// δ that takes rows away.
    Rows,
    /// One where the tuple turns live or dead: over a ring an update can
    /// take a tuple away, and an update of δ does not say whether it did.
    Turns,
}

impl Tally {
    /// Whether the counts may take one per contribution for an update of
    /// `relation` in `p`: then they need no payload of its tuples.
    pub fn per_contribution(self, p: &Draft, relation: RelId) -> bool {
        match self {
            Tally::Contributions => true,
            Tally::Rows => {
                p.deletes == Deletes::Trusted || p.relations[relation].checked_by_holder()
            }
            Tally::Turns => false,
        }
    }
}

/// Which way a semijoin's indicator reads its counts.
#[derive(Debug, Clone)]
pub enum Polarity {
    /// `exists`: 1 where the body's count is non-zero.
    Exists,
    /// `not exists`: 1 where the domain's count (the values of the
    /// correlated variables in the rule's atom that binds them all) is
    /// non-zero and the body's is zero.
    NotExists {
        /// The domain's count.
        domain: Subprogram,
    },
}

impl Semijoin {
    /// The domain's count, for `not exists`.
    pub fn domain(&self) -> Option<&Subprogram> {
        match &self.polarity {
            Polarity::Exists => None,
            Polarity::NotExists { domain } => Some(domain),
        }
    }

    /// The body, then the domain if there is one.
    pub fn parts(&self) -> impl Iterator<Item = &Subprogram> + '_ {
        std::iter::once(&self.body).chain(self.domain())
    }
}

/// A program kept inside another, in a field, and updated from the
/// outer program's relations.
#[derive(Debug, Clone)]
pub struct Subprogram {
    /// The field holding its struct.
    pub field: Ident,
    /// The program.
    pub program: Box<Program>,
    /// The relations of the outer program it reads.
    pub reads: Vec<SubprogramRead>,
}

/// One relation of an outer program that a subprogram reads.
#[derive(Debug, Clone)]
pub struct SubprogramRead {
    /// The relation, in the outer program.
    pub relation: RelId,
    /// Its `snake_case` name in the subprogram (`update_<snake>`).
    pub snake: String,
    /// Per atom of the subprogram over it that binds the whole head: the
    /// columns of a tuple that form the subprogram's output tuple (its
    /// head, in order) there.
    pub keys: Vec<Vec<KeyColumn>>,
    /// Some atom over it misses a variable of the head: an update may
    /// change the count at many values, which the subprogram's
    /// `changes()` lists.
    pub unkeyed: bool,
}

/// A column of an outer relation's tuple that holds a variable of a
/// subprogram's head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyColumn {
    /// The column.
    pub column: usize,
    /// Read as `Some(v)`: an `Option` column, whose `None` is no value of
    /// the head (the atom does not take the tuple).
    pub unwrapped: bool,
}

/// A variable of the query.
#[derive(Debug, Clone)]
pub struct Var {
    /// Its name.
    pub name: Ident,
    /// Its type.
    pub ty: Type,
}

impl Var {
    /// Whether the type is a primitive whose values generated code copies
    /// (`*x`) instead of cloning: the integers, `bool` and `char`.
    pub fn is_copy(&self) -> bool {
        is_copy_type(&self.ty)
    }
}

/// Whether `ty` is `String` (`String`, `std::string::String`,
/// `alloc::string::String`, with or without the leading `::`): a column
/// whose update parameter also takes a `&str`.
pub fn is_string_type(ty: &Type) -> bool {
    let Type::Path(path) = ty else {
        return false;
    };
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let plain = path.path.segments.iter().all(|s| s.arguments.is_none());
    path.qself.is_none()
        && plain
        && match names.as_slice() {
            [one] => one == "String",
            [krate, module, last] => {
                (krate == "std" || krate == "alloc") && module == "string" && last == "String"
            }
            _ => false,
        }
}

/// Whether `ty` is a primitive whose values generated code copies: the
/// integers, `bool` and `char`.
pub fn is_copy_type(ty: &Type) -> bool {
    const COPY: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "bool", "char",
    ];
    // The SQL column types of `ivm::sql` are small `Copy` values too.
    const SQL: &[&str] = &["Decimal", "Double", "Date"];
    match ty {
        Type::Path(path) if path.qself.is_none() => {
            // `Option<T>` is `Copy` where `T` is (a nullable SQL column).
            if let Some(last) = path.path.segments.last()
                && last.ident == "Option"
                && let syn::PathArguments::AngleBracketed(args) = &last.arguments
                && let [syn::GenericArgument::Type(inner)] =
                    args.args.iter().collect::<Vec<_>>().as_slice()
            {
                return is_copy_type(inner);
            }
            let mut names = path.path.segments.iter().rev().map(|s| s.ident.to_string());
            match (names.next(), names.next()) {
                (Some(last), None) => COPY.contains(&last.as_str()),
                (Some(last), Some(module)) => module == "sql" && SQL.contains(&last.as_str()),
                (None, _) => false,
            }
        }
        _ => false,
    }
}

/// A relation and the map holding its tuples.
#[derive(Debug, Clone)]
pub struct RelationIr {
    /// Its name as declared.
    pub name: Ident,
    /// `snake_case` of the name, for method names.
    pub snake: String,
    /// Its doc comment lines.
    pub docs: Vec<String>,
    /// Its columns, as (name, type).
    pub columns: Vec<(Ident, Type)>,
    /// The base map holding its tuples.
    pub base: Id<BaseMap>,
    /// Where its tuples come from: the update API, an atom's local step,
    /// or a semijoin's indicator.
    pub kind: RelationKind,
}

/// Where a relation's tuples come from.
#[derive(Debug, Clone)]
pub enum RelationKind {
    /// A relation the query declares: updated through its API, its
    /// updates routed to the workers of a sharded run by `route`.
    Declared {
        /// Where a sharded run sends its updates.
        route: Route,
        /// Who checks its deletes.
        check: DeleteCheck,
    },
    /// An atom's derived relation (`syntax/local.rs`): how the tuples of
    /// the relation written in the atom enter it. It has no update API;
    /// its source's updates feed it (`PathBody::Feed`).
    Derived(Derived),
    /// The indicator of a semijoin, by its index in
    /// [`Program::semijoins`]. It has no update API either; the updates of
    /// the relations the semijoin reads feed it (`PathBody::Semijoin`).
    Indicator(usize),
}

impl Draft {
    /// The columns of relation `rel` outside `columns`: what a CROWN index
    /// (`GrowingIndex`) keeps of each tuple beside its key, which all
    /// tuples of a group share.
    pub fn columns_outside(&self, rel: RelId, columns: &[usize]) -> Vec<usize> {
        (0..self.relations[rel].columns.len())
            .filter(|c| !columns.contains(c))
            .collect()
    }
}

/// Where a sharded run sends the updates of a declared relation
/// (`plan::partition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// To the worker of the hash of this column's value.
    Hash {
        /// The column, in the relation's order.
        column: usize,
    },
    /// To every worker.
    Every,
    /// To the first worker: the query runs on one.
    First,
}

impl RelationIr {
    /// Where a sharded run sends the updates of a declared relation.
    pub fn route(&self) -> Option<Route> {
        match self.kind {
            RelationKind::Declared { route, .. } => Some(route),
            _ => None,
        }
    }

    /// Whether the struct that holds this query as a part checks its
    /// deletes before they reach it ([`DeleteCheck::Holder`]).
    pub fn checked_by_holder(&self) -> bool {
        matches!(
            self.kind,
            RelationKind::Declared {
                check: DeleteCheck::Holder,
                ..
            }
        )
    }

    /// Whether it is fed by other relations' updates (a derived relation
    /// or a semijoin's indicator) rather than updated through an API.
    pub fn is_fed(&self) -> bool {
        !matches!(self.kind, RelationKind::Declared { .. })
    }

    /// How the tuples of an atom's derived relation enter it; `None` for
    /// any other relation.
    pub fn derived(&self) -> Option<&Derived> {
        match &self.kind {
            RelationKind::Derived(d) => Some(d),
            RelationKind::Declared { .. } | RelationKind::Indicator(_) => None,
        }
    }
}

/// How a derived relation is fed: the atom's local step.
#[derive(Debug, Clone)]
pub struct Derived {
    /// The relation written in the atom.
    pub source: RelId,
    /// The atom.
    pub atom: AtomId,
    /// What each column of `source` is bound to.
    pub args: Vec<crate::query::Arg>,
    /// The columns computed from them, in order.
    pub lets: Vec<crate::query::Let>,
    /// The factors applied where a tuple enters.
    pub factors: Vec<crate::query::ExprFactor>,
}

/// An atom: a relation read with one variable per column.
#[derive(Debug, Clone)]
pub struct AtomIr {
    /// The relation it reads.
    pub relation: RelId,
    /// The variable bound to each column.
    pub vars: Vec<VarId>,
    /// How it is written, e.g. `S(x, y)`.
    pub label: String,
}

/// A materialized map.
#[derive(Debug, Clone)]
pub struct Map {
    /// The field name in the generated struct.
    pub name: Ident,
    /// What it holds, in words (becomes the field's doc comment).
    pub doc: String,
    /// Its key variables, outermost first: the variables above its own in
    /// the variable order (a free level's entries are keyed by these and
    /// its variable). For a base map, the relation's columns stand for
    /// themselves and this is empty.
    pub key: Vec<VarId>,
    /// What kind of map it is.
    pub kind: MapKind,
}

/// The kinds of maps: each holds the struct of its kind, which a typed
/// [`Id`] names.
#[derive(Debug, Clone)]
pub enum MapKind {
    /// A base relation's tuples: see [`BaseMap`].
    Base(BaseMap),
    /// A view of a summed-out variable: see [`SumView`].
    Sum(SumView),
    /// A secondary index of a relation: see [`RelationIndex`].
    Index(RelationIndex),
    /// A secondary index of a view of a general view tree: see [`ViewIndex`].
    ViewIndex(ViewIndex),
    /// The IVMε (or factorized) state of a triangle count: see [`TriangleState`].
    Triangle(TriangleState),
    /// The materialized result: see [`ResultMap`].
    Result(ResultMap),
    /// One side of an inequality join: see [`RangeSums`].
    RangeSums(RangeSums),
    /// A relation of the acyclic insert-only top join: see [`JoinNode`].
    Join(JoinNode),
    /// A relation of a cyclic top join: see [`Support`].
    Support(Support),
    /// An extension index of a cyclic top join's support: see [`Extension`].
    Extension(Extension),
    /// The materialized cyclic top join: see [`JoinedMap`].
    Joined(JoinedMap),
    /// Max-max: one atom of a cluster: see [`ClusterNode`].
    Cluster(ClusterNode),
    /// Max-max: a cluster's best payloads: see [`BestMap`].
    Best(BestMap),
    /// CROWN: what one atom tells its parent: see [`Message`].
    Message(Message),
    /// A free level of a view tree: see [`FreeLevel`].
    Free(FreeLevel),
}

/// A base relation: each tuple's live contributions.
#[derive(Debug, Clone)]
pub struct BaseMap {
    /// The relation.
    pub relation: RelId,
    /// Which of its tuples the program keeps (see `plan::storage`).
    pub kept: Kept,
}

/// For each key, the ⊕ over `var` of the ⊗ of `factors` (each keyed by
/// the key extended with `var`): a view of a summed-out variable.
#[derive(Debug, Clone)]
pub struct SumView {
    /// The variable summed out.
    pub var: VarId,
    /// The factors multiplied for each value of `var`.
    pub factors: Vec<Factor>,
}

/// A secondary index of a relation on some of its columns (the first
/// order delta's lookups); its key is those columns' values.
#[derive(Debug, Clone)]
pub struct RelationIndex {
    /// The relation indexed.
    pub relation: RelId,
    /// The column positions of the key.
    pub columns: Vec<usize>,
    /// CROWN messages (keyed like the index) that revisit the tuples
    /// through it when they grow: a tuple whose key has reached the
    /// top in every one of them will never be revisited, and is not
    /// indexed. Empty for an index that needs every tuple. A CROWN
    /// index (non-empty) loses no tuple on its own, since CROWN only
    /// inserts; a key's tuples leave together once every message
    /// here is at the top at that key.
    pub while_growing: Vec<Id<Message>>,
    /// Each tuple carries its payload beside it (kept by the
    /// relation's updates), for a view tree's loops over the tuples of
    /// a sibling atom: they read it from the group they walk instead
    /// of probing the base map per tuple.
    pub payloads: bool,
}

/// A secondary index of a view of a general view tree: its keys with a
/// non-zero payload, grouped by some of their variables, so that a
/// change beside the view finds the view's entries it meets.
#[derive(Debug, Clone)]
pub struct ViewIndex {
    /// The view.
    pub view: Id<SumView>,
    /// The positions, in the view's key, of the variables it groups by.
    pub columns: Vec<usize>,
}

/// The IVMε state of a triangle count: the three relations partitioned
/// by degree, the three views and the count.
#[derive(Debug, Clone)]
pub struct TriangleState {
    /// The partition exponent ε; `None` for the factorized baseline,
    /// which keeps one view and no partitions.
    pub eps: Option<f64>,
    /// The variables A, B, C: role i joins `vars[i]` and `vars[(i + 1) % 3]`.
    pub vars: [VarId; 3],
    /// One relation plays all three roles in one orientation (IVMε
    /// only): the runtime keeps one partitioned copy and one view, and
    /// the relation's trigger has a single path that updates them.
    pub cycle: bool,
}

/// The materialized result: for each head tuple, the ⊕ of the payloads
/// of its derivations (first-order delta). Keyed by the head.
#[derive(Debug, Clone)]
pub struct ResultMap;

/// One side of an inequality join: the atom's payloads summed by the
/// value of its compared variable, with sums below and above any value
/// (`ivm::__private::RangeSums`).
#[derive(Debug, Clone)]
pub struct RangeSums {
    /// The atom.
    pub atom: AtomId,
    /// Its compared variable.
    pub var: VarId,
}

/// A relation of the insert-only top join (two-layer and CROWN): the
/// values of its key (free variables only) where the ⊗ of `factors` is
/// non-zero. A value crosses once, when that product first turns
/// non-zero, and is live once every child has a live value it agrees
/// with; enumeration walks the live values top-down.
#[derive(Debug, Clone)]
pub struct JoinNode {
    /// The factors whose product is the payload at a key value.
    pub factors: Vec<Factor>,
    /// The node above in the top join tree; `None` at its root.
    pub parent: Option<Id<JoinNode>>,
    /// The nodes below.
    pub children: Vec<Id<JoinNode>>,
    /// The key variables shared with the parent, in key order.
    pub shared: Vec<VarId>,
}

/// A relation of a cyclic top join (two layers over a cyclic
/// p-hierarchical query): the values of its key where the ⊗ of
/// `factors` is non-zero, each added once. A new value runs `delta`,
/// which finds the join results it completes.
#[derive(Debug, Clone)]
pub struct Support {
    /// The factors whose product is the payload at a key value.
    pub factors: Vec<Factor>,
    /// The worst-case-optimal delta join of a new value.
    pub delta: TopDelta,
}

/// An extension index of a support (cyclic top join): for each value of
/// the key (some of the support's variables), the values of `var` that
/// extend it to a value of the support.
#[derive(Debug, Clone)]
pub struct Extension {
    /// The support indexed.
    pub support: MapId,
    /// The variable extended to.
    pub var: VarId,
}

/// The materialized cyclic top join: its tuples, over the head
/// variables, each added once, when its last support value arrives.
#[derive(Debug, Clone)]
pub struct JoinedMap;

/// Max-max: one atom of a cluster (atoms connected through bound
/// variables) in the cluster's join tree. Its tuples (keyed by the
/// atom's variables, so `key` lists them), which of them are live (join
/// with the atoms below) and which take part in a full result of the
/// cluster's join; the payload of a tuple that takes part feeds `best`.
#[derive(Debug, Clone)]
pub struct ClusterNode {
    /// The atom.
    pub atom: AtomId,
    /// The atom above in the cluster's join tree; `None` at its root.
    pub parent: Option<Id<ClusterNode>>,
    /// The atoms below.
    pub children: Vec<Id<ClusterNode>>,
    /// The variables shared with the parent, in the atom's order.
    pub shared: Vec<VarId>,
    /// The cluster's best payloads.
    pub best: Id<BestMap>,
}

/// Max-max: for each value of a cluster's free variables, the largest
/// payload of a tuple of the cluster that takes part in a full result
/// of the cluster's join. Its support is a relation of the top join.
#[derive(Debug, Clone)]
pub struct BestMap;

/// CROWN: what one atom tells its parent in the free-connex join tree.
/// For each value of the key (the variables it shares with the parent),
/// the ⊕ over the atom's tuples with that value of their payload ⊗ the
/// messages of the atom's children. Under inserts over a bounded
/// monotone semiring each entry only grows, and a bounded number of
/// times.
#[derive(Debug, Clone)]
pub struct Message {
    /// The atom.
    pub atom: AtomId,
    /// The messages of the atoms below it.
    pub children: Vec<Id<Message>>,
    /// Whom a growing entry tells.
    pub parent: MessageParent,
}

/// For each key and each value of the free variables `vars`: the ⊗ of
/// `factors` (its local payload), the number of output tuples below it,
/// and its place among the values sharing the key, for enumeration.
/// Free variables that follow one another in the variable order with
/// nothing between them (no factor at the upper one, no branch) share
/// one level, whose values are tuples: a head that one atom binds is
/// one level, not one per column.
#[derive(Debug, Clone)]
pub struct FreeLevel {
    /// The free variables, outermost first (at least one).
    pub vars: Vec<VarId>,
    /// The factors multiplied into the local payload.
    pub factors: Vec<Factor>,
    /// The free variables directly below, whose levels count into this
    /// one.
    pub children: Vec<Id<FreeLevel>>,
    /// The free variable directly above, if any.
    pub parent: Option<Id<FreeLevel>>,
    /// Where its values live.
    pub store: LevelStore,
}

/// Where a free level's values live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelStore {
    /// In a `FreeLevel` map of its own, which keeps each value's place in
    /// a dense list, so that enumeration has constant delay.
    Own,
    /// Nowhere of its own: they are the keys of this factor, its one
    /// factor, keyed by its one variable. Only for the one level of a
    /// query whose holder never walks its result but on the first call of
    /// `changes()` (`query::Reader::Holder`: a semijoin's counts, a
    /// nested view's rows), where walking a hash map's entries will do,
    /// and each update then saves the level's probes.
    KeysOf(Factor),
}

/// The delta join of a new value of one support of a cyclic top join:
/// generic join, one variable at a time.
#[derive(Debug, Clone)]
pub struct TopDelta {
    /// Supports whose key the new value fixes entirely: it completes
    /// nothing unless each holds the value's projection.
    pub checks: Vec<MapId>,
    /// The other variables, in binding order, each with the extension
    /// indexes whose lists are intersected to bind it.
    pub steps: Vec<(VarId, Vec<MapId>)>,
    /// The materialized join the results go to.
    pub joined: MapId,
}

/// The evaluation of a query from scratch by generic join (the recompute
/// strategy).
#[derive(Debug, Clone)]
pub struct Recompute {
    /// Every variable, in binding order, with the atoms that hold it.
    pub steps: Vec<(VarId, Vec<Candidates>)>,
}

/// One atom's candidate list for a variable of a generic join: keyed by
/// the atom's variables bound before it.
pub type Candidates = (AtomId, Vec<VarId>);

/// Where a CROWN message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageParent {
    /// The message of the parent atom (the one that lists this message
    /// among its children, [`Program::parent_message`]), whose tuples
    /// sharing the key are found through `index` (an index of its relation
    /// on those columns).
    Message {
        /// The index of the parent atom's relation on the shared columns.
        index: Id<RelationIndex>,
    },
    /// A node of the top join: the one whose factors hold the message
    /// ([`Program::fed_node`]).
    Join,
}

/// Which tuples of a relation its base map keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// Every tuple with a non-zero payload.
    Every,
    /// Under trusted deletes (`#[deletes(trusted)]`), or deletes the
    /// holder checks ([`DeleteCheck::Holder`]), a declared relation
    /// nothing reads back: no tuple. An update's payload goes straight to
    /// the views above its atoms, and a delete takes it back from them,
    /// trusted to name a tuple that is there.
    Trusted,
    /// Under inserts and deletes, a declared relation nothing reads back
    /// (the views read it through derived relations of the columns they
    /// use): each tuple's payload under a 96-bit fingerprint of the
    /// tuple, which is all a delete's check needs. No column is cloned or
    /// kept (`ivm::__private::Fingerprints`). The views above change by
    /// the update's δ, whatever the tuple's payload was.
    Fingerprinted,
    /// As [`Kept::Fingerprinted`], for a relation whose views read the
    /// tuple's old and new payloads, which a δ does not tell over a ring:
    /// a semijoin, whose counts change only when the tuple turns live or
    /// dead. The fingerprints keep every payload, so they answer that
    /// too, and the tuples themselves are still read by nothing.
    FingerprintedPayloads,
    /// Under inserts only, a relation that CROWN alone reads back, through
    /// its indexes: the tuples some message can still revisit. A tuple
    /// whose keys' messages are all at the top is not kept, and its
    /// contribution goes straight up.
    Revisitable,
    /// Under inserts only, a relation nothing reads back: no tuple. Each
    /// update's payload goes straight into the views above its atoms, and
    /// the map is only a name.
    None,
    /// Under inserts only over `Bool`, a relation that CROWN alone reads
    /// back: the tuples some message can still revisit are in its indexes,
    /// and the payload of each is one (`Bool`'s only non-zero value), so no
    /// map of payloads is kept beside them. A tuple inserted again is
    /// indexed again and passed up again, which ⊕ (or) absorbs.
    IndexOnly,
    /// The relation of an IVMε triangle in all three roles, over a
    /// catalogue ring: its partition holds every tuple with its payload,
    /// which is all a ring's base map holds, so the map is only a name and
    /// an update goes straight to the triangle state (one lookup of the
    /// tuple instead of two).
    InTriangle,
}

/// A factor of a view's product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Factor {
    /// Another map, looked up at the same key extended with the variable.
    Map(MapId),
    /// An atom, looked up in its relation's base map.
    Atom(AtomId),
}

/// What an update to one relation does: the path of each of its atoms.
#[derive(Debug, Clone)]
pub struct Trigger {
    /// The relation updated.
    pub relation: RelId,
    /// One path per atom of the relation, applied in order (the exact
    /// delta of a self-join).
    pub paths: Vec<AtomPath>,
}

impl Trigger {
    /// One trigger per relation (of `relations`, given each atom's
    /// relation in `relation_of`), with one path per atom of the relation,
    /// in atom order. `body(atom, earlier, later)` says what an update of
    /// the atom's tuple does, given the relation's atoms before and after
    /// it: the exact delta of a self-join applies them in turn.
    pub fn per_relation(
        relations: usize,
        relation_of: &[RelId],
        mut body: impl FnMut(AtomId, &[AtomId], &[AtomId]) -> PathBody,
    ) -> Vec<Trigger> {
        (0..relations)
            .map(|relation| {
                let own: Vec<AtomId> = (0..relation_of.len())
                    .filter(|&a| relation_of[a] == relation)
                    .collect();
                let paths = own
                    .iter()
                    .enumerate()
                    .map(|(i, &atom)| AtomPath {
                        atom,
                        body: body(atom, &own[..i], &own[i + 1..]),
                    })
                    .collect();
                Trigger { relation, paths }
            })
            .collect()
    }
}

/// What an update to one of an atom's tuples does, after the tuple's own
/// state has changed from an old to a new payload.
#[derive(Debug, Clone)]
pub struct AtomPath {
    /// The atom.
    pub atom: AtomId,
    /// How the change propagates: one construct per strategy family.
    pub body: PathBody,
}

/// How a change of one atom's tuple propagates, by the construct that
/// carries it.
#[derive(Debug, Clone)]
pub enum PathBody {
    /// Up a view tree (view trees, and the lower layer of the two-layer
    /// structure): the steps, from the atom's lowest variable up.
    Steps {
        /// The steps, from the atom's lowest variable up.
        steps: Vec<Step>,
        /// Atoms of the same relation updated after this one: when a
        /// sibling lookup reads one of them at the updated tuple, it must
        /// see the old payload.
        later_same_relation: Vec<AtomId>,
    },
    /// The first-order delta: the join of the other atoms.
    DeltaJoin(DeltaJoin),
    /// IVMε: the role this atom plays in the triangle map.
    Triangle {
        /// The triangle map.
        map: Id<TriangleState>,
        /// The role: 0 for R, 1 for S, 2 for T.
        role: usize,
        /// The columns holding the role's two variables.
        columns: [usize; 2],
    },
    /// CROWN: the atom's message map, raised by the tuple's new
    /// contribution.
    Raise(Id<Message>),
    /// Max-max: the atom's cluster node.
    Cluster(Id<ClusterNode>),
    /// An atom's local step: the tuple, matched, projected and multiplied
    /// by the atom's factors, changes the atom's derived relation (whose
    /// own trigger carries it on).
    Feed(RelId),
    /// One side of an inequality join: the tuple's change, times the other
    /// side's sum beyond its key, changes the result; then its own side's
    /// sums take the change.
    Range(RangeStep),
    /// A semijoin that reads the updated relation: a tuple that comes or
    /// goes changes the count of its body (or domain) at the values of
    /// the correlated variables it binds, and where the indicator turns,
    /// the semijoin's relation is fed.
    Semijoin {
        /// The semijoin, in [`Program::semijoins`].
        semijoin: usize,
        /// The relation updated.
        relation: RelId,
    },
}

/// The path of one atom of an inequality join.
#[derive(Debug, Clone, Copy)]
pub struct RangeStep {
    /// The atom's side.
    pub own: Id<RangeSums>,
    /// The other side.
    pub other: Id<RangeSums>,
    /// The result (nullary).
    pub result: Id<ResultMap>,
    /// Whether this atom holds the smaller side of the comparison.
    pub smaller: bool,
    /// `<` rather than `<=`.
    pub strict: bool,
}

/// The first-order delta of one atom: every derivation in which this atom
/// reads the updated tuple, found by joining the other atoms one at a time.
#[derive(Debug, Clone)]
pub struct DeltaJoin {
    /// The other atoms, in join order, with how each is reached.
    pub loops: Vec<Loop>,
    /// The result map the derivations' payloads are added to.
    pub result: Id<ResultMap>,
    /// Atoms of the same relation before this one: they must not read the
    /// updated tuple here, or a derivation reading it twice would count
    /// twice.
    pub earlier_same_relation: Vec<AtomId>,
}

/// One atom of a delta join.
#[derive(Debug, Clone)]
pub struct Loop {
    /// The atom.
    pub atom: AtomId,
    /// How its tuples are found from the variables bound so far.
    pub access: Access,
}

/// How a delta join reaches an atom's tuples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// All its variables are bound: one lookup.
    Point,
    /// None is bound: a scan of the relation.
    Scan,
    /// Some are: the tuples of this index under their values.
    Index(Id<RelationIndex>),
    /// Some are, and other atoms bind exactly the same new variables (an
    /// intersection, as in a cycle or a clique): walk whichever of their
    /// groups is smallest at run time and look the others up at each
    /// tuple, so the step costs the smallest degree (generic join's
    /// worst-case optimal step). The partners have no loops of their own.
    Smaller {
        /// This atom's index on its bound columns.
        index: Id<RelationIndex>,
        /// The other atoms that bind exactly the same new variables, each
        /// with its index on its bound columns.
        partners: Vec<(AtomId, Id<RelationIndex>)>,
    },
}

/// One step of a path: a factor of `target` changed from an old to a new
/// payload at the path's current key.
#[derive(Debug, Clone)]
pub struct Step {
    /// The map whose entry changes.
    pub target: Target,
    /// The factor that changed.
    pub changed: Factor,
    /// The other factors of `target`, looked up to form the product.
    pub siblings: Vec<Factor>,
    /// Where the changed factor's key does not fix the target's (a view
    /// tree over a general variable order), the atoms among the siblings
    /// whose tuples bind the rest, in order: the step runs once per
    /// combination, each a changed entry of the target.
    pub binds: Vec<Bind>,
}

/// The map a step changes, by what it keeps at each key: a view's sum, a
/// free level's liveness, or whether a top join relation has the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A view of a summed-out variable.
    Sum(Id<SumView>),
    /// A free level.
    Free(Id<FreeLevel>),
    /// A relation of the acyclic top join.
    Join(Id<JoinNode>),
    /// A relation of a cyclic top join.
    Support(Id<Support>),
}

impl Target {
    /// The map's untyped index.
    pub fn map(self) -> MapId {
        match self {
            Target::Sum(id) => id.map(),
            Target::Free(id) => id.map(),
            Target::Join(id) => id.map(),
            Target::Support(id) => id.map(),
        }
    }

    /// The target that map `m` of `maps` is.
    ///
    /// # Panics
    ///
    /// When `m` keeps no product (a planner's mistake, caught where the
    /// step is made).
    pub fn of(maps: &[Map], m: MapId) -> Target {
        id_in(maps, m)
            .map(Target::Sum)
            .or_else(|| id_in(maps, m).map(Target::Free))
            .or_else(|| id_in(maps, m).map(Target::Join))
            .or_else(|| id_in(maps, m).map(Target::Support))
            .expect("a step changes a view, a free level or a top join relation")
    }
}

/// A loop of a step over the tuples of one sibling atom (or the entries of
/// one sibling view) that agree with the variables bound so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bind {
    /// The tuples of a sibling atom, through an index of its relation on
    /// the columns already bound.
    Atom {
        /// The atom.
        atom: AtomId,
        /// The index.
        index: Id<RelationIndex>,
    },
    /// The entries of a sibling view with a non-zero payload, through a
    /// secondary index of the view on the key variables already bound.
    View {
        /// The view.
        view: Id<SumView>,
        /// The index.
        index: Id<ViewIndex>,
    },
}

impl Bind {
    /// The sibling factor it loops over.
    pub fn factor(self) -> Factor {
        match self {
            Bind::Atom { atom, .. } => Factor::Atom(atom),
            Bind::View { view, .. } => Factor::Map(view.map()),
        }
    }

    /// The index it loops through.
    pub fn index(self) -> MapId {
        match self {
            Bind::Atom { index, .. } => index.map(),
            Bind::View { index, .. } => index.map(),
        }
    }

    /// The positions, among the looped factor's variables, that its index
    /// is keyed by (bound before the loop), and those variables.
    pub fn columns(self, p: &Program) -> (&[usize], &[VarId]) {
        match self {
            Bind::Atom { atom, index } => (&p.get(index).columns, &p.atoms[atom].vars),
            Bind::View { view, index } => (&p.get(index).columns, &p.maps[view].key),
        }
    }

    /// The atom whose tuples the loop walks with their payloads, if its
    /// index keeps them ([`RelationIndex::payloads`]).
    pub fn walked_atom(self, p: &Program) -> Option<AtomId> {
        match self {
            Bind::Atom { atom, index } if p.get(index).payloads => Some(atom),
            Bind::Atom { .. } | Bind::View { .. } => None,
        }
    }
}

/// Where the result is read from, by the construct that holds it.
#[derive(Debug, Clone)]
pub enum Reading {
    /// A view tree: the product, along the free variables, of each
    /// value's local payload, times the nullary views of the summed-out
    /// roots.
    Levels {
        /// Nullary maps (views of summed-out root variables) whose product
        /// multiplies every output tuple.
        scalars: Vec<Id<SumView>>,
        /// The free levels of the root free variables.
        roots: Vec<Id<FreeLevel>>,
    },
    /// The materialized result (first-order delta, the range join), times
    /// the one-entry views of nullary factors beside a range join
    /// (`plan/nullary.rs`; then the result is nullary).
    Result {
        /// The result map.
        map: Id<ResultMap>,
        /// Nullary factors' views whose product multiplies the result.
        scalars: Vec<Id<SumView>>,
    },
    /// The count of an IVMε or factorized triangle map (a nullary result),
    /// times the one-entry views of nullary factors beside it.
    Triangle {
        /// The triangle map.
        map: Id<TriangleState>,
        /// Nullary factors' views whose product multiplies the count.
        scalars: Vec<Id<SumView>>,
    },
    /// The insert-only top join (two layers, CROWN, max-max): the join of
    /// these nodes, root first, each after its parent.
    TopJoin(Vec<Id<JoinNode>>),
    /// The materialized cyclic top join, when the supports' keys form a
    /// cyclic hypergraph.
    Joined(MapId),
    /// The recompute strategy: the generic join that evaluates the query
    /// from the base maps when it is read.
    Recompute(Recompute),
}

impl Reading {
    /// Whether the result is an insert-only top join (acyclic or cyclic),
    /// which relies on a positive semiring.
    pub fn is_top_join(&self) -> bool {
        matches!(self, Reading::TopJoin(_) | Reading::Joined(_))
    }
}

/// A map that keeps or checks a product of factors at each key: what a
/// view tree's steps change and `bulk_load` builds. See
/// [`MapKind::product`].
#[derive(Debug, Clone, Copy)]
pub enum Product<'a> {
    /// A [`MapKind::Sum`] view: the ⊕ over `var` of the product.
    Sum {
        /// The variable summed out.
        var: VarId,
        /// The factors.
        factors: &'a [Factor],
    },
    /// A [`MapKind::Free`] level: whether the product at a value of `vars`
    /// is non-zero, and the output tuples below it.
    Free {
        /// The free variables.
        vars: &'a [VarId],
        /// The factors of the local payload.
        factors: &'a [Factor],
        /// The free levels directly below.
        children: &'a [Id<FreeLevel>],
    },
    /// A relation of the top join ([`MapKind::Join`] or
    /// [`MapKind::Support`]): a value enters once, when the product first
    /// turns non-zero.
    Reach {
        /// The factors.
        factors: &'a [Factor],
    },
}

impl<'a> Product<'a> {
    /// The factors multiplied at each key.
    pub fn factors(self) -> &'a [Factor] {
        match self {
            Product::Sum { factors, .. }
            | Product::Free { factors, .. }
            | Product::Reach { factors } => factors,
        }
    }
}

impl MapKind {
    /// The product this map keeps or checks at each key; `None` for the
    /// maps that hold no product (relations, indexes, the strategies' own
    /// state).
    pub fn product(&self) -> Option<Product<'_>> {
        match self {
            MapKind::Sum(SumView { var, factors }) => Some(Product::Sum { var: *var, factors }),
            MapKind::Free(FreeLevel {
                vars,
                factors,
                children,
                ..
            }) => Some(Product::Free {
                vars,
                factors,
                children,
            }),
            MapKind::Join(JoinNode { factors, .. }) | MapKind::Support(Support { factors, .. }) => {
                Some(Product::Reach { factors })
            }
            MapKind::Base(BaseMap { .. })
            | MapKind::Index(RelationIndex { .. })
            | MapKind::ViewIndex(ViewIndex { .. })
            | MapKind::Result(ResultMap)
            | MapKind::RangeSums(RangeSums { .. })
            | MapKind::Triangle(TriangleState { .. })
            | MapKind::Message(Message { .. })
            | MapKind::Cluster(ClusterNode { .. })
            | MapKind::Best(BestMap { .. })
            | MapKind::Extension(Extension { .. })
            | MapKind::Joined(JoinedMap) => None,
        }
    }

    /// The factors whose product the map keeps or checks at each key (for
    /// `Sum`, `Free`, `Join` and `Support` maps).
    pub fn factors(&self) -> Option<&[Factor]> {
        self.product().map(|p| p.factors())
    }
}

/// How `changes()` knows which output tuples changed: chosen from the
/// reading, built by `emit/changes.rs`, stated by explain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeTracking {
    /// The materialized result notes each entry's payload before its first
    /// write of an epoch.
    Journal,
    /// A view tree whose free levels' factors are keyed by exactly the
    /// variables at and above them: the factors' maps and the levels keep
    /// journals, and `changes()` walks the output tuples through the
    /// changed entries.
    Levels {
        /// The free levels in preorder (each after its parent).
        levels: Vec<Id<FreeLevel>>,
        /// The views of the summed-out root variables.
        scalars: Vec<Id<SumView>>,
    },
    /// The insert-only top join (two layers, CROWN, max-max): the factors
    /// of its nodes keep journals (a payload map its own, a map that only
    /// grows a `Noted` beside it), the nodes record which of their tuples
    /// take part in the result, and `changes()` walks the output tuples
    /// through each node tuple whose local payload changed, up through the
    /// tuples that take part and down through the live ones.
    TopJoin {
        /// The nodes, root first, each after its parent (as in
        /// [`Reading::TopJoin`]).
        nodes: Vec<Id<JoinNode>>,
    },
    /// The materialized cyclic top join (two layers over a cyclic query):
    /// the supports' factors keep journals, each support indexes the
    /// joined tuples by its key once tracking has started, and `changes()`
    /// reads the joined tuples under each changed support value.
    Joined {
        /// The supports, each a relation of the join.
        supports: Vec<Id<Support>>,
        /// The materialized join.
        joined: MapId,
    },
    /// The result as of the previous call is kept and compared with the
    /// whole result.
    Diff,
}

impl ChangeTracking {
    /// What a call of `changes()` costs, for explain; `nullary`: the head
    /// is empty (one output tuple at most).
    pub fn describe(&self, nullary: bool) -> &'static str {
        match self {
            _ if nullary => "O(1) per call (one output tuple: its payload then and now)",
            ChangeTracking::Journal => {
                "one lookup per result entry written since the previous call"
            }
            ChangeTracking::Levels { .. } => {
                "from the entries written since the previous call, O(1) delay per changed tuple"
            }
            ChangeTracking::TopJoin { nodes } if nodes.len() > 1 => {
                "from the entries written since the previous call, O(1) amortized per changed tuple (the first call also finds the top join's tuples that take part in the result: O(N) once)"
            }
            ChangeTracking::TopJoin { .. } => {
                "from the entries written since the previous call, O(1) per changed tuple"
            }
            ChangeTracking::Joined { .. } => {
                "from the entries written since the previous call, O(1) amortized per changed tuple (the first call also indexes the result by each support's key: O(|result|) once)"
            }
            ChangeTracking::Diff => {
                "compares the whole result with the previous call's: O(|result|) per call"
            }
        }
    }
}

/// Whether two lists hold the same variables (in any order, repeats
/// aside).
fn same_vars(a: &[VarId], b: &[VarId]) -> bool {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_unstable();
    a.dedup();
    b.sort_unstable();
    b.dedup();
    a == b
}

impl Program {
    /// How `changes()` knows what changed.
    pub fn change_tracking(&self) -> ChangeTracking {
        match &self.reading {
            // A result times nullary factors is nullary: compared whole.
            Reading::Result { scalars, .. } if scalars.is_empty() => ChangeTracking::Journal,
            Reading::Levels { scalars, roots } => match self.journaled_levels(roots) {
                Some(levels) => ChangeTracking::Levels {
                    levels,
                    scalars: scalars.clone(),
                },
                None => ChangeTracking::Diff,
            },
            Reading::TopJoin(top) if self.journaled_top_join(top) => {
                ChangeTracking::TopJoin { nodes: top.clone() }
            }
            &Reading::Joined(joined) => {
                let supports: Vec<Id<Support>> = self.all().map(|(s, _)| s).collect();
                let journaled = supports.iter().all(|&s| {
                    let factors = &self.get(s).factors;
                    factors.iter().all(|&f| {
                        // Payload maps only: a cyclic top join has no
                        // messages or best payloads.
                        matches!(f, Factor::Atom(_))
                            || matches!(f, Factor::Map(m) if matches!(self.maps[m].kind, MapKind::Sum(SumView { .. })))
                    }) && factors.iter().all(|&f| {
                        self.top_factor_key(f)
                            .is_some_and(|vars| same_vars(vars, &self.maps[s].key))
                    })
                });
                if journaled {
                    ChangeTracking::Joined { supports, joined }
                } else {
                    ChangeTracking::Diff
                }
            }
            _ => ChangeTracking::Diff,
        }
    }
}

impl Draft {
    /// Whether every factor of every node of an insert-only top join can
    /// say what it held when an epoch began and is keyed by its node's
    /// variables (so that a changed entry is a changed node tuple), and the
    /// nodes' keys hold the head.
    fn journaled_top_join(&self, top: &[Id<JoinNode>]) -> bool {
        let same = same_vars;
        let factors_ok = top.iter().all(|&node| {
            let key = &self.maps[node].key;
            self.get(node)
                .factors
                .iter()
                .all(|&f| match self.top_factor_key(f) {
                    Some(vars) => same(vars, key),
                    None => false,
                })
        });
        let head = &self.head;
        let covered = head
            .iter()
            .all(|v| top.iter().any(|&node| self.maps[node].key.contains(v)));
        let within = top
            .iter()
            .all(|&node| self.maps[node].key.iter().all(|v| head.contains(v)));
        factors_ok && covered && within
    }

    /// The variables of a top join factor's key, when it keeps a journal:
    /// a kept base relation or a sum view (a payload map), or a map that
    /// only grows (a CROWN message, a best payload).
    pub fn top_factor_key(&self, f: Factor) -> Option<&[VarId]> {
        match f {
            Factor::Atom(a) if self.stores(self.atoms[a].relation) => Some(&self.atoms[a].vars),
            Factor::Map(m)
                if matches!(
                    self.maps[m].kind,
                    MapKind::Sum(SumView { .. })
                        | MapKind::Message(Message { .. })
                        | MapKind::Best(BestMap { .. })
                ) =>
            {
                Some(&self.maps[m].key)
            }
            _ => None,
        }
    }

    /// The free levels, root first, when they form a chain (one root, at
    /// most one free child each).
    pub fn free_chain(&self, roots: &[Id<FreeLevel>]) -> Option<Vec<Id<FreeLevel>>> {
        let [root] = roots else {
            return None;
        };
        let mut levels = Vec::new();
        let mut next = Some(*root);
        while let Some(m) = next {
            levels.push(m);
            next = match self.get(m).children.as_slice() {
                [] => None,
                [child] => Some(*child),
                _ => return None,
            };
        }
        Some(levels)
    }

    /// The free levels in preorder (each after its parent, a subtree's
    /// levels together), with each level's path (the indexes of its
    /// ancestors and itself, root first), when every level's factors are
    /// payload maps keyed by exactly the variables of its path (so that a
    /// changed entry fixes them all), the scalars are views, and the
    /// levels fit in tuples.
    fn journaled_levels(&self, roots: &[Id<FreeLevel>]) -> Option<Vec<Id<FreeLevel>>> {
        let levels = self.free_levels(roots);
        if levels.is_empty() || levels.len() > 12 || self.head.len() > 12 {
            return None;
        }
        for &m in &levels {
            let mut want = self.level_path(m);
            want.sort_unstable();
            for &f in &self.get(m).factors {
                let mut vars = self.journal_key(f)?.to_vec();
                vars.sort_unstable();
                vars.dedup();
                if vars != want {
                    return None;
                }
            }
        }
        Some(levels)
    }

    /// Every free level under `roots`, in preorder (each after its parent,
    /// a subtree's levels together).
    pub fn free_levels(&self, roots: &[Id<FreeLevel>]) -> Vec<Id<FreeLevel>> {
        let mut levels = Vec::new();
        let mut stack: Vec<Id<FreeLevel>> = roots.iter().rev().copied().collect();
        while let Some(m) = stack.pop() {
            levels.push(m);
            stack.extend(self.get(m).children.iter().rev().copied());
        }
        levels
    }

    /// The variables of a free level and the levels above it, root first.
    pub fn level_path(&self, mut m: Id<FreeLevel>) -> Vec<VarId> {
        let mut path = Vec::new();
        loop {
            let FreeLevel { vars, parent, .. } = self.get(m);
            path.extend(vars.iter().rev());
            match parent {
                Some(up) => m = *up,
                None => break,
            }
        }
        path.reverse();
        path
    }

    /// The map a factor is read from.
    pub fn factor_map(&self, f: Factor) -> MapId {
        match f {
            Factor::Atom(a) => self.relations[self.atoms[a].relation].base.map(),
            Factor::Map(m) => m,
        }
    }

    /// The variables of a factor's key, column by column, when the factor
    /// is a payload map with a journal (a base relation or a sum view).
    pub fn journal_key(&self, f: Factor) -> Option<&[VarId]> {
        match f {
            Factor::Atom(a) => Some(&self.atoms[a].vars),
            Factor::Map(m) if matches!(self.maps[m].kind, MapKind::Sum(SumView { .. })) => {
                Some(&self.maps[m].key)
            }
            Factor::Map(_) => None,
        }
    }

    /// Which of relation `r`'s tuples the program keeps in its base map.
    pub fn kept(&self, r: RelId) -> Kept {
        self.get(self.relations[r].base).kept
    }

    /// Whether the program has a base map of relation `r`'s tuples (it
    /// keeps some of them, and can read them back).
    pub fn stores(&self, r: RelId) -> bool {
        !matches!(
            self.kept(r),
            Kept::None
                | Kept::IndexOnly
                | Kept::InTriangle
                | Kept::Fingerprinted
                | Kept::FingerprintedPayloads
                | Kept::Trusted
        )
    }

    /// Whether some path carries relation `r`'s changes on (a relation
    /// whose map is itself what is read, `LevelStore::KeysOf`, has none).
    pub fn propagates(&self, r: RelId) -> bool {
        self.triggers
            .iter()
            .any(|t| t.relation == r && !t.paths.is_empty())
    }

    /// The variables a factor is looked up with, in key order.
    pub fn factor_key(&self, factor: Factor) -> Vec<VarId> {
        match factor {
            Factor::Atom(a) => self.atoms[a].vars.clone(),
            Factor::Map(m) => self.maps[m].key.clone(),
        }
    }

    /// The relations the query declares, with their update API (not the
    /// derived relations of atoms' local steps, nor semijoins' indicators).
    pub fn declared(&self) -> impl Iterator<Item = &RelationIr> + '_ {
        self.relations.iter().filter(|r| !r.is_fed())
    }

    /// The names of `maps`, in order.
    pub fn map_names<M: Copy + Into<MapId>>(&self, maps: &[M]) -> Vec<String> {
        maps.iter()
            .map(|&m| self.maps[m.into()].name.to_string())
            .collect()
    }

    /// The product of `factors` as explain prints it (`a ⊗ b`; empty for
    /// none).
    pub fn product_label(&self, factors: &[Factor]) -> String {
        factors
            .iter()
            .map(|&f| self.factor_label(f))
            .collect::<Vec<_>>()
            .join(" ⊗ ")
    }

    /// How a factor is written, e.g. `S(x, y)` or `sum_over_y[x]`.
    pub fn factor_label(&self, factor: Factor) -> String {
        match factor {
            Factor::Atom(a) => self.atoms[a].label.clone(),
            Factor::Map(m) => format!(
                "{}[{}]",
                self.maps[m].name,
                self.var_list(&self.maps[m].key)
            ),
        }
    }

    /// Variable names, comma-separated.
    pub fn var_list(&self, vars: &[VarId]) -> String {
        vars.iter()
            .map(|&v| self.vars[v].name.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

//! The checked query: names resolved, variables typed, attributes decided.
//!
//! Everything after [`syntax::check`](crate::syntax::check) works on this
//! representation. It keeps spans so later stages can point at the user's
//! text, but never the raw syntax tree.

use proc_macro2::Span;
use quote::ToTokens;
use syn::{Ident, Type, Visibility};

use crate::semiring::SemiringClass;

/// Index of a variable in [`Query::variables`].
pub type VarId = usize;
/// Index of a relation in [`Query::relations`].
pub type RelId = usize;

/// A checked query item.
#[derive(Debug, Clone)]
pub struct Query {
    /// The item's name (the generated struct's name).
    pub name: Ident,
    /// The language it was written in, which its messages speak.
    pub dialect: Dialect,
    /// The item's visibility, given to the generated struct.
    pub vis: Visibility,
    /// The item's doc comment lines.
    pub docs: Vec<String>,
    /// A span covering `query Name`, where whole-query errors point.
    pub span: Span,
    /// The semiring of the payloads.
    pub semiring: SemiringSpec,
    /// Which updates the generated code must support.
    pub updates: UpdateModel,
    /// Whether deletes are checked (`#[deletes(..)]`).
    pub deletes: Deletes,
    /// The strategy the user asked for, or `None` for the automatic choice.
    pub strategy: Option<StrategyRequest>,
    /// `#[allow(intractable)]`: compile a rejected query with the
    /// first-order strategy instead of failing.
    pub allow_intractable: bool,
    /// The declared relations.
    pub relations: Vec<Relation>,
    /// The rule's variables, in order of first occurrence (head first).
    pub variables: Vec<Variable>,
    /// The rule head's name as written.
    pub head_name: Ident,
    /// The free variables, in head order.
    pub head: Vec<VarId>,
    /// The body's atoms, in order.
    pub atoms: Vec<Atom>,
    /// The theta factors: `{ expr }` factors over variables of several
    /// atoms, none of which holds them all. Each is a hyperedge of its own
    /// for the analysis, applied to whole derivations by the strategies
    /// that can (first-order and recompute).
    pub theta: Vec<ExprFactor>,
    /// The semijoins, `exists(..)` and `not exists(..)`, in the order
    /// written. Each is an atom of the rule over a relation of its own
    /// ([`Origin::Semijoin`]) that holds the indicator of the subquery.
    pub semijoins: Vec<Semijoin>,
    /// Who reads the result: a user, or the query or SQL view holding
    /// this one as a semijoin's body or domain, or as a nested view.
    pub reader: Reader,
}

/// Who reads a query's result, which decides what its enumeration must
/// promise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// A user of the generated struct: `iter()` walks the result with
    /// constant delay, and `len()` is O(1).
    User,
    /// The query that holds this one as a semijoin's body or domain, or
    /// the SQL view that holds it as a nested view (a part of its struct),
    /// which looks its result up (`get`) and reads `changes()`, and never
    /// walks the whole result but on its first call of `changes()`. A view tree may then read a root level's
    /// values off the keys of its one view instead of keeping the level
    /// (`ir::LevelStore`).
    Holder,
}

/// A semijoin factor, `exists(body)` or `not exists(body)`: 1 for the
/// values of its correlated variables (those its atoms share with the rest
/// of the rule) where some assignment of its own variables makes every
/// atom of `body` read a present tuple and every condition hold, else 0;
/// the other way round for `not exists`.
///
/// The rule reads it as an atom over its correlated variables, whose
/// relation (`Origin::Semijoin`) holds that indicator. The body is a
/// query of its own, over `Int`, whose head is the correlated variables:
/// it counts the derivations, and a value is in the support where the
/// count is non-zero. An update of a relation the body reads changes the
/// count at one value of the correlated variables per atom of that
/// relation (every atom of the body binds all of them), so the indicator
/// is known after each update by two lookups.
#[derive(Debug, Clone)]
pub struct Semijoin {
    /// `exists`, or `not exists` with its domain.
    pub polarity: Polarity,
    /// The atom of the rule that reads the indicator.
    pub atom: usize,
    /// The body, as a query over `Int` whose head is the correlated
    /// variables (in the order of `atom`'s variables).
    pub body: Box<Query>,
    /// Where it is written.
    pub span: Span,
}

/// Which way a semijoin reads its body.
#[derive(Debug, Clone)]
pub enum Polarity {
    /// `exists`: 1 where the body has a derivation.
    Exists,
    /// `not exists`: 1 where the domain holds the value and the body has
    /// no derivation, so the relation stays finite.
    NotExists {
        /// The values of the correlated variables in the relation of the
        /// first atom of the rule that binds them all (the anchor), as a
        /// query over `Int` with the body's head.
        domain: Box<Query>,
    },
}

/// The semiring named by `#[semiring(...)]`.
#[derive(Debug, Clone)]
pub struct SemiringSpec {
    /// The Rust type of the payloads.
    pub ty: Type,
    /// A short display name (`Int`, `my::Prov`).
    pub name: String,
    /// Whether it is from `ivm::semiring` (and so its class is known).
    pub catalogue: bool,
    /// The catalogue types the compiler took the payload for (the type
    /// itself, or each component of a tuple), each with its catalogue
    /// name: generated code proves each one is that type
    /// (`ivm::__private::catalogue`). Empty for a semiring of the user's
    /// own.
    pub catalogue_types: Vec<(Type, &'static str)>,
    /// Its algebraic class.
    pub class: SemiringClass,
    /// The class keywords a semiring of the user's own states, as written:
    /// each is checked against its trait in the generated code.
    pub claims: Vec<syn::Ident>,
    /// Where the attribute was written, if it was.
    pub span: Option<Span>,
}

/// The update model of `#[updates(...)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateModel {
    /// Inserts and deletes (the default).
    InsertDelete,
    /// Inserts only (append-only data).
    InsertOnly,
}

impl UpdateModel {
    /// The keyword as written in the attribute.
    pub fn keyword(self) -> &'static str {
        match self {
            UpdateModel::InsertDelete => "insert_delete",
            UpdateModel::InsertOnly => "insert_only",
        }
    }
}

/// Whether a delete is checked against the tuples inserted
/// (`#[deletes(..)]`, `docs/design.md#how-a-delete-is-checked`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deletes {
    /// A delete of a tuple that is not there is refused with
    /// `ivm::Error::AbsentTuple`, and changes nothing (the default).
    Checked,
    /// The caller promises to delete only what it inserted: a relation
    /// nothing reads back keeps nothing, and a delete goes straight to the
    /// views. A delete of an absent tuple leaves the result wrong.
    Trusted,
}

impl Deletes {
    /// The keyword as written in the attribute.
    pub fn keyword(self) -> &'static str {
        match self {
            Deletes::Checked => "checked",
            Deletes::Trusted => "trusted",
        }
    }
}

/// A maintenance strategy (`docs/design.md#strategies`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Strategy {
    /// F-IVM view tree over a canonical free-top variable order.
    ViewTree,
    /// Two layers: view trees per free-dominated subquery, a Boolean
    /// insert-only join of their supports on top.
    TwoLayer,
    /// CROWN with support counters over a free-connex join tree.
    Crown,
    /// Cluster decomposition with a Boolean CROWN on top (max-max).
    ClusterCrown,
    /// IVMε heavy/light partitioning for the triangle count.
    IvmEps {
        /// The partition exponent ε in [0, 1].
        eps: f64,
    },
    /// Classical first-order delta through hash indexes.
    FirstOrder,
    /// Factorized IVM for the triangle: one materialized join view.
    Factorized,
    /// Recompute from scratch on demand.
    Recompute,
    /// The two-atom inequality join: each side's payloads summed by its
    /// compared variable in a range-sum trie.
    RangeJoin,
}

impl Strategy {
    /// The strategy's name as written in `#[strategy(...)]` and in JSON.
    pub fn keyword(&self) -> &'static str {
        match self {
            Strategy::ViewTree => "view_tree",
            Strategy::TwoLayer => "two_layer",
            Strategy::Crown => "crown",
            Strategy::ClusterCrown => "cluster_crown",
            Strategy::IvmEps { .. } => "ivm_eps",
            Strategy::FirstOrder => "first_order",
            Strategy::Factorized => "factorized",
            Strategy::Recompute => "recompute",
            Strategy::RangeJoin => "range_join",
        }
    }

    /// Every strategy, once (IVMε at its default ε = 1/2): the one list
    /// from which the keywords, the error messages, the test suites and
    /// the fuzzer's buckets are derived.
    pub const ALL: [Strategy; 9] = [
        Strategy::ViewTree,
        Strategy::TwoLayer,
        Strategy::Crown,
        Strategy::ClusterCrown,
        Strategy::IvmEps { eps: 0.5 },
        Strategy::FirstOrder,
        Strategy::Factorized,
        Strategy::Recompute,
        Strategy::RangeJoin,
    ];

    /// The strategy a keyword names (IVMε at ε = 1/2).
    ///
    /// ```
    /// use ivm_compiler::query::Strategy;
    /// assert_eq!(Strategy::from_keyword("crown"), Some(Strategy::Crown));
    /// assert_eq!(Strategy::from_keyword("auto"), None);
    /// ```
    pub fn from_keyword(keyword: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.keyword() == keyword)
    }

    /// Every keyword `#[strategy(...)]` takes: `auto`, then each
    /// strategy's.
    pub fn keywords() -> impl Iterator<Item = &'static str> {
        std::iter::once("auto").chain(Strategy::ALL.iter().map(Strategy::keyword))
    }
}

/// A strategy forced with `#[strategy(...)]`.
#[derive(Debug, Clone, Copy)]
pub struct StrategyRequest {
    /// The strategy asked for.
    pub strategy: Strategy,
    /// Where the attribute was written.
    pub span: Span,
}

/// A declared relation.
#[derive(Debug, Clone)]
pub struct Relation {
    /// Its name.
    pub name: Ident,
    /// Its doc comment lines.
    pub docs: Vec<String>,
    /// Its typed columns.
    pub columns: Vec<Column>,
    /// Whether the query declares it or where it comes from.
    pub origin: Origin,
    /// Who checks that a delete of one of its tuples names a tuple that is
    /// there.
    pub check: DeleteCheck,
    /// Its keys: sets of columns (by index) no two of its tuples share, as
    /// declared (SQL's `PRIMARY KEY` and `UNIQUE`); not enforced.
    pub keys: Vec<Vec<usize>>,
}

/// Who checks that a delete of a declared relation's tuple names a tuple
/// that is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteCheck {
    /// The query itself, as [`Query::deletes`] says.
    Own,
    /// The struct that holds the query as one of its parts, before the
    /// query sees the delete: in a SQL view with nested views, a table that
    /// an earlier part reads (and checks), or a nested view's rows, which
    /// the struct computes (`docs/design.md#nested-sql`). The query trusts
    /// such deletes as under `deletes = 'trusted'`.
    Holder,
}

/// Where a relation of a query comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Declared with `relation ..;`: it has the update API.
    Declared,
    /// The derived relation of an atom (that atom) with a local step: the
    /// tuples of the relation written there that enter it.
    Local(usize),
    /// The indicator of a semijoin (that index of [`Query::semijoins`]).
    Semijoin(usize),
}

/// A typed column of a relation.
#[derive(Debug, Clone)]
pub struct Column {
    /// The column's name.
    pub name: Ident,
    /// The column's Rust type.
    pub ty: Type,
}

/// A variable of the rule.
#[derive(Debug, Clone)]
pub struct Variable {
    /// Its name, with the span of its first occurrence.
    pub name: Ident,
    /// Its type, taken from the columns it binds.
    pub ty: Type,
}

/// An atom of the rule's body.
#[derive(Debug, Clone)]
pub struct Atom {
    /// The relation it reads: one column per variable of `vars`. For an
    /// atom with a local step, the derived relation of its tuples.
    pub relation: RelId,
    /// Its variables, one per column of `relation`.
    pub vars: Vec<VarId>,
    /// What happens where a tuple of the written relation enters the atom,
    /// when that is more than binding one new variable per column.
    pub local: Option<LocalStep>,
    /// Where it is written.
    pub span: Span,
}

/// An atom's local step (`docs/design.md#local-steps-and-theta-factors`): its
/// written relation's tuples are matched against constants and repeated
/// variables, multiplied by the factors local to the atom, and projected on
/// the atom's variables; what passes is the derived relation the atom reads,
/// and the rest of the pipeline sees a plain atom over it.
#[derive(Debug, Clone)]
pub struct LocalStep {
    /// The relation as written in the atom.
    pub source: RelId,
    /// What each of its columns is bound to.
    pub args: Vec<Arg>,
    /// The computed columns (`{ let y: T = expr }`) of this atom, in the
    /// order written; each may read the ones before it.
    pub lets: Vec<Let>,
    /// The `{ expr }` factors whose variables all occur in this atom (and
    /// in no earlier one).
    pub factors: Vec<ExprFactor>,
}

/// A computed column, `{ let y: T = expr }`: a variable whose value is an
/// expression over the columns of one atom, computed where a tuple enters
/// that atom. It is one more column of the atom's derived relation, so it
/// can be a head variable (SQL's GROUP BY an expression) or be read by
/// the atom's factors and by theta factors.
#[derive(Debug, Clone)]
pub struct Let {
    /// The variable it defines.
    pub var: VarId,
    /// Its value: the expression and the variables it reads.
    pub value: ExprFactor,
    /// Whether it is written or stands in for a nullary atom.
    pub kind: LetKind,
}

/// Where a computed column comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LetKind {
    /// Written in the rule, `{ let y: T = expr }`.
    Written,
    /// The column, always `true`, that an atom binding no variable reads
    /// its tuples through, so that they sum into one entry: the nullary
    /// factor (`syntax/nullary.rs`).
    Nullary,
}

/// One argument of an atom as written.
#[derive(Debug, Clone)]
pub enum Arg {
    /// A variable.
    Var(VarId),
    /// A constant the column must equal, as a Rust expression (`7`, `-3`,
    /// `"BUILDING"`, `true`).
    Const(Box<syn::Expr>),
    /// `_`: any value, summed out.
    Wildcard,
    /// `Some(v)`: an `Option` column that holds a value, bound to `v`.
    Some(VarId),
}

/// A `{ expr }` factor: a condition (`bool`) or a lift (a payload).
#[derive(Debug, Clone)]
pub struct ExprFactor {
    /// The expression, as written.
    pub expr: syn::Expr,
    /// The query variables it reads.
    pub vars: Vec<VarId>,
    /// Where it is written.
    pub span: Span,
}

impl ExprFactor {
    /// The factor as written, `{ ... }`.
    pub fn text(&self) -> String {
        format!("{{ {} }}", expr_text(&self.expr))
    }
}

impl Query {
    /// A computed column as written, `{ let y: T = ... }`.
    pub fn let_text(&self, l: &Let) -> String {
        let v = &self.variables[l.var];
        format!(
            "{{ let {}: {} = {} }}",
            v.name,
            type_string(&v.ty),
            expr_text(&l.value.expr)
        )
    }
}

/// A relation declared by the query or derived from an atom.
impl Relation {
    /// Whether it is derived (an atom's local step or a semijoin's
    /// indicator) rather than one the query declares: it has no update
    /// API of its own.
    pub fn is_derived(&self) -> bool {
        self.origin != Origin::Declared
    }

    /// For an atom's derived relation, that atom.
    pub fn local_atom(&self) -> Option<usize> {
        match self.origin {
            Origin::Local(atom) => Some(atom),
            Origin::Declared | Origin::Semijoin(_) => None,
        }
    }
}

impl Query {
    /// Whether a variable is free (in the head).
    pub fn is_free(&self, var: VarId) -> bool {
        self.head.contains(&var)
    }

    /// The declared keys of atom `atom`'s relation (for a derived relation,
    /// of the table its local step reads) as sets of the atom's
    /// variables: a key whose columns are variables or constants, the
    /// variables among them. A key with a column summed out (`_`) is no
    /// key of the atom: several of its tuples can share the rest.
    pub fn atom_keys(&self, atom: usize) -> Vec<Vec<VarId>> {
        let a = &self.atoms[atom];
        let (relation, args): (RelId, Vec<Option<Option<VarId>>>) = match &a.local {
            // Per column: `Some(Some(v))` a variable, `Some(None)` a
            // constant, `None` summed out.
            Some(local) => (
                local.source,
                local
                    .args
                    .iter()
                    .map(|arg| match arg {
                        Arg::Var(v) | Arg::Some(v) => Some(Some(*v)),
                        Arg::Const(_) => Some(None),
                        Arg::Wildcard => None,
                    })
                    .collect(),
            ),
            None => (a.relation, a.vars.iter().map(|&v| Some(Some(v))).collect()),
        };
        self.relations[relation]
            .keys
            .iter()
            .filter_map(|key| {
                key.iter()
                    .map(|&c| args.get(c).copied().flatten())
                    .collect::<Option<Vec<Option<VarId>>>>()
                    .map(|vars| vars.into_iter().flatten().collect())
            })
            .collect()
    }

    /// The atom as written, e.g. `S(x, y)`, `exists(T(y, _))`; for a SQL
    /// view, the table and the columns the view reads of it,
    /// `orders(o_orderkey, o_custkey)`.
    pub fn atom_label(&self, index: usize) -> String {
        if let Some(s) = self.semijoins.iter().find(|s| s.atom == index) {
            return s.text();
        }
        if let Some(label) = self.sql_atom_label(index) {
            return label;
        }
        let atom = &self.atoms[index];
        let Some(local) = &atom.local else {
            let vars: Vec<String> = atom
                .vars
                .iter()
                .map(|&v| self.variables[v].name.to_string())
                .collect();
            return format!(
                "{}({})",
                self.relations[atom.relation].name,
                vars.join(", ")
            );
        };
        let args: Vec<String> = local
            .args
            .iter()
            .map(|arg| match arg {
                Arg::Var(v) => self.variables[*v].name.to_string(),
                Arg::Const(e) => expr_text(e),
                Arg::Wildcard => "_".to_owned(),
                Arg::Some(v) => format!("Some({})", self.variables[*v].name),
            })
            .collect();
        format!("{}({})", self.relations[local.source].name, args.join(", "))
    }

    /// A SQL view's atom as the SQL names it: its table with the columns
    /// read (bound to a variable or compared with a constant).
    fn sql_atom_label(&self, index: usize) -> Option<String> {
        let Dialect::Sql { tables, .. } = &self.dialect else {
            return None;
        };
        let atom = &self.atoms[index];
        let (relation, args): (usize, Vec<bool>) = match &atom.local {
            Some(local) => (
                local.source,
                local
                    .args
                    .iter()
                    .map(|a| !matches!(a, Arg::Wildcard))
                    .collect(),
            ),
            None => (atom.relation, vec![true; atom.vars.len()]),
        };
        let table = self.sql_table(relation, tables)?;
        let columns: Vec<String> = self.relations[relation]
            .columns
            .iter()
            .zip(&args)
            .filter(|(_, read)| **read)
            .map(|(c, _)| c.name.to_string())
            .collect();
        Some(format!("{table}({})", columns.join(", ")))
    }

    /// The SQL name of declared relation `relation`.
    fn sql_table<'a>(&self, relation: usize, tables: &'a [(String, String)]) -> Option<&'a String> {
        let r = &self.relations[relation];
        if r.origin != Origin::Declared {
            return None;
        }
        tables
            .iter()
            .find(|(name, _)| r.name == name)
            .map(|(_, sql)| sql)
    }

    /// The relation atom `atom` is written over (before its local step)
    /// and the variable each of its columns binds (`None` for a constant
    /// or `_`).
    pub fn written_columns(&self, atom: usize) -> (RelId, Vec<Option<VarId>>) {
        let (source, bindings) = self.written_bindings(atom);
        // A column that holds `Some(v)`, not `v`, is neither a key to look
        // up nor one to route by.
        let columns = bindings
            .into_iter()
            .map(|b| match b {
                Some((v, false)) => Some(v),
                _ => None,
            })
            .collect();
        (source, columns)
    }

    /// What each column of the relation atom `atom` reads binds, with
    /// whether it binds it through `Some(v)` (see [`Arg::Some`]).
    pub fn written_bindings(&self, atom: usize) -> (RelId, Vec<Option<(VarId, bool)>>) {
        let atom = &self.atoms[atom];
        match &atom.local {
            Some(local) => (
                local.source,
                local
                    .args
                    .iter()
                    .map(|a| match a {
                        Arg::Var(v) => Some((*v, false)),
                        Arg::Some(v) => Some((*v, true)),
                        Arg::Const(_) | Arg::Wildcard => None,
                    })
                    .collect(),
            ),
            None => (
                atom.relation,
                atom.vars.iter().map(|&v| Some((v, false))).collect(),
            ),
        }
    }

    /// A variable as a message names it: its name, or for a SQL view the
    /// columns it stands for, `c_custkey = o_custkey`.
    pub fn var_label(&self, var: VarId) -> String {
        let Dialect::Sql { .. } = &self.dialect else {
            return self.variables[var].name.to_string();
        };
        let mut columns: Vec<String> = Vec::new();
        for atom in 0..self.atoms.len() {
            let (relation, args) = self.written_columns(atom);
            // A column read as `Some(var)` stands for the variable too.
            let unwrapped = |c: usize| {
                self.atoms[atom]
                    .local
                    .as_ref()
                    .is_some_and(|l| matches!(l.args[c], Arg::Some(v) if v == var))
            };
            for (c, (column, arg)) in self.relations[relation]
                .columns
                .iter()
                .zip(args)
                .enumerate()
            {
                let name = column.name.to_string();
                if (arg == Some(var) || unwrapped(c)) && !columns.contains(&name) {
                    columns.push(name);
                }
            }
        }
        if columns.is_empty() {
            return self.variables[var].name.to_string();
        }
        columns.join(" = ")
    }

    /// The relation an atom reads, with its columns, e.g. `Exists1(b)`.
    pub fn label_of_relation(&self, atom: usize) -> String {
        let atom = &self.atoms[atom];
        format!(
            "{}({})",
            self.relations[atom.relation].name,
            self.var_names(&atom.vars)
        )
    }

    /// Variable names, comma-separated.
    pub fn var_names(&self, vars: &[VarId]) -> String {
        vars.iter()
            .map(|&v| self.variables[v].name.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The relations the query declares (not the derived ones).
    pub fn declared(&self) -> impl Iterator<Item = (RelId, &Relation)> + '_ {
        self.relations
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.is_derived())
    }

    /// The query as the text of an `.ivm` file that checks to the same
    /// query: its attributes, relations and rule (doc comments left out).
    ///
    /// ```
    /// let text = "#[semiring(ivm::semiring::Count)]\n#[updates(insert_only)]\nquery Q {\n    relation R(a: u32, b: u32);\n    Q(a) = R(a, b);\n}\n";
    /// let file = ivm_compiler::syntax::parse_str(text).unwrap();
    /// let query = &ivm_compiler::syntax::check(&file).unwrap()[0];
    /// assert_eq!(query.to_text(), text);
    /// ```
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.semiring.span.is_some() {
            let mut args = vec![type_string(&self.semiring.ty)];
            args.extend(self.semiring.claims.iter().map(Ident::to_string));
            out.push_str(&format!("#[semiring({})]\n", args.join(", ")));
        }
        if self.updates == UpdateModel::InsertOnly {
            out.push_str("#[updates(insert_only)]\n");
        }
        if let Some(request) = &self.strategy {
            let strategy = match request.strategy {
                Strategy::IvmEps { eps } => format!("ivm_eps(eps = {eps:?})"),
                other => other.keyword().to_owned(),
            };
            out.push_str(&format!("#[strategy({strategy})]\n"));
        }
        if self.allow_intractable {
            out.push_str("#[allow(intractable)]\n");
        }
        out.push_str(&format!("query {} {{\n", self.name));
        for (_, r) in self.declared() {
            let columns: Vec<String> = r
                .columns
                .iter()
                .map(|c| format!("{}: {}", c.name, type_string(&c.ty)))
                .collect();
            out.push_str(&format!(
                "    relation {}({});\n",
                r.name,
                columns.join(", ")
            ));
        }
        out.push_str(&format!("    {};\n}}\n", self.rule_text()));
        out
    }

    /// Where edge `e` of the query's hypergraph is written: an atom, or
    /// (after the atoms) a theta factor.
    pub fn edge_span(&self, e: usize) -> Span {
        match self.atoms.get(e) {
            Some(atom) => atom.span,
            None => self.theta[e - self.atoms.len()].span,
        }
    }

    /// The rule as one line, e.g. `Q(x) = S(x, y) * T(y)`.
    pub fn rule_text(&self) -> String {
        let head: Vec<String> = self
            .head
            .iter()
            .map(|&v| self.variables[v].name.to_string())
            .collect();
        let mut body: Vec<String> = (0..self.atoms.len())
            .filter(|&i| self.semijoins.iter().all(|s| s.atom != i))
            .map(|i| self.atom_label(i))
            .collect();
        for atom in &self.atoms {
            if let Some(local) = &atom.local {
                body.extend(
                    local
                        .lets
                        .iter()
                        .filter(|l| l.kind == LetKind::Written)
                        .map(|l| self.let_text(l)),
                );
                body.extend(local.factors.iter().map(ExprFactor::text));
            }
        }
        body.extend(self.theta.iter().map(ExprFactor::text));
        body.extend(self.semijoins.iter().map(Semijoin::text));
        format!(
            "{}({}) = {}",
            self.head_name,
            head.join(", "),
            body.join(" * ")
        )
    }
}

impl Semijoin {
    /// The factor as written, e.g. `not exists(Returns(o, _) * { o > 3 })`.
    pub fn text(&self) -> String {
        let rule = self.body.rule_text();
        let body = rule.split_once(" = ").map_or(rule.as_str(), |(_, b)| b);
        let not = if self.negated() { "not " } else { "" };
        format!("{not}exists({body})")
    }

    /// Whether it is `not exists`.
    pub fn negated(&self) -> bool {
        matches!(self.polarity, Polarity::NotExists { .. })
    }

    /// The domain of a `not exists`.
    pub fn domain(&self) -> Option<&Query> {
        match &self.polarity {
            Polarity::Exists => None,
            Polarity::NotExists { domain } => Some(domain),
        }
    }

    /// The relations the body reads through an atom that misses one of
    /// the correlated variables: an update of one may change the count at
    /// many values of them.
    pub fn fanning_out(&self) -> Vec<String> {
        let b = &self.body;
        let mut out: Vec<String> = Vec::new();
        for atom in &b.atoms {
            if b.head.iter().all(|h| atom.vars.contains(h)) {
                continue;
            }
            let source = atom.local.as_ref().map_or(atom.relation, |l| l.source);
            let name = b.relations[source].name.to_string();
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }
}

/// Renders an expression on one line as a person writes it (`a.len() > 1`,
/// not the token stream's `a . len () > 1`): prettyplease's layout with
/// its line breaks joined.
///
/// ```
/// let e: syn::Expr = syn::parse_quote!(i64::from(a.year()) + -3);
/// assert_eq!(ivm_compiler::query::expr_text(&e), "i64::from(a.year()) + -3");
/// ```
pub fn expr_text(e: &syn::Expr) -> String {
    let file: syn::File = syn::parse_quote!(const _: () = #e;);
    let text = prettyplease::unparse(&file);
    let text = text
        .trim()
        .strip_prefix("const _: () = ")
        .and_then(|t| t.strip_suffix(';'))
        .unwrap_or(&text);
    let mut out = String::new();
    for line in text.lines().map(str::trim) {
        let closes = line.starts_with([')', ']']);
        if closes && out.ends_with(',') {
            out.pop();
        }
        if !(out.is_empty() || closes || out.ends_with(['(', '['])) {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}

/// Renders a type as a compact string (`u32`, `Vec<u8>`), for messages and
/// type comparisons.
pub fn type_string(ty: &Type) -> String {
    ty.to_token_stream()
        .to_string()
        .replace(" < ", "<")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace(" :: ", "::")
        .replace(":: ", "::")
}

/// The language a query was written in: its messages name it and its
/// options as that language writes them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Dialect {
    /// The rule language: `query Q { .. }` with `#[..]` attributes.
    #[default]
    Rule,
    /// A SQL view, lowered to a rule: `CREATE VIEW v WITH (..) AS ..`.
    Sql {
        /// The view's name as the SQL writes it.
        view: String,
        /// The tables it reads: each relation's name and the table's SQL
        /// name.
        tables: Vec<(String, String)>,
    },
}

impl Dialect {
    /// What a message calls the query named `name`: "query `Q`", or
    /// "view `v`" for the SQL view it lowers.
    pub fn subject(&self, name: &impl std::fmt::Display) -> String {
        match self {
            Dialect::Rule => format!("query `{name}`"),
            Dialect::Sql { view, .. } => format!("view `{view}`"),
        }
    }

    /// The option that takes on a query that is not tractable.
    pub fn allow_intractable(&self) -> &'static str {
        match self {
            Dialect::Rule => "`#[allow(intractable)]`",
            Dialect::Sql { .. } => "`WITH (intractable = 'allow')`",
        }
    }

    /// The option that declares inserts only.
    pub fn insert_only(&self) -> &'static str {
        match self {
            Dialect::Rule => "`#[updates(insert_only)]`",
            Dialect::Sql { .. } => "`WITH (updates = 'insert_only')`",
        }
    }

    /// The option that forces strategy `s`.
    pub fn strategy(&self, s: Strategy) -> String {
        match self {
            Dialect::Rule => format!("`#[strategy({})]`", s.keyword()),
            Dialect::Sql { .. } => format!("`WITH (strategy = '{}')`", s.keyword()),
        }
    }

    /// A `not exists` factor, as written.
    pub fn not_exists(&self) -> &'static str {
        match self {
            Dialect::Rule => "`not exists(..)`",
            Dialect::Sql { .. } => "the `NOT EXISTS` (or `NOT IN`) subquery",
        }
    }
}

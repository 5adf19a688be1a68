//! The query generator: random rules, kept when the compiler accepts them,
//! spread over every strategy.
//!
//! A query is drawn in three steps: a *shape* (which variables each atom
//! binds: paths, stars, cycles, triangles, variable trees that give
//! hierarchical queries, and free-form ones), relations for the atoms
//! (with self-joins: an atom reuses a relation of its arity now and then),
//! and types for the columns (each variable's columns share one type,
//! mostly `u32`, else `u8`, `i64` or `String`). The head is a random list
//! of variables, nullary included.
//!
//! Each query is drawn for a *bucket*, one per strategy and one for
//! rejected queries compiled through `#[allow(intractable)]`, with the
//! semiring, update model, shape and attribute that make that strategy
//! likely, and kept only if the compiler's verdict is that strategy: so
//! every strategy is represented, whatever the proportions of random
//! queries would be.

use ivm_compiler::driver;
use ivm_compiler::pipeline;
use ivm_compiler::query::Strategy;

use crate::column;
use crate::payload::PATHS;
use crate::rng::{self, Rng};

/// A generated query.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The struct's name.
    pub name: String,
    /// The semiring's path.
    pub semiring: &'static str,
    /// `#[updates(insert_only)]`.
    pub insert_only: bool,
    /// `#[deletes(trusted)]` (never with `insert_only`): the stream then
    /// deletes only what it inserted.
    pub trusted: bool,
    /// The strategy or intractability attribute.
    pub attr: Attr,
    /// Each relation's column types; relation `i` is named [`RELATIONS`]`[i]`.
    pub relations: Vec<Vec<&'static str>>,
    /// The atoms: relation and the variable of each column.
    pub atoms: Vec<(usize, Vec<usize>)>,
    /// The head variables.
    pub head: Vec<usize>,
    /// Columns of atoms that hold a constant instead of their variable:
    /// (atom, column, value; see [`Column`](crate::Column)).
    pub constants: Vec<(usize, usize, u64)>,
    /// Columns of atoms that hold `_` instead of their variable.
    pub wildcards: Vec<(usize, usize)>,
    /// `{ expr }` factors: over the variables of one atom, and (for the
    /// first-order and recompute strategies) theta conditions over two.
    pub factors: Vec<String>,
    /// Computed columns, `{ let w: u32 = expr }`: the variable each
    /// defines and its value, over one atom's variables.
    pub lets: Vec<(usize, String)>,
    /// Semijoins, `exists(..)` and `not exists(..)`.
    pub semijoins: Vec<SemijoinSpec>,
}

/// A generated semijoin: atoms over the rule's relations that each bind
/// its correlated variables (variables of one atom of the rule) and maybe
/// one of its own, and maybe a condition on one of its own.
#[derive(Clone, Debug, PartialEq)]
pub struct SemijoinSpec {
    /// `not exists`.
    pub negated: bool,
    /// Its atoms: relation and the variable of each column.
    pub atoms: Vec<(usize, Vec<usize>)>,
    /// Its condition, if any.
    pub condition: Option<String>,
}

/// The attribute that picks a strategy.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// None: the compiler's choice.
    Auto,
    /// `#[strategy(...)]` with this argument.
    Strategy(String),
    /// `#[allow(intractable)]`.
    AllowIntractable,
}

/// The relation names, in declaration order.
pub const RELATIONS: [&str; 4] = ["R", "S", "T", "U"];
/// The variable names.
pub const VARIABLES: [&str; 15] = [
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o",
];

impl Spec {
    /// The query as text, as a `.ivm` file or `ivm_query!` holds it.
    pub fn text(&self) -> String {
        let mut out = format!("#[semiring({})]\n", self.semiring);
        if self.insert_only {
            out.push_str("#[updates(insert_only)]\n");
        }
        if self.trusted {
            out.push_str("#[deletes(trusted)]\n");
        }
        match &self.attr {
            Attr::Auto => {}
            Attr::Strategy(s) => out.push_str(&format!("#[strategy({s})]\n")),
            Attr::AllowIntractable => out.push_str("#[allow(intractable)]\n"),
        }
        out.push_str(&format!("pub query {} {{\n", self.name));
        for (r, types) in self.relations.iter().enumerate() {
            let cols: Vec<String> = types
                .iter()
                .enumerate()
                .map(|(c, ty)| format!("c{c}: {ty}"))
                .collect();
            out.push_str(&format!(
                "    relation {}({});\n",
                RELATIONS[r],
                cols.join(", ")
            ));
        }
        let vars = |vs: &[usize]| -> String {
            vs.iter()
                .map(|&v| VARIABLES[v])
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut body: Vec<String> = self
            .atoms
            .iter()
            .enumerate()
            .map(|(i, (r, vs))| {
                let args: Vec<String> = vs
                    .iter()
                    .enumerate()
                    .map(|(c, &v)| {
                        if self.wildcards.contains(&(i, c)) {
                            return "_".to_owned();
                        }
                        match self.constants.iter().find(|k| (k.0, k.1) == (i, c)) {
                            Some(&(_, _, value)) => {
                                crate::column::literal(self.relations[*r][c], value)
                            }
                            None => VARIABLES[v].to_owned(),
                        }
                    })
                    .collect();
                format!("{}({})", RELATIONS[*r], args.join(", "))
            })
            .collect();
        body.extend(
            self.lets
                .iter()
                .map(|(v, value)| format!("{{ let {}: u32 = {value} }}", VARIABLES[*v])),
        );
        body.extend(self.factors.iter().map(|f| format!("{{ {f} }}")));
        for sj in &self.semijoins {
            let mut inner: Vec<String> = sj
                .atoms
                .iter()
                .map(|(r, vs)| format!("{}({})", RELATIONS[*r], vars(vs)))
                .collect();
            inner.extend(sj.condition.iter().map(|c| format!("{{ {c} }}")));
            let not = if sj.negated { "not " } else { "" };
            body.push(format!("{not}exists({})", inner.join(" * ")));
        }
        out.push_str(&format!(
            "    Q({}) = {};\n}}\n",
            vars(&self.head),
            body.join(" * ")
        ));
        out
    }

    /// The columns of atom `a` that bind its variable (not a constant or
    /// `_`).
    pub fn bound_columns(&self, a: usize) -> Vec<usize> {
        (0..self.atoms[a].1.len())
            .filter(|&c| {
                !self.wildcards.contains(&(a, c))
                    && !self.constants.iter().any(|k| (k.0, k.1) == (a, c))
            })
            .collect()
    }

    /// A random atom and, if it has one, a random column of it that binds
    /// its variable.
    pub fn pick_bound(&self, rng: &mut Rng) -> Option<(usize, usize)> {
        let a = rng.index(self.atoms.len());
        let bound = self.bound_columns(a);
        (!bound.is_empty()).then(|| (a, *rng.pick(&bound)))
    }

    /// The Rust type of variable `v`: the type of any column it binds
    /// (`u32` for a computed column).
    pub fn var_type(&self, v: usize) -> &'static str {
        if self.lets.iter().any(|(w, _)| *w == v) {
            return "u32";
        }
        self.atoms
            .iter()
            .find_map(|(r, vs)| {
                vs.iter()
                    .position(|&x| x == v)
                    .map(|c| self.relations[*r][c])
            })
            .expect("every variable occurs in an atom")
    }
}

/// What the generator aims at: a strategy, or a rejected query taken on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bucket {
    /// F-IVM view trees.
    ViewTree,
    /// The two-layer insert-only structure.
    TwoLayer,
    /// CROWN.
    Crown,
    /// Max-max clusters under CROWN.
    ClusterCrown,
    /// IVMε for the triangle count.
    IvmEps,
    /// The factorized triangle baseline.
    Factorized,
    /// First-order deltas, forced.
    FirstOrder,
    /// Recomputation, forced.
    Recompute,
    /// A rejected query compiled through `#[allow(intractable)]`.
    Intractable,
    /// A rejected query forced onto a view tree over a general variable
    /// order (`#[strategy(view_tree)]`).
    GeneralViewTree,
    /// A two-atom inequality join (`{ x < y }`), by `#[strategy(range_join)]`
    /// or `#[allow(intractable)]`.
    RangeJoin,
}

impl Bucket {
    /// Every bucket, in the order the generator cycles through them.
    pub const ALL: [Bucket; 11] = [
        Bucket::ViewTree,
        Bucket::TwoLayer,
        Bucket::Crown,
        Bucket::ClusterCrown,
        Bucket::IvmEps,
        Bucket::Factorized,
        Bucket::FirstOrder,
        Bucket::Recompute,
        Bucket::Intractable,
        Bucket::GeneralViewTree,
        Bucket::RangeJoin,
    ];

    /// The strategy the bucket wants from the verdict.
    pub fn strategy(self) -> Strategy {
        match self {
            Bucket::ViewTree | Bucket::GeneralViewTree => Strategy::ViewTree,
            Bucket::TwoLayer => Strategy::TwoLayer,
            Bucket::Crown => Strategy::Crown,
            Bucket::ClusterCrown => Strategy::ClusterCrown,
            Bucket::IvmEps => Strategy::IvmEps { eps: 0.5 },
            Bucket::Factorized => Strategy::Factorized,
            Bucket::FirstOrder | Bucket::Intractable => Strategy::FirstOrder,
            Bucket::Recompute => Strategy::Recompute,
            Bucket::RangeJoin => Strategy::RangeJoin,
        }
    }

    /// The keyword of [`Bucket::strategy`].
    pub fn keyword(self) -> &'static str {
        self.strategy().keyword()
    }

    /// Whether the bucket is for queries rejected by default.
    pub fn intractable(self) -> bool {
        matches!(
            self,
            Bucket::Intractable | Bucket::GeneralViewTree | Bucket::RangeJoin
        )
    }

    /// Whether a query the compiler maintains with `strategy` belongs to
    /// the bucket. An opted-in query gets the cheaper of the general view
    /// tree and the first-order delta.
    pub fn wants(self, strategy: &str, intractable: bool) -> bool {
        let strategy_fits = match self {
            Bucket::Intractable => {
                matches!(strategy, "first_order" | "view_tree" | "range_join")
            }
            _ => self.keyword() == strategy,
        };
        strategy_fits && self.intractable() == intractable
    }
}

/// A query the compiler accepted, with what it made of it.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The query.
    pub spec: Spec,
    /// Its text.
    pub text: String,
    /// The keyword of the strategy the compiler chose.
    pub strategy: &'static str,
    /// Whether the query is rejected by default and was taken on with
    /// `#[allow(intractable)]`.
    pub intractable: bool,
    /// The generated Rust code (`ivmc compile`'s output).
    pub code: String,
}

/// `n` accepted queries from `seed`, named `{prefix}{i}`, cycling through
/// the buckets so that every strategy is represented.
pub fn queries(seed: u64, n: usize, prefix: &str) -> Vec<Generated> {
    (0..n)
        .map(|i| {
            let bucket = Bucket::ALL[i % Bucket::ALL.len()];
            let mut rng = Rng::new(rng::derive(seed, i as u64));
            // From a stream of its own, so that a seed keeps its queries.
            let trusted = Rng::new(rng::derive(seed, 0x7472_7573_7465_6400 ^ i as u64)).chance(0.2);
            query(&mut rng, bucket, &format!("{prefix}{i}"), trusted)
        })
        .collect()
}

/// One accepted query, aimed at `bucket`: up to a few hundred draws for
/// it, then any query the compiler accepts; declared `#[deletes(trusted)]`
/// when `trusted` and it takes deletes.
pub fn query(rng: &mut Rng, bucket: Bucket, name: &str, trusted: bool) -> Generated {
    for attempt in 0.. {
        let aim = if attempt < 400 { Some(bucket) } else { None };
        let drawn_for = aim.unwrap_or_else(|| *rng.pick(&Bucket::ALL));
        let mut spec = draw(rng, drawn_for, name);
        spec.trusted = trusted && !spec.insert_only;
        if let Some(generated) = accept(spec, aim) {
            return generated;
        }
    }
    unreachable!("some query is accepted")
}

/// The query compiled, if the compiler accepts it (for `aim`'s strategy
/// when given).
pub fn accept(spec: Spec, aim: Option<Bucket>) -> Option<Generated> {
    let text = spec.text();
    let reports = pipeline::report_str(&text).ok()?;
    let report = reports.first()?;
    let strategy = report.verdict.strategy()?.keyword();
    let intractable = !report.verdict.tractable();
    if let Some(bucket) = aim
        && !bucket.wants(strategy, intractable)
    {
        return None;
    }
    pipeline::lower(report).ok()?;
    let code = driver::compile_str(&text).ok()?;
    Some(Generated {
        spec,
        text,
        strategy,
        intractable,
        code,
    })
}

/// The semirings with O(1) deletes or a ring: what IVMε counts over.
const COUNTING: [&str; 4] = [
    "ivm::semiring::Int",
    "ivm::semiring::Real",
    "ivm::semiring::Count",
    "ivm::semiring::Covariance<2>",
];
/// The positive semirings.
const POSITIVE: [&str; 8] = [
    "ivm::semiring::Count",
    "ivm::semiring::Bool",
    "ivm::semiring::AccessControl",
    "ivm::semiring::MinPlus",
    "ivm::semiring::MaxPlus",
    "ivm::semiring::MaxMin",
    "ivm::semiring::MinMax",
    "ivm::semiring::MaxMax",
];
/// The bounded monotone semirings (CROWN's).
const BOUNDED: [&str; 2] = ["ivm::semiring::Bool", "ivm::semiring::AccessControl"];

/// One random query aimed at `bucket` (it may still get another strategy).
pub fn draw(rng: &mut Rng, bucket: Bucket, name: &str) -> Spec {
    let (semiring, insert_only) = match bucket {
        Bucket::TwoLayer => (*rng.pick(&POSITIVE), true),
        Bucket::Crown => (*rng.pick(&BOUNDED), true),
        Bucket::ClusterCrown => ("ivm::semiring::MaxMax", true),
        Bucket::IvmEps | Bucket::Factorized => (*rng.pick(&COUNTING), rng.chance(0.3)),
        Bucket::RangeJoin => ("ivm::semiring::Int", rng.chance(0.3)),
        _ => (*rng.pick(&PATHS), rng.chance(0.35)),
    };
    let forced = |rng: &mut Rng, keyword: &str| {
        if rng.chance(0.5) {
            Attr::Auto
        } else {
            Attr::Strategy(keyword.to_string())
        }
    };
    let attr = match bucket {
        Bucket::GeneralViewTree => Attr::Strategy("view_tree".to_owned()),
        Bucket::RangeJoin if rng.chance(0.5) => Attr::Strategy("range_join".to_owned()),
        Bucket::RangeJoin => Attr::AllowIntractable,
        Bucket::ViewTree | Bucket::TwoLayer | Bucket::Crown | Bucket::ClusterCrown => {
            forced(rng, bucket.keyword())
        }
        Bucket::IvmEps => {
            if rng.chance(0.3) {
                Attr::Auto
            } else {
                let eps = *rng.pick(&["0", "0.25", "0.5", "0.75", "1", "0.3", "0.9"]);
                Attr::Strategy(format!("ivm_eps(eps = {eps})"))
            }
        }
        Bucket::Factorized | Bucket::FirstOrder | Bucket::Recompute => {
            Attr::Strategy(bucket.keyword().to_string())
        }
        Bucket::Intractable => Attr::AllowIntractable,
    };
    let shape = match bucket {
        Bucket::IvmEps | Bucket::Factorized => triangle(rng),
        Bucket::RangeJoin => two_apart(rng),
        Bucket::ViewTree | Bucket::TwoLayer if rng.chance(0.6) => tree(rng),
        _ => match rng.index(6) {
            0 => path(rng),
            1 => star(rng),
            2 => cycle(rng),
            3 => triangle(rng),
            4 => tree(rng),
            _ => free(rng),
        },
    };
    let Some(mut relations) = relations_for(rng, &shape.atoms, shape.same_relation) else {
        return draw(rng, bucket, name);
    };
    let mut shape_atoms = shape.atoms;
    // A twin now and then: an atom that reads the same relation with the
    // same variables, or with them permuted (`R(a, b) * R(a, b)`,
    // `R(a, b) * R(b, a)`), so that an update meets itself in one view.
    if shape_atoms.len() < 5 && rng.chance(0.15) {
        let i = rng.index(shape_atoms.len());
        let mut vs = shape_atoms[i].clone();
        for k in (1..vs.len()).rev() {
            vs.swap(k, rng.index(k + 1));
        }
        let at = rng.index(shape_atoms.len() + 1);
        let relation = relations[i];
        shape_atoms.insert(at, vs);
        relations.insert(at, relation);
    }
    let nvars = shape_atoms.iter().flatten().max().map_or(0, |&v| v + 1);
    let types = column_types(rng, &shape_atoms, &relations, nvars);
    let atoms: Vec<(usize, Vec<usize>)> = relations.iter().copied().zip(shape_atoms).collect();
    let head = shape.head.unwrap_or_else(|| random_head(rng, nvars));
    let mut spec = Spec {
        name: name.to_string(),
        semiring,
        insert_only,
        trusted: false,
        attr,
        relations: types,
        atoms,
        head,
        constants: Vec::new(),
        wildcards: Vec::new(),
        factors: Vec::new(),
        lets: Vec::new(),
        semijoins: Vec::new(),
    };
    if rng.chance(0.4) {
        add_local_steps(rng, &mut spec);
    }
    let free_form = !matches!(
        bucket,
        Bucket::IvmEps | Bucket::Factorized | Bucket::RangeJoin
    );
    if rng.chance(0.1) {
        add_nullary_atom(rng, &mut spec);
    }
    if free_form && rng.chance(0.2) {
        add_semijoin(rng, &mut spec);
    }
    if bucket == Bucket::RangeJoin {
        add_inequality(rng, &mut spec);
    }
    spec
}

/// Two atoms with no variable in common, and no head: an inequality join
/// once [`add_inequality`] compares them.
fn two_apart(rng: &mut Rng) -> Shape {
    let (m, n) = (rng.range(1, 4) as usize, rng.range(1, 4) as usize);
    let mut shape = Shape::of(vec![(0..m).collect(), (m..m + n).collect()]);
    shape.head = Some(Vec::new());
    shape
}

/// `{ x < y }` (or `<=`, `>`, `>=`) between a bound integer column of the
/// first atom and one of the second of the same type.
fn add_inequality(rng: &mut Rng, spec: &mut Spec) {
    const ORDERED: [&str; 5] = ["u32", "u8", "u64", "i32", "i64"];
    let columns = |spec: &Spec, a: usize| -> Vec<usize> {
        spec.bound_columns(a)
            .into_iter()
            .map(|c| spec.atoms[a].1[c])
            .filter(|&v| ORDERED.contains(&spec.var_type(v)))
            .collect()
    };
    let pairs: Vec<(usize, usize)> = columns(spec, 0)
        .into_iter()
        .flat_map(|x| columns(spec, 1).into_iter().map(move |y| (x, y)))
        .filter(|&(x, y)| spec.var_type(x) == spec.var_type(y))
        .collect();
    if pairs.is_empty() {
        return;
    }
    let (x, y) = *rng.pick(&pairs);
    let op = *rng.pick(&["<", "<=", ">", ">="]);
    spec.factors
        .push(format!("{} {op} {}", VARIABLES[x], VARIABLES[y]));
}

/// Gives some atoms local steps: constants and `_` in columns whose
/// variable no other column or the head reads, a variable repeated within
/// an atom, conditions (and, over `Int`, lifts) over one atom's
/// variables, and a theta condition over two atoms' where the strategy
/// applies it.
pub fn add_local_steps(rng: &mut Rng, spec: &mut Spec) {
    // A repeated variable: a column takes the variable of an earlier
    // column of its atom with the same type, if its own is read elsewhere
    // (so no head variable is left unbound).
    if rng.chance(0.3) {
        let a = rng.index(spec.atoms.len());
        let r = spec.atoms[a].0;
        let n = spec.atoms[a].1.len();
        if n >= 2 {
            let (i, j) = (rng.index(n - 1), n - 1);
            let (vi, vj) = (spec.atoms[a].1[i], spec.atoms[a].1[j]);
            let elsewhere = spec
                .atoms
                .iter()
                .enumerate()
                .any(|(b, (_, vs))| b != a && vs.contains(&vj));
            if spec.relations[r][i] == spec.relations[r][j]
                && vi != vj
                && (elsewhere || !spec.head.contains(&vj))
            {
                spec.atoms[a].1[j] = vi;
            }
        }
    }
    let uses = |spec: &Spec, v: usize| {
        spec.atoms
            .iter()
            .map(|(_, vs)| vs.iter().filter(|&&x| x == v).count())
            .sum::<usize>()
    };
    for a in 0..spec.atoms.len() {
        for c in 0..spec.atoms[a].1.len() {
            let v = spec.atoms[a].1[c];
            if uses(spec, v) != 1 || spec.head.contains(&v) || !rng.chance(0.25) {
                continue;
            }
            if rng.chance(0.5) {
                spec.wildcards.push((a, c));
            } else {
                spec.constants.push((a, c, rng.range(1, 3) as u64));
            }
        }
    }
    // A computed column (`{ let w: u32 = f(v) }`, f not one-to-one) of a
    // variable an atom still binds: a head variable in place of `v` or
    // next to it, or a condition's.
    if rng.chance(0.35) {
        add_let(rng, spec);
    }
    // Conditions over a variable an atom still binds, maybe a lift.
    for _ in 0..rng.index(3) {
        let Some((a, c)) = spec.pick_bound(rng) else {
            continue;
        };
        let (r, vs) = &spec.atoms[a];
        let (v, ty) = (VARIABLES[vs[c]], spec.relations[*r][c]);
        let factor = match ty {
            "String" => format!("{v} != \"s2\""),
            "i64" if spec.semiring == "ivm::semiring::Int" && rng.chance(0.4) => {
                format!("Int({v} + 1)")
            }
            _ if spec.semiring == "ivm::semiring::Int" && rng.chance(0.4) => {
                format!("Int(i64::from({v}) - 2)")
            }
            _ => {
                let k = crate::column::literal(ty, rng.range(1, 4) as u64);
                let op = *rng.pick(&["<", "!=", ">="]);
                format!("{v} {op} {k}")
            }
        };
        spec.factors.push(factor);
    }
    // A theta condition, over variables of two atoms, where the strategy
    // applies it to each derivation (first-order, recompute, or a rejected
    // query taken on with `#[allow(intractable)]`).
    let applies = match &spec.attr {
        Attr::Strategy(s) => s == "first_order" || s == "recompute",
        Attr::AllowIntractable => true,
        Attr::Auto => false,
    };
    if applies && spec.atoms.len() >= 2 && rng.chance(0.6) {
        let bound = |spec: &Spec, a: usize| -> Vec<usize> {
            spec.bound_columns(a)
                .into_iter()
                .map(|c| spec.atoms[a].1[c])
                .collect()
        };
        let a = rng.index(spec.atoms.len());
        let b = (a + 1 + rng.index(spec.atoms.len() - 1)) % spec.atoms.len();
        let pairs: Vec<(usize, usize)> = bound(spec, a)
            .into_iter()
            .flat_map(|x| bound(spec, b).into_iter().map(move |y| (x, y)))
            .filter(|&(x, y)| {
                x != y
                    && spec.var_type(x) == spec.var_type(y)
                    && !spec
                        .atoms
                        .iter()
                        .any(|(_, vs)| vs.contains(&x) && vs.contains(&y))
            })
            .collect();
        if !pairs.is_empty() {
            let (x, y) = *rng.pick(&pairs);
            let op = if spec.var_type(x) == "String" {
                "!="
            } else {
                *rng.pick(&["<", "!=", "<="])
            };
            spec.factors
                .push(format!("{} {op} {}", VARIABLES[x], VARIABLES[y]));
        }
    }
}

/// Adds an atom that binds no variable (only constants and `_`) over a
/// relation of the rule: a nullary factor of every derivation.
fn add_nullary_atom(rng: &mut Rng, spec: &mut Spec) {
    let next = spec
        .atoms
        .iter()
        .flat_map(|(_, vs)| vs.iter().copied())
        .chain(spec.lets.iter().map(|l| l.0))
        .max()
        .map_or(0, |v| v + 1);
    let r = rng.index(spec.relations.len());
    let n = spec.relations[r].len();
    if next + n > VARIABLES.len() {
        return;
    }
    let a = spec.atoms.len();
    spec.atoms.push((r, (next..next + n).collect()));
    for c in 0..n {
        if rng.chance(0.5) {
            spec.wildcards.push((a, c));
        } else {
            spec.constants.push((a, c, rng.range(1, 3) as u64));
        }
    }
}

/// Adds a semijoin correlated on one or two variables that one atom binds
/// (or, now and then, on none: a condition on the whole result):
/// one or two atoms over the rule's relations (or a new one), the first
/// with the correlated variables and maybe a variable of its own, the
/// second the same or missing one of them. Negated now and then, where
/// deletes are possible.
fn add_semijoin(rng: &mut Rng, spec: &mut Spec) {
    let Some((a, _)) = spec.pick_bound(rng) else {
        return;
    };
    let mut correlated: Vec<usize> = spec
        .bound_columns(a)
        .into_iter()
        .map(|c| spec.atoms[a].1[c])
        .collect();
    correlated.dedup();
    for i in (1..correlated.len()).rev() {
        correlated.swap(i, rng.index(i + 1));
    }
    let uncorrelated = rng.chance(0.25);
    correlated.truncate(if uncorrelated {
        0
    } else {
        rng.range(1, 2) as usize
    });
    let mut next = spec
        .atoms
        .iter()
        .flat_map(|(_, vs)| vs.iter().copied())
        .chain(spec.head.iter().copied())
        .chain(spec.lets.iter().map(|l| l.0))
        .chain(
            spec.semijoins
                .iter()
                .flat_map(|s| s.atoms.iter().flat_map(|(_, vs)| vs.iter().copied())),
        )
        .max()
        .map_or(0, |v| v + 1);
    let mut atoms = Vec::new();
    let mut own = Vec::new();
    let declared = spec.relations.len();
    for _ in 0..rng.range(1, 2) {
        let mut vs = correlated.clone();
        // A second atom may miss a correlated variable (an update of it
        // then turns the semijoin at many values), joining the first
        // through a variable of its own instead.
        let misses = !atoms.is_empty()
            && !vs.is_empty()
            && (!own.is_empty() || next < VARIABLES.len())
            && rng.chance(0.4);
        if misses {
            vs.remove(rng.index(vs.len()));
        }
        if vs.is_empty() && own.is_empty() && next >= VARIABLES.len() {
            return;
        }
        if misses || vs.is_empty() || (rng.chance(0.6) && next < VARIABLES.len()) {
            let v = if !own.is_empty() && (misses || rng.chance(0.5)) {
                own[0]
            } else {
                next += 1;
                own.push(next - 1);
                next - 1
            };
            vs.insert(rng.index(vs.len() + 1), v);
        } else {
            for i in (1..vs.len()).rev() {
                vs.swap(i, rng.index(i + 1));
            }
        }
        // Own variables are `u32`; a relation whose columns have these
        // types, or a new one.
        let types: Vec<&'static str> = vs
            .iter()
            .map(|&v| {
                if own.contains(&v) {
                    "u32"
                } else {
                    spec.var_type(v)
                }
            })
            .collect();
        let fits: Vec<usize> = (0..spec.relations.len())
            .filter(|&r| spec.relations[r] == types)
            .collect();
        let r = if !fits.is_empty() && (spec.relations.len() == RELATIONS.len() || rng.chance(0.6))
        {
            *rng.pick(&fits)
        } else if spec.relations.len() < RELATIONS.len() {
            spec.relations.push(types);
            spec.relations.len() - 1
        } else {
            // No relation fits: no semijoin, and no relation left unread.
            spec.relations.truncate(declared);
            return;
        };
        atoms.push((r, vs));
    }
    let condition = own
        .first()
        .map(|&v| {
            let op = *rng.pick(&["!=", "<", ">="]);
            format!("{} {op} {}", VARIABLES[v], rng.range(1, 3))
        })
        .filter(|_| rng.chance(0.5));
    let rings = [
        "ivm::semiring::Int",
        "ivm::semiring::Real",
        "ivm::semiring::Covariance<2>",
    ];
    let deletes = !spec.insert_only || rings.contains(&spec.semiring);
    spec.semijoins.push(SemijoinSpec {
        negated: deletes && rng.chance(0.4),
        atoms,
        condition,
    });
}

/// Adds a computed column over a variable some atom binds (not through a
/// constant or `_`).
fn add_let(rng: &mut Rng, spec: &mut Spec) {
    let w = spec
        .atoms
        .iter()
        .flat_map(|(_, vs)| vs.iter().copied())
        .chain(spec.head.iter().copied())
        .chain(spec.lets.iter().map(|l| l.0))
        .max()
        .map_or(0, |v| v + 1);
    if w >= VARIABLES.len() {
        return;
    }
    let Some((a, c)) = spec.pick_bound(rng) else {
        return;
    };
    let (r, vs) = spec.atoms[a].clone();
    let (v, name) = (vs[c], VARIABLES[vs[c]]);
    let m = rng.range(2, 4);
    let value = match spec.relations[r][c] {
        "String" => format!("{name}.len() as u32"),
        "i32" | "i64" => format!("{name}.rem_euclid({m}) as u32"),
        "u64" => format!("({name} % {m}) as u32"),
        "u32" => format!("{name} % {m}"),
        _ => format!("u32::from({name} % {m})"),
    };
    spec.lets.push((w, value));
    match spec.head.iter().position(|&h| h == v) {
        Some(i) if rng.chance(0.5) => spec.head[i] = w,
        _ if rng.chance(0.6) => spec.head.push(w),
        _ => spec.factors.push(format!("{} != 1", VARIABLES[w])),
    }
}

/// The variables each atom binds, and what the shape wants of the rest.
struct Shape {
    /// Per atom, its variables (distinct within an atom).
    atoms: Vec<Vec<usize>>,
    /// A head the shape chooses; `None` for a random one.
    head: Option<Vec<usize>>,
    /// Whether all atoms must read one relation (a graph query).
    same_relation: bool,
}

impl Shape {
    fn of(atoms: Vec<Vec<usize>>) -> Shape {
        Shape {
            atoms,
            head: None,
            same_relation: false,
        }
    }
}

/// A path x0 – x1 – ... of binary atoms, some with an extra variable,
/// maybe with unary atoms at its ends.
fn path(rng: &mut Rng) -> Shape {
    let k = rng.range(1, 4) as usize;
    let mut next = k + 1;
    let mut atoms: Vec<Vec<usize>> = (0..k)
        .map(|i| {
            let mut vs = vec![i, i + 1];
            if rng.chance(0.2) {
                vs.insert(rng.index(3), next);
                next += 1;
            }
            vs
        })
        .collect();
    if atoms.len() < 5 && rng.chance(0.3) {
        atoms.push(vec![0]);
    }
    if atoms.len() < 5 && rng.chance(0.3) {
        atoms.push(vec![k]);
    }
    Shape::of(atoms)
}

/// Atoms that share one centre variable, each with up to two of its own.
fn star(rng: &mut Rng) -> Shape {
    let k = rng.range(1, 5) as usize;
    let mut next = 1;
    let atoms = (0..k)
        .map(|_| {
            let mut vs = vec![0];
            for _ in 0..rng.range(0, 2) {
                vs.insert(rng.index(vs.len() + 1), next);
                next += 1;
            }
            vs
        })
        .collect();
    Shape::of(atoms)
}

/// A cycle of 3 to 5 binary atoms.
fn cycle(rng: &mut Rng) -> Shape {
    let k = rng.range(3, 5) as usize;
    Shape::of((0..k).map(|i| vec![i, (i + 1) % k]).collect())
}

/// The triangle a – b – c – a, over three relations or one (a graph,
/// with an edge reversed now and then), mostly with an empty head.
fn triangle(rng: &mut Rng) -> Shape {
    let mut atoms = vec![vec![0, 1], vec![1, 2], vec![2, 0]];
    let same_relation = rng.chance(0.4);
    if rng.chance(0.25) {
        atoms[rng.index(3)].reverse();
    }
    let head = if rng.chance(0.8) {
        Some(Vec::new())
    } else {
        None
    };
    Shape {
        atoms,
        head,
        same_relation,
    }
}

/// A random forest of variables; each atom binds the path from a root to
/// one node (so the query is hierarchical), and the head is closed
/// upwards most of the time (so it is q-hierarchical).
fn tree(rng: &mut Rng) -> Shape {
    let n = rng.range(1, 6) as usize;
    // parent[v] < v, or none for a root; paths of at most 3 variables.
    let mut parent: Vec<Option<usize>> = vec![None];
    let mut depth = vec![1];
    for v in 1..n {
        let candidates: Vec<usize> = (0..v).filter(|&u| depth[u] < 3).collect();
        let p = if candidates.is_empty() || rng.chance(0.2) {
            None
        } else {
            Some(*rng.pick(&candidates))
        };
        depth.push(p.map_or(1, |p| depth[p] + 1));
        parent.push(p);
    }
    let path_to = |v: usize| {
        let mut vs = vec![v];
        let mut at = v;
        while let Some(p) = parent[at] {
            vs.push(p);
            at = p;
        }
        vs.reverse();
        vs
    };
    // Every leaf gets an atom; others now and then.
    let mut atoms: Vec<Vec<usize>> = Vec::new();
    for v in 0..n {
        let leaf = !parent.contains(&Some(v));
        if (leaf || rng.chance(0.3)) && atoms.len() < 5 {
            let mut vs = path_to(v);
            // Columns in any order.
            for i in (1..vs.len()).rev() {
                vs.swap(i, rng.index(i + 1));
            }
            atoms.push(vs);
        }
    }
    // Variables under no atom (a cut-off subtree) are renumbered away.
    let used: Vec<usize> = (0..n)
        .filter(|v| atoms.iter().any(|a| a.contains(v)))
        .collect();
    let renumber = |v: usize| used.iter().position(|&u| u == v).expect("used");
    for a in &mut atoms {
        for v in a.iter_mut() {
            *v = renumber(*v);
        }
    }
    let head = if rng.chance(0.7) {
        // Closed upwards: each chosen variable brings its ancestors.
        let mut head: Vec<usize> = Vec::new();
        for &v in &used {
            if rng.chance(0.35) {
                for u in path_to(v) {
                    let u = renumber(u);
                    if !head.contains(&u) {
                        head.push(u);
                    }
                }
            }
        }
        Some(head)
    } else {
        None
    };
    Shape {
        atoms,
        head,
        same_relation: false,
    }
}

/// Atoms of random arity whose columns take an existing variable or a new
/// one.
fn free(rng: &mut Rng) -> Shape {
    let k = rng.range(1, 5) as usize;
    let mut next = 0;
    let atoms = (0..k)
        .map(|_| {
            let arity = rng.range(1, 3) as usize;
            let mut vs: Vec<usize> = Vec::new();
            while vs.len() < arity {
                let v = if next > 0 && rng.chance(0.55) {
                    rng.index(next)
                } else {
                    next += 1;
                    next - 1
                };
                if !vs.contains(&v) {
                    vs.push(v);
                } else if next >= 15 {
                    break;
                }
            }
            vs
        })
        .collect();
    Shape::of(atoms)
}

/// A relation for each atom: a new one, or (a self-join) one already used
/// by an atom of the same arity; `None` when that takes more than four.
fn relations_for(rng: &mut Rng, atoms: &[Vec<usize>], same: bool) -> Option<Vec<usize>> {
    let mut arity: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    for vs in atoms {
        let reusable: Vec<usize> = (0..arity.len()).filter(|&r| arity[r] == vs.len()).collect();
        let reuse =
            !reusable.is_empty() && (same || arity.len() == RELATIONS.len() || rng.chance(0.3));
        if reuse {
            out.push(*rng.pick(&reusable));
        } else {
            arity.push(vs.len());
            out.push(arity.len() - 1);
        }
    }
    (arity.len() <= RELATIONS.len()).then_some(out)
}

/// The column types of each relation: each variable's columns share a
/// type (a union of columns and variables), mostly `u32`.
fn column_types(
    rng: &mut Rng,
    atoms: &[Vec<usize>],
    relations: &[usize],
    nvars: usize,
) -> Vec<Vec<&'static str>> {
    let nrel = relations.iter().max().map_or(0, |&r| r + 1);
    let arity: Vec<usize> = (0..nrel)
        .map(|r| {
            let a = relations.iter().position(|&x| x == r).expect("used");
            atoms[a].len()
        })
        .collect();
    // Slots: the variables, then every (relation, column).
    let slot = |r: usize, c: usize| nvars + arity[..r].iter().sum::<usize>() + c;
    let total = nvars + arity.iter().sum::<usize>();
    let mut parent: Vec<usize> = (0..total).collect();
    fn find(parent: &mut [usize], x: usize) -> usize {
        let mut x = x;
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (a, vs) in atoms.iter().enumerate() {
        for (c, &v) in vs.iter().enumerate() {
            let (x, y) = (
                find(&mut parent, v),
                find(&mut parent, slot(relations[a], c)),
            );
            parent[x] = y;
        }
    }
    let mut type_of_root: Vec<Option<&'static str>> = vec![None; total];
    (0..nrel)
        .map(|r| {
            (0..arity[r])
                .map(|c| {
                    let root = find(&mut parent, slot(r, c));
                    *type_of_root[root].get_or_insert_with(|| {
                        if rng.chance(0.7) {
                            "u32"
                        } else {
                            *rng.pick(&column::TYPES[1..])
                        }
                    })
                })
                .collect()
        })
        .collect()
}

/// A random head: up to three variables in a random order, none most of
/// the time in a fifth of the queries.
fn random_head(rng: &mut Rng, nvars: usize) -> Vec<usize> {
    let mut vars: Vec<usize> = (0..nvars).collect();
    for i in (1..vars.len()).rev() {
        vars.swap(i, rng.index(i + 1));
    }
    let k = rng.index(nvars.min(3) + 1);
    vars.truncate(k);
    vars
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bucket_gets_its_strategy() {
        let generated = queries(11, Bucket::ALL.len(), "G");
        for (g, bucket) in generated.iter().zip(Bucket::ALL) {
            assert!(
                bucket.wants(g.strategy, g.intractable),
                "{bucket:?}: {}",
                g.text
            );
        }
    }

    #[test]
    fn every_strategy_has_a_bucket() {
        for strategy in Strategy::ALL {
            assert!(
                Bucket::ALL
                    .iter()
                    .any(|b| b.keyword() == strategy.keyword()),
                "no bucket draws queries for `{}`",
                strategy.keyword()
            );
        }
    }

    #[test]
    fn columns_of_one_variable_share_a_type() {
        // (A variable may repeat within an atom: a local step.)
        let mut rng = Rng::new(5);
        for i in 0..300 {
            let bucket = Bucket::ALL[i % Bucket::ALL.len()];
            let spec = draw(&mut rng, bucket, &format!("Q{i}"));
            for (r, vs) in &spec.atoms {
                assert_eq!(vs.len(), spec.relations[*r].len(), "{}", spec.text());
                for (c, &v) in vs.iter().enumerate() {
                    assert_eq!(spec.relations[*r][c], spec.var_type(v), "{}", spec.text());
                }
            }
            assert!(spec.relations.len() <= 4, "{}", spec.text());
        }
    }
}

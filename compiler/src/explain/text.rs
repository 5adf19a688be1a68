//! The human form of `ivmc explain`.

use std::fmt::Write as _;

use super::Report;
use super::tree::{self, Node};
use crate::analysis::decomposition::Subquery;
use crate::analysis::hypergraph::{Mask, members};
use crate::analysis::{
    Analysis, Hypergraph, InequalityJoin, JoinTree, Triangle, VariableOrder, keys,
};
use crate::plan::verdict::{Accepted, Choice, Rejected, Verdict};
use crate::plan::{Plan, verdict};
use crate::query::{Strategy, UpdateModel};
use crate::semiring;

/// Renders one report as indented text.
pub fn to_text(r: &Report) -> String {
    let q = &r.query;
    let a = &r.analysis;
    let mut out = String::new();
    let _ = writeln!(out, "query {}", q.name);
    if let Some(sql) = &r.sql {
        let _ = writeln!(out, "  sql       {sql}");
    }
    let _ = writeln!(out, "  rule      {}", q.rule_text());
    let _ = writeln!(
        out,
        "  semiring  {} ({})",
        q.semiring.name, q.semiring.class
    );
    let _ = writeln!(out, "  updates   {}", q.updates.keyword());
    if q.deletes == crate::query::Deletes::Trusted {
        let _ = writeln!(
            out,
            "  deletes   trusted (not checked: a delete of a tuple that is not there leaves the result wrong)"
        );
    }
    order(&mut out, r);
    out.push('\n');
    local_steps(&mut out, q);
    semijoins(&mut out, r);

    classes_section(&mut out, a);
    verdict_section(&mut out, r);
    let plan = plan_text(r);
    if !plan.is_empty() {
        out.push('\n');
        out.push_str(&plan);
    }
    nesting(&mut out, r);
    out
}

/// A SQL view's ORDER BY, LIMIT and OFFSET, and what they cost
/// (`docs/design.md#order-by-and-limit`).
fn order(out: &mut String, r: &Report) {
    let Some(order) = &r.order else {
        return;
    };
    use crate::pipeline::OrderedRows;
    use crate::sql::order::Keeping;
    let cost = match order.rows {
        OrderedRows::Window(Keeping::Fed) => {
            let changes = super::changes(r).unwrap_or("rejected");
            format!(
                "rows kept in order in a map, O(log n) per changed row (n rows) after each update reads the rule's changes ({changes}); the window read in O(offset + limit)"
            )
        }
        OrderedRows::Window(Keeping::Sorted) => {
            "the rule compares whole results to find its changes, so the window is cut from the rows sorted at reading, O(n log n) for n rows; updates pay nothing for it".to_string()
        }
        OrderedRows::Sorted => {
            "sorted at reading, O(n log n) for n rows; updates pay nothing for it".to_string()
        }
    };
    let _ = writeln!(out, "  order     {}: {cost}", order.clause);
}

/// The nested views of a SQL view (`docs/design.md#nested-sql`): each
/// with its strategy and bound and who reads it, what an update of each
/// table goes to, and then each nested view's own report.
fn nesting(out: &mut String, r: &Report) {
    if r.nested.is_empty() {
        return;
    }
    let update = |r: &Report| {
        r.verdict.accepted().map_or("rejected".to_string(), |v| {
            format!("{} in {}", v.strategy.keyword(), v.bounds.update)
        })
    };
    let tables = |r: &Report| match &r.query.dialect {
        crate::query::Dialect::Sql { tables, .. } => tables.iter().map(|t| t.1.clone()).collect(),
        crate::query::Dialect::Rule => Vec::new(),
    };
    let view = match &r.query.dialect {
        crate::query::Dialect::Sql { view, .. } => view.clone(),
        crate::query::Dialect::Rule => r.query.name.to_string(),
    };
    out.push_str(
        "\nnesting: each nested view is kept once; a row of it that goes or comes is a delete or an insert of the relation of its name in the views that read it\n",
    );
    for n in &r.nested {
        let shape = match n.shape {
            crate::sql::ViewShape::Grouped => "grouped",
            crate::sql::ViewShape::Keyless => "one row",
            crate::sql::ViewShape::Bag => "a bag",
        };
        // Every update reads the nested view's changes: their cost is part
        // of the update's.
        let changes = super::changes(&n.report).unwrap_or("rejected");
        let table = n
            .feeds
            .as_ref()
            .map_or(String::new(), |t| format!(" rows of {t}'s table,"));
        let _ = writeln!(
            out,
            "  {}  ({shape}) {} per update, its changes {changes};{table} read by {}",
            n.name,
            update(&n.report),
            n.read_by.join(", ")
        );
    }
    // Every part, in the order an update reaches them.
    let parts: Vec<(String, &Report)> = r
        .nested
        .iter()
        .map(|n| (n.name.clone(), &n.report))
        .chain(std::iter::once((view.clone(), r)))
        .collect();
    let mut sources: Vec<String> = Vec::new();
    for (_, p) in &parts {
        for t in tables(p) {
            if !sources.contains(&t) {
                sources.push(t);
            }
        }
    }
    out.push_str("  an update of a table or of a nested view's rows goes to each part that reads it, in order:\n");
    let width = sources.iter().map(String::len).max().unwrap_or(0);
    for source in &sources {
        let readers: Vec<String> = parts
            .iter()
            .filter(|(_, p)| tables(p).contains(source))
            .map(|(name, p)| format!("{name} ({})", update(p)))
            .collect();
        let _ = writeln!(out, "    {source:width$}  {}", readers.join(", "));
    }
    for n in &r.nested {
        let _ = writeln!(out, "\nnested view {} of {view}", n.name);
        for line in to_text(&n.report).lines() {
            if line.is_empty() {
                out.push('\n');
            } else {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
}

/// The `classes` section: each class test with its witness where the
/// query fails it, and the fhtw.
fn classes_section(out: &mut String, a: &Analysis) {
    let hg = &a.hypergraph;
    out.push_str("classes\n");
    let line = |out: &mut String, name: &str, ok: bool, why: Option<String>| {
        let _ = write!(out, "  {name:<16} {}", if ok { "yes" } else { "no" });
        if let Some(why) = why {
            let _ = write!(out, "  {why}");
        }
        out.push('\n');
    };
    line(
        out,
        "α-acyclic",
        a.acyclic.is_ok(),
        a.acyclic.err().map(|c| c.describe(hg)),
    );
    line(
        out,
        "free-connex",
        a.free_connex.is_ok(),
        match a.free_connex {
            Err(crate::analysis::NotFreeConnex::Head(_)) => {
                a.free_connex.err().map(|w| w.describe(hg))
            }
            Err(_) => Some("(not α-acyclic)".to_owned()),
            Ok(()) => None,
        },
    );
    line(
        out,
        "hierarchical",
        a.hierarchical.is_ok(),
        a.hierarchical.err().map(|w| w.describe(hg)),
    );
    line(
        out,
        "q-hierarchical",
        a.q_hierarchical.is_ok(),
        match a.q_hierarchical {
            Err(crate::analysis::NotQHierarchical::QCore(w)) => {
                Some(format!("a q-core: {}", w.describe(hg)))
            }
            Err(_) => Some("(not hierarchical)".to_owned()),
            Ok(()) => None,
        },
    );
    line(
        out,
        "p-hierarchical",
        a.p_hierarchical.is_ok(),
        a.p_hierarchical.err().map(|c| c.describe(hg)),
    );
    line(out, "strong-connex", a.strong_connex(), None);
    let _ = writeln!(out, "  {:<16} {}", "fhtw", a.fhtw);
    out.push('\n');
}

/// The verdict: the strategy with its bounds and where they come from,
/// or the rejection with its lower bound, witness, hint and the
/// semirings over which the query would be tractable.
fn verdict_section(out: &mut String, r: &Report) {
    match &r.verdict {
        Verdict::Accepted(v) => accepted_section(out, r, v),
        Verdict::Rejected(v) => rejected_section(out, &r.analysis, v),
    }
}

/// An accepted verdict: the strategy, how it was chosen, its bounds, what
/// was weighed, why and the source.
fn accepted_section(out: &mut String, r: &Report, v: &Accepted) {
    let name = match v.strategy {
        Strategy::IvmEps { eps } => format!("ivm_eps (ε = {eps})"),
        other => other.keyword().to_owned(),
    };
    let how = match v.choice {
        Choice::Automatic => "",
        Choice::Forced => " (forced with #[strategy])",
        Choice::Intractable { .. } => " (opted in: the query is not tractable)",
    };
    let _ = writeln!(out, "verdict: maintained with {name}{how}");
    let _ = writeln!(out, "  update time  {} amortized", v.bounds.update);
    if let Some(k) = super::under_keys(r) {
        let _ = writeln!(
            out,
            "  under keys   {} when the declared keys hold (PRIMARY KEY, UNIQUE; not enforced): in the order each delta joins the other atoms, the rows of {} of them, with what the keys then determine, fix each row of the join (docs/design.md#keys)",
            verdict::power(f64::from(k)),
            match k {
                0 => "none".to_owned(),
                1 => "one".to_owned(),
                k => format!("{k}"),
            }
        );
    }
    let _ = writeln!(out, "  delay        {}", v.bounds.delay);
    if let Some(changes) = super::changes(r) {
        let _ = writeln!(out, "  changes()    {changes}");
    }
    if r.nested.is_empty() {
        let _ = writeln!(out, "  sharding     {}", r.partition.describe(&r.query));
    } else {
        let _ = writeln!(
            out,
            "  sharding     one worker: the view reads nested views (docs/sharding.md)"
        );
    }
    if let Some(space) = &v.bounds.space {
        let _ = writeln!(out, "  space        {space}");
    }
    if let Some(weighed) = &v.weighed {
        let _ = writeln!(out, "  weighed      {weighed}");
    }
    let _ = writeln!(out, "  why          {}", v.reason);
    if let Some(w) = v.choice.witness() {
        let _ = writeln!(out, "  witness      {w}");
    }
    let _ = writeln!(out, "  source       {}", v.source);
}

/// A rejection: its lower bound (where it rests on one), why, the
/// witness, the source, the hint, and where the query would be tractable.
fn rejected_section(out: &mut String, a: &Analysis, v: &Rejected) {
    let _ = writeln!(out, "verdict: rejected");
    if let Some(bound) = v.lower_bound() {
        let _ = writeln!(out, "  lower bound  {bound}");
    }
    let _ = writeln!(out, "  why          {}", v.reason);
    let _ = writeln!(out, "  witness      {}", v.witness);
    let _ = writeln!(out, "  source       {}", v.source);
    let _ = writeln!(out, "  help         {}", v.hint);
    let alternatives = tractable_elsewhere(a);
    if !alternatives.is_empty() {
        let _ = writeln!(out, "  tractable over");
        for alt in alternatives {
            let _ = writeln!(out, "    {alt}");
        }
    }
}

/// The catalogue semirings and update models under which the query is
/// maintainable, for a rejected query.
fn tractable_elsewhere(a: &Analysis) -> Vec<String> {
    let mut out = Vec::new();
    for name in semiring::CATALOGUE {
        let known = semiring::catalogue(name).expect("catalogue name");
        for updates in [UpdateModel::InsertDelete, UpdateModel::InsertOnly] {
            if known.class.ring && updates == UpdateModel::InsertOnly {
                continue;
            }
            // Only the strategy and bounds are read: no hint, so no dialect.
            if let Verdict::Accepted(v) =
                verdict::auto(a, &known.class, updates, &crate::query::Dialect::Rule)
            {
                out.push(format!(
                    "{name:<14} {:<14} {} in {}",
                    updates.keyword(),
                    v.strategy.keyword(),
                    v.bounds.update
                ));
            }
        }
    }
    out
}

/// The plan drawn: how the chosen strategy maintains the query, with its
/// per-update costs; for a query recomputed or rejected, the structure the
/// analysis found.
fn plan_text(r: &Report) -> String {
    let a = &r.analysis;
    let hg = &a.hypergraph;
    let mut out = String::new();
    match &r.plan {
        Ok(Plan::RangeJoin(join)) => range_join_text(&mut out, hg, join),
        Ok(Plan::ViewTree {
            order,
            general: true,
        }) => general_order_text(&mut out, a, order),
        Ok(Plan::ViewTree {
            order,
            general: false,
        }) => {
            out.push_str("plan: canonical free-top variable order (one view per variable; free variables marked *)\n");
            tree::draw(&order_forest(hg, order), "  ", &mut out);
        }
        Ok(Plan::TwoLayer { subqueries, cyclic }) => {
            two_layer_text(&mut out, hg, subqueries, *cyclic);
        }
        Ok(Plan::Crown(tree)) => {
            out.push_str("plan: free-connex join tree (rooted at the head); each atom sends its parent a message keyed by the variables they share, which grows a bounded number of times; the head's children are the top join\n");
            tree::draw(&[join_forest(r, tree, tree.root)], "  ", &mut out);
        }
        Ok(Plan::ClusterCrown(clusters)) => clusters_text(&mut out, hg, clusters),
        Ok(Plan::Triangle {
            triangle,
            eps,
            cycle,
        }) => {
            let names = TriangleNames { hg, triangle };
            match *eps {
                Some(eps) => ivm_eps_text(&mut out, &names, eps, *cycle),
                None => {
                    let _ = writeln!(
                        out,
                        "plan: one view V({}, {}) = Σ_{} {} · {}",
                        names.var(1),
                        names.var(0),
                        names.var(2),
                        names.atom(1),
                        names.atom(2)
                    );
                }
            }
        }
        Ok(Plan::FirstOrder) => first_order_text(&mut out, hg),
        Ok(Plan::Recompute) | Err(_) => structure_text(&mut out, r),
    }
    out
}

/// A range join: each side's range-sum trie, and one walk per update.
fn range_join_text(out: &mut String, hg: &Hypergraph, join: &InequalityJoin) {
    let op = if join.strict { "<" } else { "<=" };
    let _ = writeln!(
        out,
        "plan: range join of {} and {} on `{} {op} {}`: each side's payloads summed by its compared variable in a range-sum trie (one node of 16 children per 4 bits of the key)",
        hg.atom_labels[join.atoms[0]],
        hg.atom_labels[join.atoms[1]],
        hg.var_names[join.vars[0]],
        hg.var_names[join.vars[1]]
    );
    out.push_str("per update (one walk down the other side's trie, one up its own)\n");
    for &atom in &join.atoms {
        let _ = writeln!(out, "  δ{}: O(log U)", hg.atom_labels[atom]);
    }
}

/// A general (not canonical) free-top order: the views with their keys,
/// the order's width as a tree decomposition, and each atom's update cost.
fn general_order_text(out: &mut String, a: &Analysis, order: &VariableOrder) {
    let hg = &a.hypergraph;
    out.push_str("plan: general free-top variable order (one view per variable, keyed by the variables above it that its subtree reads, in brackets; free variables marked *)\n");
    let mut forest = order_forest(hg, order);
    for root in &mut forest {
        add_keys(root, hg, order);
    }
    tree::draw(&forest, "  ", out);
    // The order is a tree decomposition: each variable with its
    // view's key is a bag.
    let width = order.width(hg);
    let _ = writeln!(
        out,
        "  as a tree decomposition (each variable with its key a bag): width {width} (the largest fractional edge cover of a bag; the query's fhtw is {})",
        a.fhtw
    );
    out.push_str("per update (loops over the atoms and views beside a view, each its degree; V_x is the view of x)\n");
    for (atom, degrees) in verdict::general_bounds(a, order) {
        let cost = if degrees.is_empty() {
            "O(1)".to_owned()
        } else {
            format!("O({})", degrees.join(" · "))
        };
        let _ = writeln!(out, "  δ{}: {cost}", hg.atom_labels[atom]);
    }
}

/// The two-layer plan: the subqueries of the bottom layer, each with its
/// order, and the Boolean top layer over them.
fn two_layer_text(out: &mut String, hg: &Hypergraph, subqueries: &[Subquery], cyclic: bool) {
    out.push_str(
        "plan: free-dominated q-hierarchical subqueries (bottom layer, over the semiring)\n",
    );
    let mut forest = Vec::new();
    for (i, s) in subqueries.iter().enumerate() {
        let label = format!(
            "Q{}({}) = {}",
            i + 1,
            hg.names(s.free),
            hg.label_list(s.atoms).join(" * ")
        );
        forest.push(Node::new(label, order_forest(hg, &s.order)));
    }
    tree::draw(&forest, "  ", out);
    let tops: Vec<String> = (0..subqueries.len())
        .map(|i| format!("1[Q{}({})]", i + 1, hg.names(subqueries[i].free)))
        .collect();
    let _ = writeln!(
        out,
        "top layer (Boolean, inserts only): {}",
        tops.join(" ⋈ ")
    );
    if cyclic {
        let _ = writeln!(
            out,
            "  cyclic: materialized with worst-case-optimal delta joins (generic join over the supports' values)"
        );
    }
}

/// The clusters, each with its free variables, and the Boolean top layer
/// over them.
fn clusters_text(out: &mut String, hg: &Hypergraph, clusters: &[Mask]) {
    out.push_str("plan: clusters (atoms connected through summed-out variables); per cluster, which tuples take part in a full result (insert-only, upward and downward) and the best payload among them\n");
    let mut tops = Vec::new();
    for (i, c) in clusters.iter().enumerate() {
        let free =
            crate::analysis::hypergraph::members(*c).fold(hg.free, |m, atom| m & hg.atoms[atom]);
        let _ = writeln!(
            out,
            "  C{}({}) = {}",
            i + 1,
            hg.names(free),
            hg.label_list(*c).join(" * ")
        );
        tops.push(format!("1[C{}({})]", i + 1, hg.names(free)));
    }
    let _ = writeln!(
        out,
        "top layer (Boolean, inserts only): {}; payload: the max of the clusters' best payloads",
        tops.join(" ⋈ ")
    );
}

/// The names of a triangle's atoms, variables and relations, by role.
struct TriangleNames<'a> {
    /// The query's hypergraph, which names them.
    hg: &'a Hypergraph,
    /// The triangle's atoms and variables.
    triangle: &'a Triangle,
}

impl TriangleNames<'_> {
    /// The label of the `i`th atom.
    fn atom(&self, i: usize) -> String {
        self.hg.atom_labels[self.triangle.atoms[i]].clone()
    }

    /// The name of the `i`th variable.
    fn var(&self, i: usize) -> String {
        self.hg.var_names[self.triangle.vars[i]].clone()
    }

    /// The relation of the `i`th atom: its label up to `(`.
    fn rel(&self, i: usize) -> String {
        let label = self.atom(i);
        label[..label.find('(').unwrap_or(label.len())].to_owned()
    }
}

/// IVMε's plan for a triangle: the heavy/light partitions, the views over
/// heavy pairs, the delta rule with its costs at `eps`, and rebalancing.
fn ivm_eps_text(out: &mut String, names: &TriangleNames<'_>, eps: f64, cycle: bool) {
    let (atom, var, rel) = (|i| names.atom(i), |i| names.var(i), |i| names.rel(i));
    out.push_str("plan: heavy/light partitions (thresholds θ_out = M^ε on first values, θ_in = M^(1−ε) on second values, ⌊M/4⌋ ≤ N < M)\n");
    for i in 0..3 {
        let _ = writeln!(
            out,
            "  {} kept by {} and by {}, each heavy or light by its degree that way",
            atom(i),
            var(i),
            var((i + 1) % 3)
        );
    }
    out.push_str("  views over pairs of heavy values\n");
    for i in 0..3 {
        let j = (i + 1) % 3;
        let (x, y, z) = (var(i), var(j), var((i + 2) % 3));
        let _ = writeln!(
            out,
            "    W_{}{}({x}, {z}) = Σ_{y} {} · {}, {x} heavy out in {}, {z} heavy in in {}",
            rel(i),
            rel(j),
            atom(i),
            atom(j),
            rel(i),
            rel(j)
        );
    }
    let walk = verdict::power(eps.max(1.0 - eps));
    let (first, second) = (verdict::power(eps), verdict::power(1.0 - eps));
    out.push_str("  delta rule, for an update to the first atom (the others rotate)\n");
    let (x, y) = (var(0), var(1));
    let _ = writeln!(
        out,
        "    {y} heavy out in {} and {x} heavy in in {}: W_{}{}({y}, {x}) — O(1)",
        rel(1),
        rel(2),
        rel(1),
        rel(2)
    );
    let _ = writeln!(
        out,
        "    else: Σ over the shorter of {}({y}, ·) and {}(·, {x}), one of them light (fewer than 3/2·θ), as first order does — {walk}",
        rel(1),
        rel(2)
    );
    let _ = writeln!(
        out,
        "    view upkeep, only where the tuple meets a heavy value: {x} heavy out in {}: W_{}{}({x}, ·) over {y}'s heavy-in partners, at most N/θ_in — {first}; {y} heavy in in {}: W_{}{}(·, {y}) over {x}'s heavy-out partners, at most N/θ_out — {second}",
        rel(0),
        rel(0),
        rel(1),
        rel(0),
        rel(2),
        rel(0)
    );
    out.push_str("  rebalancing: minor, a value moves parts when its degree reaches 3/2·θ or falls below 1/2·θ (its view row or column built or dropped); major, M doubles or halves when N leaves [⌊M/4⌋, M) and everything is repartitioned\n");
    if cycle {
        let _ = writeln!(
            out,
            "  one relation in all three roles, one orientation: the three partitioned copies and the three views are equal, so one of each is kept (N = |{}|), and one delta per update: 3·δ·(the paths from {y} back to {x}), plus the terms of a self-loop",
            rel(0),
        );
    }
}

/// First-order deltas: per atom, the join with the rest and its AGM
/// bound, and where keys are declared, the bound under them.
fn first_order_text(out: &mut String, hg: &Hypergraph) {
    out.push_str("plan: first-order deltas (one per atom; cost is the AGM bound of the rest)\n");
    // Theta conditions hold no relation: no update starts there,
    // and each derivation is multiplied by them.
    let theta = if hg.conditions == 0 {
        String::new()
    } else {
        format!(", times {}", hg.labels(hg.conditions))
    };
    for i in members(hg.relations()) {
        let others: Mask = hg.relations() & !(1 << i);
        let rest = hg.vars() & !hg.atoms[i];
        let cost = crate::analysis::width::fractional_edge_cover(
            &members(others).map(|j| hg.atoms[j]).collect::<Vec<_>>(),
            rest,
        );
        let keyed = keys::any(hg)
            .then(|| keys::first_order_delta(hg, i))
            .filter(|&k| f64::from(k) < cost.to_f64())
            .map(|k| format!("; {} under the keys", verdict::power(f64::from(k))))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  δ{}: join with {}{theta} — {}{keyed}",
            hg.atom_labels[i],
            if others == 0 {
                "nothing".to_owned()
            } else {
                hg.labels(others)
            },
            verdict::power(cost.to_f64())
        );
    }
}

/// For a query recomputed or rejected: the structure the analysis found
/// (a canonical order, a free-connex join tree or a join tree), if any.
fn structure_text(out: &mut String, r: &Report) {
    let a = &r.analysis;
    let hg = &a.hypergraph;
    if let Some(order) = &a.variable_order {
        out.push_str("structure: canonical free-top variable order (free variables marked *)\n");
        tree::draw(&order_forest(hg, order), "  ", out);
    } else if let Some(tree) = &a.join_tree {
        out.push_str("structure: free-connex join tree (rooted at the head)\n");
        tree::draw(&[join_forest(r, tree, tree.root)], "  ", out);
    } else if let Some(tree) = JoinTree::of_acyclic(hg) {
        out.push_str("structure: join tree\n");
        tree::draw(&[join_forest(r, &tree, tree.root)], "  ", out);
    }
}

fn order_forest(hg: &Hypergraph, order: &VariableOrder) -> Vec<Node> {
    fn node(hg: &Hypergraph, order: &VariableOrder, v: usize) -> Node {
        let star = if hg.is_free(v) { "*" } else { "" };
        let mut children: Vec<Node> = order.nodes[v]
            .children
            .iter()
            .map(|&c| node(hg, order, c))
            .collect();
        children.extend(
            order.nodes[v]
                .atoms
                .iter()
                .map(|&a| Node::leaf(hg.atom_labels[a].clone())),
        );
        Node::new(format!("{}{star}", hg.var_names[v]), children)
    }
    order.roots.iter().map(|&r| node(hg, order, r)).collect()
}

/// Appends each variable's view key, `[b, c]`, to its node of a drawn
/// general order (atoms, the leaves, keep their labels).
fn add_keys(node: &mut Node, hg: &Hypergraph, order: &VariableOrder) {
    let name = node.label.trim_end_matches('*');
    if let Some(v) = hg.var_names.iter().position(|n| n == name) {
        node.label = format!("{} [{}]", node.label, hg.names(order.dep(hg, v)));
    }
    for c in &mut node.children {
        add_keys(c, hg, order);
    }
}

fn join_forest(r: &Report, tree: &JoinTree, at: usize) -> Node {
    let hg = &r.analysis.hypergraph;
    let n = &tree.nodes[at];
    let label = match n.atom {
        Some(a) => hg.atom_labels[a].clone(),
        None => format!("{}({}) (head)", r.query.head_name, hg.names(n.vars)),
    };
    Node::new(
        label,
        n.children
            .iter()
            .map(|&c| join_forest(r, tree, c))
            .collect(),
    )
}

/// The semijoins: what the rule reads of each, and how each body (and
/// domain) is maintained.
fn semijoins(out: &mut String, r: &Report) {
    if r.semijoins.is_empty() {
        return;
    }
    out.push_str("semijoins (each an atom over the values where it holds; its body, and a `not exists`'s domain, are queries over Int of their own)\n");
    for (s, reports) in r.query.semijoins.iter().zip(&r.semijoins) {
        let relation = r.query.label_of_relation(s.atom);
        let _ = writeln!(out, "  {}", s.text());
        // Correlated on nothing, it is one value: a condition on the whole
        // result (`syntax/nullary.rs`).
        let uncorrelated = s.body.head.is_empty();
        let holds = match (uncorrelated, s.negated()) {
            (true, true) => {
                "1 (one entry) while the body has no derivation and the domain some, that is, a condition on the whole result"
            }
            (true, false) => {
                "1 (one entry) while the body has a derivation, a condition on the whole result"
            }
            (false, true) => "1 where the domain has the value and the body no derivation",
            (false, false) => "1 where the body has a derivation",
        };
        let _ = writeln!(out, "    reads {relation}: {holds}");
        let mut part = |what: &str, p: &Report| {
            let how = match &p.verdict {
                Verdict::Accepted(v) => {
                    format!("{}, {} per update", v.strategy.keyword(), v.bounds.update)
                }
                Verdict::Rejected(_) => "rejected".to_owned(),
            };
            let _ = writeln!(out, "    {what} {}: {how}", p.query.rule_text());
        };
        part("body", &reports.body);
        if let Some(d) = &reports.domain {
            part("domain", d);
        }
        let vars = r.query.var_names(&r.query.atoms[s.atom].vars);
        let fanning = s.fanning_out();
        if uncorrelated {
            let _ = writeln!(
                out,
                "    an update of a relation it reads changes the body's one count, and where the semijoin turns, every result"
            );
        } else if fanning.is_empty() {
            let _ = writeln!(
                out,
                "    an update of a relation it reads changes each count at one value of ({vars}) per atom of that relation"
            );
        } else {
            let _ = writeln!(
                out,
                "    an update of {} may change the body's count at many values of ({vars}): its `changes()` lists them, and each value where the semijoin turns is an update of {relation}",
                fanning.join(" or ")
            );
        }
    }
    out.push('\n');
}

/// Each atom with a local step: what a tuple must match to enter it, the
/// factors applied there, and the derived relation it then reads (the
/// analysis below sees the atom over that relation's columns); then each
/// theta factor with the atoms of its variables.
fn local_steps(out: &mut String, q: &crate::query::Query) {
    let steps = super::local_steps(q);
    if !steps.is_empty() {
        out.push_str("local steps (where a tuple enters the atom)\n");
        for step in steps {
            let mut what = step.matches;
            what.extend(step.computes.iter().map(|l| format!("computes {l}")));
            what.extend(step.factors.iter().map(|f| format!("times {f}")));
            let _ = writeln!(out, "  {}", step.atom);
            let _ = writeln!(out, "    {}", what.join("; "));
            let _ = writeln!(out, "    reads {}", step.reads);
        }
        out.push('\n');
    }
    let theta = super::theta_factors(q);
    if !theta.is_empty() {
        out.push_str("theta factors (over variables of several atoms: a hyperedge each, applied to each derivation)\n");
        for t in theta {
            let reads: Vec<String> = t
                .reads
                .iter()
                .map(|(v, atoms)| format!("`{v}` (of `{}`)", atoms.join("`, `")))
                .collect();
            let _ = writeln!(out, "  {}", t.factor);
            let _ = writeln!(out, "    reads {}", reads.join(" and "));
        }
        out.push('\n');
    }
}

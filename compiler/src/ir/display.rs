//! The IR as text, the way `ivmc explain --ir` shows it.

use std::fmt;

use super::{
    AtomId, BaseMap, BestMap, ClusterNode, DeltaJoin, Extension, FreeLevel, Id, JoinNode,
    JoinedMap, Kept, Map, MapId, MapKind, Message, MessageParent, PathBody, Program, RangeSums,
    Reading, RelId, RelationIndex, ResultMap, Step, SumView, Support, Target, TopDelta,
    TriangleState, Trigger, VarId, ViewIndex,
};

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "program {} over {}",
            self.name,
            crate::query::type_string(&self.payload)
        )?;
        writeln!(f, "  rule {}", self.rule)?;
        for factor in &self.theta {
            writeln!(f, "  theta {} (times each derivation)", factor.text())?;
        }
        writeln!(f, "maps")?;
        for (m, map) in self.maps.iter().enumerate() {
            self.fmt_map(f, m, map)?;
        }
        self.fmt_semijoins(f)?;
        for t in &self.triggers {
            self.fmt_trigger(f, t)?;
        }
        self.fmt_output(f)?;
        for part in self.semijoins.iter().flat_map(super::Semijoin::parts) {
            writeln!(f)?;
            writeln!(f, "{} holds:", part.field)?;
            write!(f, "{}", part.program)?;
        }
        Ok(())
    }
}

impl Program {
    /// What one map holds: its line under `maps` (and, for a cyclic top
    /// join's support, the lines of its delta).
    fn fmt_map(&self, f: &mut fmt::Formatter<'_>, m: MapId, map: &Map) -> fmt::Result {
        let key = self.var_list(&map.key);
        match &map.kind {
            MapKind::Base(BaseMap { relation, kept }) => self.fmt_base(f, map, *relation, kept),
            MapKind::Index(RelationIndex {
                relation,
                columns,
                while_growing,
                payloads,
            }) => self.fmt_index(f, map, *relation, columns, while_growing, *payloads),
            MapKind::ViewIndex(ViewIndex { view, .. }) => writeln!(
                f,
                "  {}[{key}] := the keys of {} with a non-zero payload, by ({key})",
                map.name, self.maps[*view].name
            ),
            MapKind::Triangle(TriangleState { eps, vars, cycle }) => {
                self.fmt_triangle(f, map, *eps, vars, *cycle)
            }
            MapKind::Result(ResultMap) => writeln!(
                f,
                "  {}[{key}] := ⊕ of the payloads of each head tuple's derivations",
                map.name
            ),
            MapKind::RangeSums(RangeSums { atom, var }) => writeln!(
                f,
                "  {} := the payloads of {} summed by {}, with sums below and above any value",
                map.name, self.atoms[*atom].label, self.vars[*var].name
            ),
            MapKind::Sum(SumView { var, factors }) => {
                let product = self.product_label(factors);
                writeln!(
                    f,
                    "  {}[{key}] := ⊕_{} {}",
                    map.name, self.vars[*var].name, product
                )
            }
            MapKind::Free(FreeLevel {
                store: super::LevelStore::KeysOf(factor),
                vars,
                ..
            }) => writeln!(
                f,
                "  {} (no map: the values of {} are the keys of {}, read by lookup only)",
                map.name,
                self.var_list(vars),
                self.maps[self.factor_map(*factor)].name
            ),
            MapKind::Free(FreeLevel {
                vars,
                factors,
                children,
                ..
            }) => self.fmt_free(f, map, vars, factors, children),
            MapKind::Join(JoinNode {
                factors,
                parent,
                shared,
                ..
            }) => self.fmt_join(f, map, &key, factors, *parent, shared),
            MapKind::Cluster(ClusterNode {
                atom,
                parent,
                shared,
                best,
                ..
            }) => {
                let place = match parent {
                    Some(q) => format!(
                        "below {} on ({})",
                        self.maps[*q].name,
                        self.var_list(shared)
                    ),
                    None => "the cluster's root".to_owned(),
                };
                writeln!(
                    f,
                    "  {}[{key}] := the tuples of {}, live and taking part; {place}; feeds {}",
                    map.name, self.atoms[*atom].label, self.maps[*best].name
                )
            }
            MapKind::Support(Support { factors, delta }) => {
                self.fmt_support(f, map, &key, factors, delta)
            }
            MapKind::Extension(Extension { support, var }) => writeln!(
                f,
                "  {}[{key}] := the values of {} extending it in {}",
                map.name, self.vars[*var].name, self.maps[*support].name
            ),
            MapKind::Joined(JoinedMap) => writeln!(
                f,
                "  {}[{key}] := the join of the supports, materialized",
                map.name
            ),
            MapKind::Best(BestMap) => writeln!(
                f,
                "  {}[{key}] := max payload of a taking-part tuple (grows only); its support is {}",
                map.name,
                self.fed_node_name(m)
            ),
            MapKind::Message(Message {
                atom,
                children,
                parent,
            }) => self.fmt_message(f, m, &key, *atom, children, parent),
        }
    }

    /// A base map: the relation's contributions, and whether (and where)
    /// its tuples are kept.
    fn fmt_base(
        &self,
        f: &mut fmt::Formatter<'_>,
        map: &Map,
        relation: RelId,
        kept: &Kept,
    ) -> fmt::Result {
        let r = &self.relations[relation];
        let cols: Vec<String> = r.columns.iter().map(|(c, _)| c.to_string()).collect();
        let kept = match kept {
            Kept::Every => "",
            Kept::Fingerprinted => "  (kept as fingerprints: only a delete's check reads it)",
            Kept::FingerprintedPayloads => {
                "  (kept as fingerprints: a delete's check and the views' old and new payloads read it)"
            }
            Kept::Trusted if r.checked_by_holder() => {
                "  (not kept: the struct holding this query checks its deletes, and nothing reads its tuples back)"
            }
            Kept::Trusted => "  (not kept: deletes are trusted, and nothing reads its tuples back)",
            Kept::Revisitable => "  (kept while a message at its keys can grow and revisit it)",
            Kept::None => "  (not kept: nothing reads its tuples back)",
            Kept::InTriangle => "  (held by the triangle state's partition)",
            Kept::IndexOnly => {
                "  (not kept: the tuples a message can revisit are in its indexes, each with payload one)"
            }
        };
        writeln!(
            f,
            "  {}[{}] := contributions of {}{kept}",
            map.name,
            cols.join(", "),
            r.name
        )
    }

    /// An index of a relation's tuples by some of its columns, perhaps
    /// with payloads, perhaps only while some messages can grow.
    fn fmt_index(
        &self,
        f: &mut fmt::Formatter<'_>,
        map: &Map,
        relation: RelId,
        columns: &[usize],
        while_growing: &[Id<Message>],
        payloads: bool,
    ) -> fmt::Result {
        let r = &self.relations[relation];
        let cols: Vec<String> = columns
            .iter()
            .map(|&c| r.columns[c].0.to_string())
            .collect();
        let with = if payloads {
            ", each with its payload"
        } else {
            ""
        };
        let until = if while_growing.is_empty() {
            String::new()
        } else {
            let messages = self.map_names(while_growing);
            format!(
                ", while {} at the key can still grow",
                messages.join(" or ")
            )
        };
        writeln!(
            f,
            "  {}[{}] := the tuples of {} by ({}){with}{until}",
            map.name,
            cols.join(", "),
            r.name,
            cols.join(", ")
        )
    }

    /// The triangle count's state: IVMε's partitions (`eps` given) or the
    /// factorized view.
    fn fmt_triangle(
        &self,
        f: &mut fmt::Formatter<'_>,
        map: &Map,
        eps: Option<f64>,
        vars: &[VarId],
        cycle: bool,
    ) -> fmt::Result {
        let Some(eps) = eps else {
            return writeln!(
                f,
                "  {} := factorized over ({}): one view V(B, A) = Σ_C S(B, C)·T(C, A), the count",
                map.name,
                self.var_list(vars)
            );
        };
        let state = if cycle {
            "one relation in every role: one partition, one view"
        } else {
            "partitions, three views"
        };
        writeln!(
            f,
            "  {} := IVMε over ({}) with ε = {eps}: {state}, the count",
            map.name,
            self.var_list(vars)
        )
    }

    /// A free variable's view: its local product and the views below whose
    /// tuples it counts.
    fn fmt_free(
        &self,
        f: &mut fmt::Formatter<'_>,
        map: &Map,
        vars: &[VarId],
        factors: &[super::Factor],
        children: &[Id<FreeLevel>],
    ) -> fmt::Result {
        let product = self.product_label(factors);
        let mut full = map.key.clone();
        full.extend(vars);
        let local = if product.is_empty() {
            "1".to_owned()
        } else {
            product
        };
        let below = self.map_names(children);
        write!(
            f,
            "  {}[{}] := free {}: local {local}",
            map.name,
            self.var_list(&full),
            self.var_list(vars)
        )?;
        if !below.is_empty() {
            write!(f, "; counts tuples of {}", below.join(", "))?;
        }
        writeln!(f)
    }

    /// A node of an acyclic top join: where its product is non-zero, and
    /// its place in the tree.
    fn fmt_join(
        &self,
        f: &mut fmt::Formatter<'_>,
        map: &Map,
        key: &str,
        factors: &[super::Factor],
        parent: Option<Id<JoinNode>>,
        shared: &[VarId],
    ) -> fmt::Result {
        let product = self.product_label(factors);
        write!(
            f,
            "  {}[{key}] := top join: the values where {} ≠ 0",
            map.name, product
        )?;
        match parent {
            Some(p) => writeln!(
                f,
                "; below {} on ({})",
                self.maps[p].name,
                self.var_list(shared)
            ),
            None => writeln!(f, "; the root"),
        }
    }

    /// A support of a cyclic top join, with what a new value does: the
    /// checks, the generic join's steps, and where the results go.
    fn fmt_support(
        &self,
        f: &mut fmt::Formatter<'_>,
        map: &Map,
        key: &str,
        factors: &[super::Factor],
        delta: &TopDelta,
    ) -> fmt::Result {
        let product = self.product_label(factors);
        writeln!(
            f,
            "  {}[{key}] := cyclic top join: the values where {} ≠ 0",
            map.name, product
        )?;
        let checks = self.map_names(&delta.checks);
        if !checks.is_empty() {
            writeln!(f, "    a new value: check it is in {}", checks.join(", "))?;
        }
        for (v, sources) in &delta.steps {
            let s: Vec<String> = sources
                .iter()
                .map(|&m| {
                    format!(
                        "{}[{}]",
                        self.maps[m].name,
                        self.var_list(&self.maps[m].key)
                    )
                })
                .collect();
            write_bind(f, &self.vars[*v].name, &s)?;
        }
        writeln!(
            f,
            "    then add each result to {}",
            self.maps[delta.joined].name
        )
    }

    /// The name of the top join node that map `m` feeds.
    fn fed_node_name(&self, m: MapId) -> String {
        self.fed_node(m).map_or_else(
            || "none".to_owned(),
            |node| self.maps[node].name.to_string(),
        )
    }

    /// A message of a cluster's tree: the product it sums and whom it
    /// tells.
    fn fmt_message(
        &self,
        f: &mut fmt::Formatter<'_>,
        m: MapId,
        key: &str,
        atom: AtomId,
        children: &[Id<Message>],
        parent: &MessageParent,
    ) -> fmt::Result {
        let mut factors = vec![super::Factor::Atom(atom)];
        factors.extend(children.iter().map(|&c| super::Factor::Map(c.map())));
        let product = self.product_label(&factors);
        let to = match parent {
            MessageParent::Message { index } => format!(
                "tells {} through {}",
                self.id::<Message>(m)
                    .and_then(|id| self.parent_message(id))
                    .map_or_else(|| "nothing".to_owned(), |up| self.maps[up].name.to_string()),
                self.maps[*index].name
            ),
            MessageParent::Join => format!("its support is {}", self.fed_node_name(m)),
        };
        let map = &self.maps[m];
        writeln!(
            f,
            "  {}[{key}] := ⊕ of {} (grows only); {to}",
            map.name, product
        )
    }

    /// The `semijoins` section: each semijoin's base map and when it holds
    /// a tuple.
    fn fmt_semijoins(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.semijoins.is_empty() {
            writeln!(f, "semijoins")?;
        }
        for s in &self.semijoins {
            let r = &self.relations[s.relation];
            let cols: Vec<String> = r.columns.iter().map(|(c, _)| c.to_string()).collect();
            let when = match s.domain() {
                None => format!("{} is non-zero", s.body.field),
                Some(d) => format!("{} is non-zero and {} is zero", d.field, s.body.field),
            };
            writeln!(
                f,
                "  {}[{}] := 1 where {}: where {when} (programs below)",
                self.maps[r.base].name,
                cols.join(", "),
                s.text
            )?;
        }
        Ok(())
    }

    /// One trigger: what an update to its relation does to the base map,
    /// then each atom's path.
    fn fmt_trigger(&self, f: &mut fmt::Formatter<'_>, t: &Trigger) -> fmt::Result {
        let r = &self.relations[t.relation];
        let cols: Vec<String> = r.columns.iter().map(|(c, _)| c.to_string()).collect();
        writeln!(f, "on {}({}) ⊕= δ", r.name, cols.join(", "))?;
        match self.kept(t.relation) {
            Kept::Every => writeln!(
                f,
                "  {}[{}] ⊕= δ  (stop if its payload is unchanged)",
                self.maps[r.base].name,
                cols.join(", ")
            )?,
            Kept::Fingerprinted | Kept::FingerprintedPayloads => writeln!(
                f,
                "  {}[fingerprint({})] ⊕= δ  (stop if its payload is unchanged)",
                self.maps[r.base].name,
                cols.join(", ")
            )?,
            Kept::Trusted => writeln!(
                f,
                "  {} is not kept ({}): the views above change by δ (an insert: old = 0, new = δ; a delete: old = δ, new = 0)",
                self.maps[r.base].name,
                if r.checked_by_holder() {
                    "deletes checked by the holder"
                } else {
                    "deletes trusted"
                }
            )?,
            Kept::Revisitable => writeln!(
                f,
                "  if no message at the tuple's keys can grow: the views above change by δ (old = 0, new = δ)\n  else {}[{}] ⊕= δ  (stop if its payload is unchanged)",
                self.maps[r.base].name,
                cols.join(", ")
            )?,
            Kept::None => writeln!(
                f,
                "  {} is not kept: the views above change by δ (old = 0, new = δ)",
                self.maps[r.base].name
            )?,
            Kept::IndexOnly => writeln!(
                f,
                "  index the tuple where a message at its keys can grow; the views above change by δ (old = 0, new = δ)"
            )?,
            Kept::InTriangle => writeln!(
                f,
                "  the triangle state's partition holds {}: its payload there ⊕= δ (stop if unchanged)",
                r.name
            )?,
        }
        for path in &t.paths {
            writeln!(f, "  for atom {}:", self.atoms[path.atom].label)?;
            self.fmt_path(f, &path.body)?;
        }
        Ok(())
    }

    /// The `enumerate` section: how the output's tuples are read.
    fn fmt_output(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head = self.var_list(&self.head);
        writeln!(f, "enumerate ({head})")?;
        match &self.reading {
            Reading::Levels { scalars, roots } => {
                self.write_scalars(f, scalars)?;
                for &r in roots {
                    match self.get(r).store {
                        super::LevelStore::Own => {
                            writeln!(f, "  over the values of {}", self.maps[r].name)?;
                        }
                        super::LevelStore::KeysOf(factor) => {
                            let map = &self.maps[self.factor_map(factor)].name;
                            writeln!(f, "  over the entries of {map}")?;
                        }
                    }
                }
            }
            Reading::Triangle { map, scalars } => {
                writeln!(f, "  the count of {}", self.maps[*map].name)?;
                self.write_scalars(f, scalars)?;
            }
            Reading::Result { map, scalars } => {
                writeln!(f, "  over the entries of {}", self.maps[*map].name)?;
                self.write_scalars(f, scalars)?;
            }
            Reading::Recompute(plan) => {
                writeln!(f, "  evaluate from the base maps by generic join:")?;
                for (v, sources) in &plan.steps {
                    let s: Vec<String> = sources
                        .iter()
                        .map(|(a, key)| {
                            format!("{} by ({})", self.atoms[*a].label, self.var_list(key))
                        })
                        .collect();
                    write_bind(f, &self.vars[*v].name, &s)?;
                }
            }
            &Reading::Joined(j) => writeln!(f, "  over the tuples of {}", self.maps[j].name)?,
            Reading::TopJoin(top) => {
                for &m in top {
                    writeln!(f, "  over the live values of {}", self.maps[m].name)?;
                }
            }
        }
        Ok(())
    }

    /// `  times a[] ⊗ b[]`: the nullary views that multiply every output
    /// tuple, if any.
    fn write_scalars(&self, f: &mut fmt::Formatter<'_>, scalars: &[Id<SumView>]) -> fmt::Result {
        if scalars.is_empty() {
            return Ok(());
        }
        let s: Vec<String> = scalars
            .iter()
            .map(|&m| format!("{}[]", self.maps[m].name))
            .collect();
        writeln!(f, "  times {}", s.join(" ⊗ "))
    }

    /// What one atom's path does, for `Display`.
    fn fmt_path(&self, f: &mut fmt::Formatter<'_>, body: &PathBody) -> fmt::Result {
        match body {
            &PathBody::Triangle { map: m, role, .. } => {
                let role = match self.maps[m].kind {
                    MapKind::Triangle(TriangleState { cycle: true, .. }) => "every role at once",
                    _ => ["role R", "role S", "role T"][role],
                };
                writeln!(
                    f,
                    "    {}: update {role} (heavy/light delta rules, then minor and major rebalancing)",
                    self.maps[m].name
                )
            }
            &PathBody::Raise(m) => writeln!(
                f,
                "    {}[{}] ⊕= new ⊗ the children's messages; if it grew, tell the parent",
                self.maps[m].name,
                self.var_list(&self.maps[m].key)
            ),
            &PathBody::Feed(d) => {
                let derived = self.relations[d].derived().expect("a derived relation");
                let factors: Vec<String> = derived.factors.iter().map(|x| x.text()).collect();
                let times = if factors.is_empty() {
                    String::new()
                } else {
                    format!(" ⊗ {}", factors.join(" ⊗ "))
                };
                writeln!(
                    f,
                    "    if it enters {}: {}[{}] changes by the tuple's payload{times}",
                    self.atoms[derived.atom].label,
                    self.maps[self.relations[d].base].name,
                    self.var_list(&self.atoms[derived.atom].vars)
                )
            }
            &PathBody::Semijoin { semijoin, relation } => {
                let s = &self.semijoins[semijoin];
                let r = &self.relations[relation];
                for part in s
                    .parts()
                    .filter(|part| part.reads.iter().any(|x| x.relation == relation))
                {
                    writeln!(
                        f,
                        "    if the tuple comes or goes: {}.update_{}(.., ±1)",
                        part.field, r.snake
                    )?;
                }
                writeln!(
                    f,
                    "    where {} turns at the values the tuple binds, {} changes there",
                    s.text, self.maps[self.relations[s.relation].base].name
                )
            }
            &PathBody::Cluster(m) => writeln!(
                f,
                "    {}: a new tuple joins the cluster's tree (live upward, taking part downward); a taking-part tuple raises its cluster's best payload",
                self.maps[m].name
            ),
            PathBody::Range(r) => writeln!(
                f,
                "    {} ⊕= the change ⊗ the ⊕ of {} {} its key; then {} takes the change",
                self.maps[r.result].name,
                self.maps[r.other].name,
                match (r.smaller, r.strict) {
                    (true, true) => "above",
                    (true, false) => "from",
                    (false, true) => "below",
                    (false, false) => "up to",
                },
                self.maps[r.own].name
            ),
            PathBody::DeltaJoin(join) => self.fmt_delta_join(f, join),
            PathBody::Steps {
                steps,
                later_same_relation,
            } => {
                for step in steps {
                    self.fmt_step(f, step)?;
                }
                if !later_same_relation.is_empty() {
                    let later: Vec<String> = later_same_relation
                        .iter()
                        .map(|&a| self.atoms[a].label.clone())
                        .collect();
                    writeln!(
                        f,
                        "    (reads of {} at the updated tuple see its old payload)",
                        later.join(", ")
                    )?;
                }
                Ok(())
            }
        }
    }

    /// A delta join's path: each loop's atom and how it is reached, then
    /// the result's update.
    fn fmt_delta_join(&self, f: &mut fmt::Formatter<'_>, join: &DeltaJoin) -> fmt::Result {
        for l in &join.loops {
            let how = self.access_text(&l.access);
            writeln!(f, "    join {} ({how})", self.atoms[l.atom].label)?;
        }
        writeln!(
            f,
            "    {}[{}]: replace each derivation's old payload by its new one",
            self.maps[join.result].name,
            head_list(self)
        )
    }

    /// How a delta join's loop reaches its atom's tuples, in words.
    fn access_text(&self, access: &super::Access) -> String {
        match access {
            super::Access::Point => "look up".to_owned(),
            super::Access::Scan => "scan".to_owned(),
            &super::Access::Index(m) => format!("through {}", self.maps[m].name),
            super::Access::Smaller { index, partners } => {
                let others: Vec<String> = partners
                    .iter()
                    .map(|&(a, m)| format!("{} through {}", self.atoms[a].label, self.maps[m].name))
                    .collect();
                match others.as_slice() {
                    [other] => format!(
                        "through {}, or, where its group is smaller, {other} and this one looked up",
                        self.maps[*index].name
                    ),
                    _ => format!(
                        "through {}, or through whichever of {} has the smallest group, the others looked up",
                        self.maps[*index].name,
                        others.join(", ")
                    ),
                }
            }
        }
    }

    /// One step of a path: the loops that bind its siblings, then how its
    /// target (a sum, a free variable's view, or a top join's node)
    /// changes.
    fn fmt_step(&self, f: &mut fmt::Formatter<'_>, step: &Step) -> fmt::Result {
        let target = &self.maps[step.target];
        for b in &step.binds {
            let what = match b.factor() {
                super::Factor::Atom(a) => format!("tuple of {}", self.atoms[a].label),
                super::Factor::Map(m) => format!("entry of {}", self.maps[m].name),
            };
            writeln!(
                f,
                "    for each {what} through {}:",
                self.maps[b.index()].name
            )?;
        }
        let sib: Vec<String> = step
            .siblings
            .iter()
            .map(|&x| self.factor_label(x))
            .collect();
        let times = if sib.is_empty() {
            String::new()
        } else {
            format!(" ⊗ {}", sib.join(" ⊗ "))
        };
        match step.target {
            Target::Sum(_) => writeln!(
                f,
                "    {}[{}]: replace term old{times} by new{times}",
                target.name,
                self.var_list(&target.key)
            ),
            Target::Free(level) => {
                let mut full = target.key.clone();
                full.extend(&self.get(level).vars);
                writeln!(
                    f,
                    "    {}[{}]: local := new{times}; recount tuples up to the root",
                    target.name,
                    self.var_list(&full)
                )
            }
            Target::Join(_) | Target::Support(_) => writeln!(
                f,
                "    {}[{}]: if new{times} ≠ 0, insert the value (once) and make live what it completes",
                target.name,
                self.var_list(&target.key)
            ),
        }
    }
}

fn head_list(p: &Program) -> String {
    p.var_list(&p.head)
}

/// One step of a generic join: `var` bound from the shortest of the
/// candidate lists `sources`.
fn write_bind(f: &mut fmt::Formatter<'_>, var: &syn::Ident, sources: &[String]) -> fmt::Result {
    writeln!(
        f,
        "    bind {var} from the shortest of {}, checked in the others",
        sources.join(", ")
    )
}

//! The struct of a view that reads nested views (`docs/design.md#nested-sql`):
//! its rule and each nested view (a piece) once, as fields. An update of a
//! table goes to every part that reads it; then, in order, each piece's
//! rows that went and came are fed to the parts that read it as a table.
//! The view's own wrapper (`sql_view!`) then sees this struct as its
//! rule.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::sql::lower::camel;
use crate::sql::{SqlType, View, ViewShape, ViewTable};

/// One part of the composite: the view's rule or a piece.
struct Part<'a> {
    /// The field that holds it.
    field: Ident,
    /// Its type.
    ty: Ident,
    /// The tables (and pieces) it reads.
    tables: &'a [ViewTable],
    /// For a piece, the table its readers see its rows as (its own name,
    /// or the table it feeds).
    table: String,
    /// Whether it takes deletes.
    deletes: bool,
    /// What the field holds.
    holds: Holds,
}

/// What a part's field holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// A piece's nested view, whose own rule a table's row goes to: the
    /// composite's caller brought its decimals to their columns' scales,
    /// which the nested view's methods would do again.
    Piece,
    /// The view's own rule.
    Rule,
}

impl Part<'_> {
    /// Where a row of a table goes: the rule of the part.
    fn rule(&self) -> TokenStream {
        let field = &self.field;
        match self.holds {
            Holds::Piece => quote! { self.#field.rule },
            Holds::Rule => quote! { self.#field },
        }
    }
}

/// The composite's name: `<View>Nested`.
pub fn name(view: &View) -> Ident {
    format_ident!("{}Nested", view.wrapper.name)
}

/// The tables of the view and its pieces that are tables, not pieces,
/// each once, in order of first use.
pub fn base_tables(view: &View) -> Vec<ViewTable> {
    let mut out: Vec<ViewTable> = Vec::new();
    for t in view
        .pieces
        .iter()
        .chain(std::iter::once(view))
        .flat_map(|v| &v.wrapper.tables)
    {
        let piece = view.pieces.iter().any(|p| p.table_name() == t.name);
        if !piece && !out.iter().any(|o| o.name == t.name) {
            out.push(t.clone());
        }
    }
    out
}

/// The composite struct of `view`, given whether each part's rule takes
/// deletes (the pieces', then the view's) and whether the view's API
/// does.
pub fn composite(view: &View, rule_deletes: &[bool], deletes: bool) -> TokenStream {
    let name = name(view);
    let parts = parts(view, rule_deletes);
    let (top, pieces) = parts.split_last().expect("the view's own rule is a part");
    let rule = &top.ty;
    let doc = format!(
        " The rule of SQL view `{}` with the nested views it reads, each kept once: an update of a table goes to every part that reads it, then each nested view's changed rows go to the parts that read them.",
        view.wrapper.sql_name
    );
    let piece_fields = pieces.iter().map(|p| {
        let (field, ty) = (&p.field, &p.ty);
        let doc = format!(" Nested view `{field}`.");
        quote! { #[doc = #doc] #field: #ty }
    });
    let field_names: Vec<&Ident> = pieces.iter().map(|p| &p.field).collect();
    let field_types = pieces.iter().map(|p| &p.ty);
    let accessors = pieces.iter().map(|p| {
        let (field, ty) = (&p.field, &p.ty);
        let doc = format!(" Nested view `{field}`, as this view reads it.");
        quote! { #[doc = #doc] pub fn #field(&self) -> &#ty { &self.#field } }
    });
    let plan = pieces.iter().enumerate().fold(
        quote! { <#rule as ::ivm::snapshot::Snapshot>::PLAN },
        |acc, (i, p)| {
            let ty = &p.ty;
            let turn = (i as u32 + 1) * 7;
            quote! { #acc ^ <#ty as ::ivm::snapshot::Snapshot>::PLAN.rotate_left(#turn) }
        },
    );
    let tables = base_tables(view);
    let updates = tables.iter().map(|t| update(t, &parts, deletes));
    let settles = pieces
        .iter()
        .zip(&view.pieces)
        .map(|(p, piece)| settle(p, piece, &parts));
    let feeds = pieces
        .iter()
        .zip(&view.pieces)
        .flat_map(|(p, piece)| feeds(p, piece, &parts));
    let change = format_ident!("{}Change", view.wrapper.name);
    let variants = tables.iter().map(|t| {
        let variant = format_ident!("{}", camel(&t.name));
        let insert = format_ident!("insert_{}", t.method);
        let columns: Vec<&Ident> = t.columns.iter().map(|c| &c.0).collect();
        quote! { #change::#variant { #(#columns),* } => self.#insert(#(#columns),*), }
    });
    quote! {
        #[doc = #doc]
        pub struct #name {
            /// The view's own rule, over its tables and nested views.
            rule: #rule,
            #(#piece_fields,)*
            /// Whether the nested views' changes are tracked from the
            /// state the rule was fed (not so after a restore, until the
            /// next update).
            started: bool,
        }

        ::ivm::__private::impl_state!(#name { rule, #(#field_names),* } fresh { started });
        ::ivm::__private::impl_snapshot!(#name, #plan);

        #[allow(dead_code, reason = "generated API: not every method is used")]
        #[allow(clippy::too_many_arguments, reason = "one parameter per column")]
        impl #name {
            /// Empty tables; a nested view without GROUP BY has its one
            /// row already.
            pub fn new() -> Self {
                let mut nested = #name {
                    rule: #rule::new(),
                    #(#field_names: #field_types::new(),)*
                    started: true,
                };
                nested.settle();
                nested
            }

            /// The view's own rule, over its tables and nested views.
            pub fn outer(&self) -> &#rule {
                &self.rule
            }

            #(#accessors)*

            #(#updates)*

            /// After a restore: starts tracking the nested views' changes
            /// from the restored state, which the rule was fed.
            fn resume(&mut self) {
                if !self.started {
                    self.started = true;
                    #(::ivm::__private::settle(&mut self.#field_names, |_, _| {});)*
                }
            }

            /// Feeds each nested view's rows that went and came since the
            /// previous call to the parts that read it, in order.
            fn settle(&mut self) {
                #(#settles)*
            }

            #(#feeds)*
        }

        impl ::core::default::Default for #name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl ::ivm::View for #name {
            type Change = #change;
            type Key = <#rule as ::ivm::View>::Key;
            type Payload = <#rule as ::ivm::View>::Payload;

            fn apply<I: ::core::iter::IntoIterator<Item = #change>>(&mut self, changes: I) {
                for change in changes {
                    match change {
                        #(#variants)*
                    }
                }
            }
            fn iter(&self) -> impl ::core::iter::Iterator<Item = (Self::Key, Self::Payload)> + '_ {
                ::ivm::View::iter(&self.rule)
            }
            fn get(&self, key: &Self::Key) -> Self::Payload {
                ::ivm::View::get(&self.rule, key)
            }
            fn len(&self) -> usize {
                ::ivm::View::len(&self.rule)
            }
            fn is_empty(&self) -> bool {
                ::ivm::View::is_empty(&self.rule)
            }
            fn changes(&mut self) -> impl ::core::iter::Iterator<Item = (Self::Key, Self::Payload, Self::Payload)> + '_ {
                ::ivm::View::changes(&mut self.rule)
            }
        }
    }
}

/// The pieces, then the view's own rule.
fn parts<'a>(view: &'a View, rule_deletes: &[bool]) -> Vec<Part<'a>> {
    let mut parts: Vec<Part<'a>> = view
        .pieces
        .iter()
        .zip(rule_deletes)
        .map(|(p, &deletes)| Part {
            field: format_ident!("{}", crate::sql::lower::sanitize(&p.wrapper.sql_name)),
            ty: p.wrapper.name.clone(),
            tables: &p.wrapper.tables,
            table: p.table_name().to_string(),
            deletes,
            holds: Holds::Piece,
        })
        .collect();
    parts.push(Part {
        field: format_ident!("rule"),
        ty: view.wrapper.rule.clone(),
        tables: &view.wrapper.tables,
        table: String::new(),
        deletes: *rule_deletes.last().expect("the view's own"),
        holds: Holds::Rule,
    });
    parts
}

/// `insert_<table>` (and `delete_<table>`) of the composite: the row goes
/// to each part that reads the table, then the pieces settle. A delete
/// that one part refuses is taken back from the parts that took it.
fn update(t: &ViewTable, parts: &[Part<'_>], deletes: bool) -> TokenStream {
    let readers: Vec<&Part<'_>> = parts
        .iter()
        .filter(|p| p.tables.iter().any(|r| r.name == t.name))
        .collect();
    let columns: Vec<&Ident> = t.columns.iter().map(|c| &c.0).collect();
    // A text column is taken as `impl Text` and lent to each part as a
    // `&str`: a part copies it only if it keeps it.
    let text: Vec<bool> = t
        .columns
        .iter()
        .map(|c| c.2 == SqlType::Text && !c.3)
        .collect();
    let params: Vec<TokenStream> = t
        .columns
        .iter()
        .zip(&text)
        .map(|(c, &text)| {
            let name = &c.0;
            let ty = if text {
                quote! { impl ::ivm::Text }
            } else {
                c.2.rust_nullable(c.3)
            };
            quote! { #name: #ty }
        })
        .collect();
    let lent =
        |c: &Ident, text: bool| text.then(|| quote! { ::core::convert::AsRef::<str>::as_ref(&#c) });
    let copied = columns.iter().zip(&text).map(|(c, &text)| {
        lent(c, text).unwrap_or_else(|| quote! { ::core::clone::Clone::clone(&#c) })
    });
    let copies = quote! { #(#copied),* };
    let moved = columns
        .iter()
        .zip(&text)
        .map(|(c, &text)| lent(c, text).unwrap_or_else(|| quote! { #c }));
    let moved = quote! { #(#moved),* };
    let insert = format_ident!("insert_{}", t.method);
    let delete = format_ident!("delete_{}", t.method);
    // The last part takes the row itself; the others a copy.
    let inserts = readers.iter().enumerate().map(|(i, p)| {
        let rule = p.rule();
        if i + 1 == readers.len() {
            quote! { #rule.#insert(#moved); }
        } else {
            quote! { #rule.#insert(#copies); }
        }
    });
    let insert_doc = format!(" Inserts one row into `{}`.", t.name);
    let insert_fn = quote! {
        #[doc = #insert_doc]
        pub fn #insert(&mut self, #(#params),*) {
            self.resume();
            #(#inserts)*
            self.settle();
        }
    };
    if !deletes {
        return insert_fn;
    }
    let deletes = readers.iter().enumerate().map(|(i, p)| {
        let rule = p.rule();
        let undo = readers[..i].iter().map(|q| {
            let rule = q.rule();
            quote! { #rule.#insert(#copies); }
        });
        quote! {
            if let ::core::result::Result::Err(__error) = #rule.#delete(#copies) {
                #(#undo)*
                return ::core::result::Result::Err(__error);
            }
        }
    });
    let delete_doc = format!(
        " Deletes one copy of a row of `{}` inserted before; nothing changes when a part refuses it.",
        t.name
    );
    quote! {
        #insert_fn

        #[doc = #delete_doc]
        pub fn #delete(&mut self, #(#params),*) -> ::ivm::Result<()> {
            self.resume();
            #(#deletes)*
            self.settle();
            ::core::result::Result::Ok(())
        }
    }
}

/// The parts that read piece `p` as a table.
fn readers<'p, 'a>(p: &Part<'a>, parts: &'p [Part<'a>]) -> Vec<&'p Part<'a>> {
    parts
        .iter()
        .filter(|r| r.tables.iter().any(|t| t.name == p.table))
        .collect()
}

/// One piece's changed rows, fed to each of its readers.
fn settle(p: &Part<'_>, piece: &View, parts: &[Part<'_>]) -> TokenStream {
    let field = &p.field;
    let calls = readers(p, parts).into_iter().map(|r| {
        let reader = &r.field;
        let feed = feed_name(p, r);
        quote! { Self::#feed(&mut self.#reader, row, copies); }
    });
    let settle = match piece.wrapper.shape {
        ViewShape::Keyless => quote! { settle_keyless },
        ViewShape::Grouped | ViewShape::Bag => quote! { settle },
    };
    quote! {
        ::ivm::__private::#settle(&mut self.#field, |row, copies| {
            #(#calls)*
        });
    }
}

fn feed_name(p: &Part<'_>, r: &Part<'_>) -> Ident {
    format_ident!("feed_{}_into_{}", p.field, r.field)
}

/// For each reader of piece `p`, how a row of `p` becomes `copies` rows
/// (or fewer, where negative) of the reader's table, NULLs included: a
/// field that can be NULL is a nullable column there. A column of the
/// table the piece has no field for (the nullable side of an outer join,
/// for its unmatched rows) is NULL.
fn feeds(p: &Part<'_>, piece: &View, parts: &[Part<'_>]) -> Vec<TokenStream> {
    let row = format_ident!("{}Row", piece.wrapper.name);
    let table = &p.table;
    readers(p, parts)
        .into_iter()
        .map(|r| {
            let feed = feed_name(p, r);
            let reader = &r.ty;
            let read = r
                .tables
                .iter()
                .find(|t| t.name == *table)
                .expect("a reader reads the piece");
            let local = |f: &crate::sql::ViewField| format_ident!("__{}", f.name);
            let values = piece.wrapper.fields.iter().map(|f| {
                let (field, local) = (&f.name, local(f));
                quote! { let #local = ::core::clone::Clone::clone(&row.#field); }
            });
            let args = read.columns.iter().map(|(column, _, _, nullable)| {
                match piece.wrapper.fields.iter().find(|f| f.name == *column) {
                    Some(f) if *nullable && !f.value.nullable => {
                        let local = local(f);
                        quote! { ::core::option::Option::Some(::core::clone::Clone::clone(&#local)) }
                    }
                    Some(f) => {
                        let local = local(f);
                        quote! { ::core::clone::Clone::clone(&#local) }
                    }
                    None => quote! { ::core::option::Option::None },
                }
            });
            let args = quote! { #(#args),* };
            let method = &read.method;
            let insert = format_ident!("insert_{}", method);
            let delete = format_ident!("delete_{}", method);
            let removal = if r.deletes {
                quote! {
                    into.#delete(#args).expect("ivm: a nested view's row is fed before it goes");
                }
            } else {
                quote! { unreachable!("ivm: rows of this nested view never go") }
            };
            let doc = format!(" Rows of nested view `{table}` into `{}`: `copies` of `row`, taken away where negative.", r.field);
            quote! {
                #[doc = #doc]
                fn #feed(into: &mut #reader, row: &#row, copies: i64) {
                    #(#values)*
                    for _ in 0..copies.unsigned_abs() {
                        if copies > 0 {
                            into.#insert(#args);
                        } else {
                            #removal
                        }
                    }
                }
            }
        })
        .collect()
}

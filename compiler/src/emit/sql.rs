//! The struct of a view written in SQL (`docs/design.md#sql`): it holds the
//! struct of the rule the view lowered to and gives it the view's API:
//! typed `insert_<table>`/`delete_<table>`, rows with named fields, and
//! the text interface (`insert_text`, `delete_text`, `text_rows`).
//!
//! Everything here is decided by the lowering ([`SqlView`]); the wrapper
//! only forwards updates and reads each row off the rule's key and
//! payload.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::sql::types::SqlType;
use crate::sql::{SqlView, ViewShape, ViewTable};

/// The view's struct, its row struct and their methods. `deletes` says
/// whether the rule's struct has `delete_<relation>` (not under
/// `updates = 'insert_only'`).
pub fn wrapper(view: &SqlView, deletes: bool) -> TokenStream {
    let wrapper = Wrapper::new(view, deletes);
    let (name, rule) = (&view.name, &view.rule);
    let structs = wrapper.structs();
    let methods = wrapper.methods();
    let trait_impls = wrapper.trait_impls();
    let view_impls = view_impls(view, deletes);
    let code = quote! {
        #structs

        #methods

        #trait_impls

        #view_impls
    };
    // The view's snapshot is its rule's state (and a flag that starts
    // fresh): the plan is the rule's plan.
    quote! {
        #code
        ::ivm::__private::impl_snapshot!(#name, <#rule as ::ivm::snapshot::Snapshot>::PLAN);
    }
}

/// What the parts of a view's wrapper share: the view, whether its rule
/// deletes, and the names and renderings several parts spell the same way.
struct Wrapper<'a> {
    /// The lowered view.
    view: &'a SqlView,
    /// Whether the rule's struct has `delete_<relation>`.
    deletes: bool,
    /// The row struct (`<View>Row`).
    row: Ident,
    /// The group key's type, a tuple of the GROUP BY values' types.
    key: TokenStream,
    /// Each field of `__row` rendered as a `String`, in select-list order
    /// (`NULL` for a nullable field's `None`).
    texts: Vec<TokenStream>,
}

impl<'a> Wrapper<'a> {
    /// The shared names and renderings of `view`'s wrapper.
    fn new(view: &'a SqlView, deletes: bool) -> Self {
        let key_types = &view.key_types;
        let texts = view
            .fields
            .iter()
            .map(|f| {
                let field = &f.name;
                if f.nullable {
                    quote! {
                        match &__row.#field {
                            ::core::option::Option::Some(__value) => ::std::string::ToString::to_string(__value),
                            ::core::option::Option::None => ::std::string::String::from("NULL"),
                        }
                    }
                } else {
                    quote! { ::std::string::ToString::to_string(&__row.#field) }
                }
            })
            .collect();
        Wrapper {
            view,
            deletes,
            row: format_ident!("{}Row", view.name),
            key: crate::tuple::tuple(key_types.iter().cloned()),
            texts,
        }
    }

    /// The view's struct (the rule's struct and the `changes()` flag) and
    /// its row struct, one documented field per select item.
    fn structs(&self) -> TokenStream {
        let SqlView {
            name, rule, sql, ..
        } = self.view;
        let row = &self.row;
        let sql_name = &self.view.sql_name;
        let doc =
            format!(" The SQL view `{sql_name}`, kept fresh under single-row inserts and deletes:");
        let sql_doc = format!(" ```sql\n {sql}\n ```");
        let row_doc = format!(" One row of `{sql_name}`: its select items, in order.");
        let field_defs = self.view.fields.iter().map(|f| {
            let (field, ty) = (&f.name, &f.ty);
            let doc = if f.nullable {
                format!(
                    " `{}` (`None`, SQL's NULL, while the view has no rows).",
                    f.sql
                )
            } else {
                format!(" `{}`.", f.sql)
            };
            quote! { #[doc = #doc] pub #field: #ty }
        });
        quote! {
            #[doc = #doc]
            ///
            #[doc = #sql_doc]
            pub struct #name {
                rule: #rule,
                /// Whether `changes()` or `text_changes()` was called.
                changes_started: bool,
            }

            ::ivm::__private::impl_state!(#name { rule } fresh { changes_started });

            #[doc = #row_doc]
            #[derive(Debug, Clone, PartialEq)]
            pub struct #row {
                #(#field_defs,)*
            }
        }
    }

    /// The view's inherent methods: typed updates, reading, changes, the
    /// text interface, and reading a row off a group's key and payload.
    fn methods(&self) -> TokenStream {
        let SqlView {
            name,
            rule,
            tables,
            key_types,
            fields,
            shape,
            ..
        } = self.view;
        let (row, key, payload) = (&self.row, &self.key, &self.view.payload);
        let field_values = fields.iter().map(|f| {
            let (field, value) = (&f.name, &f.value);
            quote! { #field: #value }
        });
        let updates = tables.iter().map(|t| update_methods(t, self.deletes));
        let readers = tables.iter().map(reader);
        let table_names = tables.iter().map(|t| &t.name);
        let reading = self.reading();
        let changes = self.changes();
        let text_changes = self.text_changes();
        let text_input = self.text_input();
        let text_rows = self.text_rows();
        let wide = wide_tables(tables);
        let keyless = *shape == ViewShape::Keyless;
        let unused_key = (keyless || key_types.is_empty()).then(|| quote! { let _ = __key; });
        quote! {
            #[allow(dead_code, reason = "generated API: not every method is used")]
            #wide
            impl #name {
                /// The tables the view reads, by their SQL names: what
                /// `insert_text` accepts.
                pub const TABLES: &'static [&'static str] = &[#(#table_names),*];

                /// An empty database.
                pub fn new() -> Self {
                    #name { rule: #rule::new(), changes_started: false }
                }

                #(#updates)*

                #reading

                #changes

                #text_changes

                #text_input

                /// Every row rendered as text, its select items in order
                /// (numbers as Rust prints them, dates as `yyyy-mm-dd`, `NULL`
                /// for SQL's NULL), in no particular order of rows.
                pub fn text_rows(&self) -> ::std::vec::Vec<::std::vec::Vec<::std::string::String>> {
                    #text_rows
                }

                /// The maintained rule this view lowered to.
                pub fn rule(&self) -> &#rule {
                    &self.rule
                }

                /// A group's row, read off its key and payload.
                fn row(__key: &#key, __payload: &#payload) -> #row {
                    #unused_key
                    #row { #(#field_values,)* }
                }

                #(#readers)*
            }
        }
    }

    /// `iter`, `get`, `len` and `is_empty`: over the groups, or over the
    /// one row of a view without GROUP BY.
    fn reading(&self) -> TokenStream {
        let (row, key) = (&self.row, &self.key);
        if self.view.shape == ViewShape::Keyless {
            return quote! {
                /// The view's one row (a view without GROUP BY always has one,
                /// as in SQL), under the key `()`.
                pub fn iter(&self) -> impl ::core::iter::Iterator<Item = ((), #row)> + '_ {
                    ::core::iter::once(((), Self::row(&(), &self.rule.get(&()))))
                }
                /// The row of key `()`.
                pub fn get(&self, key: &()) -> ::core::option::Option<#row> {
                    ::core::option::Option::Some(Self::row(key, &self.rule.get(key)))
                }
                /// The number of rows: always 1.
                pub fn len(&self) -> usize {
                    1
                }
                /// Whether the view has no rows: never.
                pub fn is_empty(&self) -> bool {
                    false
                }
            };
        }
        let distinct = if self.view.shape == ViewShape::Bag {
            " Each distinct row once; `text_rows` lists a row once per copy."
        } else {
            ""
        };
        let iter_doc = format!(
            " The rows, each with its group key (the GROUP BY values, in order).{distinct}"
        );
        quote! {
            #[doc = #iter_doc]
            pub fn iter(&self) -> impl ::core::iter::Iterator<Item = (#key, #row)> + '_ {
                self.rule.iter().map(|(__key, __payload)| {
                    let __row = Self::row(&__key, &__payload);
                    (__key, __row)
                })
            }
            /// The row of one group, `None` when the group has no rows.
            pub fn get(&self, key: &#key) -> ::core::option::Option<#row> {
                let __payload = self.rule.get(key);
                if ::ivm::Semiring::is_zero(&__payload) {
                    ::core::option::Option::None
                } else {
                    ::core::option::Option::Some(Self::row(key, &__payload))
                }
            }
            /// The number of groups.
            pub fn len(&self) -> usize {
                self.rule.len()
            }
            /// Whether the view has no rows.
            pub fn is_empty(&self) -> bool {
                self.rule.is_empty()
            }
        }
    }

    /// The body of `text_rows`: a bag's row once per copy, else each row
    /// once.
    fn text_rows(&self) -> TokenStream {
        let texts = &self.texts;
        if self.view.shape == ViewShape::Bag {
            let count = &self.view.count;
            quote! {
                let mut __rows = ::std::vec::Vec::new();
                for (__key, __payload) in self.rule.iter() {
                    let __row = Self::row(&__key, &__payload);
                    let __copies: i64 = #count;
                    for _ in 0..__copies {
                        __rows.push(::std::vec![#(#texts),*]);
                    }
                }
                __rows
            }
        } else {
            quote! {
                self.iter().map(|(_, __row)| ::std::vec![#(#texts),*]).collect()
            }
        }
    }

    /// `changes`: each changed group's key with its typed row then and
    /// now.
    fn changes(&self) -> TokenStream {
        let (row, key, payload) = (&self.row, &self.key, &self.view.payload);
        let changes_body = if self.view.shape == ViewShape::Keyless {
            // The one row is there from the start: the first call reports it
            // as new, and later ones its change, if any.
            quote! {
                let __first = !::core::mem::replace(&mut self.changes_started, true);
                let __changed: ::std::vec::Vec<_> = self.rule.changes().collect();
                let __out = if __first {
                    ::std::vec![((), ::core::option::Option::None, ::core::option::Option::Some(Self::row(&(), &self.rule.get(&()))))]
                } else {
                    __changed
                        .into_iter()
                        .map(|(__key, __then, __now)| {
                            (__key, ::core::option::Option::Some(Self::row(&(), &__then)), ::core::option::Option::Some(Self::row(&(), &__now)))
                        })
                        .collect()
                };
                __out.into_iter()
            }
        } else {
            quote! {
                self.rule.changes().map(|(__key, __then, __now)| {
                    let __row = |__payload: &#payload| {
                        (!::ivm::Semiring::is_zero(__payload)).then(|| Self::row(&__key, __payload))
                    };
                    let (__then, __now) = (__row(&__then), __row(&__now));
                    (__key, __then, __now)
                })
            }
        };
        quote! {
            /// The rows that changed since the previous call: each group's key
            /// with its row then and now (`None` where the group had no rows,
            /// or has none now); the first call reports every row. See the
            /// rule's `changes()`.
            pub fn changes(
                &mut self,
            ) -> impl ::core::iter::Iterator<
                Item = (#key, ::core::option::Option<#row>, ::core::option::Option<#row>),
            > + '_ {
                #changes_body
            }
        }
    }

    /// `text_changes`: the rows that went and came, as text.
    fn text_changes(&self) -> TokenStream {
        let SqlView { shape, count, .. } = self.view;
        let keyless = *shape == ViewShape::Keyless;
        let texts = &self.texts;
        // A row is there where the group's payload is not zero; the one row
        // of a view without GROUP BY always is, so its text changes start from
        // it, and report it when it changes.
        let present = if keyless {
            quote! { !__first }
        } else {
            quote! { !::ivm::Semiring::is_zero(__payload) }
        };
        let first_row = keyless.then(|| {
            quote! {
                if __first {
                    let __payload = &self.rule.get(&());
                    let __row = Self::row(&(), __payload);
                    __came.push(::std::vec![#(#texts),*]);
                }
            }
        });
        let copies = if *shape == ViewShape::Bag {
            quote! {
                let __copies: i64 = {
                    let __payload = ::core::clone::Clone::clone(__payload);
                    #count
                };
            }
        } else {
            quote! { let __copies: i64 = 1; }
        };
        quote! {
            /// [`changes`](Self::changes) as text: the rows that went and the
            /// rows that came (a row once per copy), each rendered as
            /// `text_rows` renders it.
            pub fn text_changes(
                &mut self,
            ) -> (
                ::std::vec::Vec<::std::vec::Vec<::std::string::String>>,
                ::std::vec::Vec<::std::vec::Vec<::std::string::String>>,
            ) {
                let (mut __gone, mut __came) = (::std::vec::Vec::new(), ::std::vec::Vec::new());
                let __changes: ::std::vec::Vec<_> = self.rule.changes().collect();
                let __first = !::core::mem::replace(&mut self.changes_started, true);
                for (__key, __then, __now) in __changes {
                    for (__payload, __into) in [(&__then, &mut __gone), (&__now, &mut __came)] {
                        if #present {
                            let __row = Self::row(&__key, __payload);
                            #copies
                            for _ in 0..__copies {
                                __into.push(::std::vec![#(#texts),*]);
                            }
                        }
                    }
                }
                #first_row
                (__gone, __came)
            }
        }
    }

    /// `insert_text` and, with deletes, `delete_text`: one branch per
    /// table, matched by name.
    fn text_input(&self) -> TokenStream {
        let tables = &self.view.tables;
        let insert_arms = tables.iter().map(|t| text_arm(t, "insert"));
        let delete_text = self.deletes.then(|| {
            let arms = tables.iter().map(|t| text_arm(t, "delete"));
            quote! {
                /// Deletes one copy of a row given as text, as `insert_text`
                /// reads it.
                ///
                /// # Errors
                ///
                /// As `insert_text`, and [`ivm::Error::AbsentTuple`](::ivm::Error::AbsentTuple)
                /// when no such row was inserted; nothing changes then.
                pub fn delete_text(&mut self, table: &str, fields: &[&str]) -> ::ivm::Result<()> {
                    #(#arms)*
                    ::core::result::Result::Err(::ivm::Error::UnknownTable { table: ::std::string::String::from(table) })
                }
            }
        });
        quote! {
            /// Inserts one row given as text: one field per column, in the
            /// order of `CREATE TABLE`, each read by its column's type
            /// (integers, decimals such as `-17.25`, dates `yyyy-mm-dd`,
            /// strings as they are). The table's name is matched without
            /// regard to case.
            ///
            /// # Errors
            ///
            /// [`ivm::Error::UnknownTable`](::ivm::Error::UnknownTable),
            /// [`ivm::Error::FieldCount`](::ivm::Error::FieldCount) or
            /// [`ivm::Error::BadField`](::ivm::Error::BadField); nothing
            /// changes then.
            pub fn insert_text(&mut self, table: &str, fields: &[&str]) -> ::ivm::Result<()> {
                #(#insert_arms)*
                ::core::result::Result::Err(::ivm::Error::UnknownTable { table: ::std::string::String::from(table) })
            }

            #delete_text
        }
    }

    /// `Default`, `ivm::sql::TextView` and, with deletes,
    /// `ivm::sql::TextRetract`, each forwarding to the inherent method.
    fn trait_impls(&self) -> TokenStream {
        let SqlView {
            name,
            sql,
            sql_name,
            ..
        } = self.view;
        let text_retract = self.deletes.then(|| {
            quote! {
                impl ::ivm::sql::TextRetract for #name {
                    fn delete_text(&mut self, table: &str, fields: &[&str]) -> ::ivm::Result<()> {
                        #name::delete_text(self, table, fields)
                    }
                }
            }
        });
        quote! {
            impl ::core::default::Default for #name {
                fn default() -> Self {
                    Self::new()
                }
            }

            impl ::ivm::sql::TextView for #name {
                fn name(&self) -> &'static str {
                    #sql_name
                }
                fn sql(&self) -> &'static str {
                    #sql
                }
                fn tables(&self) -> &'static [&'static str] {
                    Self::TABLES
                }
                fn insert_text(&mut self, table: &str, fields: &[&str]) -> ::ivm::Result<()> {
                    #name::insert_text(self, table, fields)
                }
                fn text_rows(&self) -> ::std::vec::Vec<::std::vec::Vec<::std::string::String>> {
                    #name::text_rows(self)
                }
                fn text_changes(
                    &mut self,
                ) -> (
                    ::std::vec::Vec<::std::vec::Vec<::std::string::String>>,
                    ::std::vec::Vec<::std::vec::Vec<::std::string::String>>,
                ) {
                    #name::text_changes(self)
                }
            }

            #text_retract
        }
    }
}

/// Clippy's allowances for wide tables (more than five columns): one
/// parameter per column, and a row's columns as one tuple in
/// `read_<table>`.
fn wide_tables(tables: &[ViewTable]) -> Option<TokenStream> {
    let widest = tables.iter().map(|t| t.columns.len()).max().unwrap_or(0);
    (widest > 5).then(|| {
        quote! {
            #[allow(
                clippy::too_many_arguments,
                clippy::type_complexity,
                reason = "one parameter per column, and a row's columns as one tuple"
            )]
        }
    })
}

/// The view's change enum (a row of one of its tables, by value) and its
/// `ivm::View` and, with deletes, `ivm::Retract`: `apply` inserts one copy
/// of each row, `retract` deletes one. The trait's key and payload are the
/// rule's (the GROUP BY values, and the row count with each aggregate's
/// components), which generic code (the durable log, loaders) needs; the
/// typed rows stay the inherent `iter()`'s.
fn view_impls(view: &SqlView, deletes: bool) -> TokenStream {
    let name = &view.name;
    let rule = &view.rule;
    let payload = &view.payload;
    let change = format_ident!("{}Change", name);
    let key_types = &view.key_types;
    let key = crate::tuple::tuple(key_types.iter().cloned());
    let change_enum = change_enum(view, &change, deletes);
    let inserts = change_arms(view, &change, "insert");
    let retract = deletes.then(|| {
        let deletes = change_arms(view, &change, "delete");
        quote! {
            impl ::ivm::Retract for #name {
                fn retract(&mut self, change: #change) -> ::ivm::Result<()> {
                    match change {
                        #(#deletes)*
                    }
                }
            }
        }
    });
    let retract_hook = deletes.then(|| {
        quote! {
            fn __retract(&mut self, change: #change) -> ::core::option::Option<::ivm::Result<()>> {
                ::core::option::Option::Some(<Self as ::ivm::Retract>::retract(self, change))
            }
        }
    });
    quote! {
        #change_enum

        impl ::ivm::View for #name {
            type Change = #change;
            type Key = #key;
            type Payload = #payload;

            fn apply<I: ::core::iter::IntoIterator<Item = #change>>(&mut self, changes: I) {
                for change in changes {
                    match change {
                        #(#inserts)*
                    }
                }
            }

            fn iter(&self) -> impl ::core::iter::Iterator<Item = (#key, #payload)> + '_ {
                self.rule.iter()
            }

            fn get(&self, key: &#key) -> #payload {
                self.rule.get(key)
            }

            fn len(&self) -> usize {
                self.rule.len()
            }

            fn is_empty(&self) -> bool {
                self.rule.is_empty()
            }

            fn changes(&mut self) -> impl ::core::iter::Iterator<Item = (#key, #payload, #payload)> + '_ {
                <#rule as ::ivm::View>::changes(&mut self.rule)
            }

            #retract_hook
        }

        #retract
    }
}

/// The change enum `change`, one variant per table with its columns as
/// fields, and its state (each variant's index, for snapshots).
fn change_enum(view: &SqlView, change: &Ident, deletes: bool) -> TokenStream {
    let name = &view.name;
    let variants = view.tables.iter().map(|t| {
        let v = change_variant(t);
        let fields = t.columns.iter().map(|(c, _, ty)| {
            let ty = ty.rust();
            quote! { #c: #ty }
        });
        let doc = format!(
            " A row of `{}`, its columns in the order of `CREATE TABLE`.",
            t.name
        );
        quote! { #[doc = #doc] #v { #(#fields,)* }, }
    });
    let states = view.tables.iter().enumerate().map(|(i, t)| {
        let v = change_variant(t);
        let index = proc_macro2::Literal::u32_unsuffixed(i as u32);
        let cols = t.columns.iter().map(|(c, _, _)| c);
        quote! { #v = #index { #(#cols,)* } }
    });
    let enum_doc = format!(
        " A row of a table [`{name}`] reads: [`View::apply`](::ivm::View::apply) inserts one copy of it{}.",
        if deletes {
            ", [`Retract::retract`](::ivm::Retract::retract) deletes one"
        } else {
            ""
        }
    );
    quote! {
        #[doc = #enum_doc]
        #[derive(Clone, Debug, PartialEq)]
        #[allow(dead_code, reason = "generated API: not every table's rows are used")]
        #[allow(missing_docs, reason = "each variant's doc names its fields")]
        pub enum #change {
            #(#variants)*
        }

        ::ivm::__private::impl_change_state!(#change { #(#states),* });
    }
}

/// A table's variant of the change enum: its name in camel case.
fn change_variant(t: &ViewTable) -> Ident {
    format_ident!("{}", crate::sql::lower::camel(&t.name))
}

/// The match arms that hand each variant of `change` to the typed
/// `<verb>_<table>` method.
fn change_arms(view: &SqlView, change: &Ident, verb: &str) -> Vec<TokenStream> {
    view.tables
        .iter()
        .map(|t| {
            let v = change_variant(t);
            let method = format_ident!("{verb}_{}", t.method);
            let cols: Vec<_> = t.columns.iter().map(|(c, _, _)| c).collect();
            quote! { #change::#v { #(#cols,)* } => self.#method(#(#cols),*), }
        })
        .collect()
}

/// `insert_<table>` and, with deletes, `delete_<table>`.
fn update_methods(t: &ViewTable, deletes: bool) -> TokenStream {
    let insert = format_ident!("insert_{}", t.method);
    let delete = format_ident!("delete_{}", t.method);
    let params = t.columns.iter().map(|(c, _, ty)| {
        let ty = ty.rust();
        quote! { #c: #ty }
    });
    let args: Vec<_> = t.columns.iter().map(|(c, _, _)| c).collect();
    // A value of a `DECIMAL(p, s)` column is stored at scale `s`, rounded
    // half away from zero as PostgreSQL stores it, so that equal values
    // are equal rows and `MIN`/`MAX` read it at its declared scale.
    let rescaled: Vec<TokenStream> = t
        .columns
        .iter()
        .filter_map(|(c, _, ty)| match ty {
            SqlType::Decimal(Some(scale)) => {
                let message = format!("ivm: a value too large for a DECIMAL of scale {scale}");
                Some(quote! {
                    let #c = ::core::option::Option::expect(::ivm::sql::Decimal::rescale(#c, #scale), #message);
                })
            }
            _ => None,
        })
        .collect();
    let insert_doc = format!(" Inserts one row into `{}` (one more copy of it).", t.name);
    let delete_doc = format!(
        " Deletes one copy of a row of `{}` inserted before, whether or not the view's conditions keep it.",
        t.name
    );
    let delete_method = deletes.then(|| {
        let params = params.clone();
        quote! {
            #[doc = #delete_doc]
            ///
            /// # Errors
            ///
            /// [`ivm::Error::AbsentTuple`](::ivm::Error::AbsentTuple) when
            /// there is no such row; nothing changes then.
            pub fn #delete(&mut self, #(#params),*) -> ::ivm::Result<()> {
                #(#rescaled)*
                self.rule.#delete(#(#args),*)
            }
        }
    });
    quote! {
        #[doc = #insert_doc]
        pub fn #insert(&mut self, #(#params),*) {
            #(#rescaled)*
            self.rule.#insert(#(#args),*)
        }
        #delete_method
    }
}

/// `read_<table>`: the typed columns of a row given as text.
fn reader(t: &ViewTable) -> TokenStream {
    let read = format_ident!("read_{}", t.method);
    let name = &t.name;
    let n = t.columns.len();
    let vars: Vec<_> = t.columns.iter().map(|(c, _, _)| c).collect();
    let types: Vec<_> = t.columns.iter().map(|(_, _, ty)| ty.rust()).collect();
    let values = t.columns.iter().map(|(c, sql, _)| {
        quote! { ::ivm::sql::read_field(#c, #name, #sql)? }
    });
    let doc = format!(" The columns of a row of `{name}` given as text.");
    quote! {
        #[doc = #doc]
        fn #read(fields: &[&str]) -> ::ivm::Result<( #(#types,)* )> {
            let &[#(#vars),*] = fields else {
                return ::core::result::Result::Err(::ivm::Error::FieldCount {
                    table: #name,
                    expected: #n,
                    found: fields.len(),
                });
            };
            ::core::result::Result::Ok(( #(#values,)* ))
        }
    }
}

/// One table's branch of `insert_text` or `delete_text`.
fn text_arm(t: &ViewTable, verb: &str) -> TokenStream {
    let read = format_ident!("read_{}", t.method);
    let method = format_ident!("{verb}_{}", t.method);
    let name = &t.name;
    let vars: Vec<_> = t.columns.iter().map(|(c, _, _)| c).collect();
    let call = if verb == "insert" {
        quote! { self.#method(#(#vars),*); return ::core::result::Result::Ok(()); }
    } else {
        quote! { return self.#method(#(#vars),*); }
    };
    quote! {
        if table.eq_ignore_ascii_case(#name) {
            let ( #(#vars,)* ) = Self::#read(fields)?;
            #call
        }
    }
}

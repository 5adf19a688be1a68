//! The harness of the SQL suites (`tests/sql.rs`, `tests/sql_nested.rs`):
//! a suite file's statements, SQLite's SELECT for each view, random
//! streams, and a run of a stream through views and SQLite.

#![allow(dead_code, reason = "each suite uses what it needs")]

use ivm::sql::TextRetract;
use ivm_fuzz::sql::TABLES;
use ivm_fuzz::sqlite::{self, COLUMNS, Step};
use proptest::prelude::*;

/// The suite's statements, split at `;`, with the `-- sqlite:` spelling of
/// the view that follows, if any.
pub fn statements(suite: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut sqlite = None;
    let mut current = String::new();
    for line in suite.lines() {
        if let Some(s) = line.trim().strip_prefix("-- sqlite:") {
            sqlite = Some(s.trim().to_owned());
            continue;
        }
        if line.trim_start().starts_with("--") {
            continue;
        }
        current.push_str(line);
        current.push('\n');
        if line.trim_end().ends_with(';') {
            out.push((
                current.trim().trim_end_matches(';').to_owned(),
                sqlite.take(),
            ));
            current.clear();
        }
    }
    out
}

/// SQLite's SELECT for a view: the `-- sqlite:` line before it in the
/// suite, or the SELECT its struct reports it was compiled from, with its
/// dates as text (SQLite has no DATE literals).
pub fn sqlite_select(suite: &str, view: &dyn TextRetract) -> String {
    for (statement, sqlite) in statements(suite) {
        let words: Vec<&str> = statement.split_whitespace().take(3).collect();
        if words.len() == 3
            && words[..2] == ["CREATE", "VIEW"]
            && words[2] == view.name()
            && let Some(s) = sqlite
        {
            return s;
        }
    }
    let select = sqlite::select_of(view);
    assert!(
        !select.contains("INTERVAL") && !select.contains("EXTRACT"),
        "view `{}` needs a `-- sqlite:` spelling: {select}",
        view.name()
    );
    select
}

pub fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        (0..COLUMNS.len(), 0..10u8, any::<[u16; 4]>()).prop_map(|(table, action, values)| Step {
            table,
            action,
            values,
        }),
        1..120,
    )
}

/// Runs one stream through every view of `views` and SQLite.
pub fn run(
    suite: &str,
    views: fn() -> Vec<Box<dyn TextRetract>>,
    steps: &[Step],
    check_every: usize,
) -> Result<(), TestCaseError> {
    let mut views = views();
    let selects: Vec<String> = views.iter().map(|v| sqlite_select(suite, &**v)).collect();
    sqlite::run(TABLES, &mut views, &selects, steps, check_every).map_err(TestCaseError::fail)
}

/// Every view of `suite` is in `views`: none goes unchecked; and the suite
/// declares the tables of the random views' schema.
pub fn lists_every_view(suite: &str, views: fn() -> Vec<Box<dyn TextRetract>>) {
    let declared = statements(suite)
        .iter()
        .filter(|(s, _)| s.starts_with("CREATE VIEW"))
        .count();
    assert_eq!(views().len(), declared);
    let tables: Vec<String> = statements(suite)
        .into_iter()
        .filter(|(s, _)| s.starts_with("CREATE TABLE"))
        .map(|(s, _)| format!("{s};"))
        .collect();
    assert_eq!(tables.join("\n"), TABLES.trim());
    for view in views() {
        sqlite_select(suite, &*view);
    }
}

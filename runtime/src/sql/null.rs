//! SQL's three-valued logic: `AND` and `OR` where either side may be NULL
//! (`None`), as generated code evaluates conditions over nullable columns.

/// `a AND b`: false if either is false, else NULL if either is NULL.
///
/// ```
/// use ivm::sql::and;
///
/// assert_eq!(and(None, Some(false)), Some(false));
/// assert_eq!(and(None, Some(true)), None);
/// assert_eq!(and(Some(true), Some(true)), Some(true));
/// ```
pub fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// `a OR b`: true if either is true, else NULL if either is NULL.
///
/// ```
/// use ivm::sql::or;
///
/// assert_eq!(or(None, Some(true)), Some(true));
/// assert_eq!(or(None, Some(false)), None);
/// assert_eq!(or(Some(false), Some(false)), Some(false));
/// ```
pub fn or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

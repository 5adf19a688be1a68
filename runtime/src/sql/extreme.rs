//! `GREATEST` and `LEAST` of values read off a group (`SUM(x) /
//! LISTMAX(1, SUM(y))`), as PostgreSQL reads them: the largest (smallest)
//! argument that is not NULL (`None`), NULL only where all are.
//!
//! Generated code folds the arguments left to right, those that cannot
//! be NULL first: [`greatest`] for two values, [`greatest_or`] for a
//! value and one that can be NULL, [`greatest_of`] where both can.

/// The larger of two values (the first where they are equal).
///
/// ```
/// assert_eq!(ivm::sql::greatest(1, 3), 3);
/// ```
pub fn greatest<T: PartialOrd>(a: T, b: T) -> T {
    if b > a { b } else { a }
}

/// The smaller of two values (the first where they are equal).
///
/// ```
/// assert_eq!(ivm::sql::least(1, 3), 1);
/// ```
pub fn least<T: PartialOrd>(a: T, b: T) -> T {
    if b < a { b } else { a }
}

/// `GREATEST(a, b)` where `b` can be NULL: `a` there.
///
/// ```
/// assert_eq!(ivm::sql::greatest_or(1, Some(3)), 3);
/// assert_eq!(ivm::sql::greatest_or(1, None), 1);
/// ```
pub fn greatest_or<T: PartialOrd>(a: T, b: Option<T>) -> T {
    match b {
        Some(b) => greatest(a, b),
        None => a,
    }
}

/// `LEAST(a, b)` where `b` can be NULL: `a` there.
///
/// ```
/// assert_eq!(ivm::sql::least_or(1, Some(3)), 1);
/// assert_eq!(ivm::sql::least_or(4, None), 4);
/// ```
pub fn least_or<T: PartialOrd>(a: T, b: Option<T>) -> T {
    match b {
        Some(b) => least(a, b),
        None => a,
    }
}

/// `GREATEST(a, b)` where both can be NULL: the one that is not, NULL if
/// neither.
///
/// ```
/// assert_eq!(ivm::sql::greatest_of(None, Some(3)), Some(3));
/// assert_eq!(ivm::sql::greatest_of::<i64>(None, None), None);
/// ```
pub fn greatest_of<T: PartialOrd>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(greatest(a, b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// `LEAST(a, b)` where both can be NULL: the one that is not, NULL if
/// neither.
///
/// ```
/// assert_eq!(ivm::sql::least_of(Some(2), Some(3)), Some(2));
/// assert_eq!(ivm::sql::least_of(Some(2), None), Some(2));
/// ```
pub fn least_of<T: PartialOrd>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(least(a, b)),
        (a, None) => a,
        (None, b) => b,
    }
}

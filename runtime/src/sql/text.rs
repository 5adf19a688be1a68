//! Text in SQL: the `LIKE` operator ([`like`]) and reading the fields of
//! `insert_text`/`delete_text` by column type ([`FromSqlText`]).

use std::num::IntErrorKind;

use super::{Date, Decimal, Double};

/// SQL's `SUBSTRING(text FROM start FOR length)`: the characters from
/// position `start` (the first is 1), `length` of them, or to the end
/// without a length. The lowering takes constant positions of at least 1
/// only, where PostgreSQL and SQLite agree.
///
/// ```
/// use ivm::sql::substring;
///
/// assert_eq!(substring("13-555-0199", 1, Some(2)), "13");
/// assert_eq!(substring("äöü", 2, None), "öü");
/// assert_eq!(substring("ab", 2, Some(5)), "b");
/// assert_eq!(substring("ab", 4, Some(1)), "");
/// ```
pub fn substring(text: &str, start: usize, length: Option<usize>) -> &str {
    let byte = |chars: usize| {
        text.char_indices()
            .nth(chars)
            .map_or(text.len(), |(at, _)| at)
    };
    let from = byte(start.saturating_sub(1));
    let to = match length {
        Some(n) => from + byte_len(&text[from..], n),
        None => text.len(),
    };
    &text[from..to]
}

/// The bytes of the first `chars` characters of `text` (all of it if it
/// has fewer).
fn byte_len(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(at, _)| at)
}

/// SQL's `text LIKE pattern`: `%` in the pattern matches any run of
/// characters (the empty one too), `_` exactly one character, and every
/// other character itself. Case-sensitive, as in PostgreSQL; there is no
/// escape character, so `%` and `_` are always wildcards. Characters are
/// Unicode scalar values: `_` matches `é` as one.
///
/// Greedy matching that, on a mismatch, goes back only to the last `%`: at
/// most O(|text| × |pattern|) steps and usually linear, never the
/// exponential backtracking of a naive matcher.
///
/// ```
/// use ivm::sql::like;
///
/// assert!(like("PROMO BRUSHED TIN", "PROMO%"));
/// assert!(like("forest green", "%green"));
/// assert!(like("a_c", "a_c") && like("abc", "a_c"));
/// assert!(!like("Forest", "forest"));
/// assert!(!like("abc", "_"));
/// assert!(like("", "%"));
/// ```
pub fn like(text: &str, pattern: &str) -> bool {
    let (t, p) = (text.as_bytes(), pattern.as_bytes());
    // Byte positions, each at a character boundary whenever `pi` is: a
    // pattern character is matched byte by byte, and a match of its first
    // byte fixes its length.
    let (mut ti, mut pi) = (0, 0);
    // After the last `%` seen: the pattern position after it, and the text
    // position it has swallowed up to.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some(b'%') => {
                pi += 1;
                star = Some((pi, ti));
                continue;
            }
            Some(b'_') => {
                ti += char_len(t[ti]);
                pi += 1;
                continue;
            }
            Some(&byte) if byte == t[ti] => {
                ti += 1;
                pi += 1;
                continue;
            }
            _ => {}
        }
        // A mismatch: the last `%` swallows one more character, and the
        // pattern after it starts again there.
        let Some((after_star, swallowed)) = star else {
            return false;
        };
        let next = swallowed + char_len(t[swallowed]);
        star = Some((after_star, next));
        ti = next;
        pi = after_star;
    }
    p[pi..].iter().all(|&b| b == b'%')
}

/// The length of the UTF-8 character that starts with `lead`.
fn char_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Reads one field of a row given as text, by the type of its column: what
/// `insert_text` and `delete_text` of generated code call for each field.
///
/// A field is taken as it is: no spaces are trimmed (`" 12"` is not an
/// integer) and no quotes are removed, so what is stored is exactly what
/// was given; a loader that reads padded or quoted files cleans its fields
/// first. On failure the error is a short reason, such as `not an integer`
/// or `not a date (yyyy-mm-dd)`, that generated code puts into
/// [`Error::BadField`](crate::Error::BadField).
///
/// | type | accepts |
/// |---|---|
/// | `i16`, `i32`, `i64` | decimal digits with an optional `+` or `-`, within the type's range |
/// | `bool` | `true`, `false`, `t`, `f`, `1`, `0`, in any case |
/// | `String` | anything, as it is |
/// | [`Decimal`] | `-17.25`, `3`, `+0.5` (see its `FromStr`) |
/// | [`Double`] | `-17.25`, `2.5e3`, `inf` (see its `FromStr`) |
/// | [`Date`] | `yyyy-mm-dd` |
///
/// ```
/// use ivm::sql::{Date, FromSqlText};
///
/// assert_eq!(i32::from_sql_text("-42"), Ok(-42));
/// assert_eq!(i16::from_sql_text("40000").unwrap_err(), "out of range for SMALLINT (-32768 to 32767)");
/// assert_eq!(bool::from_sql_text("T"), Ok(true));
/// assert_eq!(Date::from_sql_text("1994-02-30").unwrap_err(), "not a date: no such day in the calendar (yyyy-mm-dd)");
/// ```
pub trait FromSqlText: Sized {
    /// The value of `field`, or why it is not one.
    fn from_sql_text(field: &str) -> Result<Self, String>;
}

/// Reads one field of `insert_text`/`delete_text` as the type of column
/// `column` of `table`: what generated code calls for each field.
///
/// # Errors
///
/// [`Error::BadField`](crate::Error::BadField), naming the table, the
/// column, the field and what is wrong with it.
///
/// ```
/// use ivm::sql::{Date, read_field};
///
/// let shipped: Date = read_field("1994-01-31", "lineitem", "l_shipdate").unwrap();
/// assert_eq!(shipped, Date::from_ymd(1994, 1, 31).unwrap());
/// let err = read_field::<i32>("x", "lineitem", "l_quantity").unwrap_err();
/// assert_eq!(err.to_string(), "cannot read \"x\" as column `l_quantity` of `lineitem`: not an integer; write the field as its column's type expects");
/// ```
pub fn read_field<T: FromSqlText>(
    field: &str,
    table: &'static str,
    column: &'static str,
) -> crate::Result<T> {
    T::from_sql_text(field).map_err(|reason| crate::Error::BadField {
        table,
        column,
        value: field.to_owned(),
        reason,
    })
}

macro_rules! integer_from_sql_text {
    ($($ty:ty: $sql:literal),* $(,)?) => {$(
        impl FromSqlText for $ty {
            /// Decimal digits with an optional sign, within the range of
            /// the type.
            fn from_sql_text(field: &str) -> Result<Self, String> {
                field.parse().map_err(|err: std::num::ParseIntError| match err.kind() {
                    IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => format!(
                        "out of range for {} ({} to {})",
                        $sql,
                        <$ty>::MIN,
                        <$ty>::MAX
                    ),
                    _ => "not an integer".to_owned(),
                })
            }
        }
    )*};
}

integer_from_sql_text!(i16: "SMALLINT", i32: "INTEGER", i64: "BIGINT");

impl<T: FromSqlText> FromSqlText for Option<T> {
    /// A nullable column's field: `NULL` (in any case) is SQL's NULL
    /// (`None`), anything else is read as `T`. So in a nullable text
    /// column the text `NULL` cannot be written.
    ///
    /// ```
    /// use ivm::sql::FromSqlText;
    ///
    /// assert_eq!(Option::<i32>::from_sql_text("null"), Ok(None));
    /// assert_eq!(Option::<i32>::from_sql_text("7"), Ok(Some(7)));
    /// ```
    fn from_sql_text(field: &str) -> Result<Self, String> {
        if field.eq_ignore_ascii_case("NULL") {
            Ok(None)
        } else {
            T::from_sql_text(field).map(Some)
        }
    }
}

impl FromSqlText for bool {
    /// `true`, `false`, `t`, `f`, `1` or `0`, in any case.
    fn from_sql_text(field: &str) -> Result<Self, String> {
        let is = |word: &str| field.eq_ignore_ascii_case(word);
        if is("true") || is("t") || field == "1" {
            Ok(true)
        } else if is("false") || is("f") || field == "0" {
            Ok(false)
        } else {
            Err("not a boolean (true/false, t/f or 1/0)".to_owned())
        }
    }
}

impl FromSqlText for String {
    /// The field as it is.
    fn from_sql_text(field: &str) -> Result<Self, String> {
        Ok(field.to_owned())
    }
}

impl FromSqlText for Decimal {
    /// As [`Decimal`]'s `FromStr`.
    fn from_sql_text(field: &str) -> Result<Self, String> {
        field.parse().map_err(String::from)
    }
}

impl FromSqlText for Double {
    /// As [`Double`]'s `FromStr`.
    fn from_sql_text(field: &str) -> Result<Self, String> {
        field.parse().map_err(String::from)
    }
}

impl FromSqlText for Date {
    /// As [`Date`]'s `FromStr`: exactly `yyyy-mm-dd`.
    fn from_sql_text(field: &str) -> Result<Self, String> {
        field.parse().map_err(String::from)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// LIKE by its definition, exponential and obviously right.
    fn reference(text: &[char], pattern: &[char]) -> bool {
        match pattern.split_first() {
            None => text.is_empty(),
            Some(('%', rest)) => (0..=text.len()).any(|i| reference(&text[i..], rest)),
            Some(('_', rest)) => !text.is_empty() && reference(&text[1..], rest),
            Some((c, rest)) => text.first() == Some(c) && reference(&text[1..], rest),
        }
    }

    fn reference_like(text: &str, pattern: &str) -> bool {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        reference(&chars(text), &chars(pattern))
    }

    #[test]
    fn like_examples() {
        let cases = [
            ("", "", true),
            ("", "%", true),
            ("", "%%", true),
            ("", "_", false),
            ("a", "", false),
            ("abc", "abc", true),
            ("abc", "ABC", false),
            ("abc", "a%", true),
            ("abc", "%c", true),
            ("abc", "%b%", true),
            ("abc", "%d%", false),
            ("abc", "a_c", true),
            ("abc", "a__", true),
            ("abc", "a___", false),
            ("abc", "____", false),
            ("aaab", "%ab", true),
            ("abab", "%ab", true),
            ("abac", "%ab", false),
            ("mississippi", "%iss%ppi", true),
            ("mississippi", "%iss%ipi", false),
            ("café", "caf_", true),
            ("café", "caf__", false),
            ("日本語", "_本%", true),
            ("日本語", "%語", true),
            ("é", "è", false),
            ("éa", "%a", true),
            ("50%", "50%", true),
            ("50_", "50_", true),
            ("special requests", "%special%requests%", true),
        ];
        for (text, pattern, expected) in cases {
            assert_eq!(like(text, pattern), expected, "{text:?} LIKE {pattern:?}");
            assert_eq!(
                reference_like(text, pattern),
                expected,
                "{text:?} LIKE {pattern:?}"
            );
        }
    }

    #[test]
    fn like_does_not_backtrack_exponentially() {
        let text = "a".repeat(20_000);
        assert!(!like(&text, "%a%a%a%a%a%a%a%a%a%a%b"));
        assert!(like(&text, "%a%a%a%a%a%a%a%a%a%a%"));
        assert!(!like(&text, &format!("{}b", "%a".repeat(50))));
    }

    fn word(alphabet: &'static [char], max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(alphabet), 0..max)
            .prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn like_agrees_with_the_reference(
            text in word(&['a', 'b', 'é', '日', '%', '_'], 12),
            pattern in word(&['a', 'b', 'é', '日', '%', '_'], 8),
        ) {
            prop_assert_eq!(like(&text, &pattern), reference_like(&text, &pattern));
        }

        #[test]
        fn a_text_matches_itself_and_its_wildcards(text in "\\PC{0,12}") {
            prop_assert!(like(&text, "%"));
            let escaped_free = !text.contains(['%', '_']);
            if escaped_free {
                prop_assert!(like(&text, &text));
            }
            let blanks: String = text.chars().map(|_| '_').collect();
            prop_assert!(like(&text, &blanks));
            let one_more = format!("{blanks}_");
            prop_assert!(!like(&text, &one_more));
        }
    }

    #[test]
    fn integers() {
        assert_eq!(i16::from_sql_text("-32768"), Ok(i16::MIN));
        assert_eq!(i16::from_sql_text("+32767"), Ok(i16::MAX));
        assert_eq!(i32::from_sql_text("007"), Ok(7));
        assert_eq!(i64::from_sql_text("-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(
            i16::from_sql_text("-32769"),
            Err("out of range for SMALLINT (-32768 to 32767)".to_owned())
        );
        assert_eq!(
            i32::from_sql_text("2147483648"),
            Err("out of range for INTEGER (-2147483648 to 2147483647)".to_owned())
        );
        assert_eq!(
            i64::from_sql_text("9223372036854775808"),
            Err("out of range for BIGINT (-9223372036854775808 to 9223372036854775807)".to_owned())
        );
        for bad in [
            "", "-", "+", " 1", "1 ", "1.0", "1e3", "0x10", "one", "--1", "1_000",
        ] {
            assert_eq!(
                i32::from_sql_text(bad),
                Err("not an integer".to_owned()),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn booleans() {
        for yes in ["true", "TRUE", "True", "t", "T", "1"] {
            assert_eq!(bool::from_sql_text(yes), Ok(true), "{yes}");
        }
        for no in ["false", "FALSE", "f", "F", "0"] {
            assert_eq!(bool::from_sql_text(no), Ok(false), "{no}");
        }
        for bad in ["", "yes", "tru", " true", "2", "01"] {
            assert_eq!(
                bool::from_sql_text(bad),
                Err("not a boolean (true/false, t/f or 1/0)".to_owned()),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn strings_decimals_doubles_and_dates() {
        assert_eq!(
            String::from_sql_text(" as is, \"quoted\" "),
            Ok(" as is, \"quoted\" ".to_owned())
        );
        assert_eq!(Decimal::from_sql_text("-17.25"), Ok(Decimal::new(-1725, 2)));
        assert_eq!(
            Decimal::from_sql_text("1.2.3"),
            Err("not a decimal number (such as -17.25)".to_owned())
        );
        assert_eq!(Double::from_sql_text("2.5e3"), Ok(Double(2500.0)));
        assert!(Double::from_sql_text("NaN").is_err());
        assert_eq!(Date::from_sql_text("1994-01-01"), Ok(Date::from_days(8766)));
        assert_eq!(
            Date::from_sql_text("1994-1-1"),
            Err("not a date (yyyy-mm-dd)".to_owned())
        );
    }
}

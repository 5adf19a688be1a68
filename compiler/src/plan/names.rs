//! Rust names derived from query names.

use crate::ir::Draft;

/// `snake_case` of a relation or query name: `LineItems` → `line_items`,
/// `R1` → `r1`, `TPCH_Orders` → `tpch_orders`.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                Some('_') => false,
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(char::is_lowercase),
                _ => false,
            };
            if boundary {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A field name not used by any map of `p` yet: `base`, or `base_2`, ...
pub fn fresh_name(p: &Draft, taken: &[String], base: &str) -> String {
    let used = |s: &str| p.maps.iter().any(|m| m.name == s) || taken.iter().any(|t| t == s);
    crate::syntax::names::unused(base, used)
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn snake() {
        assert_eq!(snake_case("LineItems"), "line_items");
        assert_eq!(snake_case("R"), "r");
        assert_eq!(snake_case("R1"), "r1");
        assert_eq!(snake_case("TPCHOrders"), "tpch_orders");
        assert_eq!(snake_case("Edge"), "edge");
        assert_eq!(snake_case("already_snake"), "already_snake");
    }
}

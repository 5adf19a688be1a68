//! A small seeded random number generator, so that a seed names the same
//! queries and streams on every machine and with every dependency version.

/// SplitMix64 (Steele, Lea and Flood, *Fast splittable pseudorandom number
/// generators*, OOPSLA 2014): one 64-bit state, a good spread from any
/// seed, and nothing to depend on.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.state)
    }

    /// A number in `0..n`; `n` must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "an empty range");
        // Lemire's multiply-shift: unbiased enough for a fuzzer.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// An index in `0..n`; `n` must be positive.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi, "an empty range");
        lo + self.below((hi - lo) as u64 + 1) as i64
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p && p > 0.0
    }

    /// One of `items`, uniformly; `items` must not be empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// An index drawn with the given weights (not all zero).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < u64::from(w) {
                return i;
            }
            x -= u64::from(w);
        }
        unreachable!("x < total")
    }
}

/// The seed of the `n`-th child of `seed`: query `n` of a run, episode `n`
/// of a query. Children of one seed, and of different seeds, do not
/// collide in practice.
pub fn derive(seed: u64, n: u64) -> u64 {
    mix(seed ^ mix(n.wrapping_add(0x632b_e59b_d9b4_e019)))
}

/// SplitMix64's finalizer.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_numbers() {
        let a: Vec<u64> = (0..5).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut r = Rng::new(7);
        let b: Vec<u64> = (0..5).map(|_| r.next_u64()).collect();
        assert_ne!(b[0], b[1]);
    }

    #[test]
    fn ranges_are_respected_and_covered() {
        let mut r = Rng::new(1);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let x = r.range(-2, 2);
            assert!((-2..=2).contains(&x));
            seen[(x + 2) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert!(!r.chance(0.0));
        assert!(r.chance(1.0));
        assert_eq!(r.weighted(&[0, 3, 0]), 1);
        assert_ne!(derive(1, 0), derive(1, 1));
        assert_ne!(derive(1, 0), derive(2, 0));
    }
}

//! SplitMix64, the project's one random generator: small and seeded, so that
//! bootstrap intervals, significance tests, randomized tests and synthetic dumps
//! are reproducible.

/// SplitMix64: a small, fixed-seed generator so that intervals (and randomized
/// tests, and synthetic dumps) are reproducible.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
    /// A number in `0..n` (`n` small: the modulo bias is below 2^-40).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// SplitMix64's finaliser: a bijection of `u64` that spreads nearby values
/// evenly over all 64 bits.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

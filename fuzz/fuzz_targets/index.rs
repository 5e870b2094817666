//! AFL++ target: see `check_index` for what is checked; seeded by
//! `scripts/fuzz-seeds.py` with a few damages of each sameAs file.

fn main() {
    afl::fuzz!(|data: &[u8]| qajudge_fuzz::check_index(data));
}

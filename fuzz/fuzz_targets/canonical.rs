//! AFL++ target: see `check_canonical` for what is checked; seeded by
//! `scripts/fuzz.sh` with the real files of `../shared/data`.

fn main() {
    afl::fuzz!(|data: &[u8]| qajudge_fuzz::check_canonical(data));
}
